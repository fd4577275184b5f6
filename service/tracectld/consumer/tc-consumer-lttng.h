/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-channel.h"
#include "tc-consumer.h"

/*
 * The buffers of an LTTng-UST channel, created by the owner's consumer
 * (TC_CONSUMER_LTTNG_CHANNEL) and held here as what an application needs
 * to map them: the channel's object data and wake-up descriptor, and per
 * stream its shm and wake-up descriptors. The service never maps them.
 * Worker threads only (it waits on the consumer), as tc-consumer.h says.
 */
typedef struct {
	guint64 channel_id;
	gint32 chan_type; /* enum lttng_ust_abi_chan_type */
	GBytes *data;	  /* the channel's object data, forwarded as is */
	int wakeup_fd;
	guint nr_streams;
	int *stream_fds; /* per stream: shm, then wake-up */
	guint64 stream_size;
} TcConsumerLttngChannel;

/* Creates the channel channel_id (CTF stream class chan_id) of consumer
 * session session_id with nr_streams streams of the geometry config,
 * stream files "<name>_<n>". The consumer's answer is checked: one
 * channel datum of at most TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX bytes with
 * its descriptor (a pipe), exactly nr_streams streams of one size, each a
 * regular file (memfd) of that size and a pipe. */
TcConsumerLttngChannel *tc_consumer_lttng_channel_new(TcConsumer *consumer, guint64 session_id,
						      guint64 channel_id, guint32 chan_id,
						      const TcChannelConfig *config,
						      const guint8 uuid[16], const char *name,
						      guint nr_streams, GError **error);
/* Closes its descriptors. NULL-safe. */
void tc_consumer_lttng_channel_free(TcConsumerLttngChannel *channel);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcConsumerLttngChannel, tc_consumer_lttng_channel_free)
