/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-ops.h"

#include <string.h>
#include <unistd.h>

#include "tc-ack-waiter-wait.h"
#include "tc-ack-waiter.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-consumer-abi.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-fair-queue.h"
#include "tc-metadata.h"
#include "tc-registry.h"
#include "tc-session-kernel.h"
#include "tc-session-track.h"
#include "tc-session-kernel-own.h"
#include "tc-session-trace.h"
#include "tc-session.h"
#include "tc-snapshot-output.h"
#include "tc-uid-trace.h"
#include "tc-unit-watch.h"
#include "tc-kernel.h"
#include "tc-kernel-abi.h"
#include "tc-relay-url.h"
#include "tc-relay-watch.h"
#include "tc-user-limits.h"
#include "tc-signals.h"

/* The same name again within a second gets the same default directory:
 * the next free "<default>-2", "-3"... rather than an error. */
#define DEFAULT_DIRECTORY_TRIES 100

/* Creates the owner's trace directory through the consumer. op_lock held,
 * the session published. */
static gboolean
create_owner_trace(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_autofree char *base = g_strdup(session->output_directory);
	g_autoptr(GError) local_error = NULL;

	for (guint n = 2; !tc_session_trace_create(session, consumer, session->owner_uid,
					    session->trace_dir, &local_error);
	     n++) {
		g_autofree char *next = NULL;

		if (!session->output_is_default || n > DEFAULT_DIRECTORY_TRIES ||
		    !g_error_matches(local_error, TC_ERROR, TC_ERROR_ALREADY_EXISTS)) {
			g_propagate_error(error, g_steal_pointer(&local_error));
			return FALSE;
		}
		g_clear_error(&local_error);
		next = g_strdup_printf("%s-%u", base, n);
		g_mutex_lock(&session->lock);
		tc_session_set_output_directory(session, next);
		g_mutex_unlock(&session->lock);
	}
	return TRUE;
}

/* A refused relay is named by its URL, once: the consumer's message may
 * name it already. */
static void
prefix_output_error(TcSession *session, GError **error)
{
	g_autofree char *url = NULL;

	if (session->relay == NULL) {
		g_prefix_error(error, "Cannot create the trace directory of '%s': ",
			       session->name);
		return;
	}
	url = tc_relay_output_to_url(session->relay);
	if (error != NULL && *error != NULL && strstr((*error)->message, url) != NULL)
		g_prefix_error(error, "Session '%s': ", session->name);
	else
		g_prefix_error(error, "Cannot stream session '%s' to %s: ", session->name, url);
}

static void
log_created(TcSession *session)
{
	g_autofree char *url = NULL;

	if (session->relay == NULL) {
		g_message("Session '%s' (id %" G_GUINT64_FORMAT ") created by uid %u, output '%s'",
			  session->name, session->id, (unsigned)session->owner_uid,
			  session->output_directory);
		return;
	}
	url = tc_relay_output_to_url(session->relay);
	g_message("Session '%s' (id %" G_GUINT64_FORMAT ") created by uid %u, streamed to %s "
		  "as host '%s', live timer %u us",
		  session->name, session->id, (unsigned)session->owner_uid, url,
		  session->relay->hostname, session->relay->live_timer_us);
}

gboolean
tc_session_op_create(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	{
		g_autoptr(GMutexLocker) op = g_mutex_locker_new(&session->op_lock);

		if (!tc_registry_add_session(session, error))
			return FALSE;
		consumer = tc_consumer_get(session->owner_uid, error);
		if (consumer == NULL || !create_owner_trace(session, consumer, error)) {
			g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

			prefix_output_error(session, error);
			tc_registry_remove_session_locked(session);
			return FALSE;
		}
	}
	log_created(session);
	return TRUE;
}

static gboolean
check_alive_locked(TcSession *session, GError **error)
{
	if (session->destroyed) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "Session '%s' was destroyed",
			    session->name);
		return FALSE;
	}
	return TRUE;
}

