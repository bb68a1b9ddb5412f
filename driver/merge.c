/* --merge (driver/drive.c): the inputs of the work corpora that add coverage and find
 * nothing on any kernel, into the seed corpus (--merge-into=DIR). */
#include "internal.h"

#include "../prog/oracle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The oracles --merge judges by: the run's, lockdep aside. The seeds are programs whose
 * deadlock, if any, the fuzzer must find the schedule of, and on 2.6.11-rc4 nearly every
 * futex program makes lockdep's prediction. */
static const char *merge_oracles(const struct fuzz_run *r, char *buf, size_t len)
{
	unsigned mask = r->oracles ? oracles_parse(r->oracles, buf, len) : ORACLES_DEFAULT;

	mask &= ~(unsigned)ORACLE_LOCKDEP;
	return oracles_str(mask ? mask : ORACLE_DEADLOCK, buf, len);
}

/* --merge: the new inputs with new coverage (edges only) that find nothing on any
 * kernel (merge_oracles), into merge_into. */
bool fz_merge(struct fuzz_run *r)
{
	bool ok = true;
	char tmp[PATH_LEN], corpus[PATH_LEN], path[PATH_LEN], scratch[PATH_LEN], oracles[200];
	int n, nnew = 0, added = 0;

	fz_pathf(tmp, sizeof(tmp), "%s/merge", r->out);
	fz_pathf(corpus, sizeof(corpus), "%s/corpus", tmp);
	fz_pathf(scratch, sizeof(scratch), "%s/replay.log", tmp);
	if (fz_mkdir_p(tmp) || fz_empty_dir(tmp, NULL, 0) || fz_mkdir_p(corpus) ||
	    fz_copy_files(r->merge_into, corpus, NULL, &n)) {
		fprintf(stderr, "snafu %s: %s: cannot merge through %s: %s\n", r->name,
			r->merge_into, tmp, strerror(errno));
		return false;
	}
	for (int i = 0; i < r->njobs; i++) {
		struct fuzz_job *j = &r->job[i];
		struct fz_args a = {0};
		char log[PATH_LEN];
		fz_pathf(log, sizeof(log), "%s/merge.log", j->dir);
		fz_arg(&a, "%s", r->fuzzer);
		fz_arg(&a, "--kernel=%s", j->k->name);
		fz_arg(&a, "--oracles=%s", merge_oracles(r, oracles, sizeof(oracles)));
		fz_arg(&a, "-merge=1");
		fz_arg(&a, "-use_counters=0");
		fz_arg(&a, "-timeout=25");
		fz_arg(&a, "-artifact_prefix=%s/", tmp);
		fz_arg(&a, "%s", corpus);
		fz_arg(&a, "%s/corpus", j->dir);
		if (fz_run_to(&a, log, true)) {
			fprintf(stderr, "snafu %s: %s: merge failed; see %s\n", r->name, j->label,
				log);
			ok = false;
		}
	}
	struct dirent **names = fz_files_of(corpus, &n);
	char **files = calloc((size_t)n + 1, sizeof(*files));
	char(*verdicts)[256] = calloc((size_t)n + 1, sizeof(*verdicts));
	int *clean = calloc((size_t)n + 1, sizeof(*clean)); /* kernels it finds nothing on */
	if (!files || !verdicts || !clean)
		abort();
	for (int i = 0; i < n; i++) {
		fz_pathf(path, sizeof(path), "%s/%s", r->merge_into, names[i]->d_name);
		if (access(path, F_OK) == 0)
			continue;
		if (!(files[nnew] = malloc(PATH_LEN)))
			abort();
		fz_pathf(files[nnew++], PATH_LEN, "%s/%s", corpus, names[i]->d_name);
	}
	for_each_kernel (k) { /* every kernel, not only those fuzzed */
		if (!nnew)
			break;
		memset(verdicts, 0, (size_t)nnew * sizeof(*verdicts));
		fz_replay_verdicts(r, k, files, nnew, verdicts, scratch,
				   merge_oracles(r, oracles, sizeof(oracles)));
		for (int i = 0; i < nnew; i++)
			clean[i] += !strcmp(verdicts[i], "ok");
	}
	for (int i = 0; i < nnew; i++) {
		fz_pathf(path, sizeof(path), "%s/%s", r->merge_into, strrchr(files[i], '/') + 1);
		if (clean[i] == kernel_count()) {
			if (fz_copy_file(files[i], path) == 0)
				added++;
			else {
				fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
					strerror(errno));
				ok = false;
			}
		}
		free(files[i]);
	}
	fz_free_names(names, n);
	free(files);
	free(verdicts);
	free(clean);
	fz_empty_dir(tmp, NULL, 0);
	rmdir(tmp);
	fprintf(stderr,
		"%s: merged %d new inputs into %s (%lld files; %d more left out: they find "
		"something on some kernel)\n",
		r->name, added, fz_shown(r->merge_into), fz_count_entries(r->merge_into, false),
		nnew - added);
	return ok;
}
