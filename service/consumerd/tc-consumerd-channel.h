/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Channels: one stream per CPU, made and freed by tc-consumerd-session.c. */
#ifndef TC_CONSUMERD_CHANNEL_H
#define TC_CONSUMERD_CHANNEL_H

#include <stdint.h>

#include "tc-consumerd-channel-spec.h"
#include "tc-consumerd-layout.h"
#include "tc-consumerd-stream.h"

/* Periodic work of a channel; 0 intervals are off. */
struct tc_consumerd_timers {
	uint64_t switch_ns, read_ns, monitor_ns; /* intervals */
	uint64_t next_switch, next_read, next_monitor; /* deadlines, 0: not armed */
};

struct tc_consumerd_channel {
	struct tc_consumerd_channel *next;
	uint64_t channel_id;
	uint32_t stream_id;
	uint32_t nr_cpus;
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t flags; /* TC_CONSUMER_CHANNEL_* */
	struct tc_consumerd_timers timers;
	uint64_t bytes_used;      /* at the last monitor sample, all CPUs */
	uint64_t bytes_used_peak; /* highest sample */
	struct tc_consumerd_layouts layouts;
	char name[256];
	uint8_t *packet; /* subbuf_size bytes: the reader's private copy */
	struct tc_consumerd_stream streams[];
};

/*
 * Allocates a channel and opens its nr_cpus streams (see
 * tc_consumerd_stream_open()). All or nothing: on failure every stream opened
 * so far is closed and its file removed.
 * Returns 0 with *channel set (not yet linked into the session), -ENOMEM,
 * or the failing stream's error.
 */
int tc_consumerd_channel_new(const struct tc_consumerd_stream_place *place,
			     const struct tc_consumerd_channel_spec *spec,
			     struct tc_consumerd_channel **channel);

/* Closes the channel's streams (keeping their files) and frees it. NULL-safe. */
void tc_consumerd_channel_free(struct tc_consumerd_channel *channel, int dir_fd);

/* Statistics of a channel, summed over its CPUs, into the reply fields. */
struct tc_consumerd_channel_stats {
	uint64_t buffer_bytes;
	uint64_t bytes_used;
	uint64_t bytes_used_peak;
	uint64_t events_discarded;
	uint64_t packets_written;
};
void tc_consumerd_channel_stats(const struct tc_consumerd_channel *channel,
				struct tc_consumerd_channel_stats *stats);

#endif /* TC_CONSUMERD_CHANNEL_H */
