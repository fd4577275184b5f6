/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-trace.h"

#include <stdlib.h>
#include <string.h>

#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-lttng-metadata.h"
#include "tc-lttng-preamble.h"
#include "tc-random-uuid.h"

/* LTTng-UST's per-UID buffers keep the sessiond's choice of stream class
 * ids; one channel per trace here, the default one. */
#define DEFAULT_CHAN_ID 0
/* Enumerations a trace keeps at most (each also counts in the metadata
 * bytes limit), so that many small ones cannot make the lookup long. */
#define ENUMS_MAX 4096
/* x86: LTTng-UST's ring buffer client packs its records (byte alignment). */
#define PACKED_ALIGNMENT_BITS 8

/* The traces by "session_id:uid", and the bindings by "app_id:handle"
 * (-> a reference to the trace). The lock covers both tables only, never
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
	tc_consumer_lttng_channel_free(trace->channel);
	g_hash_table_unref(trace->event_ids);
	g_hash_table_unref(trace->channel_handles);
	g_hash_table_unref(trace->event_handles);
	g_ptr_array_unref(trace->enums);
	g_string_free(trace->events_pending, TRUE);
	tc_user_limits_release(&trace->charge);
	g_mutex_clear(&trace->lock);
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
trace_key(guint64 session_id, uid_t uid)
{
	return g_strdup_printf("%" G_GUINT64_FORMAT ":%u", session_id, (unsigned)uid);
}

static TcLttngTrace *
trace_find(guint64 session_id, uid_t uid)
{
	g_autofree char *key = trace_key(session_id, uid);
	TcLttngTrace *trace;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	trace = g_hash_table_lookup(traces, key);
	if (trace)
		tc_lttng_trace_ref(trace);
	g_mutex_unlock(&traces_lock);
	return trace;
}

static TcLttngTrace *
trace_new(TcSession *session, uid_t uid)
{
	TcLttngTrace *trace = g_new0(TcLttngTrace, 1);

	trace->refcount = 1;
	trace->session_id = session->id;
	trace->owner = session->owner_uid;
	trace->uid = uid;
	/* Apart from the ids of tracectl's own per-uid traces
	 * (tc_session_trace_consumer_id()): bit 63 set. */
	trace->consumer_id = G_GUINT64_CONSTANT(1) << 63 | (guint64)uid << 32 |
			     (session->id & G_MAXUINT32);
	trace->chan_id = DEFAULT_CHAN_ID;
	tc_random_uuid(trace->uuid);
	g_mutex_init(&trace->lock);
	trace->event_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	trace->events_pending = g_string_new(NULL);
	trace->enums = g_ptr_array_new_with_free_func(trace_enum_free);
	trace->channel_handles = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	trace->event_handles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						     (GDestroyNotify)g_array_unref);
	tc_user_limits_charge_init(&trace->charge, uid);
	return trace;
}

/* The default channel's geometry and the trace's directory, read under
 * [S]. */
static gboolean
session_read(TcSession *session, uid_t uid, TcChannelConfig *config, guint32 *contexts,
	     char **dir, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	TcChannel *channel = tc_session_find_channel_locked(session, TC_DEFAULT_CHANNEL);
	g_autofree char *uid_text = g_strdup_printf("%u", (unsigned)uid);

	if (channel == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no channel '%s' for LTTng-UST applications",
			    session->name, TC_DEFAULT_CHANNEL);
		return FALSE;
	}
	*config = channel->config;
	*contexts = channel->contexts;
	*dir = g_build_filename(session->output_directory, "lttng-ust", "uid", uid_text, "64-bit",
				NULL);
	return TRUE;
}

static gboolean
trace_send_metadata(TcLttngTrace *trace, const GString *text, GError **error)
{
	g_autoptr(TcConsumer) consumer = tc_consumer_get(trace->owner, error);

	return consumer != NULL &&
	       tc_consumer_append_metadata(consumer, trace->consumer_id, text->str, text->len,
					   error);
}

