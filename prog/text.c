/* The text form of a program: what people read, write, diff and keep in repro/.
 *
 *   # the LWN article's table
 *   task 1
 *     mmap futex pages=1 prot=rw shared     # /dev/zero, MAP_SHARED
 *     futex_wait futex val=1
 *   task 2
 *     mmap other pages=1 prot=rw            # private anonymous
 *   preempt 1 at op 2 point 7 to 2          # task 1's 2nd op, its 7th point
 *   preempt 1 at op 2 point 9 to timer      # the earliest pending timer fires there
 *   expect 2.6.11-rc4 deadlock--do_page_fault--futex_wait
 *   expect * ok                             # every other listed kernel
 *
 * Addresses are a mapping name or `null`, plus an optional +offset. A mapping is named
 * by the mmap that creates it, anywhere in the file (another task may create it); a
 * reference before that mmap has run is address 0.
 * The grammar is in README.md; the parser reports the first error as LINE:COL.
 */
#include "ops.h"
#include "../ref/kernels.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOK 16

struct tok {
	const char *s;
	int len, col;
};

struct parser {
	int line;
	struct tok t[MAX_TOK];
	int nt;
	char *err;
	size_t errlen;
	char names[PROG_MAX_MAPS][32]; /* mapping names in text order */
	int nnames;
	char fnames[NR_FILES][32]; /* file names in text order: fd 1 up */
	int nfnames;
	int cur_task;
	int task_line[PROG_MAX_TASKS + 1]; /* where each `task N` block begins; 0: none */
	int tasks_decl;                    /* the largest `tasks N` */
	/* for the checks at the end: where each preemption's op, task and target are */
	int pre_line[SIM_MAX_PREEMPTS], pre_col[SIM_MAX_PREEMPTS];
	int pre_task_col[SIM_MAX_PREEMPTS], pre_to_col[SIM_MAX_PREEMPTS];
	int kill_line[PROG_MAX_OPS], kill_col[PROG_MAX_OPS]; /* kill ops, in text order */
	int expect_line[PROG_MAX_EXPECT];
	int mmaps_seen;                   /* mmap lines parsed so far */
	bool default_pages[PROG_MAX_OPS]; /* munmap, mprotect, ... without pages= */
};

static int fail(struct parser *ps, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct parser *ps, int col, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "%d:%d: ", ps->line, col);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A word as error messages quote it: at most 40 bytes, then "..." (a 100 KB word is
 * not echoed back). Use as "%.*s%s", TOKQ(t). */
#define TOK_SHOWN 40
#define TOKQ(t) \
	(t)->len > TOK_SHOWN ? TOK_SHOWN : (t)->len, (t)->s, (t)->len > TOK_SHOWN ? "..." : ""

static bool tok_is(const struct tok *t, const char *s)
{
	return t->len == (int)strlen(s) && !strncmp(t->s, s, (size_t)t->len);
}

/* Parse a number (decimal or 0x hex, optional leading -) filling the whole token. */
static bool parse_num(const char *s, int len, long *out)
{
	char buf[32], *end;

	if (len <= 0 || len >= (int)sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)len);
	buf[len] = 0;
	errno = 0;
	*out = strtol(buf, &end, 0);
	return *end == 0 && errno == 0 && !isspace((unsigned char)buf[0]);
}

static int num_arg(struct parser *ps, const struct tok *t, const char *what, long lo, long hi,
		   long *out)
{
	if (!parse_num(t->s, t->len, out) || *out < lo || *out > hi)
		return fail(ps, t->col, "expected %s (%ld..%ld), found '%.*s%s'", what, lo, hi,
			    TOKQ(t));
	return 0;
}

static int find_name(char (*names)[32], int n, const char *s, int len)
{
	for (int i = 0; i < n; i++)
		if ((int)strlen(names[i]) == len && !strncmp(names[i], s, (size_t)len))
			return i;
	return -1;
}

static int find_map(struct parser *ps, const char *s, int len)
{
	return find_name(ps->names, ps->nnames, s, len);
}

static int find_file(struct parser *ps, const char *s, int len)
{
	return find_name(ps->fnames, ps->nfnames, s, len);
}

/* "f1, f2": the declared files, for error messages */
static const char *file_list(const struct parser *ps)
{
	static char list[NR_FILES * 34];

	list[0] = 0;
	for (int i = 0; i < ps->nfnames; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 ps->fnames[i]);
	return ps->nfnames ? list : "none";
}

