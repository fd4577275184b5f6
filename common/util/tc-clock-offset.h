/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CLOCK_REALTIME minus CLOCK_MONOTONIC, for the offset of a trace's
 * monotonic clock in its CTF metadata. Two plain reads would carry any
 * preemption between them into the offset (milliseconds on a loaded
 * machine, which then misplaces a whole trace on babeltrace2's time line
 * against its siblings); the reading here is the tightest of several
 * monotonic-realtime-monotonic triples, as lttng-sessiond measures it.
 */
#ifndef TC_CLOCK_OFFSET_H
#define TC_CLOCK_OFFSET_H

#include <stdint.h>

int64_t tc_clock_offset_monotonic_ns(void);

#endif /* TC_CLOCK_OFFSET_H */
