/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shadow copy of sessions into applications (thesis §3.5.2, figures
 * 3.10 and 3.11). tc_app_sync_locked() is idempotent: it compares what an
 * application was told with what the session is now and sends only the
 * difference, so the same function serves registration, every command,
 * and both orders of their races.
 */
#define G_LOG_DOMAIN "tracectld-sync"

#include "tc-app-sync.h"

#include <string.h>

#include "tc-ack-waiter.h"
#include "tc-app-protocol.h"
#include "tc-app.h"
#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-metadata.h"
#include "tc-notifier.h"
#include "tc-perf-counter.h"
#include "tc-registry.h"
#include "tc-session-trace.h"
#include "tc-session.h"

void
tc_app_sync_session_state_free(TcAppSessionState *state)
{
	g_hash_table_unref(state->channels_sent);
	g_hash_table_unref(state->enabled);
	g_hash_table_unref(state->filters);
	g_free(state);
}

static TcAppSessionState *
app_session_state(TcApp *app, TcSession *session)
{
	TcAppSessionState *state;

	if (app->sessions == NULL)
		app->sessions =
		    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					  (GDestroyNotify)tc_app_sync_session_state_free);
	state = g_hash_table_lookup(app->sessions, &session->id);

	if (state == NULL) {
		state = g_new0(TcAppSessionState, 1);
		state->channels_sent = g_hash_table_new(g_int64_hash, g_int64_equal);
		state->enabled = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		state->filters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						       (GDestroyNotify)g_bytes_unref);
		g_hash_table_insert(app->sessions, g_memdup2(&session->id, sizeof(session->id)),
				    state);
	}
	return state;
}

/* Sends a command that the application acknowledges; counts it in waiter
 * unless the application is unresponsive. */
static gboolean
send_command(TcApp *app, void *msg, guint32 type, guint32 size, const int *fds, guint n_fds,
	     TcAckWaiter *waiter)
{
	guint32 seq = app->next_seq++;

	if (app->next_seq == 0)
		app->next_seq = 1;
	if (!tc_app_protocol_send_locked(app, msg, type, size, seq, fds, n_fds))
		return FALSE;
	/* An unresponsive application gets the command all the same (it
	 * applies it when it reads again), but nobody waits for it. */
	if (waiter && !app->is_unresponsive) {
		tc_ack_waiter_expect_locked(waiter, app);
		if (app->pending == NULL)
			app->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
		g_hash_table_insert(app->pending, GUINT_TO_POINTER(seq), waiter);
	}
	return TRUE;
}

static gboolean
send_session_state(TcApp *app, TcSession *session, guint32 type, TcAckWaiter *waiter)
{
	struct tracectl_msg_session msg = {.session_handle = session->id};

	return send_command(app, &msg, type, sizeof(msg), NULL, 0, waiter);
}

/* The channel's application contexts, before its first stream, when it
 * has any. */
static gboolean
send_app_contexts(TcApp *app, TcChannel *channel, TcAckWaiter *waiter)
{
	g_autofree struct tracectl_msg_channel_app_contexts *msg = NULL;

	if (channel->app_contexts->len == 0)
		return TRUE;
	msg = g_new0(struct tracectl_msg_channel_app_contexts, 1);
	msg->channel_handle = channel->handle;
	msg->count = channel->app_contexts->len;
	for (guint i = 0; i < channel->app_contexts->len; i++)
		g_strlcpy(msg->names[i], g_ptr_array_index(channel->app_contexts, i),
			  sizeof(msg->names[i]));
	return send_command(app, msg, TRACECTL_MSG_CHANNEL_APP_CONTEXTS, sizeof(*msg), NULL, 0,
			    waiter);
}

/* The channel's perf counters, before its first stream, when it has
 * any. */
static gboolean
send_perf_counters(TcApp *app, TcChannel *channel, TcAckWaiter *waiter)
{
	struct tracectl_msg_channel_perf_counters msg = {.channel_handle = channel->handle};

	if (channel->perf_counters->len == 0)
		return TRUE;
	msg.count = channel->perf_counters->len;
	for (guint i = 0; i < channel->perf_counters->len; i++) {
		const struct tc_perf_counter *counter =
			&g_array_index(channel->perf_counters, struct tc_perf_counter, i);

		msg.counters[i].type = counter->type;
		msg.counters[i].config = counter->config;
	}
	return send_command(app, &msg, TRACECTL_MSG_CHANNEL_PERF_COUNTERS, sizeof(msg), NULL, 0,
			    waiter);
}