/* NAME[+OFF] or null[+OFF]; wide refs (the A operand) allow pages 0..127 and words
 * 0..31 with a misaligned half-word, narrow ones (B) pages 0..31 and words 0..7. */
static int parse_addr(struct parser *ps, const struct tok *t, bool wide, struct uref *u)
{
	const char *plus = memchr(t->s, '+', (size_t)t->len);
	int nlen = plus ? (int)(plus - t->s) : t->len;
	long off = 0;

	memset(u, 0, sizeof(*u));
	if (nlen == 4 && !strncmp(t->s, "null", 4)) {
		u->map = PROG_NULL_MAP;
	} else {
		int m = find_map(ps, t->s, nlen);
		if (m < 0)
			return fail(ps, t->col,
				    "expected an address: a mapping name defined by an mmap of "
				    "the case, or null, found '%.*s%s'",
				    TOKQ(t));
		u->map = (uint8_t)m;
	}
	if (plus && !parse_num(plus + 1, t->len - nlen - 1, &off))
		return fail(ps, t->col + nlen + 1, "expected a byte offset after '+'");
	long page = off / 4096, rem = off % 4096;
	if (off < 0 || page > (wide ? 127 : 31) || rem / 4 > (wide ? 31 : 7) ||
	    (rem % 4 != 0 && (!wide || rem % 4 != 2)))
		return fail(
		    ps, t->col + nlen + 1,
		    "expected an offset PAGE*4096 + WORD*4%s with PAGE <= %d and WORD <= %d",
		    wide ? " (+2 for a misaligned word)" : "", wide ? 127 : 31, wide ? 31 : 7);
	u->page = (uint8_t)page;
	u->word = (uint8_t)(rem / 4);
	u->misaligned = rem % 4 == 2;
	return 0;
}

static int parse_prot(struct parser *ps, const struct tok *t, const char *v, int vlen,
		      uint8_t *prot)
{
	*prot = 0;
	if (vlen == 4 && !strncmp(v, "none", 4))
		return 0;
	for (int i = 0; i < vlen; i++) {
		int bit = v[i] == 'r' ? 1 : v[i] == 'w' ? 2 : v[i] == 'x' ? 4 : 0;
		if (!bit || (*prot & bit))
			return fail(ps, t->col + (int)(v - t->s) + i,
				    "expected a protection: none, or some of r, w, x");
		*prot |= (uint8_t)bit;
	}
	return 0;
}

/* key=value arguments and bare flags after the positional operands */
struct kv {
	const char *key;
	long lo, hi;
	long *val;
	bool *seen;
};

/* The key of an argument: what comes before '='; a flag's two words (`shared` and
 * `private`) are one. */
static int key_of(const struct tok *a, const char **k)
{
	const char *eq = memchr(a->s, '=', (size_t)a->len);
	int klen = eq ? (int)(eq - a->s) : a->len;

	*k = a->s;
	for (int op = 0; op < OP_NKINDS; op++)
		for (int i = 0; i < OP_MAX_ARGS && op_table[op].args[i].name; i++) {
			const struct op_arg *g = &op_table[op].args[i];
			if (g->off && klen == (int)strlen(g->off) &&
			    !strncmp(a->s, g->off, (size_t)klen)) {
				*k = g->name;
				return (int)strlen(g->name);
			}
		}
	return klen;
}

static bool same_key(const struct tok *a, const struct tok *b)
{
	const char *ka, *kb;
	int la = key_of(a, &ka), lb = key_of(b, &kb);

	return la == lb && !strncmp(ka, kb, (size_t)la);
}

/* "mmap, munmap, ..., mincore": the op names, for error messages */
static const char *op_list(void)
{
	static char list[OP_NKINDS * 24];

	if (!*list)
		for (int k = 0; k < OP_NKINDS; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 k ? ", " : "", op_table[k].name);
	return list;
}

/* "pages=N, prot=rwx, shared, private, each-page": what the op takes after its
 * operands, for error messages */
static const char *arg_list(int kind, char *buf, size_t len)
{
	const struct op_desc *d = &op_table[kind];
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++) {
		const struct op_arg *g = &d->args[i];
		const char *fmt = g->type == ARG_FLAG   ? "%s%s"
				  : g->type == ARG_PROT ? "%s%s=rwx"
				  : g->type == ARG_B    ? "%s%s=ADDR"
				  : g->type == ARG_FILE ? "%s%s=NAME"
				  : g->type == ARG_ENUM ? "%s%s=NAME"
							: "%s%s=N";
		if (g->flags & ARG_POS || n >= len)
			continue;
		n += (size_t)snprintf(buf + n, len - n, fmt, n ? ", " : "", g->name);
		if (g->off && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", %s", g->off);
	}
	if (op_uses_a(kind) && n < len)
		snprintf(buf + n, len - n, "%seach-page", n ? ", " : "");
	else if (!n)
		snprintf(buf, len, "it takes none");
	return buf;
}

