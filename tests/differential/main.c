/* differential: run seeded random programs on the model and on the host kernel, and
 * count their disagreements by the table of known differences (era.c).
 *
 *   differential [--kernel=NAME] [--seed=N] [--programs=N] [--print=N] [--save=DIR]
 *                [--strict] [--quiet]
 *                [--verbose]     every program, and op by op both sides' answers
 *   differential [--kernel=NAME] --case=FILE
 *                                one program (text, task 1 only), op by op
 *   differential --table         the table of known differences
 *
 * The model runs kernel 2.6.11 unless --kernel names another; programs have
 * futex_wake_op where that kernel has FUTEX_WAKE_OP. A program is compared op by op. A disagreement
 * that matches an entry which leaves both address spaces alike (era.c: `cont`) is counted and the
 * comparison goes on; any other stops it, since what follows may be its echo.
 *
 * Exit status: 0 when every disagreement matches an entry of the table (with --strict:
 * an era or configuration entry, not a known model defect), 1 when some are DEFECTs, 2
 * for a usage error, 77 when this host cannot run the test (the reason on stdout).
 */
#define _GNU_SOURCE
#include "diff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KINDS 64

static struct {
	uint64_t seed, programs;
	int print;
	const char *save, *casefile, *kernel;
	bool strict, quiet, verbose;
} opt = {.seed = 1, .programs = 1000, .print = 3, .kernel = DIFF_KERNEL};

static const struct kernel_config *kernel;
static struct host_info hi;

/* What one program's comparison found: each disagreement's op and entry (-1: DEFECT). */
struct verdict {
	int n;
	int op[PROG_MAX_OPS], entry[PROG_MAX_OPS];
	bool defect, known;          /* a DEFECT; a known model defect */
	struct divergence d;         /* the last disagreement */
	char line[PROG_MAX_OPS][96]; /* each one, in words */
};

/* The text of op i, as prog_print writes it (without the indent). */
static void op_text(const struct program *p, int i, char *buf, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int k = -1;

	prog_print(p, f);
	fclose(f);
	snprintf(buf, len, "?");
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] == ' ' && ++k == i) {
			snprintf(buf, len, "%s", line + 2);
			break;
		}
	free(text);
}

/* The printed program must parse back to the same ops: what `snafu replay` runs. */
static bool round_trips(const struct program *p)
{
	static struct program q;
	char *text = NULL, err[PROG_ERR_LEN];
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	prog_print(p, f);
	fclose(f);
	int bad = prog_parse(text, &q, err, sizeof(err));
	free(text);
	if (bad || q.nops != p->nops) {
		fprintf(stderr, "differential: a generated program does not parse: %s\n", err);
		return false;
	}
	for (int i = 0; i < p->nops; i++) {
		const struct op *a = &p->ops[i], *b = &q.ops[i];
		if (a->kind != b->kind || a->task != b->task || a->x != b->x || a->y != b->y ||
		    a->z != b->z || a->w != b->w || a->each_page != b->each_page ||
		    memcmp(&a->a, &b->a, sizeof(a->a)) ||
		    (op_uses_b(a->kind) && memcmp(&a->b, &b->b, sizeof(a->b)))) {
			fprintf(stderr, "differential: op %d does not print and parse back\n", i);
			return false;
		}
	}
	return true;
}

/* A disagreement in words: the two answers, or the two values and who wrote them. */
static void describe(const struct divergence *d, char *buf, size_t len)
{
	int i = d->op;

	switch (d->kind) {
	case DIV_RET:
		snprintf(buf, len, "model %ld, host %ld", d->m->ret[i], d->h->ret[i]);
		break;
	case DIV_VALUE:
		snprintf(buf, len, "model read %u, host %u", d->m->loaded[i], d->h->loaded[i]);
		break;
	case DIV_FINDING:
		snprintf(buf, len, "the model's op never returned (run: %.40s)", d->m->verdict);
		break;
	default:
		snprintf(buf, len, "the model's mmap failed (%ld)", d->m->ret[i]);
	}
	if (d->value && d->writer >= 0) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, ", the bytes written by op %d", d->writer + 1);
	}
}

/* The kind of a DEFECT, for the summary: the op, and the two answers or the writer. */
static void defect_key(const struct divergence *d, char *buf, size_t len)
{
	const char *name = op_table[d->p->ops[d->op].kind].name;
	const char *writer = d->writer < 0 ? "nothing" : op_table[d->p->ops[d->writer].kind].name;

	if (d->kind == DIV_VALUE)
		snprintf(buf, len, "load value, written by %s", writer);
	else if (d->value)
		snprintf(buf, len, "%s: model %ld, host %ld, written by %s", name, d->m->ret[d->op],
			 d->h->ret[d->op], writer);
	else if (d->kind == DIV_RET)
		snprintf(buf, len, "%s: model %ld, host %ld", name,
			 d->p->ops[d->op].kind == OP_MMAP ? 1 : d->m->ret[d->op], d->h->ret[d->op]);
	else
		snprintf(buf, len, "%s: %s", name,
			 d->kind == DIV_FINDING ? "the model's op never returned"
						: "model mmap failed");
}