/* Whether app can write channel's records: one whose library predates
 * application contexts and perf counters is left out of a channel that
 * records either rather than write records of another layout into the
 * shared buffers. */
static gboolean
app_can_record(const TcApp *app, const TcChannel *channel)
{
	if ((channel->app_contexts->len == 0 && channel->perf_counters->len == 0) ||
	    app->abi_version >= TRACECTL_ABI_VERSION_APP_CONTEXTS)
		return TRUE;
	g_debug("Application pid=%d (ABI version %u) left out of channel '%s' of session '%s': "
		"it records neither application contexts nor perf counters",
		(int)app->pid, app->abi_version, channel->name, channel->session->name);
	return FALSE;
}

static gboolean
send_channel(TcApp *app, TcChannel *channel, const TcChannelBuffers *buffers,
	     TcAckWaiter *waiter)
{
	struct tracectl_msg_channel msg = {
		.session_handle = channel->session->id,
		.channel_handle = channel->handle,
		.stream_id = channel->stream_id,
		.nr_streams = buffers->nr_streams,
		.subbuf_size = channel->config.subbuf_size,
		.num_subbuf = channel->config.num_subbuf,
		.contexts = channel->contexts,
	};

	if (!send_command(app, &msg, TRACECTL_MSG_CHANNEL_ADD, sizeof(msg), NULL, 0, waiter) ||
	    !send_perf_counters(app, channel, waiter) || !send_app_contexts(app, channel, waiter))
		return FALSE;
	for (guint cpu = 0; cpu < buffers->nr_streams; cpu++) {
		struct tracectl_msg_stream stream = {
			.channel_handle = channel->handle,
			.cpu = cpu,
			.shm_size = buffers->shm_size,
		};

		if (!send_command(app, &stream, TRACECTL_MSG_STREAM_ADD, sizeof(stream),
				  &buffers->fds[2 * cpu], 2, waiter))
			return FALSE;
	}
	return TRUE;
}

/* A user's filters may fail on many events: one line a second. */
static void
warn_filter_refused(const TcChannel *channel, const TcAppEvent *event, const GError *error)
{
	static gint64 last_us; /* racy on purpose: only paces a log line */
	gint64 now = g_get_monotonic_time();

	if (now - last_us < G_USEC_PER_SEC)
		return;
	g_message("Event '%s' is not recorded in channel '%s' of session '%s' (uid %u): %s",
		  event->name, channel->name, channel->session->name,
		  (unsigned)channel->session->owner_uid, error->message);
	last_us = now;
}

/*
 * Whether the channel's rules select the event and, in *filter, the
 * bytecode it must pass: an empty one when a rule selects it without a
 * filter (it is then always recorded), else the OR of the filters of the
 * rules that select it. A filter that cannot apply to the event (a field
 * it lacks, or of another type) never matches it.
 */
static gboolean
channel_selects(TcChannel *channel, const TcAppEvent *event, GBytes **filter)
{
	g_autoptr(GPtrArray) exprs = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	gboolean selected = FALSE;

	*filter = NULL;
	for (guint i = 0; i < channel->rules->len; i++) {
		const TcEventRule *rule = g_ptr_array_index(channel->rules, i);

		if (!tc_event_rule_selects(rule, event->name, event->loglevel))
			continue;
		if (rule->filter == NULL) {
			*filter = g_bytes_new(NULL, 0);
			return TRUE;
		}
		g_ptr_array_add(exprs, rule->filter);
		selected = TRUE;
	}
	if (!selected)
		return FALSE;
	*filter = tc_filter_compile((TcFilterExpr *const *)exprs->pdata, exprs->len, event->fields,
				    event->nr_fields, &error);
	if (*filter == NULL) {
		warn_filter_refused(channel, event, error);
		return FALSE;
	}
	return TRUE;
}

