/* snafu trace: one traced run of a case, for a person to look at.
 *
 *   snafu trace [--kernel=NAME] [-o FILE.json | -o FILE.html] CASE
 *
 * FILE.json is the Chrome/Perfetto JSON trace event format (ui.perfetto.dev,
 * chrome://tracing): a track per task with its system calls as slices, the locks it holds
 * on tracks of their own beside it, its sleeps and wake-ups as instants, arrows from
 * waker to wakee and from a preempted task to the one the schedule switched to, and the
 * finding as a global instant.
 *
 * FILE.html is one self-contained page (no scripts, no fonts or files from elsewhere): an
 * SVG with one lane per task, time flowing down one row per event as in the report's
 * table, lock holds as solid bars beside the lane, waits as hatched ones, and the
 * wait-for cycle of a deadlock in red; beside it the report.
 *
 * Without -o it prints what `snafu replay` prints. Exit status as replay: 1 when the run
 * ends with a finding, 0 when not, 2 for bad usage or input.
 */
#include "trace.h"

#include "../prog/exec.h"
#include "../ref/kernel.h"
#include "../ref/report.h"
#include "casefile.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#ifdef SNAFU_NATIVE
int cmd_trace(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "snafu trace: real threads record no trace; run it with snafu, the "
			"simulator build\n");
	return 2;
}
#else

#define MAX_SLOTS 8 /* hold tracks per task; more holds at once share the last one */

enum span_kind { SPAN_SYSCALL, SPAN_HOLD, SPAN_WAIT };

/* An interval of one task's life, between two trace events. */
struct span {
	enum span_kind kind;
	int task;
	int start, end;  /* event indices; end == n when the run ended first */
	bool open;       /* still running, held or waited for when the run ended */
	int slot;        /* holds: the track (JSON) or bar column (HTML) beside the task's */
	const char *fn;  /* sys_futex; down_read, spin_lock; what the task waits in */
	const char *obj; /* the syscall's details; the lock */
	long ret;        /* syscalls: the return value */
	unsigned op;     /* the task's op it began in */
};

/* An arrow from one task to another: a wake-up, or the schedule switching tasks. */
struct flow {
	int from, to; /* event indices: the wake (or preemption), the wakee's next event */
	int from_task, to_task;
	bool wake;
};

struct model {
	const struct sim_trace_ev *ev;
	int n, dropped, ntasks;
	struct span *spans;
	int nspans;
	struct flow *flows;
	int nflows;
	int nslots[SIM_MAX_TASKS + 1];
	int ncycle, cycle[SIM_MAX_TASKS + 1];
	const char *cycle_fn[SIM_MAX_TASKS + 1], *cycle_lock[SIM_MAX_TASKS + 1];
};

/* What the analysis keeps for each task while it walks the trace. */
struct task_walk {
	int syscall, wait; /* open spans, or -1 */
	int holds[MAX_HELD_LOCKS * 2], nholds;
	bool slot_busy[MAX_SLOTS];
	bool hold_after_wait; /* a contended down_*(): the lock is ours when the wait ends */
	const char *pending_fn, *pending_obj;
	unsigned pending_op;
	int flows[4], nflows; /* flows that end at this task's next event */
};

