/* The fuzz driver's options (driver/drive.c): parsed and checked (bad usage: one line,
 * exit 2), libFuzzer's own flags checked against the fuzzer's list, --known read, where
 * snafu, the fuzzer, the seeds, OUT and FOUND are, the jobs made; and the command line
 * that gives the run again. */
#include "internal.h"

#include "../cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The driver's options: a command takes those its plan's opts name. */
enum {
	D_KERNEL,
	D_RUNS,
	D_SECONDS,
	D_JOBS,
	D_FORK,
	D_OPS,
	D_SEED,
	D_FRESH,
	D_OUT,
	D_FOUND,
	D_KNOWN,
	D_MERGE,
	D_NO_MERGE,
	D_MERGE_INTO,
	D_FUZZER,
	D_MARKDOWN,
	D_ORACLES,
	D_SCHEDULE,
	D_ICOV,
	D_SEEDS,
	D_KEEP_GOING,
	D_EMPTY,
	D_JOINT,
	D_COUNT
};
static const struct {
	unsigned bit;
	const char *name;  /* "--runs=": takes a value; "--fork": does not */
	const char *shown; /* what an unknown argument's error line offers */
} defs[D_COUNT] = {
    [D_KERNEL] = {FUZZ_KERNEL, "--kernel=", "--kernel=NAME|all"},
    [D_RUNS] = {FUZZ_RUNS, "--runs=", "--runs=N"},
    [D_SECONDS] = {FUZZ_SECONDS, "--seconds=", "--seconds=S"},
    [D_JOBS] = {FUZZ_JOBS, "--jobs=", "--jobs=J"},
    [D_FORK] = {FUZZ_FORK, "--fork", "--fork"},
    [D_OPS] = {FUZZ_OPS, "--ops=", "--ops=futex|all"},
    [D_SEED] = {FUZZ_SEED, "--seed=", "--seed=S"},
    [D_FRESH] = {FUZZ_FRESH, "--fresh", "--fresh"},
    [D_OUT] = {FUZZ_OUT, "--out=", "--out=DIR"},
    [D_FOUND] = {FUZZ_FOUND, "--found=", "--found=DIR"},
    [D_KNOWN] = {FUZZ_KNOWN, "--known=", "--known=FILE"},
    [D_MERGE] = {FUZZ_MERGE, "--merge", "--merge"},
    [D_NO_MERGE] = {FUZZ_MERGE, "--no-merge", "--no-merge"},
    [D_MERGE_INTO] = {FUZZ_MERGE, "--merge-into=", "--merge-into=DIR"},
    [D_FUZZER] = {FUZZ_FUZZER, "--fuzzer=", "--fuzzer=PATH"},
    [D_MARKDOWN] = {FUZZ_MARKDOWN, "--markdown", "--markdown"},
    [D_ORACLES] = {FUZZ_ORACLES, "--oracles=", "--oracles=LIST"},
    [D_SCHEDULE] = {FUZZ_SEARCH, "--schedule=", "--schedule=pct|preempt"},
    [D_ICOV] = {FUZZ_SEARCH, "--interleaving-coverage=", "--interleaving-coverage=0|1"},
    [D_SEEDS] = {FUZZ_SEEDS, "--seeds=", "--seeds=N"},
    [D_KEEP_GOING] = {FUZZ_KEEP_GOING, "--keep-going", "--keep-going"},
    [D_EMPTY] = {FUZZ_FRESH, "--empty", "--empty"},
    [D_JOINT] = {FUZZ_SEARCH, "--joint=", "--joint=N"},
};

/* A decimal number in lo..hi, digits only, or one line naming WHAT, exit 2. */
static unsigned long long num_arg(const char *a, const char *v, unsigned long long lo,
				  unsigned long long hi, const char *what, int argn)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : (end = (char *)v, 0);
	if (end == v || *end || errno || n < lo || n > hi)
		die_usage(what, a, argn);
	return n;
}

