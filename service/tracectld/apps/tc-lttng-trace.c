/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-trace.h"

#include <stdlib.h>
#include <string.h>

#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-id-sequence.h"
#include "tc-lttng-context.h"
#include "tc-lttng-metadata.h"
#include "tc-lttng-preamble.h"
#include "tc-perf-counter.h"
#include "tc-random-uuid.h"

/* The channels a trace has at most: a session's (the owner's limit
 * bounds them first), each a stream class and a consumer channel. */
#define CHANNELS_MAX 256
/* Enumerations a trace keeps at most (each also counts in the metadata
 * bytes limit), so that many small ones cannot make the lookup long. */
#define ENUMS_MAX 4096
/* x86: LTTng-UST's ring buffer client packs its records (byte alignment). */
#define PACKED_ALIGNMENT_BITS 8

/* The traces by "session_id:uid" (per-PID: "session_id:pid:app_id"),
 * and the bindings by "app_id:handle" (-> a reference to the trace). The lock covers both tables only, never
 * I/O; it nests below [T]. */
/* An enumeration of the trace's applications. */
typedef struct {
	char *name;
	struct lttng_ust_ctl_enum_entry *entries; /* malloc()ed by liblttng-ust-ctl */
	gsize nr_entries;
} TcLttngTraceEnum;

static GMutex traces_lock;
static GHashTable *traces;
static GHashTable *bindings;

static void
trace_channel_free(gpointer data)
{
	TcLttngTraceChannel *channel = data;

	g_free(channel->name);
	tc_consumer_lttng_channel_free(channel->buffers);
	g_free(channel->stream_class);
	g_array_unref(channel->perf_counters);
	g_hash_table_unref(channel->handles);
	g_free(channel);
}

static TcLttngTraceChannel *
trace_channel_new(const TcChannel *session_channel, guint32 chan_id)
{
	TcLttngTraceChannel *channel = g_new0(TcLttngTraceChannel, 1);
	const GArray *perf_counters = session_channel->perf_counters;

	channel->name = g_strdup(session_channel->name);
	channel->chan_id = chan_id;
	channel->contexts = session_channel->contexts;
	channel->perf_counters = g_array_sized_new(FALSE, FALSE, sizeof(struct tc_perf_counter),
						   perf_counters->len);
	g_array_append_vals(channel->perf_counters, perf_counters->data, perf_counters->len);
	channel->handles = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	return channel;
}

static void
trace_enum_free(gpointer data)
{
	TcLttngTraceEnum *enumeration = data;

	g_free(enumeration->name);
	free(enumeration->entries);
	g_free(enumeration);
}

TcLttngTrace *
tc_lttng_trace_ref(TcLttngTrace *trace)
{
	g_atomic_int_inc(&trace->refcount);
	return trace;
}

void
tc_lttng_trace_unref(TcLttngTrace *trace)
{
	if (trace == NULL || !g_atomic_int_dec_and_test(&trace->refcount))
		return;
	g_ptr_array_unref(trace->channels);
	g_hash_table_unref(trace->event_ids);
	g_hash_table_unref(trace->event_handles);
	g_ptr_array_unref(trace->enums);
	tc_user_limits_release(&trace->charge);
	g_mutex_clear(&trace->lock);
	g_free(trace->path);
	g_free(trace);
}

static void
tables_init_locked(void)
{
	if (traces != NULL)
		return;
	traces = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				       (GDestroyNotify)tc_lttng_trace_unref);
	bindings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 (GDestroyNotify)tc_lttng_trace_unref);
}

static char *
trace_key(guint64 session_id, uid_t uid, guint64 app_id)
{
	if (app_id)
		return g_strdup_printf("%" G_GUINT64_FORMAT ":pid:%" G_GUINT64_FORMAT, session_id,
				       app_id);
	return g_strdup_printf("%" G_GUINT64_FORMAT ":%u", session_id, (unsigned)uid);
}

static TcLttngTrace *
trace_find(const char *key)
{
	TcLttngTrace *trace;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	trace = g_hash_table_lookup(traces, key);
	if (trace)
		tc_lttng_trace_ref(trace);
	g_mutex_unlock(&traces_lock);
	return trace;
}

/* "<procname>-<pid>-<date>-<time>", lttng-sessiond's name of a per-PID
 * trace's directory. The name is the application's word: no '/' in it. */