/*
 * Every operation on a published session starts here: its op_lock, held
 * until the returned locker goes out of scope, and the session still
 * alive. Only destroy clears that, under op_lock, so it holds for the
 * whole operation. NULL with error set when the session was destroyed.
 */
static GMutexLocker *
op_begin(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = g_mutex_locker_new(&session->op_lock);
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (!check_alive_locked(session, error))
		return NULL;
	return g_steal_pointer(&op);
}

/* Buffer memory of a channel: every CPU has its own stream. */
static guint64
channel_buffer_bytes(const TcChannelConfig *config)
{
	return (guint64)config->subbuf_size * config->num_subbuf *
	       MAX(1, sysconf(_SC_NPROCESSORS_CONF));
}

/* [S] Adds a channel counted against the owner's limits. */
static TcChannel *
add_channel_locked(TcSession *session, const char *name, const TcChannelConfig *config,
		   GError **error)
{
	if (!tc_user_limits_charge_channel(&session->charge, session->channels->len,
					   channel_buffer_bytes(config), error)) {
		g_prefix_error(error, "Cannot add channel '%s' to session '%s': ", name,
			       session->name);
		return NULL;
	}
	return tc_session_add_channel_locked(session, name, config);
}

/* [S] */
static TcChannel *
add_default_channel_locked(TcSession *session, GError **error)
{
	TcChannelConfig config;

	tc_channel_config_init_default(&config, session->snapshot);
	return add_channel_locked(session, TC_DEFAULT_CHANNEL, &config, error);
}

/* The first start: the default channel if none, the stream classes, and
 * the owner's buffers. op_lock held. */
static gboolean
create_buffers(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_mutex_lock(&session->lock);
	if (session->channels->len == 0 && !add_default_channel_locked(session, error)) {
		g_mutex_unlock(&session->lock);
		return FALSE;
	}
	/* Stream classes first: event classes may follow from registrations. */
	{
		g_autoptr(GString) streams = g_string_new(NULL);

		for (guint i = 0; i < session->channels->len; i++)
			tc_metadata_append_stream(streams, g_ptr_array_index(session->channels, i));
		g_string_prepend(session->metadata_pending, streams->str);
	}
	session->has_buffers = TRUE;
	g_mutex_unlock(&session->lock);
	return tc_session_trace_uid(session, consumer, session->owner_uid, error);
}

/* Root's session, or one that tracks units: a trace for every uid with
 * registered applications it records. op_lock held. */
static gboolean
trace_registered_uids(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_autoptr(GPtrArray) apps = NULL;

	if (!tc_session_records_others(session))
		return TRUE;
	apps = tc_registry_list_apps(0, TRUE);
	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);

		/* Only the uids of the applications it records. */
		if (tc_session_tracks_app(session, app) &&
		    !tc_session_trace_uid(session, consumer, app->uid, error))
			return FALSE;
	}
	return TRUE;
}

/* Calls func on the consumer session of every trace. op_lock held. */
static gboolean
for_each_trace(TcSession *session, TcConsumer *consumer,
	       gboolean (*func)(TcConsumer *, guint64, GError **), GError **error)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	GHashTableIter iter;
	gpointer value;
	gboolean ok = TRUE;

	g_mutex_lock(&session->lock);
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_array_append_val(ids, ((TcUidTrace *)value)->consumer_id);
	g_mutex_unlock(&session->lock);
	for (guint i = 0; i < ids->len; i++) {
		g_autoptr(GError) local_error = NULL;

		if (!func(consumer, g_array_index(ids, guint64, i), &local_error) && ok) {
			g_propagate_error(error, g_steal_pointer(&local_error));
			ok = FALSE;
		}
	}
	return ok;
}

static gboolean
flush_trace(TcConsumer *consumer, guint64 id, GError **error)
{
	return tc_consumer_flush_session(consumer, id, NULL, error);
}

static void
set_state(TcSession *session, TcSessionState state)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	session->state = state;
	tc_signals_session_state_changed(session, state == TC_SESSION_ACTIVE);
}

/* Applies the session's state to every application of its owner and waits
 * for them. op_lock held. */