/* V when it is X or Y, else one line naming WHAT, exit 2. */
static const char *either(const char *a, const char *v, const char *x, const char *y,
			  const char *what, int argn)
{
	if (strcmp(v, x) && strcmp(v, y))
		die_usage(what, a, argn);
	return v;
}

/* A directory or file argument into DST: not empty, trailing slashes dropped. */
static void path_arg(char *dst, const char *a, const char *v, const char *what, int argn)
{
	size_t n = strlen(v);

	while (n > 1 && v[n - 1] == '/')
		n--;
	if (!n || n >= PATH_LEN - 256)
		die_usage(what, a, argn);
	fz_pathf(dst, PATH_LEN, "%.*s", (int)n, v);
}

/* The arguments into R; bad usage gets one line and exit 2 (die_usage()). */
void fz_parse(struct fuzz_run *r, int argc, char **argv)
{
	const struct fuzz_plan *p = r->p;
	char expected[768] = "";
	int merge_into_argn = 0, no_merge_argn = 0;

	const char *names[D_COUNT + 9];
	int nn = 0;
	for (int d = 0; d < D_COUNT; d++)
		if (p->opts & defs[d].bit)
			names[nn++] = defs[d].shown;
	for (int i = 0; p->option_shown && p->option_shown[i] && i < 8; i++)
		names[nn++] = p->option_shown[i];
	if (p->opts & FUZZ_LIBFUZZER)
		names[nn++] = "a libFuzzer flag -NAME=VALUE";
	for (int i = 0; i < nn; i++) /* A, B, C or D */
		fz_appendf(expected, sizeof(expected), "%s%s",
			   !i           ? ""
			   : i + 1 < nn ? ", "
					: " or ",
			   names[i]);
	r->lf = calloc((size_t)argc, sizeof(*r->lf));
	r->lf_argn = calloc((size_t)argc, sizeof(*r->lf_argn));
	if (!r->lf || !r->lf_argn)
		abort();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int d = 0, argn = i + 1;
		for (; d < D_COUNT; d++) {
			size_t len = strlen(defs[d].name);
			bool value = defs[d].name[len - 1] == '=';
			if ((p->opts & defs[d].bit) &&
			    (value ? !strncmp(a, defs[d].name, len) : !strcmp(a, defs[d].name))) {
				v = a + len;
				break;
			}
		}
		switch (d) {
		case D_KERNEL:
			if (strcmp(v, "all"))
				kernel_arg(v); /* one line and exit 2 when it is no kernel */
			if (r->nkernel_args == 64)
				die_usage("at most 64 --kernel options", a, argn);
			r->kernel_args[r->nkernel_args++] = v;
			break;
		case D_RUNS:
			r->runs = (long long)num_arg(a, v, 1, 1000000000000ull,
						     "--runs=N with N in 1..1000000000000", argn);
			break;
		case D_SECONDS:
			r->seconds = (long long)num_arg(a, v, 1, 100000000,
							"--seconds=S with S in 1..100000000", argn);
			break;
		case D_JOBS:
			r->jobs = (long)num_arg(a, v, 1, 1024, "--jobs=J with J in 1..1024", argn);
			break;
		case D_SEED: /* libFuzzer takes -seed=0 for "pick one": not reproducible */
			r->seed = num_arg(a, v, 1, 4294967295ull,
					  "--seed=S with S in 1..4294967295", argn);
			break;
		case D_SEEDS:
			r->seed_count =
			    (int)num_arg(a, v, 1, 1000, "--seeds=N with N in 1..1000", argn);
			r->seeds_argn = argn;
			break;
		case D_OPS:
			r->ops = either(a, v, "futex", "all", "--ops=futex or --ops=all", argn);
			break;
		case D_OUT:
			/* a ',' would split OUT/KERNEL/seeds/NAME in -seed_inputs */
			if (strchr(v, ','))
				die_usage("--out=DIR with a directory name (no ',')", a, argn);
			path_arg(r->out, a, v, "--out=DIR with a directory name (no ',')", argn);
			break;
		case D_FOUND:
			path_arg(r->found, a, v, "--found=DIR with a directory name", argn);
			break;
		case D_KNOWN:
			path_arg(r->known_file, a, v, "--known=FILE with a file name", argn);
			break;
		case D_MERGE_INTO: /* a merge, into DIR */
			path_arg(r->merge_into, a, v, "--merge-into=DIR with a directory name",
				 argn);
			merge_into_argn = argn;
			break;
		case D_FUZZER:
			path_arg(r->fuzzer, a, v, "--fuzzer=PATH with a file name", argn);
			r->fuzzer_given = true;
			break;
		case D_FORK:
			r->fork = true;
			break;
		case D_FRESH:
			r->fresh = true;
			break;
		case D_EMPTY: /* nothing at all: no seeds, no corpus of earlier runs */
			r->fresh = r->empty = true;
			break;
		case D_KEEP_GOING:
			r->keep_going = true;
			break;
		case D_MERGE:
		case D_NO_MERGE:
			r->merge = d == D_MERGE;
			no_merge_argn = d == D_NO_MERGE ? argn : 0;
			break;
		case D_MARKDOWN:
			r->markdown = true;
			break;
		case D_ORACLES:
			oracles_arg(a, v, argn); /* one line and exit 2 when it names none */
			r->oracles = v;
			break;
		case D_SCHEDULE: /* the kind of schedule the mutator writes (docs/fuzzing.md) */
			r->schedule = either(a, v, "pct", "preempt",
					     "--schedule=pct or --schedule=preempt", argn);
			break;
		case D_ICOV:
			r->icov = either(a, v, "0", "1", "--interleaving-coverage=0 or 1", argn);
			break;
		case D_JOINT: /* the fuzzer's --joint=N (fuzz/joint.c) */
			r->joint =
			    (long long)num_arg(a, v, 0, 1000000, "--joint=N, 0..1000000", argn);
			break;
		default:
			if (p->option && p->option(a, argn))
				break; /* the command's own */
			if (!(p->opts & FUZZ_LIBFUZZER) || a[0] != '-' || a[1] < 'a' ||
			    a[1] > 'z' || !strchr(a, '='))
				die_usage(expected, a, argn);
			if (!strncmp(a, "-artifact_prefix=", 17) ||
			    !strncmp(a, "-exact_artifact_path=", 21))
				die_usage("no -artifact_prefix or -exact_artifact_path: snafu fuzz "
					  "puts artifacts in --out=DIR/KERNEL/",
					  a, argn);
			r->lf[r->nlf] = a;
			r->lf_argn[r->nlf++] = argn;
		}
	}
	if (merge_into_argn && !no_merge_argn) /* --no-merge: DIR only named */
		r->merge = true;
	if (r->seed_count > 1 &&
	    (!r->seed || r->seed + (unsigned)r->seed_count - 1 > 4294967295ull))
		die_usage("--seeds=N with --seed=S, S + N - 1 at most 4294967295",
			  argv[r->seeds_argn - 1], r->seeds_argn);
}