/* Sends the event's filter in the channel unless the application has it. */
static gboolean
send_filter(TcApp *app, TcAppSessionState *state, const char *key, guint64 channel_handle,
	    guint32 index, GBytes *filter, TcAckWaiter *waiter)
{
	GBytes *sent = g_hash_table_lookup(state->filters, key);
	g_autofree struct tracectl_msg_event_filter *msg = NULL;
	gsize size;
	const void *data = g_bytes_get_data(filter, &size);

	if (sent ? g_bytes_equal(sent, filter) : size == 0)
		return TRUE;
	g_assert(size <= TC_FILTER_BYTECODE_MAX);
	msg = g_new0(struct tracectl_msg_event_filter, 1);
	msg->channel_handle = channel_handle;
	msg->index = index;
	msg->size = (guint32)size;
	if (size > 0)
		memcpy(msg->bytecode, data, size);
	if (!send_command(app, msg, TRACECTL_MSG_EVENT_FILTER, sizeof(*msg), NULL, 0, waiter))
		return FALSE;
	if (size > 0)
		g_hash_table_insert(state->filters, g_strdup(key), g_bytes_ref(filter));
	else
		g_hash_table_remove(state->filters, key);
	return TRUE;
}

static_assert(TRACECTL_ABI_ARRAY_LENGTH_MAX * 8u <= TC_CONSUMER_FIELD_ARRAY_MAX,
	      "an array's bytes fit the consumer's layout");

/* [S] What the consumer needs to walk the event's records. */
static void
append_layout(TcChannel *channel, guint32 id, const TcAppEvent *event)
{
	struct tc_consumer_event_layout layout = {
		.stream_id = channel->stream_id,
		.event_id = id,
		.context_size = tracectl_context_size(channel->contexts) +
				channel->perf_counters->len * 8u +
				channel->app_contexts->len * TRACECTL_APP_CONTEXT_SLOT_SIZE,
		.nr_fields = MIN(event->nr_fields, TC_CONSUMER_LAYOUT_FIELDS_MAX),
	};

	for (guint i = 0; i < layout.nr_fields; i++) {
		const struct tracectl_abi_field *field = &event->fields[i];

		switch (tracectl_abi_field_kind(field->type)) {
		case TRACECTL_FIELD_STRING:
			layout.fields[i] = TC_CONSUMER_FIELD_STRING;
			break;
		case TRACECTL_FIELD_BYTES:
			layout.fields[i] = TC_CONSUMER_FIELD_BYTES;
			break;
		case TRACECTL_FIELD_ARRAY:
			/* Checked at registration: at most 65536 elements of 8
			 * bytes, TC_CONSUMER_FIELD_ARRAY_MAX. */
			layout.fields[i] = TC_CONSUMER_FIELD_ARRAY;
			layout.sizes[i] =
				field->size * tracectl_abi_field_element_size(field->type);
			break;
		case TRACECTL_FIELD_SEQUENCE:
			layout.fields[i] = TC_CONSUMER_FIELD_SEQUENCE;
			layout.sizes[i] = tracectl_abi_field_element_size(field->type);
			break;
		default:
			/* Integers, float, double, and enumerations as their
			 * container: 1 to 8 bytes. */
			layout.fields[i] =
				(guint8)tracectl_abi_field_fixed_size(field->type, field->size);
		}
	}
	g_array_append_val(channel->session->layouts_pending, layout);
}

/* A user at the limit may be enabling thousands: one line a second. */
static void
warn_metadata_refused(const TcSession *session, const TcAppEvent *event, const GError *error)
{
	static gint64 last_us; /* racy on purpose: only paces a log line */
	gint64 now = g_get_monotonic_time();

	if (now - last_us < G_USEC_PER_SEC)
		return;
	g_warning("Event '%s' is not recorded in session '%s' of uid %u: %s", event->name,
		  session->name, (unsigned)session->owner_uid, error->message);
	last_us = now;
}

/* The CTF id of the event in the channel's stream class, assigned on first
 * use; events of the same name, fields and enumerations
 * (tc_app_event_key()) share an id across applications, since all
 * applications of a user write into the same buffers. FALSE when
 * its metadata would take the owner over the limit: the event stays
 * disabled in this session. */
static gboolean
channel_event_id(TcChannel *channel, const TcAppEvent *event, guint32 *id)
{
	g_autofree char *key = tc_app_event_key(event);
	gpointer value = g_hash_table_lookup(channel->event_ids, key);
	TcSession *session = channel->session;
	g_autoptr(GString) tsdl = NULL;
	g_autoptr(GError) error = NULL;

	if (value != NULL) {
		*id = GPOINTER_TO_UINT(value) - 1;
		return TRUE;
	}
	tsdl = g_string_new(NULL);
	tc_metadata_append_event(tsdl, channel->stream_id, channel->next_event_id, event);
	if (!tc_user_limits_charge(&session->charge, TC_LIMIT_METADATA_BYTES, tsdl->len, &error)) {
		warn_metadata_refused(session, event, error);
		return FALSE;
	}
	*id = channel->next_event_id++;
	g_hash_table_insert(channel->event_ids, g_steal_pointer(&key), GUINT_TO_POINTER(*id + 1));
	g_string_append_len(session->metadata_pending, tsdl->str, tsdl->len);
	append_layout(channel, *id, event);
	return TRUE;
}

