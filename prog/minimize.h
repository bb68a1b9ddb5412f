/* Minimizing a program with a finding while keeping its signature. */
#ifndef SNAFU_MINIMIZE_H
#define SNAFU_MINIMIZE_H

#include "exec.h"

/* Shrinks *p in place. Returns the number of runs it took, or -1 if p does not give
 * `verdict` on kernel k with the oracles ORACLES (run_opts.oracles) in the first place. */
int prog_minimize(struct program *p, const struct kernel_config *k, const char *verdict,
		  unsigned oracles);

#endif
