/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-consumer"

#include "tc-consumer-lttng.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-error.h"

/* Link thread, under the link's lock: the channel datum, once. */
static gboolean
take_data_cb(const void *msg, gsize len, gpointer user_data, GError **error)
{
	const struct tc_consumer_lttng_channel_data *data = msg;
	TcConsumerLttngChannel *channel = user_data;
	gsize size = len - sizeof(*data);

	if (len <= sizeof(*data) || size > TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX ||
	    channel->data != NULL || data->channel_id != channel->channel_id ||
	    data->nr_streams != channel->nr_streams) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a bad LTTng-UST channel datum");
		return FALSE;
	}
	channel->chan_type = data->chan_type;
	channel->data = g_bytes_new((const guint8 *)msg + sizeof(*data), size);
	return TRUE;
}

static gboolean
fd_is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* The descriptors go to applications as they are, which map the shm of
 * the size announced and wait on the pipes: one of another kind, or a
 * buffer of another size, would make them fail or fault (SIGBUS) there.
 * Every stream is of stream_size, the size the last one announced. */
static gboolean
descriptors_are_sound(const TcConsumerLttngChannel *channel)
{
	if (!fd_is_pipe(channel->wakeup_fd))
		return FALSE;
	for (guint i = 0; i < channel->nr_streams; i++) {
		struct stat st;

		if (fstat(channel->stream_fds[2 * i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    (guint64)st.st_size != channel->stream_size ||
		    !fd_is_pipe(channel->stream_fds[2 * i + 1]))
			return FALSE;
	}
	return TRUE;
}

void
tc_consumer_lttng_channel_free(TcConsumerLttngChannel *channel)
{
	if (channel == NULL)
		return;
	if (channel->wakeup_fd >= 0)
		close(channel->wakeup_fd);
	for (guint i = 0; channel->stream_fds && i < 2 * channel->nr_streams; i++)
		if (channel->stream_fds[i] >= 0)
			close(channel->stream_fds[i]);
	g_free(channel->stream_fds);
	g_clear_pointer(&channel->data, g_bytes_unref);
	g_free(channel);
}

TcConsumerLttngChannel *
tc_consumer_lttng_channel_new(TcConsumer *consumer, guint64 session_id, guint64 channel_id,
			      guint32 chan_id, const TcChannelConfig *config, const guint8 uuid[16],
			      const char *name, guint nr_streams, GError **error)
{
	g_autoptr(TcConsumerLttngChannel) channel = g_new0(TcConsumerLttngChannel, 1);
	struct tc_consumer_lttng_channel msg = {
		.session_id = session_id,
		.channel_id = channel_id,
		.chan_id = chan_id,
		.geometry = *config,
	};

	channel->channel_id = channel_id;
	channel->nr_streams = nr_streams;
	channel->wakeup_fd = -1;
	channel->stream_fds = g_new(int, 2 * nr_streams);
	memcpy(msg.uuid, uuid, sizeof(msg.uuid));
	g_strlcpy(msg.name, name, sizeof(msg.name));
	if (!tc_consumer_request_streams(consumer, &msg, TC_CONSUMER_LTTNG_CHANNEL, sizeof(msg),
					 TC_CONSUMER_LTTNG_CHANNEL_DATA, take_data_cb, channel,
					 &channel->wakeup_fd, channel->stream_fds, nr_streams,
					 &channel->stream_size, error))
		return NULL;
	if (channel->data == NULL || channel->wakeup_fd < 0 ||
	    channel->stream_fds[2 * nr_streams - 1] < 0 || channel->stream_size == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent an incomplete LTTng-UST channel");
		return NULL;
	}
	if (!descriptors_are_sound(channel)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent an LTTng-UST channel whose descriptors are not "
			    "pipes and buffers of the size it said");
		return NULL;
	}
	return g_steal_pointer(&channel);
}
