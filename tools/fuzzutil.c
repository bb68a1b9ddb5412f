/* The fuzz driver's plumbing (tools/fuzzdrv.c): paths never cut short, directories made
 * and emptied, files copied through a temporary and a rename, whole files read, and child
 * processes started, waited for and read from. Their error lines name the command
 * (fz_set_name()). */
#include "fuzzdrv_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *cmd_name = "fuzz"; /* for the error lines of the helpers below */

void fz_set_name(const char *name)
{
	cmd_name = name;
}

/* Seconds on the monotonic clock: for the time a fuzzer took, and progress. */
double fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* snprintf for paths: a path that does not fit is an error, never silently cut. */
__attribute__((format(printf, 3, 4))) void fz_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "snafu %s: %s...: expected a path under %zu bytes\n", cmd_name, buf,
			len);
		exit(2);
	}
}

/* Append to the string in BUF (LEN bytes in all), cutting what does not fit. */
__attribute__((format(printf, 3, 4))) void fz_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* PATH relative to the working directory when it lies under it, for printing. */
const char *fz_shown(const char *path)
{
	static char cwd[PATH_LEN];
	size_t n;

	if (!cwd[0] && !getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (!strncmp(path, cwd, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

bool fz_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fz_mkdir_p(const char *path)
{
	char buf[PATH_LEN];

	fz_pathf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -1;
	return fz_is_dir(buf) ? 0 : (errno = ENOTDIR, -1);
}

/* Remove what DIR holds (not DIR itself) but the entry KEEP (NULL: none); symlinks are
 * removed, never followed. */
int fz_empty_dir(const char *dir, const char *keep, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_LEN];
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (keep && !strcmp(e->d_name, keep)))
			continue;
		fz_pathf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			rc = -1;
		else if (S_ISDIR(st.st_mode)) {
			if (depth > 4 || fz_empty_dir(path, NULL, depth + 1) || rmdir(path))
				rc = -1;
		} else if (unlink(path))
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* FROM copied to TO through a temporary and a rename: TO is whole or as it was. */
int fz_copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536], tmp[PATH_LEN + 16];
	size_t n;
	int rc = 0;

	if (!in)
		return -1;
	fz_pathf(tmp, sizeof(tmp), "%s.tmp", to);
	out = fopen(tmp, "wb");
	if (!out) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (ferror(in))
		rc = -1;
	fclose(in);
	if (fclose(out))
		rc = -1;
	if (rc == 0 && rename(tmp, to))
		rc = -1;
	if (rc) {
		int e = errno;
		unlink(tmp);
		errno = e;
	}
	return rc;
}

/* A whole file, NUL-terminated; NULL when it cannot be read. */
char *fz_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, len = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 1 >= cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (256u << 20) || !(buf = realloc(buf, cap)))
				abort();
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* The last N lines of a file (its whole text when shorter) to OUT. */
void fz_print_tail(FILE *out, const char *path, int n)
{
	char *text = fz_slurp(path);
	size_t len = text ? strlen(text) : 0;

	if (!text)
		return;
	const char *p = text + len;
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text && (p[-1] != '\n' || --n > 0))
		p--;
	fputs(p, out);
	free(text);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name); /* bytes, not the locale's collation */
}

/* The plain files of DIR in strcmp() order (scandir's list, NULL-free on error: *n = 0). */
struct dirent **fz_files_of(const char *dir, int *n)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, by_name), m = 0;
	char path[PATH_LEN];

	*n = 0;
	if (count < 0)
		return NULL;
	for (int i = 0; i < count; i++) {
		struct stat st;
		fz_pathf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
			free(names[i]);
		else
			names[m++] = names[i];
	}
	*n = m;
	return names;
}

void fz_free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Copy the plain files of FROM into TO; with LIST, write their paths there, in strcmp()
 * order, comma-separated for libFuzzer's -seed_inputs=@LIST (a name with ',' is left
 * out, said so). Sets *n to the number copied. */
int fz_copy_files(const char *from, const char *to, const char *list, int *n)
{
	int count, rc = 0;
	struct dirent **names = fz_files_of(from, &count);
	char src[PATH_LEN], dst[PATH_LEN];
	FILE *f = list ? fopen(list, "w") : NULL;

	*n = 0;
	if (!names || (list && !f))
		rc = -1;
	for (int i = 0; i < count; i++) {
		const char *name = names[i]->d_name;
		fz_pathf(src, sizeof(src), "%s/%s", from, name);
		fz_pathf(dst, sizeof(dst), "%s/%s", to, name);
		if (list && strchr(name, ','))
			fprintf(stderr,
				"snafu %s: %s: expected a seed name without ',' (libFuzzer's "
				"-seed_inputs splits at it); not used\n",
				cmd_name, src);
		else if (fz_copy_file(src, dst) ||
			 (f && fprintf(f, "%s%s", *n ? "," : "", dst) < 0))
			rc = -1;
		else
			++*n;
	}
	fz_free_names(names, count);
	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* ---- child processes ---- */

__attribute__((format(printf, 2, 3))) void fz_arg(struct fz_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = realloc(a->v, (size_t)a->cap * sizeof(*a->v));
	}
	char *s = malloc((size_t)len + 1);
	if (len < 0 || !a->v || !s)
		abort();
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void fz_args_free(struct fz_args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct fz_args){0};
}

/* Start ARGV with standard input from /dev/null, standard output to descriptor OUT and
 * standard error to ERR (-1: /dev/null); in a process group of its own with GROUP. */
pid_t fz_spawn(char *const argv[], int out, int err, bool group)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "snafu %s: cannot fork: %s\n", cmd_name, strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0)
			_exit(127);
		if (group)
			setpgid(0, 0);
		dup2(null, 0);
		dup2(out >= 0 ? out : null, 1);
		dup2(err >= 0 ? err : null, 2);
		execv(argv[0], argv);
		dprintf(2, "snafu %s: %s: cannot run: %s\n", cmd_name, argv[0], strerror(errno));
		_exit(127);
	}
	if (group)
		setpgid(pid, pid); /* as the child does: whichever comes first */
	return pid;
}

int fz_wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127 << 8;
	return status;
}

/* Run ARGV to its end, its output in PATH (and its errors, with ERRORS too): the wait
 * status. */
int fz_run_to(struct fz_args *a, const char *path, bool errors)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", cmd_name, path,
			strerror(errno));
		fz_args_free(a);
		return 127 << 8;
	}
	int status = fz_wait_for(fz_spawn(a->v, fd, errors ? fd : -1, false));
	close(fd);
	fz_args_free(a);
	return status;
}

/* What ARGV prints, standard output and error together. */
char *fz_capture(struct fz_args *a)
{
	int fds[2];
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t got;

	if (!buf || pipe(fds))
		abort();
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	pid_t pid = fz_spawn(a->v, fds[1], fds[1], false);
	close(fds[1]);
	while ((got = read(fds[0], buf + len, cap - len - 1)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0 && (len += (size_t)got) + 1 >= cap && !(buf = realloc(buf, cap *= 2)))
			abort();
	buf[len] = 0;
	close(fds[0]);
	fz_wait_for(pid);
	fz_args_free(a);
	return buf;
}

void fz_status_text(int status, char *buf, size_t len)
{
	snprintf(buf, len, "%s %d", WIFEXITED(status) ? "exit" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}
