/* The host side: the program's ops as real system calls on the machine's kernel, in one
 * process, one after another (a single task needs no threads).
 *
 * Mappings go exactly where the model's mmap put them (MAP_FIXED_NOREPLACE at the
 * address it returned), so every address the program names means the same on both
 * sides. Loads and stores are single movl instructions with SIGSEGV and SIGBUS caught
 * (sigsetjmp/siglongjmp): a fault is -EFAULT, as user_load()/user_store() return it.
 * Futexes are shared-keyed unless the op says `private` (FUTEX_PRIVATE_FLAG, 2.6.22
 * on: never generated for a kernel without it); a tick
 * of the model's clock is a microsecond here, and a futex_wait the model runs without a
 * timeout gets 100 ms anyway, so a disagreement can never hang the test.
 */
#define _GNU_SOURCE
#include "diff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define MPOL_F_ADDR_ 2

/* The run's files (ref/filemap.c): fd N of the model is the N-th file the program
 * declares, here rw_files[N - 1] or, for a file declared read-only, ro_files[N - 1] (the
 * same file opened O_RDONLY); each cut to its size and written with the model's bytes
 * before every program (a shared store changes them). /proc/self/mem for the
 * debugger's forced reads and writes: the same get_user_pages() with force (FOLL_FORCE)
 * that PTRACE_PEEKDATA and PTRACE_POKEDATA take. */
static int files[NR_FILES], rw_files[NR_FILES], ro_files[NR_FILES], mem_fd = -1;

static void files_reset(const struct program *p)
{
	static unsigned char buf[FILE_MAX_PAGES * DIFF_PAGE];

	for (int n = 1; n <= NR_FILES; n++) {
		const struct file_spec *f = &p->files[n - 1];
		size_t size = n <= p->nfiles ? f->pages * DIFF_PAGE : 0;
		for (unsigned long i = 0; i < size / DIFF_PAGE; i++)
			memset(buf + i * DIFF_PAGE, file_spec_byte(f, n, i), DIFF_PAGE);
		if (ftruncate(rw_files[n - 1], (off_t)size) ||
		    pwrite(rw_files[n - 1], buf, size, 0) != (ssize_t)size)
			abort();
		files[n - 1] = n > p->nfiles ? -1 : f->readonly ? ro_files[n - 1] : rw_files[n - 1];
	}
}

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t in_access;
static volatile uint32_t access_val;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (in_access)
		siglongjmp(fault_jmp, 1);
	signal(sig, SIG_DFL); /* not ours: return, fault again, and die as usual */
}

static void on_usr1(int sig)
{
	(void)sig; /* the model's signal handler does nothing either */
}

/* One 4-byte user access: 0, or -EFAULT on SIGSEGV/SIGBUS. The value read goes to
 * access_val. Nothing here is changed between sigsetjmp and siglongjmp. */
static int guarded(unsigned long addr, bool write, uint32_t val)
{
	if (sigsetjmp(fault_jmp, 1)) {
		in_access = 0;
		return -EFAULT;
	}
	in_access = 1;
	if (write) {
		__asm__ volatile("movl %0, (%1)" : : "r"(val), "r"(addr) : "memory");
	} else {
		uint32_t v;
		__asm__ volatile("movl (%1), %0" : "=r"(v) : "r"(addr) : "memory");
		access_val = v;
	}
	in_access = 0;
	return 0;
}

static long sys(long r)
{
	return r < 0 ? -errno : r;
}

static long host_futex(unsigned long uaddr, int op, int val, const struct timespec *ts,
		       unsigned long uaddr2, int val3)
{
	return sys(syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3));
}

static long host_mmap(unsigned long at, const struct op *o)
{
	int file = o->y >> 4 & 3;
	int flags = ((o->y & 8) ? MAP_SHARED : MAP_PRIVATE) | (file ? 0 : MAP_ANONYMOUS) |
		    MAP_FIXED_NOREPLACE;
	void *r = mmap((void *)at, (o->x + 1ul) * DIFF_PAGE, o->y & 7, flags,
		       file ? files[file - 1] : -1, 0);

	if (r == MAP_FAILED)
		return -errno;
	if ((unsigned long)r != at) { /* the flag was taken for a hint: not ours to keep */
		munmap(r, (o->x + 1ul) * DIFF_PAGE);
		return -EEXIST;
	}
	return (long)r;
}

static long host_refuses(const struct op *o)
{
	int file = o->y >> 4 & 3;
	unsigned long len = (o->x + 1ul) * DIFF_PAGE;
	void *r = mmap((void *)DIFF_HOST_HI, len, o->y & 7,
		       ((o->y & 8) ? MAP_SHARED : MAP_PRIVATE) | (file ? 0 : MAP_ANONYMOUS),
		       file ? files[file - 1] : -1, 0);

	if (r == MAP_FAILED)
		return -errno;
	munmap(r, len);
	return 1; /* it would have mapped it */
}

