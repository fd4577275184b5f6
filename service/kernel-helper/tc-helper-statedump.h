/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel state dump (TC_KERNEL_STATEDUMP): what exists when a session
 * starts, written into its instance as lttng-modules' lttng_statedump_*
 * events (tc-kernel-statedump.h).
 */
#ifndef TC_HELPER_STATEDUMP_H
#define TC_HELPER_STATEDUMP_H

#include <stdint.h>

/* How long one dump may take: what it has not reached by then is left out
 * (the reply comes well before the service's 10 s). */
#define TC_HELPER_STATEDUMP_MS 4000

/* Dumps the machine into the session's instance; 0 with *records written
 * (a dump cut by its bounds included, logged), or -errno when the
 * instance's trace_marker_raw cannot be opened or written. */
int tc_helper_statedump(uint64_t session_id, uint32_t *records);

#endif /* TC_HELPER_STATEDUMP_H */