/* " NAME NAME ... ": the first word of each line after "Flags:" in `FUZZER -help=1`. */
static char *libfuzzer_flags(const char *fuzzer)
{
	struct fz_args a = {0};

	fz_arg(&a, "%s", fuzzer);
	fz_arg(&a, "-help=1");
	char *help = fz_capture(&a), *list = malloc(strlen(help) + 2), *o = list;
	if (!list)
		abort();
	o += sprintf(o, " ");
	for (const char *l = strstr(help, "\nFlags:"); l && (l = strchr(l + 1, '\n'));) {
		size_t w = strspn(l + 2, "abcdefghijklmnopqrstuvwxyz_");
		if (l[1] == ' ' && w && (l[2 + w] == ' ' || l[2 + w] == '\t'))
			o += sprintf(o, "%.*s ", (int)w, l + 2);
	}
	free(help);
	return list;
}

/* libFuzzer's flags that take a string or a path (FuzzerFlags.def's FUZZER_FLAG_STRING);
 * the unsigned ones (seed, jobs, workers) take no minus sign; every other one a number. */
void fz_check_libfuzzer_flags(const struct fuzz_run *r)
{
	static const char string_flags[] =
	    " seed_inputs stop_file merge_control_file features_dir mutation_graph_file dict "
	    "artifact_prefix exact_artifact_path exit_on_src_pos exit_on_item focus_function "
	    "data_flow_trace collect_data_flow ";
	char *known = NULL, what[PATH_LEN + 128];

	for (int i = 0; i < r->nlf; i++) {
		const char *f = r->lf[i], *eq = strchr(f, '=');
		int len = (int)(eq - f - 1);
		char name[80];
		snprintf(name, sizeof(name), " %.*s ", len, f + 1);
		known = known ? known : libfuzzer_flags(r->fuzzer);
		if (!strstr(known, name)) {
			snprintf(what, sizeof(what),
				 "a libFuzzer flag: -%.*s is not a libFuzzer flag (`%s -help=1` "
				 "lists them)",
				 len, f + 1, fz_shown(r->fuzzer));
			die_usage(what, f, r->lf_argn[i]);
		}
		bool unsigned_only = strstr(" seed jobs workers ", name) != NULL;
		const char *v = eq + 1 + (!unsigned_only && eq[1] == '-');
		if (!strstr(string_flags, name) && (!*v || strspn(v, "0123456789") != strlen(v))) {
			snprintf(what, sizeof(what),
				 "a libFuzzer flag: -%.*s takes a whole number, not '%.64s'", len,
				 f + 1, eq + 1);
			die_usage(what, f, r->lf_argn[i]);
		}
	}
	free(known);
}

