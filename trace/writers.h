/* The trace writers: one run's timeline (trace/timeline.h) as a Chrome/Perfetto trace or a
 * self-contained HTML picture of the interleaving. snafu trace (tools/trace.c) calls them. */
#ifndef SNAFU_TRACE_WRITERS_H
#define SNAFU_TRACE_WRITERS_H

#include "../prog/exec.h"

#include <stdio.h>

struct timeline;

/* The writers of the timeline M of the run R of case PATH on kernel K: the JSON trace
 * (trace/json.c) and the HTML page (trace/html.c). */
void trace_write_json(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r);
void trace_write_html(FILE *f, const struct timeline *m, const char *path,
		      const struct kernel_config *k, const struct run_result *r);

#endif