/* The consumer session, its preamble, its channel. */
static gboolean
trace_create(TcLttngTrace *trace, TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = tc_consumer_get(trace->owner, error);
	g_autoptr(GString) preamble = g_string_new(NULL);
	g_autofree char *dir = NULL;
	TcChannelConfig config;
	TcLttngPreambleOptions options = {
	    .uid = trace->uid,
	    .bits_per_long = 64,
	    .alignment_bits = PACKED_ALIGNMENT_BITS,
	    .clock_offset_ns = tc_lttng_preamble_clock_offset(),
	};
	int nr_streams = lttng_ust_ctl_get_nr_stream_per_channel();

	if (consumer == NULL ||
	    !session_read(session, trace->uid, &config, &trace->contexts, &dir, error))
		return FALSE;
	if (nr_streams <= 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "No CPU for LTTng-UST streams");
		return FALSE;
	}
	memcpy(options.uuid, trace->uuid, sizeof(options.uuid));
	tc_lttng_preamble_append(preamble, &options);
	if (!tc_consumer_create_session(consumer, trace->consumer_id, dir, FALSE, NULL, error))
		return FALSE;
	if (tc_consumer_append_metadata(consumer, trace->consumer_id, preamble->str,
					preamble->len, error))
		trace->channel = tc_consumer_lttng_channel_new(
		    consumer, trace->consumer_id, 0, trace->chan_id, &config, trace->uuid,
		    TC_DEFAULT_CHANNEL, (guint)nr_streams, error);
	if (trace->channel == NULL) {
		/* The next try creates it again from scratch. */
		(void)tc_consumer_destroy_session(consumer, trace->consumer_id, NULL);
		return FALSE;
	}
	g_message("LTTng-UST trace of session '%s' for uid %u: '%s', %d streams", session->name,
		  (unsigned)trace->uid, dir, nr_streams);
	return TRUE;
}

TcLttngTrace *
tc_lttng_trace_ensure_locked(TcSession *session, uid_t uid, GError **error)
{
	TcLttngTrace *trace = trace_find(session->id, uid);

	if (trace != NULL)
		return trace;
	trace = trace_new(session, uid);
	if (!trace_create(trace, session, error)) {
		g_prefix_error(error, "LTTng-UST trace of uid %u: ", (unsigned)uid);
		tc_lttng_trace_unref(trace);
		return NULL;
	}
	g_mutex_lock(&traces_lock);
	g_hash_table_insert(traces, trace_key(session->id, uid), tc_lttng_trace_ref(trace));
	g_mutex_unlock(&traces_lock);
	return trace;
}

static GPtrArray *
traces_of_session(guint64 session_id, gboolean unlink)
{
	GPtrArray *found = g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_trace_unref);
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&traces_lock);
	tables_init_locked();
	g_hash_table_iter_init(&iter, traces);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcLttngTrace *trace = value;

		if (trace->session_id != session_id)
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
	return traces_of_session(session_id, FALSE);
}