static char *
per_pid_directory(const TcLttngApp *app)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_local(app->registered_us / G_USEC_PER_SEC);
	g_autofree char *date = when ? g_date_time_format(when, "%Y%m%d-%H%M%S") : g_strdup("0");
	g_autofree char *name = g_strdup(app->procname);

	g_strdelimit(name, "/", '_');
	return g_strdup_printf("%s-%d-%s", name, (int)app->pid, date);
}

/* A trace of session for uid's applications, or for app's only (per-PID
 * buffers) when app is not NULL. */
static TcLttngTrace *
trace_new(TcSession *session, uid_t uid, const TcLttngApp *app)
{
	TcLttngTrace *trace = g_new0(TcLttngTrace, 1);
	g_autofree char *uid_text = g_strdup_printf("%u", (unsigned)uid);
	g_autofree char *process = app ? per_pid_directory(app) : NULL;

	trace->refcount = 1;
	trace->session_id = session->id;
	trace->owner = session->owner_uid;
	trace->uid = uid;
	/* Its consumer session is apart from the session's and from those of
	 * its other traces, of either kind (tc-id-sequence.h). */
	trace->consumer_id = tc_id_sequence_next();
	if (app) {
		trace->app_id = app->id;
		trace->pid = app->pid;
		trace->path = g_build_filename("lttng-ust", "pid", process, NULL);
	} else {
		trace->path = g_build_filename("lttng-ust", "uid", uid_text, "64-bit", NULL);
	}
	tc_random_uuid(trace->uuid);
	g_mutex_init(&trace->lock);
	trace->channels = g_ptr_array_new_with_free_func(trace_channel_free);
	trace->event_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	trace->enums = g_ptr_array_new_with_free_func(trace_enum_free);
	trace->event_handles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						     (GDestroyNotify)g_array_unref);
	tc_user_limits_charge_init(&trace->charge, uid);
	return trace;
}

/* The session's channels (into trace->channels, their geometries into
 * configs), the trace's directory and whether it is kept in memory for
 * snapshots, read under [S]. */
static gboolean
session_read(TcSession *session, TcLttngTrace *trace, GArray *configs, char **dir,
	     gboolean *snapshot, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (session->channels->len == 0 || session->channels->len > CHANNELS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has %u channels for LTTng-UST applications, not 1 to %d",
			    session->name, session->channels->len, CHANNELS_MAX);
		return FALSE;
	}
	for (guint i = 0; i < session->channels->len; i++) {
		const TcChannel *channel = g_ptr_array_index(session->channels, i);

		g_ptr_array_add(trace->channels,
				trace_channel_new(channel, i));
		g_array_append_val(configs, channel->config);
	}
	*dir = g_build_filename(session->output_directory, trace->path, NULL);
	*snapshot = session->snapshot;
	return TRUE;
}

/* A live viewer (babeltrace2's lttng-live source) decodes each piece of
 * metadata the relay hands it on its own, and refuses one that does not
 * start with the CTF signature: a comment, valid TSDL anywhere. */
#define METADATA_SIGNATURE "/* CTF 1.8 */\n"

static gboolean
trace_send_metadata(TcLttngTrace *trace, const GString *text, GError **error)
{
	g_autoptr(TcConsumer) consumer = tc_consumer_get(trace->owner, error);
	g_autofree char *signed_text = NULL;

	if (consumer == NULL)
		return FALSE;
	if (!trace->streamed || g_str_has_prefix(text->str, METADATA_SIGNATURE))
		return tc_consumer_append_metadata(consumer, trace->consumer_id, text->str,
						   text->len, error);
	signed_text = g_strconcat(METADATA_SIGNATURE, text->str, NULL);
	return tc_consumer_append_metadata(consumer, trace->consumer_id, signed_text,
					   strlen(signed_text), error);
}

/* The consumer's channels of the trace, one per session channel. */
static gboolean
trace_create_channels(TcLttngTrace *trace, TcConsumer *consumer, const GArray *configs,
		      guint nr_streams, GError **error)
{
	for (guint i = 0; i < trace->channels->len; i++) {
		TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);

		channel->buffers = tc_consumer_lttng_channel_new(
		    consumer, trace->consumer_id, channel->chan_id, channel->chan_id,
		    &g_array_index(configs, TcChannelConfig, i), trace->uuid, channel->name,
		    nr_streams, error);
		if (channel->buffers == NULL) {
			g_prefix_error(error, "channel '%s': ", channel->name);
			return FALSE;
		}
	}
	return TRUE;
}

