/* User access from the kernel (include/asm-i386/uaccess.h), through the modelled MMU. */
#ifndef SNAFU_UACCESS_H
#define SNAFU_UACCESS_H

#include "kernel.h"

/* Each access that may fault is annotated with might_fault() (ref/lockdep.c), which names
 * its caller: the macros pass the calling function. __copy_from_user_inatomic() is not
 * annotated: its caller has page faults disabled. */
/* the range is user space (below TASK_SIZE); VERIFY_READ and VERIFY_WRITE alike on i386 */
bool access_ok(unsigned long addr, unsigned long size);
int get_user_u32(uint32_t *val, unsigned long uaddr, const char *caller); /* -EFAULT or 0 */
int put_user_u32(uint32_t val, unsigned long uaddr, const char *caller);
unsigned long _copy_to_user(unsigned long to, const void *from, unsigned long n,
			    const char *caller);
unsigned long _clear_user(unsigned long to, unsigned long n, const char *caller);
unsigned long __copy_from_user_inatomic(void *to, unsigned long from, unsigned long n);
/* The locked read-modify-write of an aligned user word that include/asm-i386/futex.h's
 * futex_atomic_op_inuser() makes (xchgl, xaddl, a cmpxchgl loop), with page faults
 * disabled by the caller: it writes apply(old, arg) and gives old, or -EFAULT where the
 * PTE is absent or read-only (the access faults as a write, and in atomic context the
 * fault's fixup does not sleep). Not annotated, as __copy_from_user_inatomic(). */
int __futex_rmw_inatomic(unsigned long uaddr, uint32_t (*apply)(uint32_t old, int arg), int arg,
			 uint32_t *oldval);

#define get_user(x, p)            get_user_u32(&(x), p, KFUNC)
#define put_user(x, p)            put_user_u32(x, p, KFUNC)
#define copy_to_user(to, from, n) _copy_to_user(to, from, n, KFUNC)
#define clear_user(to, n)         _clear_user(to, n, KFUNC) /* bytes left uncleared */

/* A user-mode load or store by the task itself: a bad address gets SIGSEGV (-EFAULT). */
int user_load(unsigned long uaddr, uint32_t *val);
int user_store(unsigned long uaddr, uint32_t val);

#endif
