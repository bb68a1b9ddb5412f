/* kernel/ptrace.c: the two requests a debugger's memory access makes (ref/ptrace.c). */
#ifndef SNAFU_PTRACE_H
#define SNAFU_PTRACE_H

#include <stdint.h>

#define PTRACE_PEEKDATA 2
#define PTRACE_POKEDATA 5

/* sys_ptrace(request, pid, addr, data) on the program's mm: PEEKDATA stores the word at
 * addr in *data, POKEDATA writes *data there; 0, or -EIO (-EIO for any other request) */
long sys_ptrace(long request, unsigned long addr, uint32_t *data);

#endif