static void
sync_apps_and_wait(TcSession *session)
{
	TcAckWaiter waiter;

	tc_ack_waiter_init(&waiter, session->owner_uid);
	g_mutex_lock(&session->lock);
	tc_session_sync_apps_locked(session, &waiter);
	g_mutex_unlock(&session->lock);
	tc_ack_waiter_wait(&waiter, TC_APP_ACK_TIMEOUT_MS);
}

gboolean
tc_session_op_start(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	gboolean ok;

	if (op == NULL)
		return FALSE;
	if (session->state == TC_SESSION_ACTIVE) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is already started", session->name);
		return FALSE;
	}
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL)
		return FALSE;
	if (!session->has_buffers && !create_buffers(session, consumer, error))
		return FALSE;
	if (!trace_registered_uids(session, consumer, error) ||
	    !tc_session_trace_flush_metadata(session, consumer, error))
		return FALSE;
	/* The kernel first: its events are then recorded from the moment the
	 * applications are told to start. */
	if ((!session->kernel.disabled && !tc_session_kernel_start_locked(session, consumer, error)) ||
	    !tc_session_kernel_own_start_locked(session, consumer, error))
		return FALSE;
	set_state(session, TC_SESSION_ACTIVE);
	sync_apps_and_wait(session);
	ok = tc_session_trace_flush_metadata(session, consumer, error);
	g_message("Session '%s' of uid %u started", session->name, (unsigned)session->owner_uid);
	tc_relay_watch_add(session);
	return ok;
}

/* Stops the applications, then has the consumer write out what they
 * recorded. op_lock held. */
static gboolean
stop_locked(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	set_state(session, TC_SESSION_INACTIVE);
	sync_apps_and_wait(session);
	if (!tc_session_kernel_stop_locked(session, error) ||
	    !tc_session_kernel_own_stop_locked(session, error))
		return FALSE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL || !tc_session_trace_flush_metadata(session, consumer, error) ||
	    !for_each_trace(session, consumer, flush_trace, error)) {
		g_prefix_error(error, "Session '%s' stopped, but writing its trace failed: ",
			       session->name);
		return FALSE;
	}
	g_message("Session '%s' of uid %u stopped, trace written to '%s'", session->name,
		  (unsigned)session->owner_uid, session->output_directory);
	return TRUE;
}

gboolean
tc_session_op_stop(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->state != TC_SESSION_ACTIVE) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is not started", session->name);
		return FALSE;
	}
	return stop_locked(session, error);
}