static TcLttngMetadataOptions trace_metadata_options(TcLttngTrace *trace);

/* Every channel's stream class, appended to out and kept in the channel:
 * declared from what the service asks of the applications, not from a
 * registration, so that a channel no application registers (one was
 * refused a context and left out, or died before it started) still has
 * its packets described. Charged to the trace's uid. */
static gboolean
trace_declare_streams(TcLttngTrace *trace, GString *out, GError **error)
{
	TcLttngMetadataOptions options = trace_metadata_options(trace);
	g_autoptr(GString) text = g_string_new(NULL);

	for (guint i = 0; i < trace->channels->len; i++) {
		TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);
		g_autoptr(GArray) fields =
		    tc_lttng_context_fields(channel->contexts, channel->perf_counters);
		gsize start = text->len;

		/* lttng-sessiond's choice for per-UID buffers: it cannot know
		 * how many events will come, and compact ids stop at 30. */
		if (!tc_lttng_preamble_append_stream(
			text, channel->chan_id, LTTNG_UST_CTL_CHANNEL_HEADER_LARGE,
			(const struct lttng_ust_ctl_field *)fields->data, fields->len, &options,
			error))
			return FALSE;
		channel->stream_class = g_strndup(text->str + start, text->len - start);
	}
	if (!tc_user_limits_charge(&trace->charge, TC_LIMIT_METADATA_BYTES, text->len, error))
		return FALSE;
	g_string_append_len(out, text->str, text->len);
	return TRUE;
}

/* The consumer session, its preamble and stream classes, its channels;
 * app: a per-PID trace's, or NULL. */
static gboolean
trace_create(TcLttngTrace *trace, TcSession *session, const TcLttngApp *app, GError **error)
{
	g_autoptr(TcConsumer) consumer = tc_consumer_get(trace->owner, error);
	g_autoptr(GString) preamble = g_string_new(NULL);
	g_autoptr(GArray) configs = g_array_new(FALSE, FALSE, sizeof(TcChannelConfig));
	g_autofree char *dir = NULL;
	TcLttngPreambleOptions options = {
	    .uid = trace->uid,
	    .bits_per_long = 64,
	    .alignment_bits = PACKED_ALIGNMENT_BITS,
	    .clock_offset_ns = tc_lttng_preamble_clock_offset(),
	};
	int nr_streams = lttng_ust_ctl_get_nr_stream_per_channel();
	gboolean snapshot = FALSE;
	struct tc_consumer_relay_output relay;
	g_autoptr(GDateTime) registered =
	    app ? g_date_time_new_from_unix_local(app->registered_us / G_USEC_PER_SEC) : NULL;
	g_autofree char *registered_text =
	    registered ? g_date_time_format(registered, "%Y%m%dT%H%M%S%z") : NULL;

	if (consumer == NULL || !session_read(session, trace, configs, &dir, &snapshot, error))
		return FALSE;
	/* A trace made after a rotation joins the session's chunk on the
	 * relay (op_lock held: the chunk is the session's current one). */
	trace->streamed = session->relay != NULL;
	if (session->relay) {
		relay = *session->relay;
		relay.chunk_id = session->rotation.relay_chunk_id;
		relay.chunk_created = session->rotation.relay_chunk_created;
	}
	if (nr_streams <= 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "No CPU for LTTng-UST streams");
		return FALSE;
	}
	memcpy(options.uuid, trace->uuid, sizeof(options.uuid));
	if (app) {
		options.pid = trace->pid;
		options.procname = app->procname;
		options.registered = registered_text;
	}
	tc_lttng_preamble_append(preamble, &options);
	if (!trace_declare_streams(trace, preamble, error))
		return FALSE;
	if (!tc_consumer_create_session(consumer, trace->consumer_id, dir, snapshot,
					session->relay ? &relay : NULL, error))
		return FALSE;
	if (!tc_consumer_append_metadata(consumer, trace->consumer_id, preamble->str,
					 preamble->len, error) ||
	    !trace_create_channels(trace, consumer, configs, (guint)nr_streams, error)) {
		/* The next try creates it again from scratch. */
		(void)tc_consumer_destroy_session(consumer, trace->consumer_id, NULL);
		return FALSE;
	}
	g_message("LTTng-UST trace of session '%s' for %s %u: '%s', %u channel(s) of %d streams",
		  session->name, trace->app_id ? "pid" : "uid",
		  trace->app_id ? (unsigned)trace->pid : (unsigned)trace->uid, dir,
		  trace->channels->len, nr_streams);
	return TRUE;
}