GPtrArray *
tc_lttng_trace_forget(guint64 session_id)
{
	return traces_of_session(session_id, TRUE);
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

void
tc_lttng_trace_set_channel_handle(TcLttngTrace *trace, guint64 app_id, int channel_handle)
{
	g_mutex_lock(&traces_lock);
	g_hash_table_replace(trace->channel_handles, g_memdup2(&app_id, sizeof(app_id)),
			     GINT_TO_POINTER(channel_handle + 1));
	g_mutex_unlock(&traces_lock);
}

int
tc_lttng_trace_channel_of(TcLttngTrace *trace, guint64 app_id)
{
	gint64 key = (gint64)app_id;
	int handle;

	g_mutex_lock(&traces_lock);
	handle = GPOINTER_TO_INT(g_hash_table_lookup(trace->channel_handles, &key)) - 1;
	g_mutex_unlock(&traces_lock);
	return handle;
}

void
tc_lttng_trace_add_event_handle(TcLttngTrace *trace, guint64 app_id, const char *pattern,
				int handle)
{
	g_autofree char *key = g_strdup_printf("%" G_GUINT64_FORMAT "\n%s", app_id, pattern);
	GArray *handles;

	g_mutex_lock(&traces_lock);
	handles = g_hash_table_lookup(trace->event_handles, key);
	if (handles == NULL) {
		handles = g_array_new(FALSE, FALSE, sizeof(int));
		g_hash_table_insert(trace->event_handles, g_steal_pointer(&key), handles);
	}
	g_array_append_val(handles, handle);
	g_mutex_unlock(&traces_lock);
}

GArray *
tc_lttng_trace_take_event_handles(TcLttngTrace *trace, guint64 app_id, const char *pattern)
{
	g_autofree char *key = g_strdup_printf("%" G_GUINT64_FORMAT "\n%s", app_id, pattern);
	gpointer stolen_key = NULL, handles = NULL;

	g_mutex_lock(&traces_lock);
	if (!g_hash_table_steal_extended(trace->event_handles, key, &stolen_key, &handles))
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
	g_hash_table_remove(trace->channel_handles, &key);
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
	g_hash_table_remove_all(trace->channel_handles);
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

gboolean
tc_lttng_trace_register_channel(TcLttngTrace *trace, const struct lttng_ust_ctl_field *fields,
				gsize nr_fields, guint32 *chan_id,
				enum lttng_ust_ctl_channel_header *header_type, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&trace->lock);
	g_autoptr(GString) text = NULL;
	TcLttngMetadataOptions options = trace_metadata_options(trace);

	*chan_id = trace->chan_id;
	if (trace->stream_declared) {
		/* Per-UID buffers: the applications of one uid share the
		 * stream class the first one declared. */
		*header_type = trace->header_type;
		return TRUE;
	}
	/* lttng-sessiond's choice for per-UID buffers: it cannot know how
	 * many events will come, and compact ids stop at 30. */
	*header_type = LTTNG_UST_CTL_CHANNEL_HEADER_LARGE;
	text = g_string_new(NULL);
	if (!tc_lttng_preamble_append_stream(text, trace->chan_id, *header_type, fields, nr_fields,
					     &options, error) ||
	    !tc_user_limits_charge(&trace->charge, TC_LIMIT_METADATA_BYTES, text->len, error))
		return FALSE;
	g_string_append_len(text, trace->events_pending->str, trace->events_pending->len);
	if (!trace_send_metadata(trace, text, error))
		return FALSE;
	g_string_truncate(trace->events_pending, 0);
	trace->header_type = *header_type;
	trace->stream_declared = TRUE;
	return TRUE;
}

gboolean
tc_lttng_trace_register_event(TcLttngTrace *trace, const char *name, const char *signature,
			      int loglevel, const struct lttng_ust_ctl_field *fields,
			      gsize nr_fields, const char *model_emf_uri, guint32 *id,
			      GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&trace->lock);
	/* The name's length first: names and signatures are the application's
	 * text, newlines included, so that "a\nb" + "c" and "a" + "b\nc" are
	 * two events, not one. */
	g_autofree char *key = g_strdup_printf("%zu:%s\n%s", strlen(name), name, signature);
	g_autoptr(GString) text = g_string_new(NULL);
	gpointer known = g_hash_table_lookup(trace->event_ids, key);
	TcLttngMetadataOptions options = trace_metadata_options(trace);
	TcLttngMetadataEvent event = {
	    .name = name,
	    .id = trace->next_event_id,
	    .stream_id = trace->chan_id,
	    .loglevel = loglevel,
	    .model_emf_uri = model_emf_uri,
	    .fields = fields,
	    .nr_fields = nr_fields,
	};

	if (known != NULL) {
		*id = GPOINTER_TO_UINT(known) - 1;
		return TRUE;
	}
	/* Large event headers: ids up to 65534 (65535 says "extended"). */
	if (trace->next_event_id >= 65535) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The trace of uid %u has 65535 events", (unsigned)trace->uid);
		return FALSE;
	}
	if (!tc_lttng_metadata_append_event(text, &event, &options, error) ||
	    !tc_user_limits_charge_event(&trace->charge, g_hash_table_size(trace->event_ids),
					 text->len + strlen(key), error))
		return FALSE;
	if (!trace->stream_declared)
		g_string_append_len(trace->events_pending, text->str, text->len);
	else if (!trace_send_metadata(trace, text, error))
		return FALSE;
	*id = trace->next_event_id++;
	g_hash_table_insert(trace->event_ids, g_steal_pointer(&key), GUINT_TO_POINTER(*id + 1));
	return TRUE;
}