gboolean
tc_session_op_destroy(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	g_autoptr(GError) consumer_error = NULL;
	TcAckWaiter waiter;
	gboolean ok;

	if (op == NULL)
		return FALSE;
	if (session->state == TC_SESSION_ACTIVE && !stop_locked(session, &consumer_error))
		g_message("Destroying session '%s' anyway", session->name);
	g_clear_error(&consumer_error);
	tc_ack_waiter_init(&waiter, session->owner_uid);
	g_mutex_lock(&session->lock);
	/* Lookup, lock, unlink, unlock, free after a grace period: a command
	 * racing this one finds the session destroyed, or not at all. */
	tc_registry_remove_session_locked(session);
	tc_session_forget_apps_locked(session, &waiter);
	g_mutex_unlock(&session->lock);
	tc_ack_waiter_wait(&waiter, TC_APP_ACK_TIMEOUT_MS);
	consumer = tc_consumer_get(session->owner_uid, &consumer_error);
	ok = consumer != NULL &&
	     tc_session_trace_flush_metadata(session, consumer, &consumer_error) &&
	     for_each_trace(session, consumer, tc_consumer_destroy_session, &consumer_error);
	/* The consumer closed the raw buffers: the instance can go. */
	tc_session_kernel_destroyed_locked(session);
	tc_session_kernel_own_destroyed_locked(session);
	/* The session is gone either way. */
	if (!ok)
		g_warning("Session '%s' destroyed, but its consumer failed: %s", session->name,
			  consumer_error->message);
	g_message("Session '%s' of uid %u destroyed", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

static gboolean
config_equal(const TcChannelConfig *a, const TcChannelConfig *b)
{
	return a->subbuf_size == b->subbuf_size && a->num_subbuf == b->num_subbuf &&
	       !a->overwrite == !b->overwrite && a->switch_timer_us == b->switch_timer_us &&
	       a->read_timer_us == b->read_timer_us && a->monitor_timer_us == b->monitor_timer_us;
}

/* enable-channel on a disabled channel enables it again whatever the
 * options, as LTTng does: its geometry is fixed once it exists. op_lock
 * held, not the session's lock. */
static gboolean
reenable_channel(TcSession *session, TcChannel *channel)
{
	g_mutex_lock(&session->lock);
	channel->is_disabled = FALSE;
	g_mutex_unlock(&session->lock);
	sync_apps_and_wait(session);
	g_message("Session '%s' of uid %u: channel '%s' enabled again", session->name,
		  (unsigned)session->owner_uid, channel->name);
	return TRUE;
}

gboolean
tc_session_op_enable_channel(TcSession *session, const char *name,
			     const TcChannelConfig *config, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	g_autoptr(GMutexLocker) locker = NULL;
	TcChannel *channel;

	if (op == NULL)
		return FALSE;
	locker = g_mutex_locker_new(&session->lock);
	channel = tc_session_find_channel_locked(session, name);
	if (channel != NULL && channel->is_disabled) {
		g_clear_pointer(&locker, g_mutex_locker_free);
		return reenable_channel(session, channel);
	}
	if (channel != NULL) {
		if (config_equal(&channel->config, config))
			return TRUE;
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "Channel '%s' already exists with other settings (%u "
			    "sub-buffers of %u bytes, %s mode)",
			    name, channel->config.num_subbuf, channel->config.subbuf_size,
			    channel->config.overwrite ? "overwrite" : "discard");
		return FALSE;
	}
	if (session->snapshot && !config->overwrite) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Session '%s' is a snapshot session: its channels must be in "
			    "overwrite mode",
			    session->name);
		return FALSE;
	}
	if (session->has_buffers) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Channels can be added to session '%s' only before it is first "
			    "started",
			    session->name);
		return FALSE;
	}
	return add_channel_locked(session, name, config, error) != NULL;
}

/* [R] The channel named, "" meaning the default one, created if the
 * session has no buffers yet. */
static TcChannel *
resolve_channel_locked(TcSession *session, const char *name, GError **error)
{
	const char *wanted = *name ? name : TC_DEFAULT_CHANNEL;
	TcChannel *channel = tc_session_find_channel_locked(session, wanted);

	if (channel == NULL && !*name && !session->has_buffers)
		return add_default_channel_locked(session, error);
	if (channel == NULL)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no channel '%s'", session->name, wanted);
	return channel;
}

static gint
find_rule(TcChannel *channel, const TcEventRule *rule)
{
	for (guint i = 0; i < channel->rules->len; i++)
		if (tc_event_rule_equal(g_ptr_array_index(channel->rules, i), rule))
			return i;
	return -1;
}

/* [S] Adds the rule to the channel (taking it), or removes every rule of
 * its pattern, as LTTng's disable-event does whatever the filters. */
static gboolean
change_rules_locked(TcChannel *channel, TcEventRule *rule, gboolean enable, GError **error)
{
	g_autoptr(TcEventRule) owned = rule;
	guint removed = 0;

	if (enable && find_rule(channel, rule) >= 0) {
		g_autofree char *what = tc_event_rule_describe(rule);

		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "Events '%s' are already enabled in channel '%s'", what, channel->name);
		return FALSE;
	}
	if (enable && channel->rules->len >= TC_EVENT_RULES_PER_CHANNEL_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Channel '%s' has %d event enablings already, the most it may have",
			    channel->name, TC_EVENT_RULES_PER_CHANNEL_MAX);
		return FALSE;
	}
	if (enable) {
		g_ptr_array_add(channel->patterns, g_strdup(rule->pattern));
		g_ptr_array_add(channel->rules, g_steal_pointer(&owned));
		return TRUE;
	}
	for (guint i = channel->rules->len; i-- > 0;) {
		TcEventRule *old = g_ptr_array_index(channel->rules, i);

		if (g_str_equal(old->pattern, rule->pattern)) {
			g_ptr_array_remove_index(channel->rules, i);
			g_ptr_array_remove_index(channel->patterns, i);
			removed++;
		}
	}
	if (removed == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Events '%s' are not enabled in channel '%s'", rule->pattern,
			    channel->name);
		return FALSE;
	}
	return TRUE;
}

