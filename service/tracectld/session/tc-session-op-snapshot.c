/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op-snapshot.h"

#include <string.h>

#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-lttng-session.h"
#include "tc-relay-url.h"
#include "tc-session-kernel.h"
#include "tc-session-op.h"
#include "tc-session-trace.h"
#include "tc-signals.h"
#include "tc-snapshot-output.h"
#include "tc-uid-trace.h"

/* <output>/snapshot-<n>-<YYYYmmdd-HHMMSS>, relative to the session's
 * directory on the relay for a relay session. op_lock held. */
static char *
snapshot_directory(TcSession *session)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");

	if (session->relay != NULL)
		return g_strdup_printf("snapshot-%u-%s", session->snapshot_count, stamp);
	return g_strdup_printf("%s/snapshot-%u-%s", session->output_directory,
			       session->snapshot_count, stamp);
}

static gboolean
snapshot_trace(TcSession *session, TcConsumer *consumer, uid_t uid, guint64 consumer_id,
	       const char *root, guint64 per_stream, guint64 *packets, GError **error)
{
	g_autofree char *dir = tc_uid_trace_dir(root, uid);
	guint64 count = 0;

	if (!tc_consumer_snapshot(consumer, consumer_id, dir, per_stream, &count, error))
		return FALSE;
	*packets += count;
	return TRUE;
}

/* [S] The uids whose traces have buffers, after checking that the session
 * can take a snapshot. */
static GArray *
snapshot_uids_locked(TcSession *session, GError **error)
{
	GArray *uids;
	GHashTableIter iter;
	gpointer key, value;

	if (!session->snapshot || !session->has_buffers) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    session->snapshot ? "Session '%s' was never started"
					      : "Session '%s' is not a snapshot session "
						"(tracectl create --snapshot)",
			    session->name);
		return NULL;
	}
	uids = g_array_new(FALSE, FALSE, sizeof(guint));
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		guint uid = GPOINTER_TO_UINT(key);

		if (((TcUidTrace *)value)->has_buffers)
			g_array_append_val(uids, uid);
	}
	return uids;
}

/* Where a snapshot goes: <output>/snapshot-<n>-<date>, or, with options,
 * <parent>/<name>-<date>-<n> under the output they name, whose own bound
 * is put in *output_max_bytes (0: none). When that output is a relay, its
 * URL goes to *relay_url and the result is <name>-<date>-<n>, relative to
 * the session's directory on the relay, as LTTng files snapshots there.
 * op_lock held. */
static char *
snapshot_root(TcSession *session, const TcSnapshotOptions *options, guint64 *output_max_bytes,
	      char **relay_url, GError **error)
{
	g_autoptr(GDateTime) now = NULL;
	g_autofree char *stamp = NULL;
	g_autofree char *parent = NULL;

	*output_max_bytes = 0;
	if (options && options->output) {
		parent = tc_snapshot_output_resolve_locked(session, options->output,
							   output_max_bytes, error);
		if (parent == NULL)
			return NULL;
	} else if (session->relay) {
		/* The session's own relay (create --snapshot --set-url net://…). */
		parent = tc_relay_url_format_output(session->relay);
	}
	if (parent && tc_snapshot_output_is_relay(parent)) {
		*relay_url = g_steal_pointer(&parent);
		parent = g_strdup("");
	}
	if (options == NULL || (options->name == NULL && options->output == NULL))
		return snapshot_directory(session);
	now = g_date_time_new_now_local();
	stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	return g_strdup_printf("%s%s%s-%s-%u", parent ? parent : session->output_directory,
			       parent && *parent == '\0' ? "" : "/",
			       options->name ? options->name : "snapshot", stamp,
			       session->snapshot_count);
}

/* The relay a snapshot is sent to, named like a streamed session of the
 * same name and creation time. */
static gboolean
snapshot_relay_output(TcSession *session, const char *relay_url,
		      struct tc_consumer_relay_output *relay, GError **error)
{
	g_autofree char *directory = NULL;

	return tc_relay_url_parse_output(relay_url, NULL, NULL, 0, relay, &directory, error) &&
	       tc_relay_url_identify(relay, session->name,
				     session->creation_realtime_us / G_USEC_PER_SEC, error);
}

/* What the snapshot is called in messages: the relay's URL, then where
 * the relay files it (<hostname>/<session>-<creation time>/<root>). */
static char *
snapshot_relay_description(const struct tc_consumer_relay_output *relay, const char *relay_url,
			   const char *root)
{
	g_autoptr(GDateTime) created = g_date_time_new_from_unix_local(relay->creation_time);
	g_autofree char *stamp =
		created ? g_date_time_format(created, "%Y%m%d-%H%M%S") : g_strdup("?");

	return g_strdup_printf("%s/%s/%s-%s/%s", relay_url, relay->hostname, relay->session_name,
			       stamp, root);
}

static gboolean
snapshot_trace_to_relay(TcConsumer *consumer, uid_t uid, guint64 consumer_id,
			const struct tc_consumer_relay_output *relay, const char *root,
			guint64 per_stream, guint64 *packets, GError **error)
{
	g_autofree char *path = tc_uid_trace_dir(root, uid);
	guint64 count = 0;

	if (!tc_consumer_snapshot_relay(consumer, consumer_id, relay, path, per_stream, &count,
					error))
		return FALSE;
	*packets += count;
	return TRUE;
}