static gboolean
session_has_per_pid_buffers(TcSession *session)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	return session->ust_buffers == TC_BUFFERS_PER_PID;
}

/* The trace of session for uid's applications, or for app's only when
 * not NULL; made if needed. op_lock held. */
static TcLttngTrace *
trace_ensure_locked(TcSession *session, uid_t uid, const TcLttngApp *app, GError **error)
{
	g_autofree char *key = trace_key(session->id, uid, app ? app->id : 0);
	TcLttngTrace *trace = trace_find(key);

	if (trace != NULL)
		return trace;
	trace = trace_new(session, uid, app);
	if (!trace_create(trace, session, app, error)) {
		g_prefix_error(error, "LTTng-UST trace of %s %u: ", app ? "pid" : "uid",
			       app ? (unsigned)app->pid : (unsigned)uid);
		tc_lttng_trace_unref(trace);
		return NULL;
	}
	g_mutex_lock(&traces_lock);
	g_hash_table_insert(traces, g_steal_pointer(&key), tc_lttng_trace_ref(trace));
	g_mutex_unlock(&traces_lock);
	return trace;
}

TcLttngTrace *
tc_lttng_trace_ensure_locked(TcSession *session, const TcLttngApp *app, GError **error)
{
	return trace_ensure_locked(session, app->uid,
				   session_has_per_pid_buffers(session) ? app : NULL, error);
}


/* New references to the traces of session session_id (any session when
 * 0), of the application app_id only when not 0; unlinked if unlink. */
static GPtrArray *
traces_find(guint64 session_id, guint64 app_id, gboolean unlink)
{
	GPtrArray *found = g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_trace_unref);
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, traces);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcLttngTrace *trace = value;

		if ((session_id && trace->session_id != session_id) ||
		    (app_id && trace->app_id != app_id))
			continue;
		g_ptr_array_add(found, tc_lttng_trace_ref(trace));
		if (unlink)
			g_hash_table_iter_remove(&iter);
	}
	g_mutex_unlock(&traces_lock);
	return found;
}

GPtrArray *
tc_lttng_trace_list(guint64 session_id)
{
	return traces_find(session_id, 0, FALSE);
}

GPtrArray *
tc_lttng_trace_forget(guint64 session_id)
{
	return traces_find(session_id, 0, TRUE);
}

GPtrArray *
tc_lttng_trace_list_app(guint64 app_id)
{
	g_return_val_if_fail(app_id != 0, g_ptr_array_new());
	return traces_find(0, app_id, FALSE);
}

gboolean
tc_lttng_trace_unlink(TcLttngTrace *trace)
{
	g_autofree char *key = trace_key(trace->session_id, trace->uid, trace->app_id);
	gboolean unlinked = FALSE;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	if (g_hash_table_lookup(traces, key) == trace)
		unlinked = g_hash_table_remove(traces, key);
	g_mutex_unlock(&traces_lock);
	return unlinked;
}

static char *
binding_key(guint64 app_id, int session_handle)
{
	return g_strdup_printf("%" G_GUINT64_FORMAT ":%d", app_id, session_handle);
}

gboolean
tc_lttng_trace_is_bound(TcLttngTrace *trace, guint64 app_id)
{
	return tc_lttng_trace_handle_of(trace, app_id) >= 0;
}

const TcLttngTraceChannel *
tc_lttng_trace_find_channel(TcLttngTrace *trace, const char *name)
{
	for (guint i = 0; i < trace->channels->len; i++) {
		const TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);

		if (g_str_equal(channel->name, name))
			return channel;
	}
	return NULL;
}

void
tc_lttng_trace_set_channel_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				  guint64 app_id, int handle)
{
	g_mutex_lock(&traces_lock);
	g_hash_table_replace(channel->handles, g_memdup2(&app_id, sizeof(app_id)),
			     GINT_TO_POINTER(handle + 1));
	g_mutex_unlock(&traces_lock);
}