/* Changes the rules of a channel, then applies them to applications. */
static gboolean
change_rules(TcSession *session, const char *channel_name, TcEventRule *rule, gboolean enable,
	     GError **error)
{
	g_autoptr(TcEventRule) owned = rule;
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	g_autofree char *what = tc_event_rule_describe(rule);
	TcChannel *channel;

	if (op == NULL)
		return FALSE;
	{
		g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

		channel = resolve_channel_locked(session, channel_name, error);
		if (channel == NULL ||
		    !change_rules_locked(channel, g_steal_pointer(&owned), enable, error))
			return FALSE;
	}
	sync_apps_and_wait(session);
	/* New event ids produce metadata; write it out while we are here. */
	if (session->has_buffers) {
		consumer = tc_consumer_get(session->owner_uid, NULL);
		if (consumer)
			tc_session_trace_flush_metadata(session, consumer, NULL);
	}
	g_message("Session '%s': events '%s' %s in channel '%s'", session->name, what,
		  enable ? "enabled" : "disabled", channel->name);
	return TRUE;
}

gboolean
tc_session_op_enable_event(TcSession *session, const char *channel, const char *pattern,
			   GError **error)
{
	return change_rules(session, channel, tc_event_rule_new(pattern), TRUE, error);
}

gboolean
tc_session_op_enable_event_rule(TcSession *session, const char *channel, TcEventRule *rule,
				GError **error)
{
	return change_rules(session, channel, rule, TRUE, error);
}

gboolean
tc_session_op_disable_event(TcSession *session, const char *channel, const char *pattern,
			    GError **error)
{
	return change_rules(session, channel, tc_event_rule_new(pattern), FALSE, error);
}

void
tc_sessions_consumer_lost(uid_t uid, const char *why)
{
	g_autoptr(GPtrArray) sessions = tc_registry_list_sessions(uid, FALSE);
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *when = g_date_time_format(now, "%H:%M:%S");

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);

		g_mutex_lock(&session->lock);
		/* A lost consumer outweighs a lost relay: it writes no more. */
		if (session->has_buffers &&
		    (session->problem == NULL || session->problem_is_relay)) {
			g_free(session->problem);
			session->problem_is_relay = FALSE;
			session->problem = g_strdup_printf(
				"The consumer writing this trace stopped at %s (%s): what was "
				"recorded since its last write is lost, and the session cannot "
				"record any more; destroy it and create a new one",
				when, why);
			g_warning("Session '%s' of uid %u: %s", session->name, (unsigned)uid,
				  session->problem);
			tc_signals_problem_changed(session, session->problem);
		}
		g_mutex_unlock(&session->lock);
	}
}

/* [S] Adds contexts to one channel, or to all when name is "". */
static gboolean
add_context_locked(TcSession *session, const char *name, guint32 contexts, GError **error)
{
	TcChannel *channel;

	if (*name) {
		channel = resolve_channel_locked(session, name, error);
		if (channel == NULL)
			return FALSE;
		channel->contexts |= contexts;
		return TRUE;
	}
	if (session->channels->len == 0 && !add_default_channel_locked(session, error))
		return FALSE;
	for (guint i = 0; i < session->channels->len; i++) {
		channel = g_ptr_array_index(session->channels, i);
		channel->contexts |= contexts;
	}
	return TRUE;
}

