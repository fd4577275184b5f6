/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-channel.h"

#include <unistd.h>

#include "tc-event-rule.h"
#include "tc-perf-counter.h"

static guint64 next_channel_handle = 1; /* atomic */

static void
channel_buffers_free(TcChannelBuffers *buffers)
{
	for (guint i = 0; i < 2 * buffers->nr_streams; i++)
		if (buffers->fds[i] >= 0)
			close(buffers->fds[i]);
	g_free(buffers->fds);
	g_free(buffers);
}

void
tc_channel_free(TcChannel *channel)
{
	g_hash_table_unref(channel->buffers);
	g_ptr_array_unref(channel->patterns);
	g_ptr_array_unref(channel->rules);
	g_array_unref(channel->perf_counters);
	g_ptr_array_unref(channel->app_contexts);
	g_hash_table_unref(channel->event_ids);
	g_free(channel->name);
	g_free(channel);
}

TcChannel *
tc_channel_new(TcSession *session, const char *name, guint32 stream_id,
	       const TcChannelConfig *config)
{
	TcChannel *channel = g_new0(TcChannel, 1);

	channel->session = session;
	channel->name = g_strdup(name);
	channel->handle = __atomic_fetch_add(&next_channel_handle, 1, __ATOMIC_RELAXED);
	channel->stream_id = stream_id;
	channel->config = *config;
	channel->patterns = g_ptr_array_new_with_free_func(g_free);
	channel->rules = g_ptr_array_new_with_free_func((GDestroyNotify)tc_event_rule_free);
	channel->perf_counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	channel->app_contexts = g_ptr_array_new_with_free_func(g_free);
	channel->event_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	channel->buffers = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						 (GDestroyNotify)channel_buffers_free);
	return channel;
}