/* The argument of d that KEY[=VALUE] names, or -1; *on: a flag's word, not its off. */
static int match_arg(const struct op_desc *d, const char *key, int klen, bool has_value, bool *on)
{
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++) {
		const struct op_arg *g = &d->args[i];
		bool named = klen == (int)strlen(g->name) && !strncmp(key, g->name, (size_t)klen);
		if (g->flags & ARG_POS)
			continue;
		switch (g->type) {
		case ARG_FLAG:
			if (!has_value && (named || (g->off && klen == (int)strlen(g->off) &&
						     !strncmp(key, g->off, (size_t)klen)))) {
				*on = named;
				return i;
			}
			break;
		case ARG_NUM:
			if (named)
				return i;
			break;
		default: /* prot=, addr=, vec= need their value */
			if (named && has_value)
				return i;
		}
	}
	return -1;
}

/* A mapping name as the grammar has it (docs/cases.md): a letter, then up to 30
 * letters, digits or '_'; not "null". */
static bool is_map_name(const struct tok *t)
{
	if (t->len >= 32 || !isalpha((unsigned char)t->s[0]) || tok_is(t, "null"))
		return false;
	for (int i = 1; i < t->len; i++)
		if (!isalnum((unsigned char)t->s[i]) && t->s[i] != '_')
			return false;
	return true;
}

/* A positional operand: a mapping name, an address or a number. */
static int parse_positional(struct parser *ps, struct program *p, const struct op_arg *g,
			    const struct tok *t, struct op *o, long *val)
{
	switch (g->type) {
	case ARG_MAPNAME:
		if (ps->mmaps_seen == PROG_MAX_MAPS)
			return fail(ps, t->col, "expected at most %d mappings", PROG_MAX_MAPS);
		if (!is_map_name(t))
			return fail(ps, t->col,
				    "expected a mapping name (a letter, then up to "
				    "30 letters, digits or _), found '%.*s%s'",
				    TOKQ(t));
		/* names were collected by a first pass (references may come first) */
		if (find_map(ps, t->s, t->len) != ps->mmaps_seen)
			return fail(ps, t->col, "expected a new mapping name, '%.*s' is taken",
				    t->len, t->s);
		ps->mmaps_seen++;
		return 0;
	case ARG_A:
		return parse_addr(ps, t, true, &o->a);
	case ARG_B:
		return parse_addr(ps, t, false, &o->b);
	default:
		if (num_arg(ps, t, g->name, g->lo, g->hi, val))
			return -1;
		if (g->code == CODE_TASK) { /* checked at the end, once all tasks are known */
			ps->kill_line[p->nops] = ps->line;
			ps->kill_col[p->nops] = t->col;
		}
		return 0;
	}
}