/* An application the session's trackers leave out keeps its channels
 * (it may be tracked again) but has none of the events enabled. */
static gboolean
sync_events(TcApp *app, TcAppSessionState *state, TcChannel *channel, gboolean tracked,
	    TcAckWaiter *waiter)
{
	for (guint index = 0; index < app->events->len; index++) {
		const TcAppEvent *event = g_ptr_array_index(app->events, index);
		g_autofree char *key =
			g_strdup_printf("%" G_GUINT64_FORMAT ":%u", channel->handle, index);
		g_autoptr(GBytes) filter = NULL;
		gboolean want = tracked && !channel->is_disabled &&
				channel_selects(channel, event, &filter);
		gboolean have = g_hash_table_contains(state->enabled, key);
		struct tracectl_msg_event_enable msg = {
			.channel_handle = channel->handle,
			.index = index,
		};

		if (!want) {
			if (have && !send_command(app, &msg, TRACECTL_MSG_EVENT_DISABLE,
						  sizeof(msg), NULL, 0, waiter))
				return FALSE;
			g_hash_table_remove(state->enabled, key);
			continue;
		}
		/* No id: the owner's metadata limit; the event stays off. */
		if (!have && !channel_event_id(channel, event, &msg.id))
			continue;
		/* The filter goes first, so that the event is never enabled
		 * with another filter than its own. */
		if (!send_filter(app, state, key, channel->handle, index, filter, waiter))
			return FALSE;
		if (have)
			continue;
		if (!send_command(app, &msg, TRACECTL_MSG_EVENT_ENABLE, sizeof(msg), NULL, 0,
				  waiter))
			return FALSE;
		g_hash_table_add(state->enabled, g_steal_pointer(&key));
	}
	return TRUE;
}

void
tc_app_sync_locked(TcApp *app, TcSession *session, TcAckWaiter *waiter)
{
	gboolean active = session->state == TC_SESSION_ACTIVE;
	TcAppSessionState *state;
	gboolean tracked;

	/* An application the session no longer reaches (a unit untracked)
	 * still has its events turned off. */
	if (app->state != TC_APP_REGISTERED || !session->has_buffers || session->destroyed ||
	    (!tc_session_records_uid(session, app->uid) && !tc_session_reaches_app(session, app) &&
	     !(app->sessions && g_hash_table_contains(app->sessions, &session->id))))
		return;
	state = app_session_state(app, session);
	/* From the kernel's view of the application (SO_PEERCRED, /proc),
	 * never from what it says. */
	tracked = tc_session_tracks_app(session, app);

	/* Stop first, so that nothing is recorded under a half-applied state. */
	if (state->active && !active) {
		if (!send_session_state(app, session, TRACECTL_MSG_SESSION_STOP, waiter))
			return;
		state->active = FALSE;
	}
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);
		/* Only ever the buffers of the application's own uid. */
		TcChannelBuffers *buffers =
			g_hash_table_lookup(channel->buffers, GUINT_TO_POINTER(app->uid));

		if (buffers == NULL)
			continue;
		if (!g_hash_table_contains(state->channels_sent, &channel->handle)) {
			/* Buffers go only to the applications it records. */
			if (!tracked || !app_can_record(app, channel))
				continue;
			if (!send_channel(app, channel, buffers, waiter))
				return;
			g_hash_table_add(state->channels_sent, &channel->handle);
		}
		if (!sync_events(app, state, channel, tracked, waiter))
			return;
	}
	if (!state->active && active) {
		if (!send_session_state(app, session, TRACECTL_MSG_SESSION_START, waiter))
			return;
		state->active = TRUE;
	}
}

typedef void (*AppSessionFunc)(TcApp *app, TcSession *session, TcAckWaiter *waiter);

/* [S] held: calls func on every application of the owner (of every uid
 * for a session that records others), under its lock. */
static void
for_each_owner_app(TcSession *session, AppSessionFunc func, TcAckWaiter *waiter)
{
	g_autoptr(GPtrArray) apps =
		tc_registry_list_apps(session->owner_uid, tc_session_records_others(session));

	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);

		g_mutex_lock(&app->lock);
		func(app, session, waiter);
		g_mutex_unlock(&app->lock);
	}
}