gboolean
tc_session_op_add_context(TcSession *session, const char *channel, guint32 contexts,
			  GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	g_autoptr(GMutexLocker) locker = NULL;

	if (op == NULL)
		return FALSE;
	locker = g_mutex_locker_new(&session->lock);
	/* The stream classes of the metadata are written at the first start. */
	if (session->has_buffers) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Contexts can be added to session '%s' only before it is first "
			    "started",
			    session->name);
		return FALSE;
	}
	return add_context_locked(session, channel, contexts, error);
}

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
		parent = tc_relay_output_to_url(session->relay);
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

	return tc_relay_output_from_urls(relay_url, NULL, NULL, 0, relay, &directory, error) &&
	       tc_relay_output_identify(relay, session->name,
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
 * even share of max_bytes, which must hold one packet of every stream. */
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
tc_session_op_record_snapshot(TcSession *session, char **directory, GError **error)
{
	return tc_session_op_record_snapshot_with(session, NULL, directory, error);
}

gboolean
tc_session_op_record_snapshot_with(TcSession *session, const TcSnapshotOptions *options,
				   char **directory, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) uids = NULL;
	g_autofree char *root = NULL;
	g_autofree char *relay_url = NULL;
	struct tc_consumer_relay_output relay = {0};
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	guint64 packets = 0, per_stream = 0, max_bytes = 0;

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
	g_mutex_lock(&session->lock);
	if (!snapshot_stream_budget_locked(session, max_bytes, uids->len, &per_stream, error))
		g_clear_pointer(&root, g_free);
	g_mutex_unlock(&session->lock);
	if (root == NULL)
		return FALSE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL || !tc_session_trace_flush_metadata(session, consumer, error))
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
			       g_strerror(status->last_errno));
}

/* [S] Whether status says something the session's relay Problem does not
 * say yet, past a count of lost packets that grew. */
static gboolean
relay_problem_is_news(const TcSession *session, const TcRelayStatus *status)
{
	return !session->problem_is_relay || session->relay_lost_since != status->lost_since ||
	       session->relay_connected != status->connected ||
	       session->relay_errno != status->last_errno;
}

/* [op_lock] Asks the consumer sessions of a streaming session what their
 * relay lost and puts it in Problem, unless another problem is there. */
static void
refresh_relay_problem(TcSession *session, TcConsumer *consumer, GArray *ids)
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
		if (!status.connected && status.last_errno)
			total.last_errno = status.last_errno;
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
tc_session_op_refresh_relay_problem(TcSession *session)
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
		refresh_relay_problem(session, consumer, ids);
	g_mutex_unlock(&session->op_lock);
}

static void
channel_statistics_clear(gpointer data)
{
	g_free(((TcChannelStatistics *)data)->channel);
}

GArray *
tc_session_op_channel_statistics(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GArray) statistics = g_array_new(FALSE, FALSE, sizeof(TcChannelStatistics));
	g_autoptr(GMutexLocker) op = NULL;
	GHashTableIter iter;
	gpointer value;
	gboolean ok = TRUE;

	g_array_set_clear_func(statistics, channel_statistics_clear);
	op = g_mutex_locker_new(&session->op_lock);
	g_mutex_lock(&session->lock);
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		if (((TcUidTrace *)value)->has_buffers)
			g_array_append_val(ids, ((TcUidTrace *)value)->consumer_id);
	g_mutex_unlock(&session->lock);
	if (ids->len > 0)
		consumer = tc_consumer_get(session->owner_uid, error);
	if (ids->len > 0 && consumer == NULL)
		ok = FALSE;
	/* Channels change only under op_lock, which we hold. */
	for (guint c = 0; ok && c < session->channels->len; c++) {
		TcChannel *channel = g_ptr_array_index(session->channels, c);
		TcChannelStatistics ust = {.domain = "ust"};

		for (guint i = 0; ok && i < ids->len; i++)
			ok = tc_consumer_channel_stats(consumer, g_array_index(ids, guint64, i),
						       channel->handle, &ust.stats, error);
		ust.channel = g_strdup(channel->name);
		g_array_append_val(statistics, ust);
	}
	if (ok && tc_session_has_kernel(session))
		ok = add_kernel_statistics(session, statistics, error);
	if (!ok)
		return NULL;
	if (consumer)
		refresh_relay_problem(session, consumer, ids);
	return g_steal_pointer(&statistics);
}