static int parse_op(struct parser *ps, struct program *p)
{
	struct tok *t = ps->t;
	int kind = -1;

	for (int k = 0; k < OP_NKINDS; k++)
		if (tok_is(&t[0], op_table[k].name))
			kind = k;
	if (kind < 0)
		return fail(ps, t[0].col,
			    "expected 'task', 'preempt', 'expect' or an op (%s), found '%.*s%s'",
			    op_list(), TOKQ(&t[0]));
	if (!ps->cur_task)
		return fail(ps, t[0].col, "expected 'task N' before the first op");
	if (p->nops == PROG_MAX_OPS)
		return fail(ps, t[0].col, "expected at most %d ops", PROG_MAX_OPS);

	const struct op_desc *d = &op_table[kind];
	int nargs = 0, npos = 0;
	while (nargs < OP_MAX_ARGS && d->args[nargs].name)
		npos += (d->args[nargs++].flags & ARG_POS) != 0;
	struct op *o = &p->ops[p->nops];
	memset(o, 0, sizeof(*o));
	o->kind = (uint8_t)kind;
	if (op_uses_b(kind))
		o->b.map = PROG_NULL_MAP; /* addr= and vec= default to NULL */
	o->task = (uint8_t)ps->cur_task;

	long val[OP_MAX_ARGS] = {0};
	bool given[OP_MAX_ARGS] = {0};
	if (ps->nt < 1 + npos)
		return fail(ps, t[0].col + t[0].len + 1, "expected %d operand%s after '%s'", npos,
			    npos > 1 ? "s" : "", d->name);
	for (int i = 0, j = 1; i < nargs; i++)
		if (d->args[i].flags & ARG_POS) {
			if (parse_positional(ps, p, &d->args[i], &t[j++], o, &val[i]))
				return -1;
			given[i] = true;
		}

	bool each = false;
	for (int i = 1 + npos; i < ps->nt; i++) {
		struct tok *a = &t[i];
		const char *eq = memchr(a->s, '=', (size_t)a->len);
		int klen = eq ? (int)(eq - a->s) : a->len;
		const char *v = eq ? eq + 1 : NULL;
		int vlen = eq ? a->len - klen - 1 : 0;
		/* each argument once: a second pages= (or private after shared) would
		 * otherwise win without a word */
		for (int j = 1 + npos; j < i; j++) {
			if (!same_key(a, &t[j]))
				continue;
			if (t[j].s[0] != a->s[0]) /* shared and private */
				return fail(ps, a->col, "expected %.*s or %.*s, not both",
					    t[j].len > TOK_SHOWN ? TOK_SHOWN : t[j].len, t[j].s,
					    klen > TOK_SHOWN ? TOK_SHOWN : klen, a->s);
			return fail(ps, a->col, "expected each argument once, found '%.*s' again",
				    klen > TOK_SHOWN ? TOK_SHOWN : klen, a->s);
		}
		bool on = true;
		int k = match_arg(d, a->s, klen, v != NULL, &on);
		struct tok vt = {v, vlen, a->col + klen + 1};
		if (k < 0) {
			if (klen == 9 && !strncmp(a->s, "each-page", 9) && !v && op_uses_a(kind)) {
				each = true;
				continue;
			}
			char list[128];
			return fail(ps, a->col, "expected an argument of %s (%s), found '%.*s%s'",
				    d->name, arg_list(kind, list, sizeof(list)), TOKQ(a));
		}
		const struct op_arg *g = &d->args[k];
		given[k] = true;
		switch (g->type) {
		case ARG_FLAG:
			val[k] = on;
			break;
		case ARG_NUM:
			if (!v)
				return fail(ps, a->col, "expected %s=NUMBER", g->name);
			if (num_arg(ps, &vt, g->name, g->lo, g->hi, &val[k]))
				return -1;
			break;
		case ARG_PROT: {
			uint8_t prot;
			if (parse_prot(ps, a, v, vlen, &prot))
				return -1;
			val[k] = prot;
			break;
		}
		case ARG_ENUM: {
			int e = -1;
			for (int j = 0; g->names[j]; j++)
				if (vlen == (int)strlen(g->names[j]) &&
				    !strncmp(v, g->names[j], (size_t)vlen))
					e = j;
			if (e >= 0)
				val[k] = e;
			else if (!parse_num(v, vlen, &val[k]) || val[k] < g->lo || val[k] > g->hi) {
				char names[64] = "";
				for (int j = 0; g->names[j]; j++)
					snprintf(names + strlen(names),
						 sizeof(names) - strlen(names), "%s, ",
						 g->names[j]);
				return fail(ps, vt.col,
					    "expected %s=NAME (%sor %d..%d), found '%.*s%s'",
					    g->name, names, g->lo, g->hi, TOKQ(&vt));
			}
			break;
		}
		case ARG_FILE:
			if (!v || (val[k] = find_file(ps, v, vlen) + 1) == 0)
				return fail(ps, v ? vt.col : a->col,
					    "expected file=NAME, a file a 'file' line declares "
					    "(%s), found '%.*s%s'",
					    file_list(ps), TOKQ(v ? &vt : a));
			break;
		default: /* ARG_B */
			if (parse_addr(ps, &vt, false, &o->b))
				return -1;
		}
	}

	o->each_page = each;
	for (int i = 0; i < nargs; i++) {
		const struct op_arg *g = &d->args[i];
		if ((g->flags & ARG_REQUIRED) && !given[i])
			return fail(ps, t[0].col, "expected %s= for %s", g->name, d->name);
		if (g->field == FIELD_NONE)
			continue;
		if (!given[i] && (g->flags & ARG_REST)) {
			/* the rest of the mapping from the address on, once all are known */
			ps->default_pages[p->nops] = true;
			continue;
		}
		op_arg_set(o, g, (int)(given[i] ? val[i] : g->def));
	}
	p->nops++;
	p->nmaps += kind == OP_MMAP;
	return 0;
}