static long host_op(const struct op *o, unsigned long a, unsigned long b, long model_ret,
		    uint32_t *loaded)
{
	unsigned long len = (o->x + 1ul) * DIFF_PAGE;
	struct timespec ts = {0, 0};

	switch (o->kind) {
	case OP_MMAP:
		if (model_ret > 0)
			return host_mmap((unsigned long)model_ret, o);
		/* the model refused (a shared writable mapping of the read-only file): the
		 * host's answer anywhere above the window, given back at once */
		return host_refuses(o);
	case OP_MUNMAP:
		return sys(syscall(SYS_munmap, a, len));
	case OP_MPROTECT:
		return sys(syscall(SYS_mprotect, a, len, o->y));
	case OP_LOAD: {
		int r = guarded(a, false, 0);
		*loaded = r ? 0 : access_val;
		return r;
	}
	case OP_STORE:
		return guarded(a, true, o->x);
	case OP_FUTEX_WAIT:
		ts.tv_nsec = o->y ? o->y * 1000L : 100 * 1000000L;
		return host_futex(a, prog_futex_cmd(o, FUTEX_WAIT), o->x, &ts, 0, 0);
	case OP_FUTEX_WAKE:
		return host_futex(a, prog_futex_cmd(o, FUTEX_WAKE), o->x, NULL, 0, 0);
	case OP_FUTEX_REQUEUE:
	case OP_FUTEX_CMP_REQUEUE:
		/* the fourth argument is nr_requeue, passed where the timeout goes */
		return sys(
		    syscall(SYS_futex, a,
			    prog_futex_cmd(o, o->kind == OP_FUTEX_REQUEUE ? FUTEX_REQUEUE
									  : FUTEX_CMP_REQUEUE),
			    o->x & 15, (unsigned long)(o->x >> 4), b, o->y));
	case OP_FUTEX_WAKE_OP: {
		int nr_wake, nr_wake2;
		int encoded = prog_wake_op_args(o, &nr_wake, &nr_wake2);
		/* nr_wake2 where the timeout goes, as FUTEX_REQUEUE's nr_requeue */
		return sys(syscall(SYS_futex, a, prog_futex_cmd(o, FUTEX_WAKE_OP), nr_wake,
				   (unsigned long)nr_wake2, b, encoded));
	}
	case OP_GET_MEMPOLICY:
		return sys(syscall(SYS_get_mempolicy, a, o->x ? a + 8 : 0, o->x ? 64 : 0,
				   (o->y & MPOL_F_ADDR_) ? b : 0, o->y));
	case OP_KILL:
		return sys(syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1));
	case OP_SLEEP:
		ts.tv_nsec = o->x * 1000L;
		return sys(syscall(SYS_nanosleep, &ts, NULL));
	case OP_RECLAIM:
		return model_ret; /* kswapd: nothing to call; not compared (compare.c) */
	case OP_MADVISE:
		return sys(syscall(SYS_madvise, a, len, MADV_DONTNEED));
	case OP_MINCORE:
		return sys(syscall(SYS_mincore, a, len, b));
	case OP_MLOCK:
		return sys(syscall(SYS_mlock, a, len));
	case OP_PEEKDATA: { /* ptrace's: -EIO unless the whole word was read */
		uint32_t v = 0;
		long r = mem_fd < 0 ? -1 : pread(mem_fd, &v, 4, (off_t)a);
		*loaded = r == 4 ? v : 0;
		return r == 4 ? 0 : -EIO;
	}
	case OP_POKEDATA: {
		uint32_t v = o->x;
		return mem_fd >= 0 && pwrite(mem_fd, &v, 4, (off_t)a) == 4 ? 0 : -EIO;
	}
	}
	return -ENOSYS;
}

void host_run(const struct program *p, const struct run_result *m, struct host_result *h)
{
	unsigned long map_addr[PROG_MAX_MAPS] = {0};

	memset(h->ran, 0, sizeof(h->ran));
	files_reset(p);
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		h->ret[i] = 0;
		h->loaded[i] = 0;
		if (o->task != 1)
			continue;
		unsigned long a = diff_uaddr(map_addr, &o->a), b = diff_uaddr(map_addr, &o->b);
		int n = op_instances(p, i);
		for (int k = 0; k < n; k++)
			h->ret[i] = host_op(o, a + (unsigned long)k * DIFF_PAGE, b, m->ret[i],
					    &h->loaded[i]);
		if (o->kind == OP_MMAP && h->ret[i] > 0)
			map_addr[mmap_index_of(p, i)] = (unsigned long)h->ret[i];
		h->ran[i] = true;
	}
	munmap((void *)DIFF_BASE, DIFF_HOST_HI - DIFF_BASE); /* mlock goes with it */
}