int
tc_lttng_trace_channel_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
			      guint64 app_id)
{
	gint64 key = (gint64)app_id;
	int handle;

	g_mutex_lock(&traces_lock);
	handle = GPOINTER_TO_INT(g_hash_table_lookup(channel->handles, &key)) - 1;
	g_mutex_unlock(&traces_lock);
	return handle;
}

/* The application app_id's channel of handle, or NULL: the handle is the
 * application's word, checked against those it was given. */
static TcLttngTraceChannel *
trace_channel_of_handle(TcLttngTrace *trace, guint64 app_id, int handle)
{
	for (guint i = 0; i < trace->channels->len; i++) {
		TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);

		if (handle >= 0 && tc_lttng_trace_channel_handle(trace, channel, app_id) == handle)
			return channel;
	}
	return NULL;
}

static char *
event_handles_key(const TcLttngTraceChannel *channel, guint64 app_id, const char *key)
{
	return g_strdup_printf("%" G_GUINT64_FORMAT "\n%u\n%s", app_id, channel->chan_id, key);
}

void
tc_lttng_trace_add_event_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				guint64 app_id, const char *key, int handle)
{
	g_autofree char *name = event_handles_key(channel, app_id, key);
	GArray *handles;

	g_mutex_lock(&traces_lock);
	handles = g_hash_table_lookup(trace->event_handles, name);
	if (handles == NULL) {
		handles = g_array_new(FALSE, FALSE, sizeof(int));
		g_hash_table_insert(trace->event_handles, g_steal_pointer(&name), handles);
	}
	g_array_append_val(handles, handle);
	g_mutex_unlock(&traces_lock);
}

GArray *
tc_lttng_trace_take_event_handles(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				  guint64 app_id, const char *key)
{
	g_autofree char *name = event_handles_key(channel, app_id, key);
	gpointer stolen_key = NULL, handles = NULL;

	g_mutex_lock(&traces_lock);
	if (!g_hash_table_steal_extended(trace->event_handles, name, &stolen_key, &handles))
		handles = g_array_new(FALSE, FALSE, sizeof(int));
	g_mutex_unlock(&traces_lock);
	g_free(stolen_key);
	return handles;
}

int
tc_lttng_trace_handle_of(TcLttngTrace *trace, guint64 app_id)
{
	g_autofree char *prefix = g_strdup_printf("%" G_GUINT64_FORMAT ":", app_id);
	GHashTableIter iter;
	gpointer key, value;
	int handle = -1;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, bindings);
	while (handle < 0 && g_hash_table_iter_next(&iter, &key, &value))
		if (value == trace && g_str_has_prefix(key, prefix))
			handle = atoi((const char *)key + strlen(prefix));
	g_mutex_unlock(&traces_lock);
	return handle;
}

gboolean
tc_lttng_trace_bind(TcLttngTrace *trace, guint64 app_id, int session_handle)
{
	if (tc_lttng_trace_is_bound(trace, app_id))
		return FALSE;
	g_mutex_lock(&traces_lock);
	g_hash_table_replace(bindings, binding_key(app_id, session_handle),
			     tc_lttng_trace_ref(trace));
	g_mutex_unlock(&traces_lock);
	return TRUE;
}

TcLttngTrace *
tc_lttng_trace_find_bound(guint64 app_id, int session_handle)
{
	g_autofree char *key = binding_key(app_id, session_handle);
	TcLttngTrace *trace;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	trace = g_hash_table_lookup(bindings, key);
	if (trace)
		tc_lttng_trace_ref(trace);
	g_mutex_unlock(&traces_lock);
	return trace;
}

void
tc_lttng_trace_unbind(TcLttngTrace *trace, guint64 app_id)
{
	g_autofree char *prefix = g_strdup_printf("%" G_GUINT64_FORMAT ":", app_id);
	g_autofree char *events_prefix = g_strdup_printf("%" G_GUINT64_FORMAT "\n", app_id);
	gint64 key = (gint64)app_id;
	GHashTableIter iter;
	gpointer name, value;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, bindings);
	while (g_hash_table_iter_next(&iter, &name, &value))
		if (value == trace && g_str_has_prefix(name, prefix))
			g_hash_table_iter_remove(&iter);
	for (guint i = 0; i < trace->channels->len; i++) {
		TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);

		g_hash_table_remove(channel->handles, &key);
	}
	g_hash_table_iter_init(&iter, trace->event_handles);
	while (g_hash_table_iter_next(&iter, &name, NULL))
		if (g_str_has_prefix(name, events_prefix))
			g_hash_table_iter_remove(&iter);
	g_mutex_unlock(&traces_lock);
}