/* `file NAME [pages=N] [fill=B] [ro]`: the next fd's file (ref/filemap.h) */
static int parse_file(struct parser *ps, struct program *p)
{
	struct tok *t = ps->t;
	struct file_spec *f = &p->files[p->nfiles];
	bool seen[3] = {0};
	long n;

	if (ps->nt < 2)
		return fail(ps, t[0].col + t[0].len + 1,
			    "expected 'file NAME [pages=1..%d] [fill=0..255] [ro]'",
			    FILE_MAX_PAGES);
	if (p->nfiles == NR_FILES)
		return fail(ps, t[0].col, "expected at most %d files", NR_FILES);
	if (!is_map_name(&t[1]))
		return fail(ps, t[1].col,
			    "expected a file name (a letter, then up to 30 letters, digits or _), "
			    "found '%.*s%s'",
			    TOKQ(&t[1]));
	if (find_file(ps, t[1].s, t[1].len) != p->nfiles) /* names: the first pass */
		return fail(ps, t[1].col, "expected a new file name, '%.*s' is taken", t[1].len,
			    t[1].s);
	*f = (struct file_spec){.pages = 1, .fill = FILE_PATTERN};
	for (int i = 2; i < ps->nt; i++) {
		struct tok *a = &ps->t[i];
		const char *eq = memchr(a->s, '=', (size_t)a->len);
		int klen = eq ? (int)(eq - a->s) : a->len, which;
		struct tok vt = {eq ? eq + 1 : NULL, eq ? a->len - klen - 1 : 0, a->col + klen + 1};
		if (eq && klen == 5 && !strncmp(a->s, "pages", 5))
			which = 0;
		else if (eq && klen == 4 && !strncmp(a->s, "fill", 4))
			which = 1;
		else if (tok_is(a, "ro"))
			which = 2;
		else
			return fail(ps, a->col,
				    "expected pages=1..%d, fill=0..255 or ro, found '%.*s%s'",
				    FILE_MAX_PAGES, TOKQ(a));
		if (seen[which])
			return fail(ps, a->col, "expected each argument once, found '%.*s' again",
				    klen > TOK_SHOWN ? TOK_SHOWN : klen, a->s);
		seen[which] = true;
		if (which == 0) {
			if (num_arg(ps, &vt, "pages", 1, FILE_MAX_PAGES, &n))
				return -1;
			f->pages = (uint8_t)n;
		} else if (which == 1) {
			if (num_arg(ps, &vt, "fill", 0, 255, &n))
				return -1;
			f->fill = (int16_t)n;
		} else
			f->readonly = true;
	}
	p->nfiles++;
	return 0;
}