static bool is_spin(const struct sim_trace_ev *e)
{
	return e->fn && !strncmp(e->fn, "spin_", 5);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int add_span(struct model *m, enum span_kind kind, int task, int start, unsigned op,
		    const char *fn, const char *obj)
{
	struct span *s = &m->spans[m->nspans];

	*s = (struct span){.kind = kind,
			   .task = task,
			   .start = start,
			   .end = m->n,
			   .open = true,
			   .fn = fn,
			   .obj = obj,
			   .op = op};
	return m->nspans++;
}

static void close_span(struct model *m, int idx, int end)
{
	m->spans[idx].end = end;
	m->spans[idx].open = false;
}

static void open_hold(struct model *m, struct task_walk *w, int task, int at, unsigned op,
		      const char *fn, const char *obj)
{
	int slot = 0;

	while (slot < MAX_SLOTS - 1 && w->slot_busy[slot])
		slot++;
	w->slot_busy[slot] = true;
	if (slot + 1 > m->nslots[task])
		m->nslots[task] = slot + 1;
	int idx = add_span(m, SPAN_HOLD, task, at, op, fn, obj);
	m->spans[idx].slot = slot;
	if (w->nholds < (int)(sizeof(w->holds) / sizeof(w->holds[0])))
		w->holds[w->nholds++] = idx;
}

/* up_*() or spin_unlock(): the most recent hold of a lock of that name ends. */
static void close_hold(struct model *m, struct task_walk *w, int at, const char *obj)
{
	for (int i = w->nholds - 1; i >= 0; i--) {
		struct span *s = &m->spans[w->holds[i]];
		if (!same(s->obj, obj))
			continue;
		close_span(m, w->holds[i], at);
		w->slot_busy[s->slot] = false;
		memmove(&w->holds[i], &w->holds[i + 1],
			sizeof(w->holds[0]) * (size_t)(w->nholds - i - 1));
		w->nholds--;
		return;
	}
}

/* A down_read() or down_write() is traced when it is asked for. Does the task then sleep
 * for it (the lock is its own only when the wait ends), or is it granted at once? Only
 * the rwsem's wait_lock and scheduling points come between the call and the sleep. */
static bool goes_to_sleep(const struct model *m, int i)
{
	const struct sim_trace_ev *e = &m->ev[i];

	for (int j = i + 1; j < m->n; j++) {
		const struct sim_trace_ev *f = &m->ev[j];
		if (f->task != e->task || f->kind == EV_POINT || f->kind == EV_PREEMPT)
			continue;
		if ((f->kind == EV_LOCK || f->kind == EV_UNLOCK || f->kind == EV_SLEEP) &&
		    is_spin(f))
			continue;
		return f->kind == EV_SLEEP && same(f->fn, e->fn) && same(f->obj, e->obj);
	}
	return false;
}

static void end_wait(struct model *m, struct task_walk *w, int task, int at)
{
	if (w->wait < 0)
		return;
	const struct span *sp = &m->spans[w->wait];
	close_span(m, w->wait, at);
	w->wait = -1;
	/* not a spin on the rwsem's wait_lock on the way: the sleep for the rwsem itself */
	if (w->hold_after_wait && same(sp->fn, w->pending_fn) && same(sp->obj, w->pending_obj)) {
		w->hold_after_wait = false;
		open_hold(m, w, task, at, w->pending_op, w->pending_fn, w->pending_obj);
	}
}

static void add_flow(struct model *m, struct task_walk *to, int from, int from_task, int to_task,
		     bool wake)
{
	if (to->nflows == (int)(sizeof(to->flows) / sizeof(to->flows[0])))
		return;
	m->flows[m->nflows] = (struct flow){
	    .from = from, .to = -1, .from_task = from_task, .to_task = to_task, .wake = wake};
	to->flows[to->nflows++] = m->nflows++;
}

/* Walk the trace once: syscalls, holds, waits and arrows. */
static void build_model(struct model *m)
{
	struct task_walk walk[SIM_MAX_TASKS + 1];

	memset(walk, 0, sizeof(walk));
	for (int t = 0; t <= SIM_MAX_TASKS; t++)
		walk[t].syscall = walk[t].wait = -1;
	for (int i = 0; i < m->n; i++) {
		const struct sim_trace_ev *e = &m->ev[i];
		int t = e->task;
		if (t < 1 || t > m->ntasks)
			continue;
		struct task_walk *w = &walk[t];

		/* the task runs again: the arrows that wait for it end here */
		for (int f = 0; f < w->nflows; f++)
			m->flows[w->flows[f]].to = i;
		w->nflows = 0;
		/* A wait ends when a waker grants it (EV_WAKE, below), or else at the sleeper's
		 * next event of its own: a spinner's spin_lock, a timer, a wake-up that came
		 * before the sleep. Its schedule() point and a preemption there come first. */
		if (e->kind != EV_POINT && e->kind != EV_PREEMPT && e->kind != EV_SLEEP)
			end_wait(m, w, t, i);

		switch (e->kind) {
		case EV_SYSCALL:
			if (w->syscall >= 0)
				close_span(m, w->syscall, i);
			w->syscall = add_span(m, SPAN_SYSCALL, t, i, e->op, e->fn, e->obj);
			break;
		case EV_SYSRET:
			if (w->syscall >= 0) {
				close_span(m, w->syscall, i);
				m->spans[w->syscall].ret = e->arg;
				w->syscall = -1;
			}
			break;
		case EV_LOCK:
			if (is_spin(e) || strstr(e->fn, "trylock") || !goes_to_sleep(m, i)) {
				open_hold(m, w, t, i, e->op, e->fn, e->obj);
			} else {
				w->hold_after_wait = true;
				w->pending_fn = e->fn;
				w->pending_obj = e->obj;
				w->pending_op = e->op;
			}
			break;
		case EV_UNLOCK:
			close_hold(m, w, i, e->obj);
			break;
		case EV_SLEEP:
			end_wait(m, w, t, i);
			w->wait = add_span(m, SPAN_WAIT, t, i, e->op, e->fn, e->obj);
			break;
		case EV_WAKE:
			if (e->arg >= 1 && e->arg <= m->ntasks) {
				/* an rwsem wake-up hands the lock over: the wait ends here */
				end_wait(m, &walk[e->arg], (int)e->arg, i);
				add_flow(m, &walk[e->arg], i, t, (int)e->arg, true);
			}
			break;
		case EV_PREEMPT:
			if (e->arg >= 1 && e->arg <= m->ntasks)
				add_flow(m, &walk[e->arg], i, t, (int)e->arg, false);
			break;
		default:
			break;
		}
	}
}

static const char *const kind_names[] = {
    [EV_POINT] = "point",     [EV_SYSCALL] = "syscall", [EV_SYSRET] = "return",
    [EV_LOCK] = "lock",       [EV_TRYFAIL] = "tryfail", [EV_UNLOCK] = "unlock",
    [EV_SLEEP] = "sleep",     [EV_WAKE] = "wake",       [EV_UACCESS] = "uaccess",
    [EV_FAULT] = "fault",     [EV_USER] = "user",       [EV_SIGNAL] = "signal",
    [EV_PREEMPT] = "preempt", [EV_TIMER] = "timer",     [EV_NOTE] = "note",
};

static const char *kind_name(int kind)
{
	return kind >= 0 && kind <= EV_NOTE ? kind_names[kind] : "event";
}

static struct task_struct *task_of(int id)
{
	return (struct task_struct *)sim_task(id);
}

/* The cell text of the report's table without its indentation; false if no row. */
static bool label(const struct sim_trace_ev *e, char *buf, size_t len, int *indent)
{
	char cell[160];
	int sp = 0;

	if (!e->task || !report_cell(e, cell, sizeof(cell)))
		return false;
	while (cell[sp] == ' ')
		sp++;
	snprintf(buf, len, "%s", cell + sp);
	if (indent)
		*indent = sp;
	return true;
}

/* "sys_mmap2, sys_futex": the system calls a task made, each once. */
static void task_calls(const struct model *m, int t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int s = 0; s < m->nspans; s++) {
		const struct span *sp = &m->spans[s];
		bool seen = false;
		if (sp->kind != SPAN_SYSCALL || sp->task != t)
			continue;
		for (int r = 0; r < s && !seen; r++)
			seen = m->spans[r].kind == SPAN_SYSCALL && m->spans[r].task == t &&
			       same(m->spans[r].fn, sp->fn);
		if (seen || used + strlen(sp->fn) + 8 >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", sp->fn);
	}
}

/* --- JSON ------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Each event opens its own line; every one but the first follows a comma. */
static void json_next(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

/* The hold tracks sit under their task's: tid 100 * task + slot. */
static int hold_tid(int task, int slot)
{
	return 100 * task + slot;
}

static void write_json(FILE *f, const struct model *m, const char *path,
		       const struct kernel_config *k, const struct run_result *r)
{
	bool first = true;
	char buf[512], calls[256];

	/* Virtual time does not advance between scheduling points, so the clock here is the
	 * event's index in the trace: ts = index, one microsecond per event. */
	fputs("{\"otherData\":{\"case\":", f);
	json_str(f, path);
	fputs(",\"kernel\":", f);
	json_str(f, k->name);
	fputs(",\"verdict\":", f);
	json_str(f, r->verdict);
	fprintf(f,
		",\"clock\":\"ts is the index of the event in the run's trace (1 us per "
		"event): virtual time does not advance between scheduling points\","
		"\"dropped_events\":%d},\n\"traceEvents\":[",
		m->dropped);

	json_next(f, &first);
	snprintf(buf, sizeof(buf), "%s on %s", path, k->name);
	fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":", f);
	json_str(f, buf);
	fputs("}}", f);
	for (int t = 1; t <= m->ntasks; t++) {
		task_calls(m, t, calls, sizeof(calls));
		if (calls[0])
			snprintf(buf, sizeof(buf), "%s (%s)", task_of(t)->comm, calls);
		else
			snprintf(buf, sizeof(buf), "%s", task_of(t)->comm);
		json_next(f, &first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{"
			"\"name\":",
			t);
		json_str(f, buf);
		fputs("}}", f);
		json_next(f, &first);
		fprintf(f,
			"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":%d,"
			"\"args\":{\"sort_index\":%d}}",
			t, 10 * t);
		for (int s = 0; s < m->nslots[t]; s++) {
			snprintf(buf, sizeof(buf), "%s locks%s", task_of(t)->comm,
				 s ? " (nested)" : "");
			json_next(f, &first);
			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,"
				"\"args\":{\"name\":",
				hold_tid(t, s));
			json_str(f, buf);
			fputs("}}", f);
			json_next(f, &first);
			fprintf(f,
				"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":%d,"
				"\"args\":{\"sort_index\":%d}}",
				hold_tid(t, s), 10 * t + 1 + s);
		}
	}

	for (int s = 0; s < m->nspans; s++) {
		const struct span *sp = &m->spans[s];
		const char *cat = sp->kind == SPAN_SYSCALL ? "syscall"
				  : sp->kind == SPAN_HOLD  ? "lock"
							   : "wait";
		int tid = sp->kind == SPAN_HOLD ? hold_tid(sp->task, sp->slot) : sp->task;
		const char *name = sp->fn;
		if (sp->kind == SPAN_HOLD) {
			name = sp->obj;
		} else if (sp->kind == SPAN_WAIT) {
			if (sp->obj)
				snprintf(buf, sizeof(buf), "%s %s(%s)",
					 !strcmp(sp->fn, "spin_lock") ? "spins in" : "sleeps in",
					 sp->fn, sp->obj);
			else
				snprintf(buf, sizeof(buf), "sleeps in %s", sp->fn);
			name = buf;
		}
		json_next(f, &first);
		fputs("{\"ph\":\"X\",\"name\":", f);
		json_str(f, name);
		fprintf(f, ",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"args\":{",
			cat, tid, m->dropped + sp->start, sp->end - sp->start);
		if (sp->kind == SPAN_SYSCALL) {
			fputs("\"detail\":", f);
			json_str(f, sp->obj);
			if (!sp->open)
				fprintf(f, ",\"ret\":%ld", sp->ret);
		} else if (sp->kind == SPAN_HOLD) {
			fputs("\"taken_by\":", f);
			json_str(f, sp->fn);
			fprintf(f, ",\"mode\":\"%s\"",
				!strncmp(sp->fn, "spin_", 5) ? "spin"
				: strstr(sp->fn, "read")     ? "read"
							     : "write");
		} else {
			fputs("\"in\":", f);
			json_str(f, sp->fn);
		}
		fprintf(f, ",\"op\":%u%s}}", sp->op, sp->open ? ",\"unfinished\":true" : "");
	}

	/* instants: every event the report's table shows but the slices' ends */
	for (int i = 0; i < m->n; i++) {
		const struct sim_trace_ev *e = &m->ev[i];
		if (e->kind == EV_SYSCALL || e->kind == EV_SYSRET ||
		    !label(e, buf, sizeof(buf), NULL))
			continue;
		json_next(f, &first);
		fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", f);
		json_str(f, buf);
		fprintf(f,
			",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
			"\"args\":{\"op\":%u,\"point\":%u}}",
			kind_name(e->kind), e->task, m->dropped + i, e->op, e->point);
	}

	/* flows: "s" in the slice around the wake (or preemption), "f" in the wakee's */
	for (int i = 0, id = 1; i < m->nflows; i++) {
		const struct flow *fl = &m->flows[i];
		const char *what = fl->wake ? "wake" : "preempt";
		if (fl->to < 0)
			continue;
		json_next(f, &first);
		fprintf(
		    f,
		    "{\"ph\":\"s\",\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,"
		    "\"ts\":%d}",
		    id, what, what, fl->from_task, m->dropped + fl->from);
		json_next(f, &first);
		fprintf(f,
			"{\"ph\":\"f\",\"bp\":\"e\",\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\","
			"\"pid\":1,\"tid\":%d,\"ts\":%d}",
			id, what, what, fl->to_task, m->dropped + fl->to);
		id++;
	}

	if (r->result != SIM_OK && finding.found) {
		json_next(f, &first);
		fputs("{\"ph\":\"i\",\"s\":\"g\",\"name\":", f);
		json_str(f, finding.title);
		fprintf(f,
			",\"cat\":\"finding\",\"pid\":1,\"tid\":0,\"ts\":%d,\"args\":{\"token\":",
			m->dropped + m->n);
		json_str(f, finding.token);
		fputs(",\"report\":", f);
		json_str(f, finding.body);
		fputs("}}", f);
	}
	fputs("\n]}\n", f);
}

/* --- HTML ------------------------------------------------------------------------- */

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
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
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
	    "<marker id=\"arrow-gray\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
	    "markerWidth=\"6\" "
	    "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
	    "fill=\"#777\"/></marker>\n"
	    "</defs>\n",
	    f);
}