void
tc_lttng_trace_unbind_trace(TcLttngTrace *trace)
{
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, bindings);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		if (value == trace)
			g_hash_table_iter_remove(&iter);
	for (guint i = 0; i < trace->channels->len; i++) {
		TcLttngTraceChannel *channel = g_ptr_array_index(trace->channels, i);

		g_hash_table_remove_all(channel->handles);
	}
	g_hash_table_remove_all(trace->event_handles);
	g_mutex_unlock(&traces_lock);
}

void
tc_lttng_trace_unbind_app(guint64 app_id)
{
	g_autofree char *prefix = g_strdup_printf("%" G_GUINT64_FORMAT ":", app_id);
	g_autoptr(GPtrArray) bound =
	    g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_trace_unref);
	GHashTableIter iter;
	gpointer key, value;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, bindings);
	while (g_hash_table_iter_next(&iter, &key, &value))
		if (g_str_has_prefix(key, prefix))
			g_ptr_array_add(bound, tc_lttng_trace_ref(value));
	g_mutex_unlock(&traces_lock);
	for (guint i = 0; i < bound->len; i++)
		tc_lttng_trace_unbind(g_ptr_array_index(bound, i), app_id);
}

/* [T] held (the caller of the metadata module is): the enumeration an
 * application's field names, by the id the trace gave it. */
static gboolean
trace_lookup_enum_cb(const char *name, guint64 id, TcLttngMetadataEnum *found,
		     gpointer user_data)
{
	TcLttngTrace *trace = user_data;
	const TcLttngTraceEnum *enumeration;

	if (id >= trace->enums->len)
		return FALSE;
	enumeration = g_ptr_array_index(trace->enums, id);
	if (!g_str_equal(enumeration->name, name))
		return FALSE;
	found->entries = enumeration->entries;
	found->nr_entries = enumeration->nr_entries;
	return TRUE;
}

static const TcLttngMetadataOptions metadata_options = {
    .is_big_endian = G_BYTE_ORDER == G_BIG_ENDIAN,
};

static TcLttngMetadataOptions
trace_metadata_options(TcLttngTrace *trace)
{
	TcLttngMetadataOptions options = metadata_options;

	options.lookup_enum = trace_lookup_enum_cb;
	options.user_data = trace;
	return options;
}

gboolean
tc_lttng_trace_register_enum(TcLttngTrace *trace, const char *name,
			     struct lttng_ust_ctl_enum_entry *entries, gsize nr_entries,
			     guint64 *id, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&trace->lock);
	gsize bytes = nr_entries * sizeof(*entries);
	TcLttngTraceEnum *enumeration;

	/* The same description again (another application of the uid, or
	 * the same one in another session) gets the same id. */
	for (guint i = 0; i < trace->enums->len; i++) {
		const TcLttngTraceEnum *known = g_ptr_array_index(trace->enums, i);

		/* Without entries, liblttng-ust-ctl gives NULL: no memcmp(). */
		if (g_str_equal(known->name, name) && known->nr_entries == nr_entries &&
		    (bytes == 0 || memcmp(known->entries, entries, bytes) == 0)) {
			free(entries);
			*id = i;
			return TRUE;
		}
	}
	if (trace->enums->len >= ENUMS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The trace of uid %u has %d enumerations", (unsigned)trace->uid,
			    ENUMS_MAX);
		free(entries);
		return FALSE;
	}
	if (!tc_user_limits_charge(&trace->charge, TC_LIMIT_METADATA_BYTES, bytes + strlen(name),
				   error)) {
		free(entries);
		return FALSE;
	}
	enumeration = g_new0(TcLttngTraceEnum, 1);
	enumeration->name = g_strdup(name);
	enumeration->entries = entries;
	enumeration->nr_entries = nr_entries;
	*id = trace->enums->len;
	g_ptr_array_add(trace->enums, enumeration);
	return TRUE;
}

static TcLttngTraceChannel *
registering_channel(TcLttngTrace *trace, guint64 app_id, int channel_handle, GError **error)
{
	TcLttngTraceChannel *channel = trace_channel_of_handle(trace, app_id, channel_handle);

	if (channel == NULL)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "no channel of the service has its handle %d", channel_handle);
	return channel;
}