static int parse_line(struct parser *ps, struct program *p)
{
	struct tok *t = ps->t;
	long n;

	if (tok_is(&t[0], "task")) {
		if (ps->nt != 2 || num_arg(ps, &t[1], "a task number", 1, PROG_MAX_TASKS, &n))
			return ps->nt != 2 ? fail(ps, t[0].col, "expected 'task N'") : -1;
		/* a second block of the same task would be merged into the first */
		if (ps->task_line[n])
			return fail(ps, t[1].col,
				    "expected a task number without a block, task %ld's block "
				    "begins on line %d",
				    n, ps->task_line[n]);
		ps->task_line[n] = ps->line;
		ps->cur_task = (int)n;
		if (n > p->ntasks)
			p->ntasks = (int)n;
		return 0;
	}
	if (tok_is(&t[0], "tasks")) {
		if (ps->nt != 2 || num_arg(ps, &t[1], "a task count", 1, PROG_MAX_TASKS, &n))
			return ps->nt != 2 ? fail(ps, t[0].col, "expected 'tasks N'") : -1;
		if (n > ps->tasks_decl)
			ps->tasks_decl = (int)n;
		if (n > p->ntasks)
			p->ntasks = (int)n;
		return 0;
	}
	if (tok_is(&t[0], "file"))
		return parse_file(ps, p);
	if (tok_is(&t[0], "schedule"))
		return ps->nt == 1 ? 0 : fail(ps, t[1].col, "expected nothing after 'schedule'");
	if (tok_is(&t[0], "preempt")) {
		long task, op, point, to;
		if (ps->nt != 9 || !tok_is(&t[2], "at") || !tok_is(&t[3], "op") ||
		    !tok_is(&t[5], "point") || !tok_is(&t[7], "to"))
			return fail(
			    ps, t[0].col,
			    "expected 'preempt TASK at op N point P to TASK' (or 'to timer')");
		if (p->npreempts == SIM_MAX_PREEMPTS - 1)
			return fail(ps, t[0].col, "expected at most %d preemptions",
				    SIM_MAX_PREEMPTS - 1);
		if (num_arg(ps, &t[1], "a task number", 1, PROG_MAX_TASKS, &task) ||
		    num_arg(ps, &t[4], "an op number", 1, 65536, &op) ||
		    num_arg(ps, &t[6], "a point", 1, PREEMPT_MAX_POINT, &point))
			return -1;
		if (tok_is(&t[8], "timer"))
			to = SIM_TO_TIMER;
		else if (num_arg(ps, &t[8], "a task number or 'timer'", 1, PROG_MAX_TASKS, &to))
			return -1;
		ps->pre_line[p->npreempts] = ps->line;
		ps->pre_col[p->npreempts] = t[4].col;
		ps->pre_task_col[p->npreempts] = t[1].col;
		ps->pre_to_col[p->npreempts] = t[8].col;
		if (task == to)
			return fail(ps, t[8].col, "expected another task than %ld to switch to",
				    task);
		/* the tasks must exist: checked at the end, once every block is known */
		p->preempts[p->npreempts++] = (struct sim_preempt){.task = (uint8_t)task,
								   .op = (uint16_t)op,
								   .point = (uint16_t)point,
								   .to = (uint8_t)to};
		return 0;
	}
	if (tok_is(&t[0], "expect")) {
		if (ps->nt != 3 || t[1].len >= 32 || t[2].len >= 160)
			return fail(ps, t[0].col,
				    "expected 'expect KERNEL VERDICT' (KERNEL: a kernel or *; "
				    "VERDICT: ok, unfired or a DEDUP token)");
		if (p->nexpect == PROG_MAX_EXPECT)
			return fail(ps, t[0].col, "expected at most %d expect lines",
				    PROG_MAX_EXPECT);
		char name[32];
		snprintf(name, sizeof(name), "%.*s", t[1].len, t[1].s);
		if (strcmp(name, EXPECT_ANY_KERNEL) && !kernel_by_name(name)) {
			char list[256] = "";
			for_each_kernel (k)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 list[0] ? ", " : "", k->name);
			return fail(ps, t[1].col,
				    "expected a kernel name (%s) or * (every kernel without a "
				    "line of its own), found '%s'",
				    list, name);
		}
		for (int i = 0; i < p->nexpect; i++)
			if (!strcmp(p->expect[i].kernel, name))
				return fail(ps, t[1].col,
					    "expected one expect line per kernel, %s has one on "
					    "line %d",
					    name, ps->expect_line[i]);
		ps->expect_line[p->nexpect] = ps->line;
		struct expectation *e = &p->expect[p->nexpect++];
		snprintf(e->kernel, sizeof(e->kernel), "%.*s", t[1].len, t[1].s);
		snprintf(e->verdict, sizeof(e->verdict), "%.*s", t[2].len, t[2].s);
		return 0;
	}
	return parse_op(ps, p);
}

/* The name after WORD at the start of a line (s to eol), into names[*n] if new. */
static void collect_name(const char *s, const char *eol, const char *word, char (*names)[32],
			 int *n, int max)
{
	size_t w = strlen(word);

	if (eol - s <= (long)w + 1 || strncmp(s, word, w) || !isspace((unsigned char)s[w]))
		return;
	const char *name = s + w;
	while (name < eol && isspace((unsigned char)*name))
		name++;
	int len = 0;
	while (name + len < eol && !isspace((unsigned char)name[len]) && name[len] != '#')
		len++;
	if (len > 0 && len < 32 && *n < max && find_name(names, *n, name, len) < 0) {
		memcpy(names[*n], name, (size_t)len);
		names[(*n)++][len] = 0;
	}
}

/* First pass: the names of all mappings and files, in text order, so that an op may
 * refer to a mapping another task creates further down, or a file declared at the end.
 * Errors are left to the second pass. */