static const char *hold_class(const struct span *sp)
{
	return !strncmp(sp->fn, "spin_", 5) ? "hold hold-spin"
	       : strstr(sp->fn, "read")     ? "hold hold-read"
					    : "hold hold-write";
}

static const char *wait_fill(const struct span *sp)
{
	return !strcmp(sp->fn, "spin_lock")    ? "url(#hatch-spin)"
	       : !strcmp(sp->fn, "futex_wait") ? "url(#hatch-sleep)"
					       : "url(#hatch-rwsem)";
}

/* A bar beside a lane: column 0 for waits, 1.. for the holds' slots. */
static void svg_bar(FILE *f, const struct model *m, const struct rows *rw, const struct span *sp)
{
	double y0 = row_y(rw, m->n, sp->start),
	       y1 = sp->open ? rw->bottom : row_y(rw, m->n, sp->end);
	int col = sp->kind == SPAN_WAIT ? 0 : 1 + sp->slot;
	int x = lane_x(sp->task) + 4 + col * BAR_GAP;

	if (y1 - y0 < 2)
		return; /* taken and dropped between two rows: the table does not show it */
	if (sp->kind == SPAN_HOLD)
		fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\">",
			hold_class(sp), x, y0, BAR_W, y1 - y0);
	else
		fprintf(f,
			"<rect class=\"wait\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
			"fill=\"%s\">",
			x, y0, BAR_W, y1 - y0, wait_fill(sp));
	fprintf(f, "<title>%s ", task_of(sp->task)->comm);
	if (sp->kind == SPAN_HOLD) {
		fputs("holds ", f);
		html_str(f, sp->obj);
		fprintf(f, " (%s)",
			!strncmp(sp->fn, "spin_", 5) ? "spin"
			: strstr(sp->fn, "read")     ? "read"
						     : "write");
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
static int last_row(const struct model *m, const struct rows *rw, int task)
{
	for (int i = m->n - 1; i >= rw->first; i--)
		if (m->ev[i].task == task && rw->shown[i])
			return i;
	return -1;
}

static void svg_cycle(FILE *f, const struct model *m, const struct rows *rw)
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

		snprintf(what, sizeof(what), "%s waits for %s in %s(%s)", task_of(a)->comm,
			 task_of(b)->comm, m->cycle_fn[c], m->cycle_lock[c]);
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

static void write_svg(FILE *f, const struct model *m, struct rows *rw)
{
	char buf[200];
	int maxslots = 1;

	for (int t = 1; t <= m->ntasks; t++)
		if (m->nslots[t] > maxslots)
			maxslots = m->nslots[t];
	rw->text_x = 4 + (maxslots + 1) * BAR_GAP + 6;
	rw->top = HEAD_H + (rw->skipped ? ROW_H : 4);
	rw->bottom = rw->top + rw->nrows * ROW_H + 14;
	int height = rw->bottom + 30 + m->ncycle * 30 + 30;
	int width = GUT + m->ntasks * LANE_W + 8;

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"interleaving\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		width, height, width, height);
	svg_defs(f);
	fputs("<style>text{font:11px monospace;fill:#222}.lane-title{font:bold 13px monospace}"
	      ".lane-state{fill:#555}.rownum{fill:#999}.cycle-label{fill:red;font-weight:bold}"
	      ".hold-write{fill:#1f4e9c}.hold-read{fill:#6fa8e8}.hold-spin{fill:#2e8b57}"
	      ".wait{stroke:#999;stroke-width:0.5}</style>\n",
	      f);

	/* the lanes, one per task */
	for (int t = 1; t <= m->ntasks; t++) {
		struct task_struct *ts = task_of(t);
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
		if (!rw->shown[i] || !label(e, buf, sizeof(buf), &indent))
			continue;
		double y = row_y(rw, m->n, i) + 4;
		fprintf(f, "<text class=\"rownum\" x=\"4\" y=\"%.1f\">%u.%u</text>", y, e->op,
			e->point);
		fprintf(f, "<text class=\"ev ev-%s\" x=\"%.1f\" y=\"%.1f\">", kind_name(e->kind),
			lane_x(e->task) + rw->text_x + indent * CHAR_W / 2, y);
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
			task_of(fl->from_task)->comm, task_of(fl->to_task)->comm);
	}
	fputs("</g>\n", f);
	if (m->ncycle)
		svg_cycle(f, m, rw);
	svg_legend(f, height - 24);
	fputs("</svg>\n", f);
}