/* A stream class's TSDL without its integers' display bases ("base = N;"),
 * which say how to print a value, not how it is laid out: LTTng-UST
 * 2.13.6 changed ip's from 10 to 16, and applications of either version
 * write the same bytes. */
static char *
stream_class_layout(const char *tsdl)
{
	static const char base[] = " base = ";
	GString *layout = g_string_new(NULL);
	const char *at;

	while ((at = strstr(tsdl, base)) != NULL) {
		const char *end = strchr(at, ';');

		g_string_append_len(layout, tsdl, at - tsdl);
		tsdl = end ? end + 1 : at + strlen(at);
	}
	g_string_append(layout, tsdl);
	return g_string_free(layout, FALSE);
}

gboolean
tc_lttng_trace_register_channel(TcLttngTrace *trace, guint64 app_id, int channel_handle,
				const struct lttng_ust_ctl_field *fields, gsize nr_fields,
				guint32 *chan_id, enum lttng_ust_ctl_channel_header *header_type,
				GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&trace->lock);
	g_autoptr(GString) text = g_string_new(NULL);
	g_autofree char *theirs = NULL, *ours = NULL;
	TcLttngMetadataOptions options = trace_metadata_options(trace);
	TcLttngTraceChannel *channel = registering_channel(trace, app_id, channel_handle, error);

	if (channel == NULL)
		return FALSE;
	*chan_id = channel->chan_id;
	*header_type = LTTNG_UST_CTL_CHANNEL_HEADER_LARGE;
	if (!tc_lttng_preamble_append_stream(text, channel->chan_id, *header_type, fields,
					     nr_fields, &options, error))
		return FALSE;
	/* The applications of a trace share its stream class: one whose
	 * context differs would write events the metadata misdescribes. */
	theirs = stream_class_layout(text->str);
	ours = stream_class_layout(channel->stream_class);
	if (!g_str_equal(theirs, ours)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "channel '%s' described with other context fields than the "
			    "service declared for it:\n%s\ninstead of:\n%s",
			    channel->name, text->str, channel->stream_class);
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_lttng_trace_register_event(TcLttngTrace *trace, guint64 app_id, int channel_handle,
			      const char *name, const char *signature, int loglevel,
			      const struct lttng_ust_ctl_field *fields, gsize nr_fields,
			      const char *model_emf_uri, guint32 *id, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&trace->lock);
	TcLttngTraceChannel *channel = registering_channel(trace, app_id, channel_handle, error);
	g_autofree char *key = NULL;
	g_autoptr(GString) text = NULL;
	TcLttngMetadataOptions options = trace_metadata_options(trace);
	TcLttngMetadataEvent event = {
	    .name = name,
	    .loglevel = loglevel,
	    .model_emf_uri = model_emf_uri,
	    .fields = fields,
	    .nr_fields = nr_fields,
	};
	gpointer known;

	if (channel == NULL)
		return FALSE;
	/* The name's length first: names and signatures are the application's
	 * text, newlines included, so that "a\nb" + "c" and "a" + "b\nc" are
	 * two events, not one. Ids are the channel's (its stream class's). */
	key = g_strdup_printf("%u:%zu:%s\n%s", channel->chan_id, strlen(name), name, signature);
	known = g_hash_table_lookup(trace->event_ids, key);
	if (known != NULL) {
		*id = GPOINTER_TO_UINT(known) - 1;
		return TRUE;
	}
	/* Large event headers: ids up to 65534 (65535 says "extended"). */
	if (channel->next_event_id >= 65535) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Channel '%s' of the trace of uid %u has 65535 events", channel->name,
			    (unsigned)trace->uid);
		return FALSE;
	}
	event.id = channel->next_event_id;
	event.stream_id = channel->chan_id;
	text = g_string_new(NULL);
	if (!tc_lttng_metadata_append_event(text, &event, &options, error) ||
	    !tc_user_limits_charge_event(&trace->charge, g_hash_table_size(trace->event_ids),
					 text->len + strlen(key), error))
		return FALSE;
	if (!trace_send_metadata(trace, text, error))
		return FALSE;
	*id = channel->next_event_id++;
	g_hash_table_insert(trace->event_ids, g_steal_pointer(&key), GUINT_TO_POINTER(*id + 1));
	return TRUE;
}