/* --known: KERNEL SIGNATURE lines; # comments and blank lines skipped. */
void fz_read_known(struct fuzz_run *r)
{
	FILE *f = fopen(r->known_file, "r");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f) {
		fprintf(stderr, "snafu %s: %s: cannot open: %s\n", r->name, r->known_file,
			strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) > 0) {
		char *save, *w[3];
		n++;
		line[strcspn(line, "#")] = 0;
		w[0] = strtok_r(line, " \t\r\n", &save);
		w[1] = w[0] ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		w[2] = w[1] ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		if (!w[0])
			continue;
		if (!w[1] || w[2] || strlen(w[0]) >= 64 || strlen(w[1]) >= 256) {
			fprintf(stderr, "%s:%d: expected KERNEL SIGNATURE\n", r->known_file, n);
			exit(2);
		}
		r->known = realloc(r->known, (size_t)(r->nknown + 1) * sizeof(*r->known));
		if (!r->known)
			abort();
		snprintf(r->known[r->nknown].kernel, 64, "%s", w[0]);
		snprintf(r->known[r->nknown++].sig, 256, "%s", w[1]);
	}
	free(line);
	fclose(f);
}

bool fz_is_known(const struct fuzz_run *r, const char *k, const char *sig)
{
	for (int i = 0; i < r->nknown; i++)
		if (!strcmp(r->known[i].kernel, k) && (!sig || !strcmp(r->known[i].sig, sig)))
			return true;
	return false;
}

