/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-perf-channel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc-ust-perf.h"
#include "tc-ust-state.h"

_Static_assert(TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX <= TC_UST_PERF_COUNTERS_MAX,
	       "a thread keeps every counter of a channel open");

int
tc_ust_perf_channel_set(const struct tracectl_msg_channel_perf_counters *msg)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);
	struct tracectl_abi_perf_counter *counters;

	if (!channel)
		return -ENOENT;
	if (channel->nr_perf_counters > 0 || channel->notifier)
		return -EBUSY;
	for (uint32_t cpu = 0; cpu < channel->nr_streams; cpu++)
		if (channel->streams[cpu])
			return -EBUSY;
	if (msg->count == 0 || msg->count > TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX ||
	    msg->reserved != 0)
		return -EINVAL;
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->counters[i].reserved != 0)
			return -EINVAL;
	counters = calloc(msg->count, sizeof(*counters));
	if (!counters)
		return -ENOMEM;
	memcpy(counters, msg->counters, msg->count * sizeof(*counters));
	/* No tracepoint reaches the channel before its first stream, whose
	 * publication (a release store) comes after this. */
	channel->perf_counters = counters;
	channel->nr_perf_counters = msg->count;
	return 0;
}

uint32_t
tc_ust_perf_channel_fill(const struct tc_ust_channel *channel,
			 uint8_t out[TC_UST_PERF_CHANNEL_BYTES_MAX])
{
	for (uint32_t i = 0; i < channel->nr_perf_counters; i++) {
		uint64_t count = tc_ust_perf_read(channel->perf_counters[i].type,
						  channel->perf_counters[i].config);

		memcpy(out + 8 * i, &count, sizeof(count));
	}
	return channel->nr_perf_counters * 8u;
}
