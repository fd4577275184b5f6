/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names lttng-modules gives the kernel events tracefs also has: the
 * consumer writes a kernel trace under them (tc-consumerd-kernel-lttng.c),
 * and the service finds the tracefs event a bare name of LTTng's stands
 * for. Plain C, pure functions of the names.
 */
#ifndef TC_KERNEL_LTTNG_NAME_H
#define TC_KERNEL_LTTNG_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* The event's LTTng name into name of size bytes: "sched_switch",
 * "syscall_entry_read", "kmem_kmalloc"; false, with name empty, for the
 * systems lttng-modules has no counterpart of (raw_syscalls, probes). */
bool tc_kernel_lttng_name_of(const char *system, const char *event, char *name, size_t size);

/* The tracefs glob of system's events whose LTTng names match
 * lttng_glob: lttng_glob with system's LTTng prefix replaced by tracefs'
 * ("syscall_entry_*" -> "sys_enter_*" in syscalls, "kmem_*" -> "*" in
 * kmem), into glob of size bytes; false when no rule of system's prefix
 * starts lttng_glob. */
bool tc_kernel_lttng_name_tracefs_glob(const char *system, const char *lttng_glob, char *glob,
				       size_t size);

#endif /* TC_KERNEL_LTTNG_NAME_H */
