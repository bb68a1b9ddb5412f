/* snafu trace -o FILE.html: the timeline as one self-contained page (see trace.c). */
#include "writers.h"

#include "../ref/kernel.h"
#include "../ref/report.h"
#include "../sim/trace.h"
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ROWS  1000 /* the last rows of a longer run, as the report's table does */
#define GUT       56   /* the op.point column */
#define LANE_W    400
#define HEAD_H    48
#define ROW_H     20
#define BAR_W     7
#define BAR_GAP   9
#define CHAR_W    6.7 /* 11px monospace */
#define LABEL_MAX 50

static void html_str(FILE *f, const char *s)
{
	static const char *const entity[256] = {
	    ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
	};

	for (; s && *s; s++) {
		const char *e = entity[(unsigned char)*s];
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

/* Rows: the events the report's table shows, the last MAX_ROWS of them. */
struct rows {
	int *row_of; /* for every event: its row, or the row of the next shown event */
	bool *shown;
	int first; /* the first event with a row */
	int nrows, skipped;
	int top, bottom; /* y of the first row's top; y below the last row (and open bars) */
	int text_x;      /* where the labels start in a lane */
};

static int lane_x(int task)
{
	return GUT + (task - 1) * LANE_W;
}

/* Where event i is in the picture: the middle of its row, or between two rows. */
static double row_y(const struct rows *rw, int n, int i)
{
	if (i >= n)
		return rw->bottom;
	if (i < rw->first)
		return rw->top;
	if (rw->shown[i])
		return rw->top + rw->row_of[i] * ROW_H + ROW_H / 2.0;
	return rw->top + rw->row_of[i] * ROW_H;
}

static void svg_defs(FILE *f)
{
	fputs(
	    "<defs>\n"
	    "<pattern id=\"hatch-rwsem\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff1dc\"/>"
	    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e07b00\" stroke-width=\"3\"/>"
	    "</pattern>\n"
	    "<pattern id=\"hatch-spin\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f3e8fb\"/>"
	    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8e44ad\" stroke-width=\"3\"/>"
	    "</pattern>\n"
	    "<pattern id=\"hatch-sleep\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f2f2f2\"/>"
	    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#9a9a9a\" stroke-width=\"2\"/>"
	    "</pattern>\n"
	    "<marker id=\"arrow-red\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
	    "markerWidth=\"7\" "
	    "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
	    "fill=\"red\"/></marker>\n"
	    "<pattern id=\"hatch-lost\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fdeaea\"/>"
	    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#e8a0a0\" stroke-width=\"2\"/>"
	    "</pattern>\n"
	    "<marker id=\"x-red\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"9\" "
	    "markerHeight=\"9\" orient=\"auto\"><path d=\"M1,1 L9,9 M9,1 L1,9\" stroke=\"red\" "
	    "stroke-width=\"2\"/></marker>\n"
	    "<marker id=\"arrow-gray\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
	    "markerWidth=\"6\" "
	    "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
	    "fill=\"#777\"/></marker>\n"
	    "</defs>\n",
	    f);
}

static const char *wait_fill(const struct span *sp)
{
	return !strcmp(sp->fn, "spin_lock")    ? "url(#hatch-spin)"
	       : !strcmp(sp->fn, "futex_wait") ? "url(#hatch-sleep)"
					       : "url(#hatch-rwsem)";
}

/* A bar beside a lane: column 0 for waits, 1.. for the holds' slots. */
static void svg_bar(FILE *f, const struct timeline *m, const struct rows *rw, const struct span *sp)
{
	double y0 = row_y(rw, m->n, sp->start),
	       y1 = sp->open ? rw->bottom : row_y(rw, m->n, sp->end);
	int col = sp->kind == SPAN_WAIT ? 0 : 1 + sp->slot;
	int x = lane_x(sp->task) + 4 + col * BAR_GAP;

	if (y1 - y0 < 2)
		return; /* taken and dropped between two rows: the table does not show it */
	if (sp->kind == SPAN_HOLD)
		fprintf(f,
			"<rect class=\"hold hold-%s\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
			"height=\"%.1f\">",
			timeline_hold_mode(sp), x, y0, BAR_W, y1 - y0);
	else
		fprintf(f,
			"<rect class=\"wait\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
			"fill=\"%s\">",
			x, y0, BAR_W, y1 - y0, wait_fill(sp));
	fprintf(f, "<title>%s ", timeline_task(sp->task)->comm);
	if (sp->kind == SPAN_HOLD) {
		fputs("holds ", f);
		html_str(f, sp->obj);
		fprintf(f, " (%s)", timeline_hold_mode(sp));
	} else {
		fprintf(f, "%s in %s", !strcmp(sp->fn, "spin_lock") ? "spins" : "sleeps", sp->fn);
		if (sp->obj) {
			fputs("(", f);
			html_str(f, sp->obj);
			fputs(")", f);
		}
	}
	fprintf(f, "%s</title></rect>\n", sp->open ? " when the run ended" : "");
}

/* The last row of a task: where its lane ends, and where a blocked task stands. */
static int last_row(const struct timeline *m, const struct rows *rw, int task)
{
	for (int i = m->n - 1; i >= rw->first; i--)
		if (m->ev[i].task == task && rw->shown[i])
			return i;
	return -1;
}

static void svg_cycle(FILE *f, const struct timeline *m, const struct rows *rw)
{
	char what[200];

	fputs("<g id=\"cycle\">\n", f);
	for (int c = 0; c < m->ncycle; c++) {
		int a = m->cycle[c], b = m->cycle[(c + 1) % m->ncycle];
		int ia = last_row(m, rw, a), ib = last_row(m, rw, b);
		double ya = (ia < 0 ? rw->top : row_y(rw, m->n, ia)) + 7;
		double yb = (ib < 0 ? rw->top : row_y(rw, m->n, ib)) + 8;
		int xa = lane_x(a) + rw->text_x + 10, xb = lane_x(b) + rw->text_x + 26;
		int ybus = rw->bottom + 30 + c * 30;

		snprintf(what, sizeof(what), "%s waits for %s in %s(%s)", timeline_task(a)->comm,
			 timeline_task(b)->comm, m->cycle_fn[c], m->cycle_lock[c]);
		fprintf(
		    f,
		    "<circle class=\"cycle-node\" cx=\"%d\" cy=\"%.1f\" r=\"3\" fill=\"red\"/>\n",
		    xa, ya);
		fprintf(f, "<path class=\"cycle-edge\" data-lock=\"");
		html_str(f, m->cycle_lock[c]);
		fprintf(f,
			"\" d=\"M%d,%.1f V%d H%d V%.1f\" fill=\"none\" stroke=\"red\" "
			"stroke-width=\"2\" marker-end=\"url(#arrow-red)\"><title>",
			xa, ya, ybus, xb, yb);
		html_str(f, what);
		fputs("</title></path>\n", f);
		fprintf(f,
			"<text class=\"cycle-label\" x=\"%d\" y=\"%d\" fill=\"red\" "
			"text-anchor=\"middle\">",
			(xa + xb) / 2, ybus - 6);
		html_str(f, what);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

/* ---- the finding's marks (timeline.h, struct marks) ---- */

/* x where a task's labels start, and the arrows' column just before it */
static int text_x(const struct rows *rw, int task)
{
	return lane_x(task) + rw->text_x;
}

static int arrow_x(const struct rows *rw, int task)
{
	return text_x(rw, task) - 4;
}

static void mark_title(FILE *f, const char *what)
{
	fputs("<title>", f);
	html_str(f, what);
	fputs("</title>", f);
}

/* A point of interest on a task's lane: a red circle with a title. */
static void mark_dot(FILE *f, const struct timeline *m, const struct rows *rw, const char *cls,
		     int task, int ev, const char *what)
{
	if (ev < rw->first)
		return;
	fprintf(f,
		"<circle class=\"%s\" cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"red\" "
		"stroke-width=\"2\">",
		cls, arrow_x(rw, task), row_y(rw, m->n, ev));
	mark_title(f, what);
	fputs("</circle>\n", f);
}

static void mark_label(FILE *f, const char *cls, double x, double y, const char *anchor,
		       const char *text)
{
	fprintf(f, "<text class=\"mark-label %s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls,
		x, y, anchor);
	html_str(f, text);
	fputs("</text>\n", f);
}

/* An arrow between two places: solid or dashed, ending in an arrowhead or a cross. */
static void mark_edge(FILE *f, const char *cls, double x0, double y0, double x1, double y1,
		      bool dashed, bool cross, const char *what)
{
	fprintf(
	    f,
	    "<path class=\"%s\" d=\"M%.1f,%.1f L%.1f,%.1f\" stroke=\"red\" stroke-width=\"2\"%s "
	    "fill=\"none\" marker-end=\"url(#%s)\">",
	    cls, x0, y0, x1, y1, dashed ? " stroke-dasharray=\"5 3\"" : "",
	    cross ? "x-red" : "arrow-red");
	mark_title(f, what);
	fputs("</path>\n", f);
}

static const char *comm(int task)
{
	return timeline_task(task)->comm;
}

static void svg_lost(FILE *f, const struct timeline *m, const struct rows *rw)
{
	const struct marks *k = &m->mk;
	const struct fo_lost_view *v = &k->lost;
	int w = v->wake.task, s = v->sleeper_slept.task, a = v->spent_read.task;
	char buf[320];

	/* the sleeper: asleep from its sleep to the end of the run */
	if (k->sleeper_slept >= 0) {
		double y0 = row_y(rw, m->n, k->sleeper_slept) - ROW_H / 2.0;
		snprintf(buf, sizeof(buf),
			 "%s still asleep in futex_wait(0x%lx, val %d) since %u.%u, to the end of "
			 "the run: its wake-up was lost",
			 comm(s), v->uaddr, v->sleeper_val, v->sleeper_slept.op,
			 v->sleeper_slept.point);
		fprintf(
		    f,
		    "<rect class=\"lost-sleeper\" data-task=\"%d\" x=\"%d\" y=\"%.1f\" "
		    "width=\"%d\" height=\"%.1f\" fill=\"url(#hatch-lost)\" fill-opacity=\"0.6\" "
		    "stroke=\"red\" stroke-dasharray=\"6 3\">",
		    s, arrow_x(rw, s) - 6, y0, lane_x(s) + LANE_W - 6 - (arrow_x(rw, s) - 6),
		    rw->bottom - y0);
		mark_title(f, buf);
		fputs("</rect>\n", f);
		/* the sleeper has no rows after its sleep: its lane is free below it, but
		 * for the label of the wake that passed it over or missed it */
		double yl = y0 + 1.5 * ROW_H + 4;
		double yw = k->wake >= rw->first ? row_y(rw, m->n, k->wake) + 4 : -1000;
		if (yw - yl < 1.5 * ROW_H && yl - yw < 1.5 * ROW_H)
			yl = yw + 1.5 * ROW_H;
		mark_label(f, "lost-label", text_x(rw, s) + 6, yl, "start",
			   "still asleep: wake-up lost");
		snprintf(buf, sizeof(buf), "(since %u.%u, to the end of the run)",
			 v->sleeper_slept.op, v->sleeper_slept.point);
		mark_label(f, "lost-label", text_x(rw, s) + 6, yl + ROW_H - 6, "start", buf);
	}
	/* where the sleeper read its val: it waits from there */
	snprintf(buf, sizeof(buf), "%s read %u, its val, at %u.%u: waiting from here", comm(s),
		 v->sleeper_curval, v->sleeper_read.op, v->sleeper_read.point);
	if (k->sleeper_read >= 0)
		mark_dot(f, m, rw, "sleeper-read", s, k->sleeper_read, buf);
	if (k->wake < rw->first)
		return;
	double xw = arrow_x(rw, w), yw = row_y(rw, m->n, k->wake);
	snprintf(buf, sizeof(buf), "%s's %s(0x%lx) at %u.%u, which may wake %d: returned %ld",
		 comm(w), v->call, v->uaddr, v->wake.op, v->wake.point, v->budget, v->ret);
	mark_dot(f, m, rw, "lost-wake-call", w, k->wake, buf);
	if (v->missed) {
		/* the wake found nobody: the sleeper had read but not queued yet */
		snprintf(buf, sizeof(buf),
			 "%s woke nobody: %s had read %u at %u.%u and was not queued yet; the word "
			 "now held %u",
			 v->call, comm(s), v->sleeper_curval, v->sleeper_read.op,
			 v->sleeper_read.point, v->word_at_wake);
		mark_edge(f, "missed-wake", xw, yw, arrow_x(rw, s), yw, true, true, buf);
		mark_label(f, "missed-label", arrow_x(rw, s) + 10, yw + 4, "start",
			   "woke nobody: missed");
		if (k->sleeper_queued >= 0) {
			double yq = row_y(rw, m->n, k->sleeper_queued);
			snprintf(buf, sizeof(buf),
				 "%s queued only at %u.%u, after the wake (%u.%u)", comm(s),
				 v->sleeper_queued.op, v->sleeper_queued.point, v->wake.op,
				 v->wake.point);
			mark_dot(f, m, rw, "late-queue", s, k->sleeper_queued, buf);
			mark_edge(f, "late-queue-edge", arrow_x(rw, s), yw + 6, arrow_x(rw, s),
				  yq - 5, true, false, buf);
			mark_label(f, "late-queue-label", lane_x(s) + LANE_W - 12, yq + 4, "end",
				   "queued after the wake");
		}
		return;
	}
	/* absorbed: the wake-up went to a waiter that never waited ... */
	if (k->spent >= rw->first) {
		snprintf(buf, sizeof(buf),
			 "%s spent its wake-up on %s, which read %u, not its val %d, at %u.%u: it "
			 "was never to sleep",
			 v->call, comm(a), v->spent_curval, v->spent_val, v->spent_read.op,
			 v->spent_read.point);
		double xa = arrow_x(rw, a), ya = row_y(rw, m->n, k->spent);
		mark_edge(f, "lost-wake", xw, yw, xa, ya, false, false, buf);
		snprintf(buf, sizeof(buf), "wake-up spent on %s", comm(a));
		mark_label(f, "lost-wake-label", xa - 8, ya - 6, "end", buf);
	}
	if (k->spent_read >= 0) {
		snprintf(buf, sizeof(buf), "%s read %u, not its val %d, at %u.%u: it never waited",
			 comm(a), v->spent_curval, v->spent_val, v->spent_read.op,
			 v->spent_read.point);
		mark_dot(f, m, rw, "spent-read", a, k->spent_read, buf);
	}
	/* ... and passed over the sleeper, queued and waiting */
	snprintf(buf, sizeof(buf),
		 "passed over %s: queued at %u.%u, waiting since its read at %u.%u, asleep since "
		 "%u.%u",
		 comm(s), v->sleeper_queued.op, v->sleeper_queued.point, v->sleeper_read.op,
		 v->sleeper_read.point, v->sleeper_slept.op, v->sleeper_slept.point);
	mark_edge(f, "passed-over", xw, yw, arrow_x(rw, s), yw, true, true, buf);
	snprintf(buf, sizeof(buf), "passed over %s", comm(s));
	mark_label(f, "passed-label", arrow_x(rw, s) + 10, yw + 4, "start", buf);
}

static void svg_wrong_result(FILE *f, const struct timeline *m, const struct rows *rw)
{
	const struct marks *k = &m->mk;
	const struct fo_eagain_view *v = &k->eagain;
	int t = v->call.task;
	char buf[320];

	if (k->eagain_at < rw->first)
		return;
	double ye = row_y(rw, m->n, k->eagain_at);
	if (k->call_span >= 0) {
		const struct span *sp = &m->spans[k->call_span];
		double y0 = row_y(rw, m->n, sp->start) - ROW_H / 2.0,
		       y1 = (sp->open ? rw->bottom : row_y(rw, m->n, sp->end)) + ROW_H / 2.0;
		snprintf(
		    buf, sizeof(buf),
		    "%s's FUTEX_CMP_REQUEUE(0x%lx, val %d) returned -EAGAIN, yet it read %u and "
		    "the word held %u when it returned",
		    comm(t), v->uaddr, v->val, v->curval, v->now);
		fprintf(
		    f,
		    "<rect class=\"wrong-call\" data-task=\"%d\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
		    "height=\"%.1f\" fill=\"red\" fill-opacity=\"0.06\" stroke=\"red\" "
		    "stroke-width=\"2\">",
		    t, lane_x(t) + 2, y0, LANE_W - 8, y1 - y0);
		mark_title(f, buf);
		fputs("</rect>\n", f);
		snprintf(buf, sizeof(buf), "wrong -EAGAIN: the word held val %d throughout",
			 v->val);
		mark_label(f, "wrong-label", lane_x(t) + LANE_W - 12, y1 - 5, "end", buf);
	}
	snprintf(buf, sizeof(buf),
		 "%s found nqueued moved (%u -> %u) at %u.%u and chose -EAGAIN, though *uaddr1 == "
		 "val",
		 comm(t), v->then_nq, v->now_nq, v->call.op, v->call.point);
	mark_dot(f, m, rw, "eagain-point", t, k->eagain_at, buf);
	for (int i = 0; i < v->nqueuers; i++) {
		int q = v->queuers[i].task;
		if (k->queuer[i] < rw->first)
			continue;
		snprintf(buf, sizeof(buf),
			 "%s's queue_me() at %u.%u (futex_wait(0x%lx)) moved the bucket's nqueued "
			 "during the call",
			 comm(q), v->queuers[i].op, v->queuers[i].point, v->queuer_uaddr[i]);
		mark_dot(f, m, rw, "queue-me", q, k->queuer[i], buf);
		double yq = row_y(rw, m->n, k->queuer[i]);
		if (q != t)
			mark_edge(f, "nqueued-edge", arrow_x(rw, q), yq, arrow_x(rw, t) + 6, ye,
				  false, false, buf);
		mark_label(f, "queue-label", lane_x(q) + LANE_W - 12, yq + 4, "end",
			   "queue_me(): nqueued +1");
	}
}

static void svg_lockdep(FILE *f, const struct timeline *m, const struct rows *rw)
{
	const struct marks *k = &m->mk;
	const struct lockdep_prediction *p = &k->pred;
	char buf[320];

	if (k->acquire < rw->first)
		return;
	double ya = row_y(rw, m->n, k->acquire);
	snprintf(buf, sizeof(buf),
		 "lockdep: %s: %s tries to acquire %s at %u.%u (scheduling point %llu)", p->title,
		 comm(p->task), p->locks[1], p->op, p->point, (unsigned long long)p->step);
	mark_dot(f, m, rw, "lockdep-acquire", p->task, k->acquire, buf);
	mark_label(f, "lockdep-label", lane_x(p->task) + LANE_W - 12, ya + 4, "end",
		   p->circular ? "lockdep: circular dependency" : "lockdep: recursive locking");
	if (k->held_span < 0 || m->spans[k->held_span].start < rw->first)
		return;
	const struct span *h = &m->spans[k->held_span];
	const struct sim_trace_ev *e = &m->ev[h->start];
	int x = lane_x(h->task) + 4 + (1 + h->slot) * BAR_GAP;
	double y0 = row_y(rw, m->n, h->start);
	snprintf(buf, sizeof(buf), "held: %s (%s), taken by %s at %s, %u.%u", p->locks[0],
		 timeline_hold_mode(h), h->fn, p->held_site, e->op, e->point);
	fprintf(f,
		"<rect class=\"lockdep-held\" data-task=\"%d\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
		"height=\"%.1f\" fill=\"none\" stroke=\"red\" stroke-width=\"2\">",
		h->task, x - 2, y0 - 2, BAR_W + 4, ya - y0 + 4);
	mark_title(f, buf);
	fputs("</rect>\n", f);
	mark_edge(f, "lockdep-held-edge", arrow_x(rw, p->task), ya - 5, x + BAR_W + 3, y0 + 3, true,
		  false, buf);
	snprintf(buf, sizeof(buf), "held since %s", p->held_site);
	mark_label(f, "lockdep-label", lane_x(h->task) + LANE_W - 12, y0 + 4, "end", buf);
}

static void svg_marks(FILE *f, const struct timeline *m, const struct rows *rw)
{
	static const char *const kind[] = {
	    [MARK_LOST_WAKEUP] = "lost-wakeup",
	    [MARK_WRONG_RESULT] = "wrong-result",
	    [MARK_LOCKDEP] = "lockdep",
	};

	if (m->mk.kind == MARK_NONE)
		return;
	fprintf(f, "<g id=\"marks\" data-kind=\"%s\"%s>\n", kind[m->mk.kind],
		m->mk.kind == MARK_LOST_WAKEUP
		    ? (m->mk.lost.missed ? " data-how=\"missed\"" : " data-how=\"absorbed\"")
		    : "");
	if (m->mk.kind == MARK_LOST_WAKEUP)
		svg_lost(f, m, rw);
	else if (m->mk.kind == MARK_WRONG_RESULT)
		svg_wrong_result(f, m, rw);
	else
		svg_lockdep(f, m, rw);
	fputs("</g>\n", f);
}

/* What the marks mean, one line under the legend. */
static const char *marks_legend(const struct timeline *m)
{
	switch (m->mk.kind) {
	case MARK_LOST_WAKEUP:
		return m->mk.lost.missed
			   ? "red: the wake that found nobody (x), the sleeper queuing after it, "
			     "asleep to the end of the run"
			   : "red: the wake-up spent on a waiter that never waited, the sleeper "
			     "passed over (x), asleep to the end";
	case MARK_WRONG_RESULT:
		return "red: the FUTEX_CMP_REQUEUE whose -EAGAIN is wrong, the queue_me() that "
		       "moved "
		       "nqueued";
	case MARK_LOCKDEP:
		return "red: the acquisition lockdep reported, and the held lock since it was "
		       "taken";
	case MARK_NONE:
		break;
	}
	return NULL;
}

static void svg_legend(FILE *f, int y)
{
	static const struct {
		const char *fill, *text;
	} items[] = {
	    {"#1f4e9c", "rwsem held for write"}, {"#6fa8e8", "held for read"},
	    {"#2e8b57", "spinlock held"},        {"url(#hatch-rwsem)", "sleeps for an rwsem (D)"},
	    {"url(#hatch-spin)", "spins"},       {"url(#hatch-sleep)", "sleeps in futex_wait (S)"},
	};
	int x = 8;

	fputs("<g id=\"legend\">\n", f);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\" "
			"stroke=\"#999\" stroke-width=\"0.5\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y, BAR_W + 3, items[i].fill, x + BAR_W + 8, y + 11, items[i].text);
		x += BAR_W + 16 + (int)(strlen(items[i].text) * CHAR_W);
	}
	fputs("</g>\n", f);
}

static void write_svg(FILE *f, const struct timeline *m, struct rows *rw)
{
	char buf[200];
	int maxslots = 1;

	for (int t = 1; t <= m->ntasks; t++)
		if (m->nslots[t] > maxslots)
			maxslots = m->nslots[t];
	rw->text_x = 4 + (maxslots + 1) * BAR_GAP + 6;
	rw->top = HEAD_H + (rw->skipped ? ROW_H : 4);
	rw->bottom = rw->top + rw->nrows * ROW_H + 14;
	if (m->mk.kind == MARK_LOST_WAKEUP)
		rw->bottom += 3 * ROW_H; /* room for the sleep that goes on to the end */
	int height = rw->bottom + 30 + m->ncycle * 30 + 30 + (marks_legend(m) ? 20 : 0);
	int width = GUT + m->ntasks * LANE_W + 8;

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"interleaving\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		width, height, width, height);
	svg_defs(f);
	fputs("<style>text{font:11px monospace;fill:#222}.lane-title{font:bold 13px monospace}"
	      ".lane-state{fill:#555}.rownum{fill:#999}.cycle-label{fill:red;font-weight:bold}"
	      ".hold-write{fill:#1f4e9c}.hold-read{fill:#6fa8e8}.hold-spin{fill:#2e8b57}"
	      ".wait{stroke:#999;stroke-width:0.5}"
	      ".mark-label{fill:red;font-weight:bold;paint-order:stroke;stroke:#fff;"
	      "stroke-width:3px}</style>\n",
	      f);

	/* the lanes, one per task */
	for (int t = 1; t <= m->ntasks; t++) {
		struct task_struct *ts = timeline_task(t);
		int x = lane_x(t);
		fprintf(f, "<g class=\"lane\" id=\"lane-%s\" data-task=\"%d\">\n", ts->comm, t);
		fprintf(f,
			"<rect class=\"lane-bg\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" "
			"fill=\"%s\" stroke=\"#c8d0dc\"/>\n",
			x, LANE_W - 4, rw->bottom, t % 2 ? "#e8f0fc" : "#eef6e6");
		fprintf(f, "<text class=\"lane-title\" x=\"%d\" y=\"18\">%s (pid %d)</text>\n",
			x + 6, ts->comm, ts->pid);
		if (ts->sim.state == SIM_BLOCKED && ts->blocked_on)
			snprintf(buf, sizeof(buf), "blocked in %s(%s)", ts->blocked_fn,
				 ts->blocked_name ? ts->blocked_name : "");
		else if (ts->sim.state == SIM_DONE)
			snprintf(buf, sizeof(buf), "ran to the end");
		else
			snprintf(buf, sizeof(buf), "runnable");
		fprintf(f, "<text class=\"lane-state\" x=\"%d\" y=\"36\">", x + 6);
		html_str(f, buf);
		fputs("</text>\n</g>\n", f);
	}
	if (rw->skipped)
		fprintf(f, "<text x=\"%d\" y=\"%d\">(%d earlier events not shown)</text>\n",
			GUT + 6, HEAD_H + 14, rw->skipped);

	/* the rows: op.point in the margin, the table's cell in the task's lane */
	fputs("<g id=\"rows\">\n", f);
	for (int i = rw->first; i < m->n; i++) {
		const struct sim_trace_ev *e = &m->ev[i];
		int indent;
		if (!rw->shown[i] || !timeline_label(e, buf, sizeof(buf), &indent))
			continue;
		double y = row_y(rw, m->n, i) + 4;
		fprintf(f, "<text class=\"rownum\" x=\"4\" y=\"%.1f\">%u.%u</text>", y, e->op,
			e->point);
		fprintf(f, "<text class=\"ev ev-%s\" x=\"%.1f\" y=\"%.1f\">",
			sim_event_name(e->kind), lane_x(e->task) + rw->text_x + indent * CHAR_W / 2,
			y);
		if (strlen(buf) > LABEL_MAX) {
			fprintf(f, "<title>");
			html_str(f, buf);
			fprintf(f, "</title>");
			strcpy(buf + LABEL_MAX - 3, "...");
		}
		html_str(f, buf);
		fputs("</text>\n", f);
	}
	fputs("</g>\n<g id=\"bars\">\n", f);
	for (int s = 0; s < m->nspans; s++)
		if (m->spans[s].kind != SPAN_SYSCALL)
			svg_bar(f, m, rw, &m->spans[s]);
	fputs("</g>\n<g id=\"wakes\">\n", f);
	for (int i = 0; i < m->nflows; i++) {
		const struct flow *fl = &m->flows[i];
		if (!fl->wake || fl->to < 0 || fl->from < rw->first)
			continue;
		fprintf(f,
			"<path class=\"wake-edge\" d=\"M%d,%.1f L%d,%.1f\" stroke=\"#777\" "
			"stroke-dasharray=\"4 3\" fill=\"none\" marker-end=\"url(#arrow-gray)\">"
			"<title>%s wakes %s</title></path>\n",
			lane_x(fl->from_task) + rw->text_x - 4, row_y(rw, m->n, fl->from),
			lane_x(fl->to_task) + rw->text_x - 4, row_y(rw, m->n, fl->to),
			timeline_task(fl->from_task)->comm, timeline_task(fl->to_task)->comm);
	}
	fputs("</g>\n", f);
	if (m->ncycle)
		svg_cycle(f, m, rw);
	svg_marks(f, m, rw);
	svg_legend(f, height - 24 - (marks_legend(m) ? 20 : 0));
	if (marks_legend(m)) {
		fprintf(f, "<text id=\"marks-legend\" x=\"8\" y=\"%d\" fill=\"red\">", height - 9);
		html_str(f, marks_legend(m));
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

void trace_write_html(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r)
{
	struct rows rw = {0};
	int total = 0;

	rw.row_of = calloc((size_t)m->n + 1, sizeof(int));
	rw.shown = calloc((size_t)m->n + 1, sizeof(bool));
	if (!rw.row_of || !rw.shown)
		abort();
	for (int i = 0; i < m->n; i++) {
		char buf[160];
		rw.shown[i] = timeline_label(&m->ev[i], buf, sizeof(buf), NULL);
		total += rw.shown[i];
	}
	rw.skipped = m->dropped;
	if (total > MAX_ROWS) {
		int seen = 0;
		while (seen < total - MAX_ROWS)
			seen += rw.shown[rw.first++];
		rw.skipped += seen;
	}
	for (int i = rw.first; i < m->n; i++) {
		rw.row_of[i] = rw.nrows;
		rw.nrows += rw.shown[i];
	}

	bool found = r->result != SIM_OK && finding.found;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	html_str(f, found ? finding.title : r->verdict);
	fputs(" - snafu trace</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:12px;color:#222}\n"
	      "h1{font-size:18px;margin:0 0 4px 0}\n"
	      "p.meta{font-size:13px;margin:0 0 10px 0;color:#444}\n"
	      ".cols{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}\n"
	      "pre{font-size:12px;margin:0;padding:8px;background:#f7f7f7;border:1px solid #ddd}\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      f);
	html_str(f, found ? finding.title : "no finding");
	fputs("</h1>\n<p class=\"meta\">", f);
	html_str(f, path);
	fputs(" on kernel ", f);
	html_str(f, k->name);
	fputs(": <b>", f);
	html_str(f, r->verdict);
	fputs("</b>. One row per event, in the order they happened (virtual time stands still "
	      "between scheduling points); solid bars: locks held; hatched: waiting; "
	      "dashed gray: wake-ups",
	      f);
	fputs(m->ncycle                 ? "; red: the wait-for cycle.</p>\n"
	      : m->mk.kind != MARK_NONE ? "; red: the finding, from the oracle's records (hover "
					  "for the details).</p>\n"
					: ".</p>\n",
	      f);
	fputs("<div class=\"cols\">\n", f);
	write_svg(f, m, &rw);
	fputs("<pre id=\"report\">", f);
	if (found) {
		html_str(f, finding.title);
		fprintf(f, "\nkernel %s, virtual time %llu, %llu scheduling points\n\n", k->name,
			(unsigned long long)sim_now(), (unsigned long long)sim_steps());
		html_str(f, finding.body);
		fputs("\nDEDUP_TOKEN: ", f);
		html_str(f, finding.token);
	} else {
		html_str(f, path);
		fprintf(f,
			" [%s]: %s\nno finding: every task ran to the end or sleeps "
			"interruptibly",
			k->name, r->verdict);
	}
	fputs("</pre>\n</div>\n</body>\n</html>\n", f);
	free(rw.row_of);
	free(rw.shown);
}
