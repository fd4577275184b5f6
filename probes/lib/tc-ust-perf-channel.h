/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A channel's per-thread perf counters (CHANNEL_PERF_COUNTERS): which it
 * records, set once before its first stream, and the tracepoint's filling
 * of their fields from the thread's counters (tc-ust-perf.h).
 */
#ifndef TC_UST_PERF_CHANNEL_H
#define TC_UST_PERF_CHANNEL_H

#include <stdint.h>

#include "tracectl-abi.h"

struct tc_ust_channel;

/* The most bytes tc_ust_perf_channel_fill() writes. */
#define TC_UST_PERF_CHANNEL_BYTES_MAX (TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX * 8u)

/* Requires tc_ust_state.lock. -ENOENT: no such channel; -EBUSY: it has
 * buffers or counters already, or is a notifier; -EINVAL: a bad count or
 * reserved field; -ENOMEM. */
int tc_ust_perf_channel_set(const struct tracectl_msg_channel_perf_counters *msg);

/* The tracepoint: the calling thread's count of each of channel's
 * counters into out, 8 bytes each, in order. Returns the bytes written. */
uint32_t tc_ust_perf_channel_fill(const struct tc_ust_channel *channel,
				  uint8_t out[TC_UST_PERF_CHANNEL_BYTES_MAX]);

#endif /* TC_UST_PERF_CHANNEL_H */