/* Does anything of this process lie in [0, DIFF_LOW_HI) or [DIFF_BASE, DIFF_HOST_HI)? */
int host_check_window(char *why, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];

	if (!f) {
		snprintf(why, len, "cannot read /proc/self/maps: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    ((lo < DIFF_LOW_HI) || (lo < DIFF_HOST_HI && hi > DIFF_BASE))) {
			line[strcspn(line, "\n")] = 0;
			snprintf(why, len, "the address range the model uses is taken here: %s",
				 line);
			fclose(f);
			return -1;
		}
	fclose(f);
	return 0;
}

/* A system call the test needs, answered as a sandbox would (seccomp, gVisor)? */
static int probe(const char *name, long r, char *why, size_t len)
{
	if (r != -ENOSYS && r != -EPERM)
		return 0;
	snprintf(why, len, "%s() is refused here (%s): a sandbox or seccomp filter", name,
		 strerror((int)-r));
	return -1;
}

int host_init(struct host_info *hi, char *why, size_t len)
{
	struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO};
	struct utsname u;

	memset(hi, 0, sizeof(*hi));
	if (uname(&u) == 0)
		snprintf(hi->uname, sizeof(hi->uname), "%.20s %.80s %.20s", u.sysname, u.release,
			 u.machine);
#if !defined(__x86_64__)
	snprintf(why, len, "x86-64 only (the loads and stores are movl)");
	return -1;
#endif
	if (host_check_window(why, len))
		return -1;
	/* MAP_FIXED_NOREPLACE (Linux 4.17): an older kernel takes it for a hint */
	void *r = mmap((void *)DIFF_BASE, DIFF_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (r != (void *)DIFF_BASE) {
		snprintf(why, len, "mmap(MAP_FIXED_NOREPLACE) at %#lx gave %p (%s)", DIFF_BASE, r,
			 r == MAP_FAILED ? strerror(errno) : "elsewhere: flag not supported");
		if (r != MAP_FAILED)
			munmap(r, DIFF_PAGE);
		return -1;
	}
	void *again = mmap((void *)DIFF_BASE, DIFF_PAGE, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (again != MAP_FAILED) {
		snprintf(why, len, "MAP_FIXED_NOREPLACE is not honoured (Linux < 4.17?)");
		munmap(again, DIFF_PAGE);
		munmap(r, DIFF_PAGE);
		return -1;
	}
	int bad = probe("futex", host_futex(DIFF_BASE, FUTEX_WAKE, 1, NULL, 0, 0), why, len) ||
		  probe("mincore", sys(syscall(SYS_mincore, DIFF_BASE, DIFF_PAGE, DIFF_BASE + 64)),
			why, len) ||
		  probe("madvise", sys(syscall(SYS_madvise, DIFF_BASE, DIFF_PAGE, MADV_DONTNEED)),
			why, len) ||
		  probe("mprotect", sys(syscall(SYS_mprotect, DIFF_BASE, DIFF_PAGE, PROT_READ)),
			why, len);
	int mode = 0;
	long mp = sys(syscall(SYS_get_mempolicy, &mode, NULL, 0, 0, 0));
	hi->numa = mp != -ENOSYS;
	hi->task_policy = mp == 0 && mode != 0;
	munmap(r, DIFF_PAGE);
	if (bad)
		return -1;
	/* mlock: the model has no RLIMIT_MEMLOCK; lift it where we may */
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	setrlimit(RLIMIT_MEMLOCK, &rl);
	hi->unlimited_ml = getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY;
	if (!hi->unlimited_ml) {
		/* root without an infinite limit still has CAP_IPC_LOCK, probably */
		hi->unlimited_ml = geteuid() == 0;
	}
	/* the files, unlinked at once: nothing is left behind */
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	for (int n = 0; n < NR_FILES; n++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/snafu-differential-XXXXXX", dir);
		rw_files[n] = mkstemp(path);
		if (rw_files[n] < 0) {
			snprintf(why, len, "cannot make a file in %s: %s", dir, strerror(errno));
			return -1;
		}
		ro_files[n] = open(path, O_RDONLY);
		unlink(path);
		if (ro_files[n] < 0) {
			snprintf(why, len, "cannot open %s again: %s", path, strerror(errno));
			return -1;
		}
	}
	/* a forced write through /proc/self/mem into a read-only page, as ptrace's: the
	 * host may refuse it (proc_mem.force_override=never, CONFIG_PROC_MEM_NO_FORCE, or no
	 * /proc): then the era table's mem-no-force entry explains the forced accesses */
	mem_fd = open("/proc/self/mem", O_RDWR);
	void *ro = mmap(NULL, DIFF_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t one = 1;
	hi->mem_force = mem_fd >= 0 && ro != MAP_FAILED &&
			pwrite(mem_fd, &one, 4, (off_t)(unsigned long)ro) == 4;
	if (ro != MAP_FAILED)
		munmap(ro, DIFF_PAGE);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* microsecond timeouts mean microseconds */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL) ||
	    signal(SIGUSR1, on_usr1) == SIG_ERR) {
		snprintf(why, len, "sigaction: %s", strerror(errno));
		return -1;
	}
	return 0;
}
