/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Kernel event names as LTTng spells them: a bare name or glob
 * ("sched_switch", "sched_*", "kmem_kmalloc", "syscall_entry_read"),
 * found among the machine's tracefs events. A pure function of the list
 * the helper gives (tc_kernel_list()), callable from any thread.
 */

/* Most tracefs patterns one bare glob becomes. */
#define TC_KERNEL_EVENT_NAME_PATTERNS_MAX 64u

/* The tracefs patterns ("system:event" or "system:glob") that pattern,
 * of no ':', stands for, among events ("system:event", NULL-terminated):
 * those whose tracefs name or LTTng name (tc-kernel-lttng-name.h) it
 * matches. Probe groups ("tracectl_<id>") are other sessions' but for
 * own_group, the session's own (NULL: none). A name without '*' must
 * name one event: two or more are refused (InvalidArgument) naming them;
 * none is NotFound. A glob matching nothing is NotFound; one that would
 * take more than TC_KERNEL_EVENT_NAME_PATTERNS_MAX patterns is
 * LimitExceeded. A new array of strings, or NULL with error set. */
GPtrArray *tc_kernel_event_name_resolve(const char *pattern, const char *const *events,
					const char *own_group, GError **error);
