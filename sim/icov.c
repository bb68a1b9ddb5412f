/* Interleaving coverage: see sim/icov.h. */
#include "icov.h"
#include "sim.h"

#include <string.h>

uint8_t *sim_icov;

static const struct {
	uint16_t base, size;
} regions[] = {
    [ICOV_SWITCH] = {0, 1024},
    [ICOV_SLEEP] = {1024, 1024},
    [ICOV_FUTEX] = {2048, 1536},
    [ICOV_FATE] = {3584, 512},
};

/* Where each task stands: its system call, its last event of note, its last point;
 * names only (their hashes are taken when a feature needs them: events are many,
 * features few). */
static struct {
	int sys_kind, ev_kind;
	const char *sys, *ev_fn, *ev_obj, *site;
} pos[SIM_MAX_TASKS + 1];

void sim_icov_set(uint8_t *map)
{
	sim_icov = map;
}

void sim_icov_hit(enum icov_region region, uint32_t h)
{
	if (!sim_icov)
		return;
	sim_icov[regions[region].base + h % regions[region].size] = 1;
}

void sim_icov_reset(void)
{
	memset(pos, 0, sizeof(pos));
}

/* A name's hash (FNV-1a over its bytes, never its address), cached by address: the
 * same literal is hashed once per process. */
#define STRCACHE 256
static struct {
	const char *s;
	uint32_t h;
} strcache[STRCACHE];

static uint32_t str32(const char *s)
{
	if (!s)
		return 0;
	unsigned slot = (unsigned)(((uintptr_t)s >> 3) % STRCACHE);
	if (strcache[slot].s == s)
		return strcache[slot].h;
	uint32_t h = 2166136261u;
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	strcache[slot].s = s;
	strcache[slot].h = h;
	return h;
}

static uint32_t ev_hash(int id)
{
	return icov_mix(icov_mix(icov_mix((uint32_t)pos[id].sys_kind, str32(pos[id].sys)),
				 icov_mix((uint32_t)pos[id].ev_kind, str32(pos[id].ev_fn))),
			str32(pos[id].ev_obj));
}

uint32_t sim_icov_pos(int id)
{
	if (id < 1 || id > SIM_MAX_TASKS)
		return 0;
	return icov_mix(ev_hash(id), str32(pos[id].site));
}

void sim_icov_event(int id, int kind, const char *fn, const char *obj)
{
	if (id < 1 || id > SIM_MAX_TASKS)
		return;
	switch (kind) {
	case EV_POINT:
		pos[id].site = fn;
		return;
	case EV_SYSCALL:
	case EV_USER:
	case EV_NOTE: /* kswapd's pass: no system call around it */
		pos[id].sys_kind = kind;
		pos[id].sys = fn;
		pos[id].ev_kind = 0;
		pos[id].ev_fn = pos[id].ev_obj = NULL;
		return;
	case EV_SYSRET:
		pos[id].sys_kind = pos[id].ev_kind = 0;
		pos[id].sys = pos[id].ev_fn = pos[id].ev_obj = NULL;
		return;
	case EV_LOCK:
	case EV_TRYFAIL:
	case EV_UNLOCK:
	case EV_SLEEP:
		pos[id].ev_kind = kind;
		pos[id].ev_fn = fn;
		pos[id].ev_obj = obj;
		break;
	case EV_UACCESS:
	case EV_FAULT:
		pos[id].ev_kind = kind;
		pos[id].ev_fn = fn;
		pos[id].ev_obj = NULL;
		return;
	default:
		return;
	}
	if (kind != EV_SLEEP)
		return;
	/* a task goes to sleep on a lock or a futex: where is everyone else? */
	uint32_t me = ev_hash(id);
	for (int u = 1; u <= sim_ntasks(); u++) {
		struct sim_task *t = sim_task(u);
		if (u != id && t->state != SIM_DONE)
			sim_icov_hit(ICOV_SLEEP, icov_mix(me, sim_icov_pos(u)));
	}
}

void sim_icov_switch(int why, int from, int to)
{
	uint32_t h = icov_mix((uint32_t)why, sim_icov_pos(to));
	if (why != ICOV_WHY_DONE)
		h = icov_mix(h, sim_icov_pos(from));
	sim_icov_hit(ICOV_SWITCH, h);
}
