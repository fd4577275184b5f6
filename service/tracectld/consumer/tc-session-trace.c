/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-uid traces of a session and their metadata. Both the session
 * operations (first start, stop, snapshots) and the application sync
 * (a new uid registering while root's session records, new event classes)
 * create traces and flush metadata, so it lives below both of them.
 */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-trace.h"

#include <string.h>
#include <unistd.h>

#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-fair-queue.h"
#include "tc-id-sequence.h"
#include "tc-metadata.h"
#include "tc-session.h"
#include "tc-uid-trace.h"

/* The uuid of uid's trace: the session's, changed for other uids, so
 * that each per-uid trace is a trace of its own for babeltrace2. */
static void
uid_trace_uuid(const TcSession *session, uid_t uid, guint8 uuid[16])
{
	guint32 mix = uid ^ session->owner_uid;

	memcpy(uuid, session->uuid, 16);
	for (guint i = 0; i < 4; i++)
		uuid[12 + i] ^= (mix >> (8 * i)) & 0xff;
}

/* The consumer session of uid's trace in session, 0 when it has none. */
guint64
tc_session_trace_consumer_id(TcSession *session, uid_t uid)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	TcUidTrace *trace = g_hash_table_lookup(session->traces, GUINT_TO_POINTER(uid));

	return trace != NULL ? trace->consumer_id : 0;
}

/* Creates the directory of uid's trace through the consumer. op_lock held. */
gboolean
tc_session_trace_create(TcSession *session, TcConsumer *consumer, uid_t uid, const char *trace_dir,
		 GError **error)
{
	TcUidTrace *trace = g_new0(TcUidTrace, 1);
	struct tc_consumer_relay_output relay;

	/* The owner's trace has the session's id; another uid's one of its
	 * own, never another trace's (tc-id-sequence.h). */
	trace->consumer_id = uid == session->owner_uid ? session->id : tc_id_sequence_next();
	uid_trace_uuid(session, uid, trace->uuid);
	/* A trace started after a rotation joins the other traces' chunk. */
	if (session->relay != NULL) {
		relay = *session->relay;
		relay.chunk_id = session->rotation.relay_chunk_id;
		relay.chunk_created = session->rotation.relay_chunk_created;
	}
	if (!tc_consumer_create_session(consumer, trace->consumer_id, trace_dir, session->snapshot,
					session->relay != NULL ? &relay : NULL, error)) {
		g_free(trace);
		return FALSE;
	}
	g_mutex_lock(&session->lock);
	g_hash_table_insert(session->traces, GUINT_TO_POINTER(uid), trace);
	g_mutex_unlock(&session->lock);
	return TRUE;
}

/*
 * A live viewer (babeltrace2 2.0's lttng-live source) decodes each piece of
 * plain-text metadata the relay hands it on its own, and refuses one that
 * does not start with the CTF signature; a comment is valid TSDL anywhere,
 * so every piece appended to a streamed trace starts with it.
 */
#define METADATA_SIGNATURE "/* CTF 1.8 */\n"

/* Sends the metadata produced since the last call to every trace that has
 * buffers, and keeps it for traces created later. op_lock held. */
gboolean
tc_session_trace_flush_metadata(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GArray) layouts = NULL;
	GHashTableIter iter;
	gpointer value;
	gsize len;

	g_mutex_lock(&session->lock);
	len = session->metadata_pending->len;
	g_string_append_len(session->metadata_body, session->metadata_pending->str, len);
	text = g_string_free(session->metadata_pending, FALSE);
	session->metadata_pending = g_string_new(NULL);
	layouts = session->layouts_pending;
	g_array_append_vals(session->layouts_body, layouts->data, layouts->len);
	session->layouts_pending =
		g_array_new(FALSE, TRUE, sizeof(struct tc_consumer_event_layout));
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcUidTrace *trace = value;

		if (trace->has_buffers)
			g_array_append_val(ids, trace->consumer_id);
	}
	g_mutex_unlock(&session->lock);
	if (session->relay != NULL && len > 0) {
		char *signed_text = g_strconcat(METADATA_SIGNATURE, text, NULL);

		g_free(text);
		text = signed_text;
		len += strlen(METADATA_SIGNATURE);
	}
	for (guint i = 0; len > 0 && i < ids->len; i++)
		if (!tc_consumer_append_metadata(consumer, g_array_index(ids, guint64, i), text,
						 len, error))
			return FALSE;
	for (guint i = 0; i < ids->len; i++)
		if (!tc_consumer_send_layouts(consumer, g_array_index(ids, guint64, i), layouts,
					      error))
			return FALSE;
	return TRUE;
}

/*
 * Gives uid its trace in the session, with buffers in every channel and
 * the metadata so far (a new uid in root's session, or the owner at the
 * first start). op_lock held.
 */
