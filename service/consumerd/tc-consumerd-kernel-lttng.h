/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names LTTng gives kernel events and their fields, for the tracefs
 * events that have a counterpart in lttng-modules: a kernel trace written
 * under these names is one LTTng's tool chain (lttng-analyses, Trace
 * Compass's kernel views) knows how to read. The rules are one table in
 * tc-consumerd-kernel-lttng.c; docs/lttng-compat.md lists them.
 *
 * Everything here is a pure function of the tracefs names, which the
 * metadata (tc-consumerd-kernel-metadata.c) and the record writer
 * (tc-consumerd-kernel.c) both ask, so that the fields each declares and
 * writes stay in the same order.
 */
#ifndef TC_CONSUMERD_KERNEL_LTTNG_H
#define TC_CONSUMERD_KERNEL_LTTNG_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any event name written: the longest tracefs system and event
 * names (127 each), a separator and the longest renamed prefix. */
#define CONSUMERD_KERNEL_EVENT_NAME_MAX 288u

/* The event's name in the trace, into name (of size
 * CONSUMERD_KERNEL_EVENT_NAME_MAX): LTTng's ("sched_switch",
 * "syscall_entry_read") where the table has the system, else tracefs'
 * "system:event". */
void tc_consumerd_kernel_lttng_event_name(const char *system, const char *event, char *name);

/* The field's name in the trace: LTTng's ("prev_tid") or tracefs' own. */
const char *tc_consumerd_kernel_lttng_field_name(const char *system, const char *field);

/* The most fields of one event written twice: the writer and the
 * metadata both stop there. */
#define CONSUMERD_KERNEL_LTTNG_REPEATED_MAX 3u

/* Whether the field is written a second time, after the event's own
 * fields, under its tracefs name: LTTng has both a tid and a pid where
 * tracefs has one field (sched_process_fork's parent_pid and child_pid,
 * which LTTng-aware tools read besides parent_tid and child_tid). */
bool tc_consumerd_kernel_lttng_field_repeated(const char *system, const char *event,
					      const char *field);

/* Whether a field of type (libtraceevent's, "const char *") that is not
 * a string holds the user-space address of a text LTTng writes out: a
 * system call's path or name argument. The consumer cannot read another
 * process's memory: such a field is written as the string
 * "unknown (0xADDRESS)", a string where LTTng's tools expect one
 * (lttng-analyses takes names starting with "unknown" as unknown files). */
bool tc_consumerd_kernel_lttng_user_text(const char *system, const char *type);

/* "unknown (0x...)": room for the text of a 64-bit address. */
#define CONSUMERD_KERNEL_USER_TEXT_MAX 32u

#endif /* TC_CONSUMERD_KERNEL_LTTNG_H */