/* snafu's directory, --out's default, the fuzzer, the seed corpus, --found's default. */
void fz_locate(struct fuzz_run *r)
{
	if (!cli_exe_path(r->exe, sizeof(r->exe)) || !cli_exe_dir(r->dir, sizeof(r->dir))) {
		fprintf(stderr, "snafu %s: cannot find snafu's own executable: %s\n", r->name,
			strerror(errno));
		exit(2);
	}
	if (!r->out[0]) {
		/* next to snafu's directory, not under the working directory: build/NAME for
		 * build/bin/snafu, wherever it is run from (dir is /proc/self/exe's, without
		 * symbolic links) */
		const char *slash = strrchr(r->dir, '/');
		int up = slash && slash > r->dir ? (int)(slash - r->dir) : 0;
		fz_pathf(r->out, sizeof(r->out), "%.*s/%s", up, r->dir, r->p->out_name);
		if (strchr(r->out, ',')) {
			fprintf(stderr,
				"snafu %s: %s: expected a directory without ',' (give --out=DIR)\n",
				r->name, r->out);
			exit(2);
		}
	}
	if (!r->fuzzer_given)
		fz_pathf(r->fuzzer, sizeof(r->fuzzer), "%s/futex_mm_fuzzer", r->dir);
	if (access(r->fuzzer, X_OK) || fz_is_dir(r->fuzzer)) {
		fprintf(stderr, "snafu %s: %s: expected %s\n", r->name, r->fuzzer,
			r->fuzzer_given ? "an executable fuzz target"
					: "the fuzzer next to snafu (clang builds it: ./build.sh)");
		exit(2);
	}
	/* the seed corpus: in the source tree this snafu was built from, else two levels
	 * up from bin/ (a build directory in the source tree, moved along with it) */
	const char *candidates[2] = {
#ifdef SNAFU_SOURCE_DIR
	    SNAFU_SOURCE_DIR "/corpus/futex_mm_fuzzer",
#else
	    NULL,
#endif
	    NULL};
	char rel[PATH_LEN];
	fz_pathf(rel, sizeof(rel), "%s/../../corpus/futex_mm_fuzzer", r->dir);
	candidates[1] = rel;
	for (int i = 0; i < 2 && !r->seeds[0]; i++)
		if (candidates[i] && fz_is_dir(candidates[i]) &&
		    realpath(candidates[i], r->seeds) == NULL)
			r->seeds[0] = 0;
	if (!r->seeds[0]) {
		fprintf(stderr, "snafu %s: %s: expected the seed corpus there\n", r->name,
			candidates[0] ? candidates[0] : rel);
		exit(2);
	}
	if (!r->found[0]) { /* repro/found in the seeds' source tree, without ".." */
		char tree[PATH_LEN];
		fz_pathf(tree, sizeof(tree), "%s", r->seeds); /* TREE/corpus/futex_mm_fuzzer */
		for (int up = 0; up < 2; up++) {
			char *slash = strrchr(tree, '/');
			if (slash && slash != tree)
				*slash = 0;
		}
		fz_pathf(r->found, sizeof(r->found), "%s/repro/found", tree);
	}
	if (!r->merge_into[0])
		fz_pathf(r->merge_into, sizeof(r->merge_into), "%s", r->seeds);
}

/* DIR is a directory this process may write in, or one it may create (its nearest
 * existing ancestor is): else one line naming it and WHAT, exit 2. */