void
tc_app_sync_session_locked(TcSession *session, TcAckWaiter *waiter)
{
	for_each_owner_app(session, tc_app_sync_locked, waiter);
}

typedef struct {
	TcApp *app; /* referenced */
	guint32 batch;
} EventsDone;

/* Answers batch at once, unless metadata must be flushed first or an
 * earlier answer still waits; then counts one more deferred answer.
 * Returns TRUE when answered. */
static gboolean
answer_now_or_defer(TcApp *app, guint32 batch, gboolean flush_first)
{
	struct tracectl_msg_batch done = {.batch = batch};
	gboolean now;

	g_mutex_lock(&app->lock);
	now = !flush_first && app->answers_deferred == 0;
	if (now)
		tc_app_protocol_send_locked(app, &done, TRACECTL_MSG_EVENTS_DONE, sizeof(done), 0,
					    NULL, 0);
	else
		app->answers_deferred++;
	g_mutex_unlock(&app->lock);
	return now;
}

static void
send_deferred_events_done(gpointer data)
{
	EventsDone *done = data;
	TcApp *app = done->app;
	struct tracectl_msg_batch msg = {.batch = done->batch};

	g_mutex_lock(&app->lock);
	tc_app_protocol_send_locked(app, &msg, TRACECTL_MSG_EVENTS_DONE, sizeof(msg), 0, NULL, 0);
	app->answers_deferred--;
	g_mutex_unlock(&app->lock);
	tc_app_unref(app);
	g_free(done);
}

/* No lock held. */
static gboolean
app_is_tracked(TcSession *session, TcApp *app)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	return tc_session_tracks_app(session, app);
}

void
tc_app_sync_all_sessions(TcApp *app, guint32 batch)
{
	g_autoptr(GPtrArray) sessions = tc_registry_list_sessions_recording(app->uid);
	g_autoptr(GPtrArray) to_flush =
		g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	EventsDone *done;

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);

		gboolean new_metadata;

		/* Root's session gives this uid its own trace first, if it
		 * records the application. */
		if (session->owner_uid != app->uid && app_is_tracked(session, app))
			tc_session_trace_uid_for_app(session, app->uid);

		g_mutex_lock(&session->lock);
		g_mutex_lock(&app->lock);
		tc_app_sync_locked(app, session, NULL);
		g_mutex_unlock(&app->lock);
		new_metadata = session->has_buffers && (session->metadata_pending->len > 0 ||
							 session->layouts_pending->len > 0);
		g_mutex_unlock(&session->lock);
		if (new_metadata)
			g_ptr_array_add(to_flush, tc_session_ref(session));
	}
	/* Before the answer too: the error event a trigger waits for may be
	 * the application's first. */
	tc_notifier_sync_app(app);
	/* The answer lets the application's constructor return, and its
	 * events are usually written from main on: after the consumer has
	 * their layouts, so that it never holds a sub-buffer waiting for them
	 * while a fast writer fills the rest. The worker answers in order. */
	if (answer_now_or_defer(app, batch, to_flush->len > 0))
		return;
	done = g_new0(EventsDone, 1);
	done->app = tc_app_ref(app);
	done->batch = batch;
	tc_session_trace_flush_metadata_then(app->uid, to_flush, send_deferred_events_done, done);
}

/* [S] and [A] held. */
static void
forget_session(TcApp *app, TcSession *session, TcAckWaiter *waiter)
{
	TcAppSessionState *state =
		app->sessions ? g_hash_table_lookup(app->sessions, &session->id) : NULL;

	if (state == NULL)
		return;
	if (state->active)
		send_session_state(app, session, TRACECTL_MSG_SESSION_STOP, waiter);
	for (guint i = 0; i < session->channels->len && app->state != TC_APP_DEAD; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);
		struct tracectl_msg_channel msg = {
			.session_handle = session->id,
			.channel_handle = channel->handle,
			.stream_id = channel->stream_id,
		};

		if (g_hash_table_contains(state->channels_sent, &channel->handle))
			send_command(app, &msg, TRACECTL_MSG_CHANNEL_REMOVE, sizeof(msg), NULL, 0,
				     waiter);
	}
	g_hash_table_remove(app->sessions, &session->id);
}

void
tc_app_sync_forget_session_locked(TcSession *session, TcAckWaiter *waiter)
{
	for_each_owner_app(session, forget_session, waiter);
}
