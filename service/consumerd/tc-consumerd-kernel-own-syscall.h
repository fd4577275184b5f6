/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process tier's named system call events, as lttng-modules lays
 * them out (common/util/tc-syscall-args.h): their metadata and each
 * record's payload. The copied bytes of a record are the traced task's
 * memory, so they are read within data_len and never trusted to end
 * where they should. Pure functions, called by the reading thread of
 * tc-consumerd-kernel-own.c.
 */
#ifndef TC_CONSUMERD_KERNEL_OWN_SYSCALL_H
#define TC_CONSUMERD_KERNEL_OWN_SYSCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tc-kernel-own.h"
#include "tc-syscall-args.h"

/* The largest payload tc_consumerd_kernel_own_syscall_put() writes: ret,
 * the integers, and one copied field (a string of TC_OWN_SYSCALL_DATA_MAX
 * bytes at most, its NUL included). */
#define TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX \
	(8u + 8u * TC_SYSCALL_ARGS_FIELDS_MAX + TC_OWN_SYSCALL_DATA_MAX + 8u)

/* The metadata of event id, syscall_entry_NAME or syscall_exit_NAME for
 * the system call name (<sys/syscall.h>'s; the event takes lttng-modules'
 * name), with layout's fields or, layout NULL, the six registers (entry)
 * or ret (exit). Into text of size bytes: the length, or -ENAMETOOLONG. */
int tc_consumerd_kernel_own_syscall_declare(char *text, size_t size, const char *name,
					    bool is_exit, uint32_t id,
					    const struct tc_syscall_args_layout *layout);

/* The payload of a record of the event declared with layout (or NULL),
 * from its registers, return value and the data_len bytes copied (data
 * may be NULL when data_len is 0), at out, which has room for
 * TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX bytes. Returns the end. */
uint8_t *tc_consumerd_kernel_own_syscall_put(uint8_t *out,
					     const struct tc_syscall_args_layout *layout,
					     bool is_exit, const struct tc_own_record *head,
					     const uint8_t *data, uint32_t data_len);

#endif /* TC_CONSUMERD_KERNEL_OWN_SYSCALL_H */
