/* The kernel table (ref/kernels.c) is counted, not assumed: the listed kernels are the
 * entries without test_only, wherever they are in the table; for_each_kernel() yields
 * exactly those, in table order; kernel_by_name() finds every entry, test-only ones too;
 * names are unique; a case can hold an expect line for every kernel and an `expect *`;
 * every kernel says where it comes from (source_ok) and runs some release's futex paths.
 */
#include "harness.h"

#include "../ref/kernels.h"

#include <string.h>

/* A source names a tag, a commit of torvalds/linux, a <message-id> or says what is not
 * known here: `snafu kernels` is the way back to the kernel, and a guess there would send
 * a reader astray. Every <...> is a message-id: LOCAL@DOMAIN, no spaces. */
static bool source_ok(const char *s)
{
	bool named = strstr(s, "tag v") || strstr(s, "known here") || !strncmp(s, "none: ", 6) ||
		     strstr(s, "torvalds/linux ");

	for (const char *lt = strchr(s, '<'); lt; lt = strchr(lt + 1, '<')) {
		size_t n = strcspn(lt + 1, ">");
		const char *at = memchr(lt + 1, '@', n);
		if (!at || at == lt + 1 || at == lt + n || lt[1 + n] != '>' ||
		    memchr(lt + 1, ' ', n))
			return false;
		named = true;
	}
	return named;
}

int main(void)
{
	int all = 0, listed = 0, test_only = 0;

	for (const struct kernel_config *k = kernels; k->name; k++) {
		all++;
		if (k->test_only)
			test_only++;
		CHECK(kernel_by_name(k->name) == k, "kernel_by_name(%s) finds its entry", k->name);
		CHECK(k->summary && k->summary[0], "%s has a summary", k->name);
		CHECK(k->source && source_ok(k->source),
		      "%s: a source with a tag, <message-id>s or what is not known here: '%s'",
		      k->name, k->source ? k->source : "(none)");
		CHECK(strlen(k->name) < sizeof(((struct expectation *)0)->kernel),
		      "%s fits an expect line", k->name);
		CHECK(strcmp(k->name, EXPECT_ANY_KERNEL), "a kernel named %s", k->name);
		CHECK(k->futex && k->futex->release &&
			  ((k->futex->wait && k->futex->requeue && !k->futex->wait_fshared &&
			    !k->futex->wake_fshared && !k->futex->requeue_fshared &&
			    !k->futex->wake_op_fshared) ||
			   (!k->futex->wait && !k->futex->requeue && !k->futex->wake_op &&
			    k->futex->wait_fshared && k->futex->wake_fshared &&
			    k->futex->requeue_fshared && k->futex->wake_op_fshared)),
		      "%s runs a release's futex_wait and futex_requeue, with fshared or "
		      "without",
		      k->name);
		CHECK(!k->futex || !k->futex->wait_reads_first ||
			  k->futex->read == FUTEX_READ_GET_USER,
		      "%s: a futex_wait that reads first reads with get_user()", k->name);
	}
	CHECK(kernel_by_name("no-such-kernel") == NULL, "an unknown name");

	/* for_each_kernel: the entries without test_only, in table order, each once */
	const struct kernel_config *prev = NULL;
	for_each_kernel (k) {
		CHECK(!k->test_only, "%s is listed but test-only", k->name);
		CHECK(!prev || k > prev, "%s comes after %s", k->name, prev->name);
		for (const struct kernel_config *e = prev ? prev + 1 : kernels; e < k; e++)
			CHECK(e->test_only,
			      "%s, between two listed kernels, is skipped but not "
			      "test-only",
			      e->name);
		prev = k;
		listed++;
	}
	if (prev)
		for (const struct kernel_config *e = prev + 1; e->name; e++)
			CHECK(e->test_only, "%s, after the last listed kernel, is not test-only",
			      e->name);
	CHECK_EQ(listed, all - test_only, "listed kernels: entries without test_only");
	CHECK_EQ(kernel_count(), listed, "kernel_count()");
	CHECK(listed > 0, "no kernel listed");
	CHECK(kcfg && kcfg->name, "kcfg points at a kernel");

	/* unique names */
	for (const struct kernel_config *a = kernels; a->name; a++)
		for (const struct kernel_config *b = a + 1; b->name; b++)
			CHECK(strcmp(a->name, b->name), "%s twice", a->name);

	/* a case may name every kernel once and have an `expect *` line (prog/text.c) */
	CHECK(all + 1 <= PROG_MAX_EXPECT, "%d kernels and `expect *`: raise PROG_MAX_EXPECT (%d)",
	      all, PROG_MAX_EXPECT);

	return harness_exit();
}