static void write_html(FILE *f, const struct model *m, const char *path,
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
		rw.shown[i] = label(&m->ev[i], buf, sizeof(buf), NULL);
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
	fputs(m->ncycle ? "; red: the wait-for cycle.</p>\n" : ".</p>\n", f);
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

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int cmd_trace(int argc, char **argv)
{
	const struct kernel_config *k = kernel_arg(SNAFU_DEFAULT_KERNEL);
	const char *out = NULL, *in = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
			if (!ends_with(out, ".json") && !ends_with(out, ".html"))
				die_usage("-o FILE.json (Perfetto) or -o FILE.html", out, i + 1);
		} else if (a[0] == '-' && a[1])
			die_usage("--kernel=NAME, -o FILE.json, -o FILE.html or a CASE", a, i + 1);
		else if (in)
			die_usage("one CASE", a, i + 1);
		else
			in = a;
	}
	if (!in) {
		fprintf(stderr, "snafu trace: expected a CASE file\n");
		return 2;
	}

	if (out && !case_out_ok(out))
		return 2;
	static struct program p;
	struct run_opts o = {.trace = true};
	struct run_result r;
	load_case(in, &p);
	prog_run(&p, k, &o, &r);
	warn_schedule(in, &p, k, &r, 0);
	in = case_name(in);
	if (!out) {
		if (r.result != SIM_OK)
			prog_report(stdout, k);
		printf("%s [%s]: %s\n", in, k->name, r.verdict);
		return r.result != SIM_OK;
	}

	char tmp[4096];
	FILE *f = case_open_out(out, tmp, sizeof(tmp));
	if (!f)
		return 2;

	struct model m = {.ntasks = sim_ntasks()};
	m.ev = sim_trace_events(&m.n, &m.dropped);
	if (!m.ev)
		m.n = 0;
	/* an event opens at most two spans: a hold its wait granted, and its own */
	m.spans = calloc(2 * (size_t)m.n + 1, sizeof(*m.spans));
	m.flows = calloc((size_t)m.n + 1, sizeof(*m.flows));
	if (!m.spans || !m.flows)
		abort();
	build_model(&m);
	m.ncycle = hung_task_cycle(m.cycle, m.cycle_fn, m.cycle_lock);
	if (ends_with(out, ".json"))
		write_json(f, &m, in, k, &r);
	else
		write_html(f, &m, in, k, &r);
	free(m.spans);
	free(m.flows);
	if (case_close_out(f, tmp, out))
		return 2;
	printf("%s [%s]: %s\n", in, k->name, r.verdict);
	printf("trace: wrote %s (%d events)\n", out, m.n);
	return r.result != SIM_OK;
}

#endif
