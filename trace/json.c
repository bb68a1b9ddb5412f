/* snafu trace -o FILE.json: the timeline as a Chrome/Perfetto JSON trace (see trace.c). */
#include "writers.h"

#include "../ref/kernel.h"
#include "../ref/report.h"
#include "../sim/trace.h"
#include "timeline.h"

#include <string.h>

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

/* PREFIX (a key, with the comma before it), then S as a JSON string. */
static void json_key(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	json_str(f, s);
}

/* A track's name and its place among the tracks. */
static void json_track(FILE *f, bool *first, int tid, const char *name, int sort_index)
{
	json_next(f, first);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{", tid);
	json_key(f, "\"name\":", name);
	fputs("}}", f);
	json_next(f, first);
	fprintf(f,
		"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":%d,"
		"\"args\":{\"sort_index\":%d}}",
		tid, sort_index);
}

/* The hold tracks sit under their task's: tid 100 * task + slot. */
static int hold_tid(int task, int slot)
{
	return 100 * task + slot;
}

/* ,"KEY":{"task":T,"comm":"Tn","op":O,"point":P[,"ts":TS] -- the caller closes the
 * object, after any more members. EV: the place's event (-1: not in the trace). */
static void json_place(FILE *f, const struct timeline *m, const char *key, int task, unsigned op,
		       unsigned point, int ev)
{
	fprintf(f, ",\"%s\":{\"task\":%d,\"comm\":", key, task);
	json_str(f, task >= 1 && task <= m->ntasks ? timeline_task(task)->comm : "?");
	fprintf(f, ",\"op\":%u,\"point\":%u", op, point);
	if (ev >= 0)
		fprintf(f, ",\"ts\":%d", m->dropped + ev);
}

static void json_at(FILE *f, const struct timeline *m, const char *key, struct fo_view_at a, int ev)
{
	json_place(f, m, key, a.task, a.op, a.point, ev);
}

/* The finding's facts, for other tools to draw: from the oracle's books and lockdep's
 * prediction (timeline.h, struct marks). One JSON object, after "facts":. */
static void json_facts(FILE *f, const struct timeline *m)
{
	const struct marks *k = &m->mk;

	if (k->kind == MARK_LOST_WAKEUP) {
		const struct fo_lost_view *v = &k->lost;
		fprintf(f, "{\"kind\":\"lost-wakeup\",\"how\":\"%s\"",
			v->missed ? "missed" : "absorbed");
		json_at(f, m, "wake", v->wake, k->wake);
		json_key(f, ",\"futex_op\":", v->call);
		fprintf(f, ",\"uaddr\":\"0x%lx\",\"may_wake\":%d,\"returned\":%ld,\"woke\":[",
			v->uaddr, v->budget, v->ret);
		for (int i = 0; i < v->nwoken; i++)
			fprintf(f, "%s%d", i ? "," : "", v->woken[i]);
		fputs("]}", f);
		if (!v->missed) {
			/* the waiter the wake-up was spent on: the arrow ends at its next event */
			fprintf(f, ",\"spent_on\":{\"task\":%d,\"comm\":", v->spent_read.task);
			json_str(f, timeline_task(v->spent_read.task)->comm);
			if (k->spent >= 0)
				fprintf(f, ",\"op\":%u,\"point\":%u,\"ts\":%d", m->ev[k->spent].op,
					m->ev[k->spent].point, m->dropped + k->spent);
			fprintf(f, ",\"val\":%d,\"read\":%u,\"woken_before_read\":%s", v->spent_val,
				v->spent_curval, v->spent_read_after ? "true" : "false");
			json_at(f, m, "read_at", v->spent_read, k->spent_read);
			fputs("}", f);
			json_at(f, m, "queued_at", v->spent_queued, k->spent_queued);
			fputs("}", f);
			if (v->spent_returned)
				fprintf(f, ",\"returned\":%ld", v->spent_ret);
			fputs("}", f);
		}
		/* the sleeper: asleep since slept_at, to the end of the run */
		json_place(f, m, v->missed ? "missed" : "passed_over", v->sleeper_slept.task,
			   v->sleeper_slept.op, v->sleeper_slept.point, k->sleeper_slept);
		fprintf(f, ",\"val\":%d,\"read\":%u", v->sleeper_val, v->sleeper_curval);
		if (v->missed)
			fprintf(f, ",\"word_at_wake\":%u", v->word_at_wake);
		json_at(f, m, "read_at", v->sleeper_read, k->sleeper_read);
		fputs("}", f);
		json_at(f, m, "queued_at", v->sleeper_queued, k->sleeper_queued);
		fputs("}", f);
		json_at(f, m, "slept_at", v->sleeper_slept, k->sleeper_slept);
		fprintf(f, "},\"still_asleep\":true,\"until_ts\":%d}}", m->dropped + m->n);
	} else if (k->kind == MARK_WRONG_RESULT) {
		const struct fo_eagain_view *v = &k->eagain;
		const struct span *sp = k->call_span >= 0 ? &m->spans[k->call_span] : NULL;
		fputs("{\"kind\":\"wrong-result\"", f);
		json_at(f, m, "call", v->call, k->eagain_at);
		fprintf(f,
			",\"futex_op\":\"FUTEX_CMP_REQUEUE\",\"uaddr\":\"0x%lx\",\"val\":%d,"
			"\"read\":%u,\"word_at_return\":%u,\"returned\":%ld,\"errno\":\"EAGAIN\","
			"\"nqueued_before\":%u,\"nqueued_after\":%u",
			v->uaddr, v->val, v->curval, v->now, sp && !sp->open ? sp->ret : -11L,
			v->then_nq, v->now_nq);
		if (sp)
			fprintf(f, ",\"syscall_ts\":%d,\"syscall_dur\":%d", m->dropped + sp->start,
				sp->end - sp->start);
		fputs("},\"queued_during\":[", f);
		for (int i = 0; i < v->nqueuers; i++) {
			fputs(i ? "," : "", f);
			/* json_place's leading comma: an object of its own here */
			fprintf(f, "{\"task\":%d,\"comm\":", v->queuers[i].task);
			json_str(f, timeline_task(v->queuers[i].task)->comm);
			fprintf(f, ",\"op\":%u,\"point\":%u", v->queuers[i].op,
				v->queuers[i].point);
			if (k->queuer[i] >= 0)
				fprintf(f, ",\"ts\":%d", m->dropped + k->queuer[i]);
			fprintf(f, ",\"what\":\"queue_me\",\"uaddr\":\"0x%lx\"}",
				v->queuer_uaddr[i]);
		}
		fputs("]}", f);
	} else if (k->kind == MARK_LOCKDEP) {
		const struct lockdep_prediction *p = &k->pred;
		fprintf(f, "{\"kind\":\"lockdep\",\"circular\":%s", p->circular ? "true" : "false");
		json_place(f, m, "acquire", p->task, p->op, p->point, k->acquire);
		fprintf(f, ",\"step\":%llu", (unsigned long long)p->step);
		json_key(f, ",\"lock\":", p->locks[1]);
		fputs("}", f);
		const struct span *h = k->held_span >= 0 ? &m->spans[k->held_span] : NULL;
		if (h) {
			const struct sim_trace_ev *e = &m->ev[h->start];
			json_place(f, m, "held", h->task, e->op, e->point, h->start);
			json_key(f, ",\"taken_by\":", h->fn);
			fprintf(f, ",\"mode\":\"%s\"", timeline_hold_mode(h));
		} else {
			fprintf(f, ",\"held\":{\"task\":%d", p->task);
		}
		json_key(f, ",\"lock\":", p->locks[0]);
		json_key(f, ",\"taken_at\":", p->held_site);
		fputs("}}", f);
	} else {
		fputs("null", f);
	}
}

/* What the marks add to Perfetto's picture: flows (the spent wake-up, the queue_me()
 * calls that moved nqueued, the held lock to the acquisition), instants on the tracks,
 * and the sleeper's "still asleep" slice to the end of the run. ID: the next flow id. */
static void json_mark_events(FILE *f, bool *first, const struct timeline *m, int id)
{
	const struct marks *k = &m->mk;
	char buf[256];

#define INSTANT(task_, ev_, cat_, name_)                                                   \
	do {                                                                               \
		json_next(f, first);                                                       \
		fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", f);                           \
		json_str(f, name_);                                                        \
		fprintf(f, ",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d}", cat_, task_, \
			m->dropped + (ev_));                                               \
	} while (0)
#define FLOW(from_tid, from_ev, to_tid, to_ev, name_)                                  \
	do {                                                                           \
		json_next(f, first);                                                   \
		fprintf(f,                                                             \
			"{\"ph\":\"s\",\"id\":%d,\"name\":\"%s\",\"cat\":\"finding\"," \
			"\"pid\":1,\"tid\":%d,\"ts\":%d}",                             \
			id, name_, from_tid, m->dropped + (from_ev));                  \
		json_next(f, first);                                                   \
		fprintf(f,                                                             \
			"{\"ph\":\"f\",\"bp\":\"e\",\"id\":%d,\"name\":\"%s\","        \
			"\"cat\":\"finding\",\"pid\":1,\"tid\":%d,\"ts\":%d}",         \
			id, name_, to_tid, m->dropped + (to_ev));                      \
		id++;                                                                  \
	} while (0)

	if (k->kind == MARK_LOST_WAKEUP) {
		const struct fo_lost_view *v = &k->lost;
		int s = v->sleeper_slept.task;
		if (k->wake >= 0) {
			if (v->missed)
				snprintf(buf, sizeof(buf),
					 "%s woke nobody: %s had read %u but not queued", v->call,
					 timeline_task(s)->comm, v->sleeper_curval);
			else
				snprintf(buf, sizeof(buf),
					 "%s spent its wake-up on %s, passed over %s", v->call,
					 timeline_task(v->spent_read.task)->comm,
					 timeline_task(s)->comm);
			INSTANT(v->wake.task, k->wake, "lost-wakeup", buf);
		}
		if (!v->missed && k->wake >= 0 && k->spent >= 0)
			FLOW(v->wake.task, k->wake, v->spent_read.task, k->spent, "spent wake-up");
		if (!v->missed && k->wake >= 0) {
			snprintf(buf, sizeof(buf), "passed over by %s's %s",
				 timeline_task(v->wake.task)->comm, v->call);
			INSTANT(s, k->wake, "lost-wakeup", buf);
		}
		if (v->missed && k->wake >= 0 && k->sleeper_queued > k->wake)
			FLOW(v->wake.task, k->wake, s, k->sleeper_queued,
			     "missed: queued after the wake");
		if (v->missed && k->sleeper_queued >= 0) {
			snprintf(buf, sizeof(buf), "queue_me() after the wake that missed it");
			INSTANT(s, k->sleeper_queued, "lost-wakeup", buf);
		}
		if (k->sleeper_slept >= 0) {
			json_next(f, first);
			fprintf(f,
				"{\"ph\":\"X\",\"name\":\"still asleep: wake-up lost\","
				"\"cat\":\"lost-wakeup\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
				"\"args\":{\"unfinished\":true}}",
				s, m->dropped + k->sleeper_slept, m->n - k->sleeper_slept);
		}
	} else if (k->kind == MARK_WRONG_RESULT) {
		const struct fo_eagain_view *v = &k->eagain;
		if (k->eagain_at >= 0) {
			snprintf(buf, sizeof(buf),
				 "wrong -EAGAIN: the word held val %d throughout; nqueued %u -> %u",
				 v->val, v->then_nq, v->now_nq);
			INSTANT(v->call.task, k->eagain_at, "wrong-result", buf);
		}
		for (int i = 0; i < v->nqueuers; i++)
			if (k->queuer[i] >= 0 && k->eagain_at >= 0 &&
			    v->queuers[i].task != v->call.task)
				FLOW(v->queuers[i].task, k->queuer[i], v->call.task, k->eagain_at,
				     "queue_me moved nqueued");
	} else if (k->kind == MARK_LOCKDEP) {
		const struct lockdep_prediction *p = &k->pred;
		if (k->acquire >= 0) {
			snprintf(buf, sizeof(buf), "lockdep: %s: acquires %s", p->title,
				 p->locks[1]);
			INSTANT(p->task, k->acquire, "lockdep", buf);
		}
		if (k->acquire >= 0 && k->held_span >= 0) {
			const struct span *h = &m->spans[k->held_span];
			FLOW(hold_tid(h->task, h->slot), h->start, p->task, k->acquire,
			     "held lock");
		}
	}
#undef INSTANT
#undef FLOW
}

void trace_write_json(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r)
{
	bool first = true;
	char buf[512], calls[256];

	/* Virtual time does not advance between scheduling points, so the clock here is the
	 * event's index in the trace: ts = index, one microsecond per event. */
	json_key(f, "{\"otherData\":{\"case\":", path);
	json_key(f, ",\"kernel\":", k->name);
	json_key(f, ",\"verdict\":", r->verdict);
	fprintf(f,
		",\"clock\":\"ts is the index of the event in the run's trace (1 us per "
		"event): virtual time does not advance between scheduling points\","
		"\"dropped_events\":%d},\n\"traceEvents\":[",
		m->dropped);

	json_next(f, &first);
	snprintf(buf, sizeof(buf), "%s on %s", path, k->name);
	json_key(
	    f,
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":", buf);
	fputs("}}", f);
	for (int t = 1; t <= m->ntasks; t++) {
		timeline_task_calls(m, t, calls, sizeof(calls));
		if (calls[0])
			snprintf(buf, sizeof(buf), "%s (%s)", timeline_task(t)->comm, calls);
		else
			snprintf(buf, sizeof(buf), "%s", timeline_task(t)->comm);
		json_track(f, &first, t, buf, 10 * t);
		for (int s = 0; s < m->nslots[t]; s++) {
			snprintf(buf, sizeof(buf), "%s locks%s", timeline_task(t)->comm,
				 s ? " (nested)" : "");
			json_track(f, &first, hold_tid(t, s), buf, 10 * t + 1 + s);
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
			fprintf(f, ",\"mode\":\"%s\"", timeline_hold_mode(sp));
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
		    !timeline_label(e, buf, sizeof(buf), NULL))
			continue;
		json_next(f, &first);
		fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", f);
		json_str(f, buf);
		fprintf(f,
			",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
			"\"args\":{\"op\":%u,\"point\":%u}}",
			sim_event_name(e->kind), e->task, m->dropped + i, e->op, e->point);
	}

	/* flows: "s" in the slice around the wake (or preemption), "f" in the wakee's */
	int id = 1;
	for (int i = 0; i < m->nflows; i++) {
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
	json_mark_events(f, &first, m, id);

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
		fputs(",\"facts\":", f);
		json_facts(f, m);
		fputs("}}", f);
	}
	fputs("\n]}\n", f);
}
