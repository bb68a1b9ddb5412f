/* snafu trace -o FILE.json: the timeline as a Chrome/Perfetto JSON trace (see trace.c). */
#include "trace.h"

#include "../ref/kernel.h"
#include "../ref/report.h"
#include "cli.h"
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
			cli_event_name(e->kind), e->task, m->dropped + i, e->op, e->point);
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