void fz_writable_dir(const struct fuzz_run *r, const char *dir, const char *what)
{
	char at[PATH_LEN];
	struct stat st;

	fz_pathf(at, sizeof(at), "%s", dir);
	for (;;) {
		if (stat(at, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				errno = ENOTDIR;
			else if (access(at, W_OK | X_OK) == 0)
				return;
			fprintf(stderr, "snafu %s: %s (%s): cannot write there: %s\n", r->name, dir,
				what, strerror(errno));
			exit(2);
		}
		char *slash = strrchr(at, '/');
		if (!slash || slash == at) { /* a relative name's first component: "." */
			fz_pathf(at, sizeof(at), "%s", slash ? "/" : ".");
			continue;
		}
		*slash = 0;
	}
}

/* The oracles of a job's runs, as --oracles=LIST spells them (NULL: the default set). */
const char *fz_job_oracles(const struct fuzz_run *r, const struct fuzz_job *j)
{
	return j->oracle ? j->oracle : r->oracles;
}

/* The kernels: --kernel's, in the order given (all: every kernel), else the plan's
 * default; with per_oracle, a job for each of the run's oracles on each kernel, and for
 * each seed of --seeds. */
void fz_make_jobs(struct fuzz_run *r)
{
	bool all = r->p->all_kernels && !r->nkernel_args;
	const char *names[64] = {SNAFU_DEFAULT_KERNEL};
	int n = r->nkernel_args ? r->nkernel_args : 1;

	for (int a = 0; a < r->nkernel_args; a++) {
		names[a] = r->kernel_args[a];
		all |= !strcmp(names[a], "all");
	}
	char err[256];
	unsigned mask = r->oracles ? oracles_parse(r->oracles, err, sizeof(err)) : ORACLES_DEFAULT;
	int per = 0;
	for (const struct oracle_info *o = oracle_table; o->name; o++)
		per += r->p->per_oracle && (mask & o->bit);
	r->job =
	    calloc((size_t)kernel_count() * (size_t)(per ? per : 1) * (size_t)r->seed_count + 1,
		   sizeof(*r->job));
	if (!r->job)
		abort();
	const struct kernel_config *listed = NULL;
	for (int i = 0; i < (all ? kernel_count() : n); i++) {
		const struct kernel_config *k =
		    all ? (listed = kernel_next(listed)) : kernel_by_name(names[i]);
		bool dup = false;
		for (int d = 0; d < r->njobs; d++)
			dup |= r->job[d].k == k;
		for (const struct oracle_info *o = oracle_table; !dup && per && o->name; o++)
			for (int s = 0; (mask & o->bit) && s < r->seed_count; s++) {
				struct fuzz_job *j = &r->job[r->njobs++];
				j->k = k;
				j->oracle = o->name;
				j->seed = r->seed ? r->seed + (unsigned)s : 0;
				j->seed_index = s;
				j->seeds = r->seed_count;
				snprintf(j->label, sizeof(j->label), "%s, oracle %s", k->name,
					 o->name);
				if (r->seed_count > 1)
					fz_appendf(j->label, sizeof(j->label), ", seed %llu",
						   j->seed);
			}
		if (!dup && !per) {
			struct fuzz_job *j = &r->job[r->njobs++];
			j->k = k;
			j->seed = r->seed;
			j->seeds = 1;
			snprintf(j->label, sizeof(j->label), "%s", k->name);
		}
	}
	for (int i = 0; i < r->njobs; i++)
		if (strchr(r->job[i].k->name, '/') || r->job[i].k->name[0] == '.') {
			fprintf(stderr, "snafu %s: kernel '%s': expected a name without '/'\n",
				r->name, r->job[i].k->name);
			exit(2);
		}
}

/* The command line that gives this run again: the options the command takes, each as
 * it is set. */
void fz_command_line(const struct fuzz_run *r, char *buf, size_t len)
{
	unsigned o = r->p->opts;

	buf[0] = 0;
	fz_appendf(buf, len, "%s/snafu %s", fz_shown(r->dir), r->name);
	for (int i = 0; i < r->nkernel_args; i++)
		fz_appendf(buf, len, " --kernel=%s", r->kernel_args[i]);
	if ((o & FUZZ_RUNS) && r->runs)
		fz_appendf(buf, len, " --runs=%lld", r->runs);
	if ((o & FUZZ_SECONDS) && r->seconds)
		fz_appendf(buf, len, " --seconds=%lld", r->seconds);
	fz_appendf(buf, len, " --jobs=%ld%s --ops=%s", r->jobs, r->fork ? " --fork" : "", r->ops);
	if (r->oracles)
		fz_appendf(buf, len, " --oracles=%s", r->oracles);
	if (r->schedule)
		fz_appendf(buf, len, " --schedule=%s", r->schedule);
	if (r->icov)
		fz_appendf(buf, len, " --interleaving-coverage=%s", r->icov);
	if (r->joint >= 0)
		fz_appendf(buf, len, " --joint=%lld", r->joint);
	if (r->seed)
		fz_appendf(buf, len, " --seed=%llu", r->seed);
	if ((o & FUZZ_SEEDS) && r->seed_count > 1)
		fz_appendf(buf, len, " --seeds=%d", r->seed_count);
	if (r->p->option_line)
		r->p->option_line(buf, len);
	if ((o & FUZZ_FRESH) && r->empty)
		fz_appendf(buf, len, " --empty");
	else if ((o & FUZZ_FRESH) && r->fresh)
		fz_appendf(buf, len, " --fresh");
	if ((o & FUZZ_KEEP_GOING) && r->keep_going)
		fz_appendf(buf, len, " --keep-going");
	fz_appendf(buf, len, " --out=%s", r->out);
	if (o & FUZZ_FOUND)
		fz_appendf(buf, len, " --found=%s", fz_shown(r->found));
	if (r->known_file[0])
		fz_appendf(buf, len, " --known=%s", fz_shown(r->known_file));
	if (r->merge)
		fz_appendf(buf, len, " --merge --merge-into=%s", fz_shown(r->merge_into));
	if (r->fuzzer_given)
		fz_appendf(buf, len, " --fuzzer=%s", fz_shown(r->fuzzer));
	for (int i = 0; i < r->nlf; i++)
		fz_appendf(buf, len, " %s", r->lf[i]);
	if (r->markdown)
		fz_appendf(buf, len, " --markdown");
}

/* With a budget and --keep-going or --known (a run that expects some findings and
 * looks for the others: CI's), one fuzzer process runs all of the budget, past every
 * finding (the fuzzer's --keep-going), and says when each signature first came.
 * Otherwise the first finding ends a fuzzer, as libFuzzer's own runs do, and its
 * executions are those to that finding; fork mode goes on by its -ignore_crashes. */
bool fz_keeps_going(const struct fuzz_run *r)
{
	return (r->runs || r->seconds) && !r->fork && (r->keep_going || r->known_file[0]);
}

/* The fuzzer's command line for job j, FUZZER shown as given. */
void fz_fuzzer_args(const struct fuzz_run *r, const char *fuzzer, const struct fuzz_job *j,
		    struct fz_args *a)
{
	fz_arg(a, "%s", fuzzer);
	fz_arg(a, "--kernel=%s", j->k->name);
	fz_arg(a, "--ops=%s", r->ops);
	if (fz_job_oracles(r, j))
		fz_arg(a, "--oracles=%s", fz_job_oracles(r, j));
	if (r->schedule)
		fz_arg(a, "--schedule=%s", r->schedule);
	if (r->icov)
		fz_arg(a, "--interleaving-coverage=%s", r->icov);
	if (r->joint >= 0)
		fz_arg(a, "--joint=%lld", r->joint);
	if (r->p->progress && !r->fork) /* fork mode's workers would each write it */
		fz_arg(a, "--progress=%s/progress", j->dir);
	if (fz_keeps_going(r)) /* past every finding, to the budget */
		fz_arg(a, "--keep-going=%s/", j->dir);
	if (r->runs)
		fz_arg(a, "-runs=%lld", r->runs);
	if (r->seconds)
		fz_arg(a, "-max_total_time=%lld", r->seconds);
	if (j->seed)
		fz_arg(a, "-seed=%llu", j->seed);
	fz_arg(a, "-reload=0"); /* see the top of drive.c (the fuzzer's default too) */
	fz_arg(a, "-print_final_stats=1");
	if (r->fork) {
		fz_arg(a, "-fork=%ld", r->jobs);
		fz_arg(a, "-ignore_crashes=1");
	}
	fz_arg(a, "-artifact_prefix=%s/", j->dir);
	if (!r->fork && j->nseeds > 0) /* libFuzzer exits on an empty list */
		fz_arg(a, "-seed_inputs=@%s/seeds.txt", j->dir);
	for (int i = 0; i < r->nlf; i++)
		fz_arg(a, "%s", r->lf[i]);
	fz_arg(a, "%s/corpus", j->dir);
	if (r->fork)
		fz_arg(a, "%s/seeds", j->dir);
}
