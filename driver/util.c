/* The fuzz driver's plumbing (driver/drive.c): paths never cut short, directories made
 * and emptied, files copied through a temporary and a rename, whole files read, child
 * processes started, waited for and read from, and Ctrl-C. Their error lines name the
 * command (fz_set_name()). */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
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

/* SIGXFSZ ignored in the driver: a write past the file-size limit (ulimit -f) fails with
 * EFBIG, which the driver says, instead of killing it before it can. The children get the
 * disposition the driver was started with back. */
static struct sigaction xfsz_before;
static bool xfsz_ignored;

void fz_ignore_xfsz(void)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};

	sigemptyset(&ign.sa_mask);
	if (!xfsz_ignored && sigaction(SIGXFSZ, &ign, &xfsz_before) == 0)
		xfsz_ignored = true;
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
		if (xfsz_ignored)
			sigaction(SIGXFSZ, &xfsz_before, NULL);
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

/* Run ARGV to its end, its output in PATH (and its errors, with ERRORS too), written by
 * the driver (struct fz_sink): the wait status; *WRITTEN false when PATH could not be
 * written (said so, and PATH removed). */
int fz_run_into(struct fz_args *a, const char *path, bool errors, bool *written)
{
	struct fz_sink s = {0};
	int fd;

	*written = false;
	if (fz_sink_open(&s, path, &fd)) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", cmd_name, path,
			strerror(errno));
		fz_args_free(a);
		return 127 << 8;
	}
	pid_t pid = fz_spawn(a->v, fd, errors ? fd : -1, false), w = 0;
	int status = 0;
	close(fd);
	/* to the pipe's end, or to the child's (should it leave something holding the pipe) */
	while (w == 0 && fz_sink_pump(&s)) {
		poll(&(struct pollfd){.fd = s.in, .events = POLLIN}, 1, 100);
		w = waitpid(pid, &status, WNOHANG);
	}
	if (w != pid)
		status = fz_wait_for(pid);
	fz_sink_close(&s);
	*written = s.written >= 0;
	fz_args_free(a);
	return status;
}

int fz_run_to(struct fz_args *a, const char *path, bool errors)
{
	bool written;

	return fz_run_into(a, path, errors, &written);
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

/* ---- a child's output into a file (struct fz_sink, internal.h) ---- */

static int unwritten; /* files that could not be written, each said in a line */

int fz_unwritten(void)
{
	return unwritten;
}

/* PATH created (emptied), and a pipe whose write end *CHILD_FD the child gets as its
 * output (the caller closes it once the child has it). 0, or -1 with errno. */
int fz_sink_open(struct fz_sink *s, const char *path, int *child_fd)
{
	int fds[2];

	*s = (struct fz_sink){.in = -1, .out = -1, .line = s->line, .ctx = s->ctx};
	fz_pathf(s->path, sizeof(s->path), "%s", path);
	s->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (s->out < 0)
		return -1;
	if (pipe2(fds, O_CLOEXEC)) {
		int e = errno;
		close(s->out);
		s->out = -1;
		errno = e;
		return -1;
	}
	/* room for what a fuzzer says while the driver minimizes another's finding */
	fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	s->in = fds[0];
	*child_fd = fds[1];
	return 0;
}

/* A write (or the close) that failed with errno E: said, the file removed, nothing more
 * written. */
static void sink_failed(struct fz_sink *s, int e)
{
	fprintf(stderr,
		"snafu %s: %s: cannot write: %s after %lld bytes; removed (a file is "
		"whole or not there)\n",
		cmd_name, s->path, strerror(e), s->written);
	if (s->out >= 0)
		close(s->out);
	unlink(s->path);
	s->out = -1;
	s->written = -1;
	unwritten++;
}

static void sink_line(struct fz_sink *s)
{
	s->buf[s->len] = 0;
	if (s->line)
		s->line(s->ctx, s->buf);
	s->len = 0;
}

static void sink_take(struct fz_sink *s, const char *p, size_t n)
{
	for (size_t done = 0; s->out >= 0 && done < n;) {
		ssize_t w = write(s->out, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sink_failed(s, w < 0 ? errno : EIO);
			break;
		}
		done += (size_t)w;
		s->written += w;
	}
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n')
			sink_line(s);
		else if (s->len < sizeof(s->buf) - 1)
			s->buf[s->len++] = p[i];
	}
}

/* What the pipe holds now, into the file: false once at its end (the writers gone). */
bool fz_sink_pump(struct fz_sink *s)
{
	char buf[65536];

	while (s->in >= 0) {
		ssize_t n = read(s->in, buf, sizeof(buf));
		if (n > 0) {
			sink_take(s, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		close(s->in); /* its end (or an error reading it: the same for us) */
		s->in = -1;
	}
	return false;
}

/* The child has ended: the rest of the pipe into the file, which is closed. Something
 * else that holds the pipe open (a process the child left behind) gets a second of
 * quiet, then the pipe is closed. */
void fz_sink_close(struct fz_sink *s)
{
	while (fz_sink_pump(s))
		if (poll(&(struct pollfd){.fd = s->in, .events = POLLIN}, 1, 1000) == 0) {
			close(s->in);
			s->in = -1;
		}
	if (s->len)
		sink_line(s);
	if (s->out >= 0) {
		int fd = s->out;
		s->out = -1;
		if (close(fd)) /* NFS, a quota: the error may come only now */
			sink_failed(s, errno);
	}
}

/* ---- Ctrl-C and SIGTERM ---- */

static volatile sig_atomic_t interrupted; /* the signal, once one came */

static void on_signal(int sig)
{
	interrupted = sig;
}

bool fuzz_interrupted(void)
{
	return interrupted != 0;
}

/* Forget a Ctrl-C already answered: a second one stops what comes after it. */
void fz_clear_interrupted(void)
{
	interrupted = 0;
}

/* Before the first fuzzer starts: address randomization off (the fuzzers inherit it; see
 * the top of drive.c), and Ctrl-C and SIGTERM caught. */
void fz_set_up_process(const struct fuzz_run *r)
{
	int pers = personality(0xffffffff);
	if (pers == -1 || personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
		fprintf(stderr,
			"%s: cannot turn off address randomization (%s): executions to a "
			"finding may differ from run to run\n",
			r->name, strerror(errno));
	/* Ctrl-C reaches the fuzzers through us (each has a process group of its own); a
	 * signal ignored when we started (nohup) stays ignored */
	for (int s = 0; s < 2; s++) {
		int sig = s ? SIGTERM : SIGINT;
		struct sigaction old, sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);
	}
}
