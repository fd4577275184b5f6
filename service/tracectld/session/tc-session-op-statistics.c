/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op-statistics.h"

#include "tc-consumer.h"
#include "tc-lttng-session.h"
#include "tc-session-kernel.h"
#include "tc-session-op-relay.h"
#include "tc-uid-trace.h"

/* op_lock held: the kernel channel's figures, from the kernel's own
 * counts once its buffers are read (zeros before the first start). */
static gboolean
add_kernel_statistics(TcSession *session, GArray *statistics, GError **error)
{
	TcChannelStats stats = {.buffer_bytes = session->kernel.buffer_bytes};
	TcChannelStatistics kernel = {.domain = "kernel"};

	if (session->kernel.trace) {
		g_autoptr(TcConsumer) consumer = tc_consumer_get(session->owner_uid, error);

		if (consumer == NULL ||
		    !tc_consumer_kernel_stats(consumer, session->id, &stats, error))
			return FALSE;
	}
	kernel.channel = g_strdup(TC_DEFAULT_CHANNEL);
	kernel.stats = stats;
	g_array_append_val(statistics, kernel);
	return TRUE;
}

static void
channel_statistics_clear(gpointer data)
{
	g_free(((TcChannelStatistics *)data)->channel);
}

GArray *
tc_session_op_statistics(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GArray) statistics = g_array_new(FALSE, FALSE, sizeof(TcChannelStatistics));
	g_autoptr(GMutexLocker) op = NULL;
	GHashTableIter iter;
	gpointer value;
	gboolean ok = TRUE, has_lttng;

	g_array_set_clear_func(statistics, channel_statistics_clear);
	op = g_mutex_locker_new(&session->op_lock);
	g_mutex_lock(&session->lock);
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		if (((TcUidTrace *)value)->has_buffers)
			g_array_append_val(ids, ((TcUidTrace *)value)->consumer_id);
	g_mutex_unlock(&session->lock);
	has_lttng = tc_lttng_session_trace_count(session) > 0;
	if (ids->len > 0 || has_lttng)
		consumer = tc_consumer_get(session->owner_uid, error);
	if ((ids->len > 0 || has_lttng) && consumer == NULL)
		ok = FALSE;
	/* Channels change only under op_lock, which we hold. */
	for (guint c = 0; ok && c < session->channels->len; c++) {
		TcChannel *channel = g_ptr_array_index(session->channels, c);
		TcChannelStatistics ust = {.domain = "ust"};

		for (guint i = 0; ok && i < ids->len; i++)
			ok = tc_consumer_channel_stats(consumer, g_array_index(ids, guint64, i),
						       channel->handle, &ust.stats, error);
		if (ok && has_lttng)
			ok = tc_lttng_session_channel_stats_locked(session, consumer, channel->name,
								   &ust.stats, error);
		ust.channel = g_strdup(channel->name);
		g_array_append_val(statistics, ust);
	}
	if (ok && tc_session_kernel_in_use(session))
		ok = add_kernel_statistics(session, statistics, error);
	if (!ok)
		return NULL;
	if (consumer)
		tc_session_op_relay_refresh_problem_locked(session, consumer, ids);
	return g_steal_pointer(&statistics);
}
