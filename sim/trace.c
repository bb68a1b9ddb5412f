/* The trace recorder and the trace digest.
 *
 * The digest covers every event of every run, so two runs agree on it only if they
 * took the same path. It hashes string contents, never pointers, so it is the same in
 * every build (ASan, gcc release, TSan). The event log itself is kept only when
 * tracing is on (reports, `snafu replay --trace`); the fuzzer re-runs an input with
 * tracing on when it needs the report, which determinism makes exact. Beside each event
 * kept, where it happened (sim/trace.h), which the digest leaves out.
 */
#include "trace.h"
#include "icov.h"

#include <stdlib.h>
#include <string.h>

#define TRACE_MAX (1 << 16)

bool sim_tracing, sim_digesting, sim_traced;
static struct sim_trace_ev *log_buf;
static struct sim_trace_where *where_buf; /* beside log_buf: sim/trace.h */
void (*sim_trace_where_hook)(struct sim_trace_where *w);
static int log_n, log_dropped;
static uint64_t digest;

/* String hashes cached by address: the same literal is hashed once per process. */
#define STRCACHE 512
static struct {
	const char *s;
	uint64_t h;
} strcache[STRCACHE];

static uint64_t str_hash(const char *s)
{
	if (!s)
		return 0;
	unsigned slot = (unsigned)(((uintptr_t)s >> 3) % STRCACHE);
	if (strcache[slot].s == s)
		return strcache[slot].h;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *p = s; *p; p++)
		h = sim_hash_mix(h, (unsigned char)*p);
	strcache[slot].s = s;
	strcache[slot].h = h;
	return h;
}

void sim_trace_reset(void)
{
	log_n = 0;
	log_dropped = 0;
	digest = 0xcbf29ce484222325ULL;
	if (sim_tracing && !log_buf) {
		log_buf = malloc(sizeof(*log_buf) * TRACE_MAX);
		where_buf = malloc(sizeof(*where_buf) * TRACE_MAX);
		if (!log_buf || !where_buf)
			abort();
	}
}

void sim_trace_record(int kind, const char *fn, const char *obj, long arg, long arg2)
{
	struct sim_task *t = sim_current();
	int id = t ? t->id : 0;

	if (sim_icov)
		sim_icov_event(id, kind, fn, obj);
	if (!sim_digesting)
		return;
	digest = sim_hash_mix(digest, (uint64_t)id << 8 | (uint64_t)kind);
	digest = sim_hash_mix(digest, str_hash(fn));
	digest = sim_hash_mix(digest, (uint64_t)arg);
	if (!sim_tracing)
		return;
	if (log_n == TRACE_MAX) {
		/* Keep the most recent half: the end of a run is what a report shows. */
		memmove(log_buf, log_buf + TRACE_MAX / 2, sizeof(*log_buf) * (TRACE_MAX / 2));
		memmove(where_buf, where_buf + TRACE_MAX / 2, sizeof(*where_buf) * (TRACE_MAX / 2));
		log_n = TRACE_MAX / 2;
		log_dropped += TRACE_MAX / 2;
	}
	where_buf[log_n] = (struct sim_trace_where){0};
	if (sim_trace_where_hook)
		sim_trace_where_hook(&where_buf[log_n]);
	log_buf[log_n++] = (struct sim_trace_ev){
	    .task = (uint8_t)id,
	    .kind = (uint8_t)kind,
	    .op = t ? t->op : 0,
	    .point = t ? t->op_points : 0,
	    .step = (uint32_t)sim_steps(),
	    .fn = fn,
	    .obj = obj,
	    .arg = arg,
	    .arg2 = arg2,
	};
}

uint64_t sim_digest(void)
{
	return digest;
}

const struct sim_trace_ev *sim_trace_events(int *n, int *dropped)
{
	*n = log_n;
	*dropped = log_dropped;
	return log_buf;
}

const struct sim_trace_where *sim_trace_wheres(void)
{
	return log_buf ? where_buf : NULL;
}