static void collect_names(struct parser *ps, const char *text)
{
	for (const char *s = text; *s;) {
		const char *eol = strchr(s, '\n');
		if (!eol)
			eol = s + strlen(s);
		while (s < eol && isspace((unsigned char)*s))
			s++;
		collect_name(s, eol, "mmap", ps->names, &ps->nnames, PROG_MAX_MAPS);
		collect_name(s, eol, "file", ps->fnames, &ps->nfnames, NR_FILES);
		s = *eol ? eol + 1 : eol;
	}
}

static bool task_declared(const struct parser *ps, int task)
{
	return task <= ps->tasks_decl || ps->task_line[task];
}

static int fail_task(struct parser *ps, int col, int task)
{
	char list[64] = "";

	for (int t = 1; t <= PROG_MAX_TASKS; t++)
		if (task_declared(ps, t))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
				 *list ? ", " : "", t);
	return fail(ps, col,
		    "expected a task with a 'task N' block or within 'tasks N' (%s), found %d",
		    list, task);
}

int prog_parse(const char *text, struct program *p, char *err, size_t errlen)
{
	struct parser ps = {.err = err, .errlen = errlen};
	const char *s = text;

	memset(p, 0, sizeof(*p));
	p->ntasks = 0;
	/* a UTF-8 byte-order mark (an editor's) marks text (cli/cli.c): skipped */
	if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
	    (unsigned char)s[2] == 0xbf)
		s += 3;
	collect_names(&ps, s);
	for (ps.line = 1; *s; ps.line++) {
		const char *eol = strchr(s, '\n');
		if (!eol)
			eol = s + strlen(s);
		ps.nt = 0;
		for (const char *c = s; c < eol && *c != '#';) {
			if (isspace((unsigned char)*c)) {
				c++;
				continue;
			}
			if (!isprint((unsigned char)*c))
				return fail(&ps, (int)(c - s) + 1,
					    "expected printable text, found byte 0x%02x",
					    (unsigned char)*c);
			if (ps.nt == MAX_TOK)
				return fail(&ps, (int)(c - s) + 1, "expected at most %d words",
					    MAX_TOK);
			struct tok *t = &ps.t[ps.nt++];
			t->s = c;
			t->col = (int)(c - s) + 1;
			while (c < eol && !isspace((unsigned char)*c) && *c != '#') {
				if (!isprint((unsigned char)*c)) /* nor echoed raw in a message */
					return fail(&ps, (int)(c - s) + 1,
						    "expected printable text, found byte 0x%02x",
						    (unsigned char)*c);
				c++;
			}
			t->len = (int)(c - t->s);
		}
		if (ps.nt && parse_line(&ps, p))
			return -1;
		s = *eol ? eol + 1 : eol;
	}
	if (p->ntasks == 0) {
		if (ps.line > 1)
			ps.line--;
		return fail(&ps, 1, "expected at least one 'task N' block");
	}
	for (int i = 0; i < p->nops; i++) {
		struct op *o = &p->ops[i];
		if (!ps.default_pages[i])
			continue;
		int mop = o->a.map == PROG_NULL_MAP ? -1 : mmap_op_of(p, o->a.map);
		int pages = mop < 0 ? 1 : p->ops[mop].x + 1 - o->a.page;
		int hi = op_arg_by_code(o->kind, CODE_PAGES)->hi;
		if (pages > hi)
			pages = hi;
		o->x = (uint8_t)(pages < 1 ? 0 : pages - 1);
	}
	/* kill and preempt name tasks that exist: a `task N` block or within `tasks N`;
	 * else they would add an idle task without a word (ops are in text order here) */
	for (int i = 0; i < p->nops; i++) {
		if (!op_arg_by_code(p->ops[i].kind, CODE_TASK) ||
		    task_declared(&ps, p->ops[i].x + 1))
			continue;
		ps.line = ps.kill_line[i];
		return fail_task(&ps, ps.kill_col[i], p->ops[i].x + 1);
	}
	if (p->ntasks < 2)
		p->ntasks = 2; /* programs have two to four tasks; an extra one idles */
	prog_canonicalize(p);
	for (int i = 0; i < p->npreempts; i++) {
		const struct sim_preempt *pr = &p->preempts[i];
		int n = task_instances(p, pr->task);
		ps.line = ps.pre_line[i];
		if (!task_declared(&ps, pr->task))
			return fail_task(&ps, ps.pre_task_col[i], pr->task);
		if (!n)
			return fail(&ps, ps.pre_task_col[i],
				    "expected a task with ops, task %d has none", pr->task);
		if (pr->op > n)
			return fail(&ps, ps.pre_col[i], "expected an op number of task %d (1..%d)",
				    pr->task, n);
		if (pr->to != SIM_TO_TIMER && !task_declared(&ps, pr->to))
			return fail_task(&ps, ps.pre_to_col[i], pr->to);
	}
	return 0;
}

