/* The oracles by name (prog/oracle.h, docs/oracles.md). */
#include "oracle.h"

#include <stdio.h>
#include <string.h>

const struct oracle_info oracle_table[] = {
    {"deadlock", ORACLE_DEADLOCK, "deadlock--..., hung--...",
     "tasks asleep uninterruptibly for good when no task can run (ref/hung_task.c)"},
    {"lost-wakeup", ORACLE_LOST_WAKEUP, "lost-wakeup--{absorbed,missed,slept}--futex_wait",
     "a futex waiter asleep at the end whose wake-up went elsewhere, nowhere, or came "
     "before it slept (ref/futex_oracle.c)"},
    {"result", ORACLE_RESULT, "wrong-result--futex_{cmp_requeue,wake,requeue,wait,wake_op}",
     "a return value the call's definition rules out (ref/futex_oracle.c)"},
    {"integrity", ORACLE_INTEGRITY,
     "integrity--{zero-page,page-cache,lost-write}--access_process_vm",
     "a forced write (ptrace) into the ZERO_PAGE, into a page cache through a private "
     "mapping, or not at its address afterwards (ref/integrity.c)"},
    {"lockdep", ORACLE_LOCKDEP, "lockdep--...",
     "a deadlock predicted from the locks one run took, whatever the schedule "
     "(ref/lockdep.c)"},
    {NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(oracle_table) / sizeof(oracle_table[0]) == NR_ORACLES + 1,
	       "NR_ORACLES counts the oracle table");

const char *oracles_all_names(void)
{
	static char buf[256];

	if (!buf[0]) {
		unsigned all = 0;
		for (const struct oracle_info *o = oracle_table; o->name; o++)
			all |= o->bit;
		oracles_str(all, buf, sizeof(buf));
	}
	return buf;
}

unsigned oracles_parse(const char *list, char *err, size_t len)
{
	unsigned mask = 0;
	const char *p = list;

	if (!strcmp(list, "all")) {
		for (const struct oracle_info *o = oracle_table; o->name; o++)
			mask |= o->bit;
		return mask;
	}
	if (!strcmp(list, "default"))
		return ORACLES_DEFAULT;
	for (;;) {
		size_t n = strcspn(p, ",");
		const struct oracle_info *o = oracle_table;
		while (o->name && (strlen(o->name) != n || strncmp(o->name, p, n)))
			o++;
		if (!o->name) {
			snprintf(err, len,
				 "names among %s (comma-separated), all or default; '%.*s' is "
				 "none",
				 oracles_all_names(), (int)n, p);
			return 0;
		}
		mask |= o->bit;
		if (!p[n])
			return mask;
		p += n + 1;
	}
}

const char *oracles_str(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;

	if (!mask)
		mask = ORACLES_DEFAULT;
	buf[0] = 0;
	for (const struct oracle_info *o = oracle_table; o->name; o++)
		if ((mask & o->bit) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", o->name);
	return buf;
}