/* Compare op by op: every disagreement, up to the first one the comparison cannot go
 * past. */
static void judge(const struct program *p, const struct run_result *m, const struct host_result *h,
		  struct verdict *v)
{
	struct divergence *d = &v->d;

	v->n = 0;
	v->defect = v->known = false;
	for (int from = 0;; from = d->op + 1) {
		diff_compare(p, kernel, m, h, from, d);
		if (d->kind == DIV_NONE)
			return;
		int e = era_classify(d, &hi);
		v->op[v->n] = d->op;
		v->entry[v->n] = e;
		describe(d, v->line[v->n], sizeof(v->line[0]));
		v->n++;
		v->defect |= e < 0;
		v->known |= e >= 0 && era_table[e].kind == ENTRY_DEFECT;
		if (e < 0 || !era_table[e].cont)
			return;
		/* a futex_wake_op that did its operation on one side only (or may have): the
		 * word differs */
		const struct op *o = &p->ops[d->op];
		int wrote =
		    o->kind == OP_FUTEX_WAKE_OP ? diff_wake_op_wrote(kernel, o, m->ret[d->op]) : 0;
		if (wrote < 0 || (o->kind == OP_FUTEX_WAKE_OP &&
				  wrote != diff_wake_op_wrote(NULL, o, h->ret[d->op])))
			return;
	}
}

/* One run, op by op, with its disagreements. */
static void print_run(const struct program *p, const struct run_result *m,
		      const struct host_result *h, const struct verdict *v)
{
	char line[160];
	int k = 0;

	for (int i = 0; i < p->nops; i++) {
		op_text(p, i, line, sizeof(line));
		printf("%3d %-44s model %-11ld host %-11ld", i + 1, line, m->ret[i], h->ret[i]);
		if (p->ops[i].kind == OP_LOAD)
			printf(" read %u / %u", m->loaded[i], h->loaded[i]);
		if (k < v->n && v->op[k] == i) {
			int e = v->entry[k];
			printf("  <== %s %s: %s",
			       e < 0 ? "DEFECT" : entry_kind_name(era_table[e].kind),
			       e < 0 ? "" : era_table[e].id, v->line[k]);
			k++;
		}
		printf("\n");
	}
	printf("%s\n", v->defect ? "DEFECT" : v->n ? "no defect" : "agree");
}

static struct tally {
	char key[96];
	long count;
	uint64_t first_seed;
} defects[MAX_KINDS];
static int ndefects;

static void tally(const struct divergence *d, uint64_t seed)
{
	char key[96];
	int i;

	defect_key(d, key, sizeof(key));
	for (i = 0; i < ndefects && strcmp(defects[i].key, key); i++)
		;
	if (i == ndefects) {
		if (ndefects == MAX_KINDS) {
			i = MAX_KINDS - 1; /* the last row collects the rest */
		} else {
			snprintf(defects[i].key, sizeof(defects[i].key), "%s", key);
			defects[i].first_seed = seed;
			ndefects++;
		}
	}
	defects[i].count++;
}

static void save_case(const struct program *p, uint64_t seed, const char *line)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/defect-%llu.case", opt.save, (unsigned long long)seed);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "differential: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "# differential --kernel=%s --seed=%llu --programs=1: %s\n", kernel->name,
		(unsigned long long)seed, line);
	prog_print(p, f);
	fclose(f);
}

static void run_one(const struct program *p, struct run_result *m, struct host_result *h,
		    struct verdict *v)
{
	struct run_opts ro = {.no_digest = true};

	prog_run(p, kernel, &ro, m);
	host_run(p, m, h);
	judge(p, m, h, v);
}

static int usage(const char *why)
{
	fprintf(stderr,
		"differential: %s\nusage: differential [--kernel=NAME] [--seed=N] [--programs=N] "
		"[--print=N] [--save=DIR] [--strict] [--quiet] [--verbose] | [--kernel=NAME] "
		"--case=FILE | --table\n",
		why);
	return 2;
}

static void print_table(void)
{
	for (int e = 0; e < era_count; e++) {
		const struct era_entry *t = &era_table[e];
		printf("%s (%s): %s\n  %s: %s\n  %s: %s\n", t->id, entry_kind_name(t->kind),
		       t->what, t->kernels ? t->kernels : "2.6.11", t->then,
		       t->kind == ENTRY_DEFECT ? "model" : "today", t->now);
	}
}

static int run_case(void)
{
	static struct program p;
	static struct run_result m;
	static struct host_result h;
	static struct verdict v;
	static char text[1 << 20];
	char err[PROG_ERR_LEN];
	FILE *f = strcmp(opt.casefile, "-") ? fopen(opt.casefile, "r") : stdin;

	if (!f)
		return usage(strerror(errno));
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	if (f != stdin)
		fclose(f);
	if (prog_parse(text, &p, err, sizeof(err))) {
		fprintf(stderr, "%s:%s\n", opt.casefile, err);
		return 2;
	}
	for (int i = 0; i < p.nops; i++)
		if (p.ops[i].task != 1)
			return usage("--case: every op must be task 1's (one task, run in order)");
	run_one(&p, &m, &h, &v);
	print_run(&p, &m, &h, &v);
	return v.defect || (v.known && opt.strict);
}

