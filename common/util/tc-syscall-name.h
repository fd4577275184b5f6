/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The system calls of the architecture tracectl is built for, by name and
 * number, as <sys/syscall.h> defines them at build time (its native ABI:
 * x86-64's numbers on x86-64, not the 32-bit ones of compat tasks). For
 * the own-process tier, whose programs see a system call's number only:
 * the service turns names into numbers, the consumer numbers into
 * lttng-modules' event names. Plain C, constant data.
 */
#ifndef TC_SYSCALL_NAME_H
#define TC_SYSCALL_NAME_H

#include <stddef.h>

/* Numbers are below this (the own-process tier's bitmaps). */
#define TC_SYSCALL_NAME_NUMBER_MAX 512u

/* The number of the system call name, or -1. */
int tc_syscall_name_number(const char *name);
/* The name of system call number, or NULL. */
const char *tc_syscall_name_of(unsigned int number);
/* The i-th system call by name (i < tc_syscall_name_count()) and its
 * number in *number. */
const char *tc_syscall_name_at(size_t i, unsigned int *number);
size_t tc_syscall_name_count(void);

#endif /* TC_SYSCALL_NAME_H */