/* [S] The most a snapshot may write of each stream, 0 for no bound: an
 * even share of max_bytes, which must hold one packet of every stream,
 * the kernel trace's one per CPU among them. */
static gboolean
snapshot_stream_budget_locked(TcSession *session, guint64 max_bytes, guint nr_uids,
			      guint64 *per_stream, GError **error)
{
	guint64 streams = 0, largest = 0;
	long cpus = MAX(1, sysconf(_SC_NPROCESSORS_CONF));

	*per_stream = 0;
	if (max_bytes == 0)
		return TRUE;
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);

		streams += (guint64)cpus * MAX(nr_uids, 1);
		largest = MAX(largest, channel->config.subbuf_size);
	}
	if (session->kernel.trace) {
		guint32 subbuf_size, num_subbuf;

		tc_session_kernel_flight_geometry(session, &subbuf_size, &num_subbuf);
		streams += (guint64)cpus;
		largest = MAX(largest, subbuf_size);
	}
	if (streams == 0 || max_bytes / streams < largest) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "A snapshot of at most %" G_GUINT64_FORMAT " bytes cannot hold one "
			    "sub-buffer (%" G_GUINT64_FORMAT " bytes) of each of the %" G_GUINT64_FORMAT
			    " streams of session '%s': give at least %" G_GUINT64_FORMAT " bytes",
			    max_bytes, largest, streams, session->name, largest * MAX(streams, 1));
		return FALSE;
	}
	*per_stream = max_bytes / streams;
	return TRUE;
}

gboolean
tc_session_op_snapshot_record(TcSession *session, char **directory, GError **error)
{
	return tc_session_op_snapshot_record_with(session, NULL, directory, error);
}

gboolean
tc_session_op_snapshot_record_with(TcSession *session, const TcSnapshotOptions *options,
				   char **directory, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) uids = NULL;
	g_autofree char *root = NULL;
	g_autofree char *relay_url = NULL;
	struct tc_consumer_relay_output relay = {0};
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
	guint64 packets = 0, per_stream = 0, max_bytes = 0;
	guint traces;

	if (op == NULL)
		return FALSE;
	g_mutex_lock(&session->lock);
	uids = snapshot_uids_locked(session, error);
	g_mutex_unlock(&session->lock);
	if (uids == NULL)
		return FALSE;
	root = snapshot_root(session, options, &max_bytes, &relay_url, error);
	if (root == NULL || (relay_url && !snapshot_relay_output(session, relay_url, &relay, error)))
		return FALSE;
	/* The call's bound wins over the output's. */
	if (options && options->max_bytes)
		max_bytes = options->max_bytes;
	/* The LTTng-UST traces have each channel's streams too. */
	traces = uids->len + tc_lttng_session_trace_count(session);
	g_mutex_lock(&session->lock);
	if (!snapshot_stream_budget_locked(session, max_bytes, traces, &per_stream, error))
		g_clear_pointer(&root, g_free);
	g_mutex_unlock(&session->lock);
	if (root == NULL)
		return FALSE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL || !tc_session_trace_flush_metadata(session, consumer, error))
		return FALSE;
	if (!tc_lttng_session_snapshot_locked(session, consumer, root, relay_url ? &relay : NULL,
					      per_stream, &packets, error))
		return FALSE;
	for (guint i = 0; i < uids->len; i++) {
		uid_t uid = g_array_index(uids, guint, i);
		guint64 consumer_id = tc_session_trace_consumer_id(session, uid);

		if (relay_url ? !snapshot_trace_to_relay(consumer, uid, consumer_id, &relay, root,
							 per_stream, &packets, error)
			      : !snapshot_trace(session, consumer, uid, consumer_id, root,
						per_stream, &packets, error))
			return FALSE;
	}
	/* Right after the user-space buffers, on the same clock: one timeline. */
	if (!tc_session_kernel_snapshot_locked(session, consumer, root, relay_url ? &relay : NULL,
					       per_stream, &packets, error))
		return FALSE;
	if (relay_url) {
		char *described = snapshot_relay_description(&relay, relay_url, root);

		g_free(root);
		root = described;
	}
	session->snapshot_count++;
	g_message("Session '%s': snapshot of %" G_GUINT64_FORMAT " packets in '%s'",
		  session->name, packets, root);
	tc_signals_snapshot_recorded(session, root);
	*directory = g_steal_pointer(&root);
	return TRUE;
}

gboolean
tc_session_op_snapshot_add_output(TcSession *session, const char *name, const char *url,
				  guint64 max_bytes, guint32 *id, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	return op != NULL &&
	       tc_snapshot_output_add_locked(session, name, url, max_bytes, id, error);
}

GPtrArray *
tc_session_op_snapshot_list_outputs(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	return op ? tc_snapshot_output_list_locked(session) : NULL;
}

gboolean
tc_session_op_snapshot_del_output(TcSession *session, const char *output, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	return op != NULL && tc_snapshot_output_remove_locked(session, output, error);
}