static int run_many(void)
{
	static struct program p;
	static struct run_result m;
	static struct host_result h;
	static struct verdict v;
	long count[64] = {0}, by_kind[3] = {0}, agree = 0, ops = 0, compared = 0;
	long bad = 0, known = 0;
	struct timespec t0, t1;
	char why[512];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint64_t s = opt.seed; s < opt.seed + opt.programs; s++) {
		if ((s - opt.seed) % 1000 == 999 && host_check_window(why, sizeof(why))) {
			printf("skip: %s\n", why); /* the runtime moved in: results mean nothing */
			return 77;
		}
		diff_generate(s, kernel_wake_op(kernel), kernel_private_futexes(kernel), &p);
		if (!round_trips(&p))
			return 1;
		run_one(&p, &m, &h, &v);
		ops += p.nops;
		compared += v.d.kind == DIV_NONE ? p.nops : v.d.op + 1;
		agree += !v.n;
		known += v.known;
		for (int k = 0; k < v.n; k++)
			if (v.entry[k] >= 0) {
				count[v.entry[k]]++;
				by_kind[era_table[v.entry[k]].kind]++;
			}
		if (opt.verbose) {
			printf("# seed %llu\n", (unsigned long long)s);
			prog_print(&p, stdout);
			print_run(&p, &m, &h, &v);
		}
		if (!v.defect)
			continue;
		const char *line = v.line[v.n - 1];
		tally(&v.d, s);
		if (bad++ < opt.print) {
			printf("DEFECT (seed %llu): op %d: %s\n", (unsigned long long)s, v.d.op + 1,
			       line);
			printf("# replay: differential --kernel=%s --case=FILE; snafu replay "
			       "--kernel=%s FILE\n",
			       kernel->name, kernel->name);
			prog_print(&p, stdout);
		}
		if (opt.save)
			save_case(&p, s, line);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("differential: %llu programs from seed %llu, model %s, host %s\n",
	       (unsigned long long)opt.programs, (unsigned long long)opt.seed, kernel->name,
	       hi.uname);
	printf("differential: %ld ops, %ld compared (a comparison stops at a disagreement it "
	       "cannot go past)\n",
	       ops, compared);
	printf("differential: programs: %ld agree op by op, %ld with a known model defect, %ld "
	       "with a DEFECT\n",
	       agree, known, bad);
	printf("differential: disagreements: era %ld, host configuration %ld, known model defect "
	       "%ld, DEFECT %ld\n",
	       by_kind[ENTRY_ERA], by_kind[ENTRY_CONFIG], by_kind[ENTRY_DEFECT], bad);
	if (!opt.quiet) {
		for (int e = 0; e < era_count; e++)
			printf("  %-6s %-20s %7ld  %s\n", entry_kind_name(era_table[e].kind),
			       era_table[e].id, count[e], era_table[e].what);
		for (int i = 0; i < ndefects; i++)
			printf("  DEFECT %-50s %7ld  (first: --seed=%llu --programs=1)\n",
			       defects[i].key, defects[i].count,
			       (unsigned long long)defects[i].first_seed);
	}
	printf("differential: %.1f s, %.0f programs/s\n", secs, (double)opt.programs / secs);
	return bad || (opt.strict && known) ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool table = false;
	char why[512];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--seed=", 7))
			opt.seed = strtoull(a + 7, NULL, 0);
		else if (!strncmp(a, "--programs=", 11))
			opt.programs = strtoull(a + 11, NULL, 0);
		else if (!strncmp(a, "--print=", 8))
			opt.print = atoi(a + 8);
		else if (!strncmp(a, "--save=", 7))
			opt.save = a + 7;
		else if (!strncmp(a, "--kernel=", 9))
			opt.kernel = a + 9;
		else if (!strncmp(a, "--case=", 7))
			opt.casefile = a + 7;
		else if (!strcmp(a, "--strict"))
			opt.strict = true;
		else if (!strcmp(a, "--quiet"))
			opt.quiet = true;
		else if (!strcmp(a, "--verbose"))
			opt.verbose = true;
		else if (!strcmp(a, "--table"))
			table = true;
		else
			return usage(a);
	}
	if (table) {
		print_table();
		return 0;
	}
	kernel = kernel_by_name(opt.kernel);
	if (!kernel || kernel->test_only) {
		snprintf(why, sizeof(why), "--kernel=%s: expected a kernel `snafu kernels` lists",
			 opt.kernel);
		return usage(why);
	}
	if (host_init(&hi, why, sizeof(why))) {
		printf("skip: %s\n", why);
		return 77;
	}
	return opt.casefile ? run_case() : run_many();
}