/* The helper is started on demand: it answers before anything is
 * promised, and speaks this protocol. */
static gboolean
kernel_helper_answers(GError **error)
{
	guint32 version = 0;

	if (!tc_kernel_ping(&version, error))
		return FALSE;
	if (version != TC_KERNEL_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The kernel helper speaks protocol %u, not %u", version,
			    TC_KERNEL_VERSION);
		return FALSE;
	}
	return TRUE;
}

/* op_lock held. The first kernel event (or probe) of a session that records already
 * starts its kernel trace now (streamed sessions add the kernel streams to
 * the relay, live viewers see them), rather than at the next start. */
static gboolean
start_new_kernel_trace(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	if (session->state != TC_SESSION_ACTIVE || session->kernel.trace ||
	    session->kernel.disabled)
		return TRUE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL || !tc_session_kernel_start_locked(session, consumer, error)) {
		g_prefix_error(error, "Cannot start the kernel trace of session '%s': ",
			       session->name);
		return FALSE;
	}
	g_message("Session '%s' of uid %u: kernel trace started while recording", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

gboolean
tc_session_op_kernel_probe(TcSession *session, guint32 kind, const char *name,
			   const char *location, GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!kernel_helper_answers(error))
		return FALSE;
	op = op_begin(session, error);
	return op != NULL && tc_session_kernel_probe_locked(session, kind, name, location, error) &&
	       start_new_kernel_trace(session, error);
}

gboolean
tc_session_op_kernel_event(TcSession *session, const char *pattern, gboolean enable,
			   GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!kernel_helper_answers(error))
		return FALSE;
	op = op_begin(session, error);
	return op != NULL && tc_session_kernel_event_locked(session, pattern, enable, error) &&
	       (!enable || start_new_kernel_trace(session, error));
}

gboolean
tc_session_op_kernel_filtered_event(TcSession *session, const char *pattern, const char *filter,
				    GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!kernel_helper_answers(error))
		return FALSE;
	op = op_begin(session, error);
	return op != NULL &&
	       tc_session_kernel_filtered_event_locked(session, pattern, filter, error);
}

gboolean
tc_session_op_kernel_own_event(TcSession *session, const char *pattern, gboolean enable,
			       GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!kernel_helper_answers(error))
		return FALSE;
	op = op_begin(session, error);
	return op != NULL && tc_session_kernel_own_event_locked(session, pattern, enable, error);
}

gboolean
tc_session_op_kernel_context(TcSession *session, guint32 contexts, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	return op != NULL && tc_session_kernel_context_locked(session, contexts, error);
}

gboolean
tc_session_op_track(TcSession *session, gboolean kernel, TcTrackKind kind, const guint32 *values,
		    guint count, gboolean all, gboolean track, GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (kernel && !kernel_helper_answers(error))
		return FALSE;
	op = op_begin(session, error);
	return op != NULL &&
	       tc_session_track_locked(session, kernel, kind, values, count, all, track, error);
}

gboolean
tc_session_op_track_unit(TcSession *session, const char *unit, gboolean track, GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;
	g_autofree char *cgroup = NULL;

	/* systemd is asked before op_lock is taken: no command of the
	 * session waits on the bus. */
	if (track && (cgroup = tc_unit_resolve_cgroup(unit, error)) == NULL) {
		g_prefix_error(error, "Cannot track unit '%s' in session '%s': ", unit,
			       session->name);
		return FALSE;
	}
	op = op_begin(session, error);
	if (op == NULL || !tc_session_track_unit_locked(session, unit, cgroup, track, error))
		return FALSE;
	if (track)
		tc_unit_watch_kick();
	return TRUE;
}

/* op_lock held: the kernel's ring buffers of kb per CPU replace those
 * counted so far, against the owner's limits as any channel's. */
