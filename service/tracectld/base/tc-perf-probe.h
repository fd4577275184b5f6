/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

struct tc_perf_counter;

/*
 * Whether this machine can count a perf:thread: counter in an owner's
 * applications, asked when a context is added rather than found out by
 * each application, which would record nothing (tracectl's own record 0,
 * LTTng-UST's refuse the session). From any thread; makes system calls
 * (perf_event_open(2) on the calling thread, closed at once; a read of
 * /proc/sys/kernel/perf_event_paranoid).
 */

/* NotSupported naming the reason: the kernel has no such counter (no
 * hardware PMU, as in most virtual machines), or perf_event_paranoid
 * forbids an owner other than root to count. */
gboolean tc_perf_probe_check(const struct tc_perf_counter *counter, uid_t owner, GError **error);
/* The same for each struct tc_perf_counter of counters, the first refusal. */
gboolean tc_perf_probe_check_all(const GArray *counters, uid_t owner, GError **error);
