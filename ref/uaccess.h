/* User access from the kernel (include/asm-i386/uaccess.h), through the modelled MMU. */
#ifndef SNAFU_UACCESS_H
#define SNAFU_UACCESS_H

#include "kernel.h"

int get_user_u32(uint32_t *val, unsigned long uaddr); /* get_user(): -EFAULT or 0 */
int put_user_u32(uint32_t val, unsigned long uaddr);  /* put_user() */
unsigned long copy_to_user(unsigned long to, const void *from, unsigned long n);
unsigned long clear_user(unsigned long to, unsigned long n); /* bytes left uncleared */
unsigned long __copy_from_user_inatomic(void *to, unsigned long from, unsigned long n);

#define get_user(x, p) get_user_u32(&(x), p)
#define put_user(x, p) put_user_u32(x, p)

/* A user-mode load or store by the task itself: a bad address gets SIGSEGV (-EFAULT). */
int user_load(unsigned long uaddr, uint32_t *val);
int user_store(unsigned long uaddr, uint32_t val);

#endif
