/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op-relay.h"

#include "tc-consumer.h"
#include "tc-signals.h"
#include "tc-uid-trace.h"

/* The Problem text of a streaming session whose relay went away, or NULL
 * when nothing was lost. */
static char *
relay_problem_text(const TcRelayStatus *status)
{
	g_autoptr(GDateTime) since = NULL;
	g_autofree char *when = NULL;

	if (status->lost_since == 0)
		return NULL;
	since = g_date_time_new_from_unix_local(status->lost_since);
	when = since ? g_date_time_format(since, "%Y-%m-%d %H:%M:%S") : g_strdup("?");
	if (status->connected || status->last_errno == 0)
		return g_strdup_printf("lost %" G_GUINT64_FORMAT " packets since %s: relay %s %s",
				       status->lost_packets, when, status->url,
				       status->connected ? "was unreachable, reconnected"
							 : "unreachable");
	return g_strdup_printf("lost %" G_GUINT64_FORMAT " packets since %s: relay %s "
			       "unreachable (%s)",
			       status->lost_packets, when, status->url,
			       status->reason[0] ? status->reason : g_strerror(status->last_errno));
}

/* [S] Whether status says something the session's relay Problem does not
 * say yet, past a count of lost packets that grew. */
static gboolean
relay_problem_is_news(const TcSession *session, const TcRelayStatus *status)
{
	return !session->problem_is_relay || session->relay_lost_since != status->lost_since ||
	       session->relay_connected != status->connected ||
	       session->relay_errno != status->last_errno ||
	       session->relay_reason_hash != g_str_hash(status->reason);
}

/* [op_lock] Asks the consumer sessions of a streaming session what their
 * relay lost and puts it in Problem, unless another problem is there. */
void
tc_session_op_relay_refresh_problem_locked(TcSession *session, TcConsumer *consumer, GArray *ids)
{
	TcRelayStatus total = {0};
	g_autofree char *changed = NULL;
	gboolean first = TRUE;

	if (session->relay == NULL)
		return;
	for (guint i = 0; i < ids->len; i++) {
		TcRelayStatus status = {0};

		if (!tc_consumer_relay_status(consumer, g_array_index(ids, guint64, i), &status,
					      NULL))
			continue;
		if (status.lost_since && (total.lost_since == 0 || status.lost_since < total.lost_since))
			total.lost_since = status.lost_since;
		total.lost_packets += status.lost_packets;
		total.connected = first ? status.connected : total.connected && status.connected;
		first = FALSE;
		if (!status.connected && status.last_errno) {
			total.last_errno = status.last_errno;
			g_strlcpy(total.reason, status.reason, sizeof(total.reason));
		}
		g_strlcpy(total.url, status.url, sizeof(total.url));
	}
	g_mutex_lock(&session->lock);
	if (session->problem == NULL || session->problem_is_relay) {
		char *text = relay_problem_text(&total);

		/* A count that grew is no news: only a new state is logged
		 * and signalled, not every look during an outage. */
		if (text && relay_problem_is_news(session, &total)) {
			g_warning("Session '%s' of uid %u: %s", session->name,
				  (unsigned)session->owner_uid, text);
			changed = g_strdup(text);
		}
		if (text) {
			g_free(session->problem);
			session->problem = text;
			session->problem_is_relay = TRUE;
			session->relay_lost_since = total.lost_since;
			session->relay_connected = total.connected;
			session->relay_errno = total.last_errno;
			session->relay_reason_hash = g_str_hash(total.reason);
		}
	}
	g_mutex_unlock(&session->lock);
	/* Watchers (and proxies caching properties) learn it at once. */
	if (changed)
		tc_signals_problem_changed(session, changed);
}

/* The consumer sessions of a streaming session, or NULL when it is
 * destroyed or does not stream. Every trace has its consumer session,
 * and its relay, from its creation on, buffers or not. */
static GArray *
streaming_trace_ids(TcSession *session)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	GArray *ids;
	GHashTableIter iter;
	gpointer value;

	if (session->destroyed || session->relay == NULL)
		return NULL;
	ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_array_append_val(ids, ((TcUidTrace *)value)->consumer_id);
	return ids;
}

void
tc_session_op_relay_refresh_problem(TcSession *session)
{
	g_autoptr(GArray) ids = NULL;
	g_autoptr(TcConsumer) consumer = NULL;

	/* An operation under way may take long (a snapshot to a slow relay):
	 * the next look comes soon enough. */
	if (!g_mutex_trylock(&session->op_lock))
		return;
	ids = streaming_trace_ids(session);
	/* A consumer that is gone has its own Problem: never start one. */
	if (ids)
		consumer = tc_consumer_find(session->owner_uid);
	if (consumer)
		tc_session_op_relay_refresh_problem_locked(session, consumer, ids);
	g_mutex_unlock(&session->op_lock);
}