static void print_addr(const struct program *p, const struct uref *u, FILE *out)
{
	(void)p;
	if (u->map == PROG_NULL_MAP)
		fprintf(out, "null");
	else
		fprintf(out, "m%d", u->map);
	unsigned off = u->page * 4096u + u->word * 4u + (u->misaligned ? 2u : 0u);
	if (off)
		fprintf(out, "+%s%x", off >= 10 ? "0x" : "", off);
}

static void print_prot(unsigned prot, FILE *out)
{
	if (!prot)
		fprintf(out, "none");
	if (prot & 1)
		fputc('r', out);
	if (prot & 2)
		fputc('w', out);
	if (prot & 4)
		fputc('x', out);
}

const char *prog_preempt_str(const struct sim_preempt *s, char *buf, size_t len)
{
	char to[8] = "timer";

	if (s->to != SIM_TO_TIMER)
		snprintf(to, sizeof(to), "%d", s->to);
	snprintf(buf, len, "preempt %d at op %d point %d to %s", s->task, s->op, s->point, to);
	return buf;
}

void prog_print(const struct program *p, FILE *out)
{
	int task = 0, map = 0;

	fprintf(out, "tasks %d\n", p->ntasks);
	for (int i = 0; i < p->nfiles; i++) {
		const struct file_spec *f = &p->files[i];
		fprintf(out, "file f%d pages=%d", i + 1, f->pages);
		if (f->fill != FILE_PATTERN)
			fprintf(out, " fill=%d", f->fill);
		fprintf(out, "%s\n", f->readonly ? " ro" : "");
	}
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (o->task != task) {
			task = o->task;
			fprintf(out, "task %d\n", task);
		}
		const struct op_desc *d = &op_table[o->kind];
		fprintf(out, "  %s", d->name);
		for (int k = 0; k < OP_MAX_ARGS && d->args[k].name; k++) {
			const struct op_arg *g = &d->args[k];
			int v = op_arg_get(o, g);
			switch (g->type) {
			case ARG_MAPNAME:
				fprintf(out, " m%d", map++);
				break;
			case ARG_A:
				fputc(' ', out);
				print_addr(p, &o->a, out);
				break;
			case ARG_B:
				if (g->flags & ARG_POS)
					fputc(' ', out);
				else
					fprintf(out, " %s=", g->name);
				print_addr(p, &o->b, out);
				break;
			case ARG_FLAG:
				if (v)
					fprintf(out, " %s", g->name);
				break;
			case ARG_PROT:
				fprintf(out, " %s=", g->name);
				print_prot((unsigned)v, out);
				break;
			case ARG_FILE:
				if (v)
					fprintf(out, " %s=f%d", g->name, v);
				break;
			case ARG_ENUM:
				if (op_enum_name(g, v))
					fprintf(out, " %s=%s", g->name, op_enum_name(g, v));
				else
					fprintf(out, " %s=%d", g->name, v);
				break;
			default:
				if (v == 0 && (g->flags & ARG_HIDE_0))
					break;
				if (g->flags & ARG_POS)
					fprintf(out, " %d", v);
				else
					fprintf(out, " %s=%d", g->name, v);
			}
		}
		if (o->each_page)
			fprintf(out, " each-page");
		fputc('\n', out);
	}
	for (int i = 0; i < p->npreempts; i++) {
		char line[80];
		fprintf(out, "%s\n", prog_preempt_str(&p->preempts[i], line, sizeof(line)));
	}
	if (p->pct.on) { /* the byte form's PCT schedule (prog/codec.c): no text of its own */
		fprintf(out, "# schedule: PCT, priorities");
		for (int t = 0; t < p->ntasks; t++)
			fprintf(out, " %d", p->pct.prio[t]);
		fprintf(out, ", %d change point%s", p->pct.nchange, p->pct.nchange == 1 ? "" : "s");
		for (int j = 0; j < p->pct.nchange; j++)
			fprintf(out, "%s%u", j ? " " : " at steps ", p->pct.change[j]);
		fprintf(out, " (snafu minimize writes the preemptions it makes)\n");
	}
	for (int i = 0; i < p->nexpect; i++)
		fprintf(out, "expect %s %s\n", p->expect[i].kernel, p->expect[i].verdict);
}
