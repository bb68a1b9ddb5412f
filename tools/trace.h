/* snafu trace: one run of a case as a Chrome/Perfetto trace or a self-contained HTML
 * picture of the interleaving. */
#ifndef SNAFU_TRACE_H
#define SNAFU_TRACE_H

#include "../prog/exec.h"

#include <stdio.h>

struct timeline;

int cmd_trace(int argc, char **argv);

/* The writers of the timeline M of the run R of case PATH on kernel K: the JSON trace
 * (tools/trace_json.c) and the HTML page (tools/trace_html.c). */
void trace_write_json(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r);
void trace_write_html(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r);

#endif
