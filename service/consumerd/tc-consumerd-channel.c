/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-channel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc-consumerd-stream.h"

static void
channel_close_streams(struct tc_consumerd_channel *channel, uint32_t count, int dir_fd,
		      bool unlink_files)
{
	for (uint32_t cpu = 0; cpu < count; cpu++)
		tc_consumerd_stream_close(&channel->streams[cpu], dir_fd, unlink_files);
}

int
tc_consumerd_channel_new(const struct tc_consumerd_stream_place *place,
			 const struct tc_consumerd_channel_spec *spec,
			 struct tc_consumerd_channel **result)
{
	struct tc_consumerd_channel *channel;
	uint32_t cpu;
	int ret;

	channel = calloc(1, sizeof(*channel) + (size_t)spec->nr_cpus * sizeof(channel->streams[0]));
	if (!channel)
		return -ENOMEM;
	channel->channel_id = spec->channel_id;
	channel->stream_id = spec->stream_id;
	channel->nr_cpus = spec->nr_cpus;
	channel->subbuf_size = spec->geometry.subbuf_size;
	channel->num_subbuf = spec->geometry.num_subbuf;
	channel->flags = spec->flags;
	channel->timers = (struct tc_consumerd_timers){
	    .switch_ns = (uint64_t)spec->geometry.switch_timer_us * 1000,
	    .read_ns = (uint64_t)spec->geometry.read_timer_us * 1000,
	    .monitor_ns = (uint64_t)spec->geometry.monitor_timer_us * 1000,
	};
	/* The caller checked that the name fits. */
	strncpy(channel->name, spec->name, sizeof(channel->name) - 1);
	/* Aligned for direct I/O (sub-buffers are powers of two of at least
	 * a page, a multiple of the alignment). */
	channel->packet = aligned_alloc(CONSUMERD_DIRECT_ALIGN, spec->geometry.subbuf_size);
	if (!channel->packet) {
		ret = -ENOMEM;
		goto fail;
	}
	for (cpu = 0; cpu < spec->nr_cpus; cpu++) {
		ret = tc_consumerd_stream_open(&channel->streams[cpu], place, spec, channel->name,
					       cpu);
		if (ret < 0) {
			channel_close_streams(channel, cpu, place->dir_fd, true);
			goto fail;
		}
		channel->streams[cpu].layouts = &channel->layouts;
		channel->streams[cpu].packet = channel->packet;
	}
	*result = channel;
	return 0;

fail:
	free(channel->packet);
	free(channel);
	return ret;
}

void
tc_consumerd_channel_free(struct tc_consumerd_channel *channel, int dir_fd)
{
	if (!channel)
		return;
	channel_close_streams(channel, channel->nr_cpus, dir_fd, false);
	tc_consumerd_layout_clear(&channel->layouts);
	free(channel->packet);
	free(channel);
}

void
tc_consumerd_channel_stats(const struct tc_consumerd_channel *channel,
			   struct tc_consumerd_channel_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->buffer_bytes = (uint64_t)channel->subbuf_size * channel->num_subbuf * channel->nr_cpus;
	stats->bytes_used = channel->bytes_used;
	stats->bytes_used_peak = channel->bytes_used_peak;
	for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
		const struct tc_consumerd_stream *stream = &channel->streams[cpu];

		/* Written by the applications: a number to show, nothing more. */
		stats->events_discarded += __atomic_load_n(&stream->reader.rb.shm->events_discarded,
							   __ATOMIC_RELAXED);
		stats->packets_written += tc_consumerd_stream_packets_written(stream);
	}
}