static gboolean
charge_kernel_buffers(TcSession *session, guint64 kb, GError **error)
{
	guint64 bytes = MIN(kb, G_MAXUINT32) * 1024 * MAX(1, sysconf(_SC_NPROCESSORS_CONF));

	if (!tc_user_limits_recharge_buffer(&session->charge, session->kernel.buffer_bytes, bytes,
					    error)) {
		g_prefix_error(error, "Cannot size the kernel buffers of session '%s': ",
			       session->name);
		return FALSE;
	}
	session->kernel.buffer_bytes = bytes;
	return TRUE;
}

/* enable-channel -k after disable-channel -k: the instance records again
 * if the session does. op_lock held. */
static gboolean
reenable_kernel_channel(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	session->kernel.disabled = FALSE;
	if (session->state == TC_SESSION_ACTIVE) {
		consumer = tc_consumer_get(session->owner_uid, error);
		if (consumer == NULL || !tc_session_kernel_start_locked(session, consumer, error)) {
			session->kernel.disabled = TRUE;
			return FALSE;
		}
	}
	g_message("Session '%s' of uid %u: kernel channel enabled again", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

gboolean
tc_session_op_kernel_channel(TcSession *session, const TcChannelConfig *config, GError **error)
{
	guint64 kb = (guint64)config->subbuf_size * config->num_subbuf / 1024;
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->kernel.disabled)
		return reenable_kernel_channel(session, error);
	if (session->kernel.instance) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "The kernel buffers of session '%s' exist already", session->name);
		return FALSE;
	}
	if (!charge_kernel_buffers(session, kb, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	session->kernel.buffer_kb = (guint32)MIN(kb, G_MAXUINT32);
	session->kernel.subbuf_size = config->subbuf_size;
	session->kernel.num_subbuf = config->num_subbuf;
	g_mutex_unlock(&session->lock);
	return TRUE;
}

gboolean
tc_session_op_disable_channel(TcSession *session, const char *name, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);
	TcChannel *channel;
	gboolean ok = FALSE;

	if (op == NULL)
		return FALSE;
	g_mutex_lock(&session->lock);
	channel = tc_session_find_channel_locked(session, name);
	if (channel == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "Session '%s' has no channel '%s'",
			    session->name, name);
	} else if (channel->is_disabled) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Channel '%s' of session '%s' is disabled already", name,
			    session->name);
	} else {
		channel->is_disabled = TRUE;
		ok = TRUE;
	}
	g_mutex_unlock(&session->lock);
	if (!ok)
		return FALSE;
	/* The applications disable the channel's events: nothing more is
	 * written to it, and what it holds is written out as usual. */
	sync_apps_and_wait(session);
	g_message("Session '%s' of uid %u: channel '%s' disabled", session->name,
		  (unsigned)session->owner_uid, name);
	return TRUE;
}

gboolean
tc_session_op_add_snapshot_output(TcSession *session, const char *name, const char *url,
				  guint64 max_bytes, guint32 *id, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	return op != NULL &&
	       tc_snapshot_output_add_locked(session, name, url, max_bytes, id, error);
}

GVariant *
tc_session_op_list_snapshot_outputs(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	return op ? tc_snapshot_output_list_locked(session) : NULL;
}

gboolean
tc_session_op_del_snapshot_output(TcSession *session, const char *output, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	return op != NULL && tc_snapshot_output_remove_locked(session, output, error);
}

gboolean
tc_session_op_disable_kernel_channel(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->kernel.events->len == 0 && session->kernel.probes->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no kernel channel (no kernel event is enabled)",
			    session->name);
		return FALSE;
	}
	if (session->kernel.disabled) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "The kernel channel of session '%s' is disabled already", session->name);
		return FALSE;
	}
	/* The instance stops recording; its buffers stay with the consumer,
	 * which writes out what they hold. */
	if (session->state == TC_SESSION_ACTIVE && !tc_session_kernel_stop_locked(session, error))
		return FALSE;
	session->kernel.disabled = TRUE;
	g_message("Session '%s' of uid %u: kernel channel disabled", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}