gboolean
tc_session_trace_uid(TcSession *session, TcConsumer *consumer, uid_t uid, GError **error)
{
	guint nr_cpus = MAX(1, sysconf(_SC_NPROCESSORS_CONF));
	g_autoptr(GString) metadata = g_string_new(NULL);
	g_autoptr(GArray) layouts = NULL;
	TcUidTrace *trace;

	g_mutex_lock(&session->lock);
	trace = g_hash_table_lookup(session->traces, GUINT_TO_POINTER(uid));
	g_mutex_unlock(&session->lock);
	if (trace == NULL) {
		g_autofree char *dir = tc_uid_trace_dir(session->output_directory, uid);

		if (!tc_session_trace_create(session, consumer, uid, dir, error))
			return FALSE;
		g_mutex_lock(&session->lock);
		trace = g_hash_table_lookup(session->traces, GUINT_TO_POINTER(uid));
		g_mutex_unlock(&session->lock);
	}
	if (trace->has_buffers)
		return TRUE;
	/* Channels change only under op_lock, which we hold. */
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);
		TcChannelBuffers *buffers = g_new0(TcChannelBuffers, 1);

		/* uid's buffers go to uid's applications only (tc-app-sync.c):
		 * when uid is the owner's, the consumer's, no other uid writes
		 * them. */
		if (!tc_consumer_create_channel(consumer, trace->consumer_id, channel, trace->uuid,
						&session->clock, nr_cpus,
						uid == session->owner_uid, &buffers->fds,
						&buffers->shm_size, error)) {
			g_free(buffers);
			g_prefix_error(error, "Cannot create the buffers of channel '%s': ",
				       channel->name);
			return FALSE;
		}
		buffers->nr_streams = nr_cpus;
		g_mutex_lock(&session->lock);
		g_hash_table_insert(channel->buffers, GUINT_TO_POINTER(uid), buffers);
		g_mutex_unlock(&session->lock);
	}
	tc_metadata_append_header(metadata, session, uid, trace->uuid);
	g_mutex_lock(&session->lock);
	g_string_append_len(metadata, session->metadata_body->str, session->metadata_body->len);
	g_mutex_unlock(&session->lock);
	g_mutex_lock(&session->lock);
	layouts = g_array_copy(session->layouts_body);
	g_mutex_unlock(&session->lock);
	if (!tc_consumer_append_metadata(consumer, trace->consumer_id, metadata->str,
					 metadata->len, error) ||
	    !tc_consumer_send_layouts(consumer, trace->consumer_id, layouts, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	trace->has_buffers = TRUE;
	g_mutex_unlock(&session->lock);
	return TRUE;
}

void
tc_session_trace_uid_for_app(TcSession *session, uid_t uid)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GError) error = NULL;
	gboolean needed;

	g_mutex_lock(&session->lock);
	needed = session->has_buffers && !session->destroyed &&
		 g_hash_table_lookup(session->traces, GUINT_TO_POINTER(uid)) == NULL;
	g_mutex_unlock(&session->lock);
	if (!needed)
		return;
	g_mutex_lock(&session->op_lock);
	consumer = tc_consumer_get(session->owner_uid, &error);
	if (consumer == NULL || !tc_session_trace_uid(session, consumer, uid, &error) ||
	    !tc_session_trace_flush_metadata(session, consumer, &error))
		g_warning("Session '%s' cannot record uid %u: %s", session->name, (unsigned)uid,
			  error->message);
	g_mutex_unlock(&session->op_lock);
}

/* Writes the pending metadata and layouts of session. Takes op_lock. */
static void
flush_pending_metadata(TcSession *session)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GError) error = NULL;

	g_mutex_lock(&session->op_lock);
	g_mutex_lock(&session->lock);
	if (session->destroyed ||
	    (session->metadata_pending->len == 0 && session->layouts_pending->len == 0)) {
		g_mutex_unlock(&session->lock);
		goto out;
	}
	g_mutex_unlock(&session->lock);
	consumer = tc_consumer_get(session->owner_uid, &error);
	if (consumer == NULL || !tc_session_trace_flush_metadata(session, consumer, &error))
		g_warning("Session '%s': cannot write the metadata of new events: %s",
			  session->name, error->message);
out:
	g_mutex_unlock(&session->op_lock);
}

typedef struct {
	GPtrArray *sessions; /* of TcSession, referenced */
	void (*then)(gpointer data);
	gpointer data;
} MetadataFlushJob;

static void
metadata_flush_job(gpointer data, gpointer user_data)
{
	MetadataFlushJob *job = data;

	for (guint i = 0; i < job->sessions->len; i++)
		flush_pending_metadata(g_ptr_array_index(job->sessions, i));
	job->then(job->data);
	g_ptr_array_unref(job->sessions);
	g_free(job);
}

/*
 * The jobs only wait on consumers. Those of one uid's applications run
 * one at a time, in order (their answers must), and those of different
 * uids side by side: a user whose consumer is stopped holds one thread,
 * and another user's applications are answered meanwhile.
 */
#define METADATA_FLUSH_THREADS 4

static TcFairQueue *metadata_jobs; /* MetadataFlushJob *, by the applications' uid */

static gpointer
metadata_flush_thread(gpointer unused)
{
	for (;;) {
		guint32 uid;
		MetadataFlushJob *job = tc_fair_queue_pop(metadata_jobs, -1, &uid);

		if (job == NULL)
			return NULL;
		metadata_flush_job(job, NULL);
		tc_fair_queue_done(metadata_jobs, uid);
	}
}

void
tc_session_trace_flush_metadata_then(uid_t uid, GPtrArray *sessions, void (*then)(gpointer data),
				     gpointer data)
{
	static gsize initialized;
	MetadataFlushJob *job = g_new0(MetadataFlushJob, 1);

	if (g_once_init_enter(&initialized)) {
		metadata_jobs = tc_fair_queue_new(1);
		for (guint i = 0; i < METADATA_FLUSH_THREADS; i++)
			g_thread_unref(g_thread_new("tc-metadata", metadata_flush_thread, NULL));
		g_once_init_leave(&initialized, 1);
	}
	job->sessions = g_ptr_array_ref(sessions);
	job->then = then;
	job->data = data;
	tc_fair_queue_push(metadata_jobs, uid, job);
}

