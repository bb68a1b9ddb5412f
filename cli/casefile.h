/* Writing cases: files written through a temporary and a rename (never half written),
 * and a finding minimized into a case with an expect line for every kernel. Shared by
 * `snafu minimize`, `snafu confirm`, `snafu explore` and `snafu trace`. */
#ifndef SNAFU_CASEFILE_H
#define SNAFU_CASEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../prog/minimize.h"

/* Whether -o OUT may be written (case_open_out's check, for a command to make before
 * its work); false after one line on stderr. */
bool case_out_ok(const char *out);

/* Open OUT for writing through the temporary TMP (OUT.tmp.PID, made with O_EXCL); NULL
 * after one line on stderr. OUT must be a regular file or a new name: a directory, a
 * symbolic link, a device, a FIFO or a socket is refused (nothing written). "-" is
 * standard output (TMP is then ""). */
FILE *case_open_out(const char *out, char *tmp, size_t len);

/* Close the temporary and rename it to OUT (checking OUT again): 0, or 2 after one line
 * on stderr and with the temporary removed. */
int case_close_out(FILE *f, const char *tmp, const char *out);

/* The verdict word an expect line gives run r: EXPECT_UNFIRED when it ended ok with a
 * preemption that did not fire, else its verdict where the whole schedule fired, or
 * lockdep's prediction (SIM_PREDICTED, which needs no schedule) whatever fired; NULL
 * when no word fits (another finding with a preemption that did not fire). */
const char *case_expect_word(const struct run_result *r);

/* Whether run r meets the expect line's verdict want (replay --check): a verdict met
 * with the whole schedule fired, or EXPECT_UNFIRED met by an ok run with a preemption
 * that did not fire. */
bool case_expect_met(const char *want, const struct run_result *r);

/* Minimize *p, which gives the finding `verdict` on kernel k with the oracles ORACLES
 * (run_opts.oracles: 0 the default set), keeping that signature; then write it as a case
 * with an expect line for every listed kernel (where one fits: case_expect_word; the
 * default oracles' verdict, which `replay --check` checks) to OUT,
 * or to stdout when OUT is NULL. IN (where the input came from) and BY (the command) go
 * in the header comment. Returns 0, or 2 after one line on stderr. */
int case_write_minimized(struct program *p, const struct kernel_config *k, const char *verdict,
			 unsigned oracles, const char *in, const char *by, const char *out);
/* The same, with NOTE (one or more lines, each ending in a newline; NULL: none) as
 * comment lines after the header: snafu confirm says what it confirmed. */
int case_write_minimized_note(struct program *p, const struct kernel_config *k, const char *verdict,
			      unsigned oracles, const char *in, const char *by, const char *note,
			      const char *out);

#endif
