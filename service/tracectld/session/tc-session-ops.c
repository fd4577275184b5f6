/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-ops.h"

#include <string.h>
#include <unistd.h>

#include "tc-ack-waiter-wait.h"
#include "tc-agents.h"
#include "tc-ack-waiter.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-fair-queue.h"
#include "tc-kernel-abi.h"
#include "tc-kernel.h"
#include "tc-lttng-session.h"
#include "tc-metadata.h"
#include "tc-perf-counter.h"
#include "tc-registry.h"
#include "tc-relay-url.h"
#include "tc-relay-watch.h"
#include "tc-session-kernel-own.h"
#include "tc-session-kernel.h"
#include "tc-session-op.h"
#include "tc-session-trace.h"
#include "tc-session.h"
#include "tc-signals.h"
#include "tc-snapshot-output.h"
#include "tc-uid-trace.h"
#include "tc-unit-watch.h"
#include "tc-user-limits.h"

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
	url = tc_relay_url_format_output(session->relay);
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
	url = tc_relay_url_format_output(session->relay);
	g_message("Session '%s' (id %" G_GUINT64_FORMAT ") created by uid %u, streamed to %s "
		  "as host '%s', live timer %u us",
		  session->name, session->id, (unsigned)session->owner_uid, url,
		  session->relay->hostname, session->relay->live_timer_us);
}

gboolean
tc_session_ops_create(TcSession *session, GError **error)
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

static const char *
buffer_scheme_name(TcBufferScheme buffers)
{
	return buffers == TC_BUFFERS_PER_PID ? "per-PID" : "per-UID";
}

/* [S] Whether a new channel may have buffers: the session's channels
 * share one scheme, the first one's. */
static gboolean
check_buffer_scheme_locked(TcSession *session, TcBufferScheme buffers, GError **error)
{
	if (buffers == TC_BUFFERS_UNSET || session->channels->len == 0 ||
	    buffers == session->ust_buffers)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Session '%s' has %s buffers: every user-space channel of a session has "
		    "the buffering scheme of its first one",
		    session->name, buffer_scheme_name(session->ust_buffers));
	return FALSE;
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
	tc_app_sync_session_locked(session, &waiter);
	g_mutex_unlock(&session->lock);
	tc_ack_waiter_wait(&waiter, TC_APP_ACK_TIMEOUT_MS);
}

gboolean
tc_session_ops_start(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
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
	tc_lttng_session_start_locked(session);
	ok = tc_session_trace_flush_metadata(session, consumer, error);
	g_message("Session '%s' of uid %u started", session->name, (unsigned)session->owner_uid);
	tc_relay_watch_add(session);
	return ok;
}

/* [S] What a stop of a session whose consumer died says: the problem the
 * session shows, rather than what a new consumer, which never had the
 * session, answers. */
static gboolean
consumer_lost_locked(TcSession *session, GError **error)
{
	if (!session->consumer_lost)
		return FALSE;
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Session '%s' stopped, but its trace is cut: %s",
		    session->name, session->problem);
	return TRUE;
}

/* Stops the applications (both kinds) and the kernel's programs, then
 * has the consumer write out what they recorded. op_lock held. */
static gboolean
stop_locked(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GError) lttng_error = NULL;
	gboolean lttng_ok, lost;

	set_state(session, TC_SESSION_INACTIVE);
	sync_apps_and_wait(session);
	lttng_ok = tc_lttng_session_stop_locked(session, &lttng_error);
	if (!tc_session_kernel_stop_locked(session, error) ||
	    !tc_session_kernel_own_stop_locked(session, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	lost = consumer_lost_locked(session, error);
	g_mutex_unlock(&session->lock);
	if (lost)
		return FALSE;
	if (!lttng_ok) {
		g_propagate_prefixed_error(error, g_steal_pointer(&lttng_error),
					   "Session '%s' stopped, but writing its LTTng-UST trace "
					   "failed: ",
					   session->name);
		return FALSE;
	}
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
tc_session_ops_stop(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

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
tc_session_ops_destroy(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
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
	tc_app_sync_forget_session_locked(session, &waiter);
	g_mutex_unlock(&session->lock);
	tc_ack_waiter_wait(&waiter, TC_APP_ACK_TIMEOUT_MS);
	tc_lttng_session_destroy_locked(session);
	tc_agents_session_changed(session);
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
	tc_lttng_session_set_channel_enabled_locked(session, channel->name, TRUE);
	g_message("Session '%s' of uid %u: channel '%s' enabled again", session->name,
		  (unsigned)session->owner_uid, channel->name);
	return TRUE;
}

gboolean
tc_session_ops_enable_channel(TcSession *session, const char *name, const TcChannelConfig *config,
			      TcBufferScheme buffers, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
	g_autoptr(GMutexLocker) locker = NULL;
	TcChannel *channel;

	if (op == NULL)
		return FALSE;
	locker = g_mutex_locker_new(&session->lock);
	if (!check_buffer_scheme_locked(session, buffers, error))
		return FALSE;
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
	if (add_channel_locked(session, name, config, error) == NULL)
		return FALSE;
	if (buffers != TC_BUFFERS_UNSET)
		session->ust_buffers = buffers;
	return TRUE;
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
 * its key (pattern, or agent domain and logger), as LTTng's disable-event
 * does whatever the filters. */
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

		if (g_str_equal(tc_event_rule_key(old), tc_event_rule_key(rule))) {
			g_ptr_array_remove_index(channel->rules, i);
			g_ptr_array_remove_index(channel->patterns, i);
			removed++;
		}
	}
	if (removed == 0) {
		g_autofree char *what = tc_event_rule_describe(rule);

		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Events '%s' are not enabled in channel '%s'", what, channel->name);
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
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
	g_autofree char *what = tc_event_rule_describe(rule);
	g_autofree char *key = g_strdup(tc_event_rule_key(rule));
	gboolean is_agent = rule->agent != NULL;
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
	if (enable)
		tc_lttng_session_enable_event_locked(session, channel->name, key);
	else
		tc_lttng_session_disable_event_locked(session, channel->name, key);
	if (is_agent)
		tc_agents_session_changed(session);
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
tc_session_ops_enable_event(TcSession *session, const char *channel, const char *pattern,
			    GError **error)
{
	return change_rules(session, channel, tc_event_rule_new(pattern), TRUE, error);
}

gboolean
tc_session_ops_enable_event_rule(TcSession *session, const char *channel, TcEventRule *rule,
				 GError **error)
{
	return change_rules(session, channel, rule, TRUE, error);
}

gboolean
tc_session_ops_disable_event(TcSession *session, const char *channel, const char *pattern,
			     GError **error)
{
	return change_rules(session, channel, tc_event_rule_new(pattern), FALSE, error);
}

gboolean
tc_session_ops_disable_event_rule(TcSession *session, const char *channel, TcEventRule *rule,
				  GError **error)
{
	return change_rules(session, channel, rule, FALSE, error);
}

void
tc_session_ops_consumer_lost(uid_t uid, const char *why)
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
			session->consumer_lost = TRUE;
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

/* [S] Whether channel counts counter already. */
static gboolean
channel_has_perf_counter_locked(const TcChannel *channel, const struct tc_perf_counter *counter)
{
	for (guint i = 0; i < channel->perf_counters->len; i++)
		if (tc_channel_config_perf_counter_equal(
			&g_array_index(channel->perf_counters, struct tc_perf_counter, i), counter))
			return TRUE;
	return FALSE;
}

/* [S] Whether channel can take perf_counters too: at most
 * TC_CHANNEL_PERF_COUNTERS_MAX, the ones it has counted once. */
static gboolean
check_perf_counters_locked(const TcChannel *channel, const GArray *perf_counters, GError **error)
{
	guint total = channel->perf_counters->len;

	for (guint i = 0; i < perf_counters->len; i++) {
		const struct tc_perf_counter *counter =
		    &g_array_index(perf_counters, struct tc_perf_counter, i);

		total += channel_has_perf_counter_locked(channel, counter) ? 0 : 1;
	}
	if (total > TC_CHANNEL_PERF_COUNTERS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Channel '%s' of session '%s' would record %u perf counters, at most %u",
			    channel->name, channel->session->name, total,
			    TC_CHANNEL_PERF_COUNTERS_MAX);
		return FALSE;
	}
	return TRUE;
}

static gboolean
channel_has_app_context_locked(const TcChannel *channel, const char *name)
{
	for (guint i = 0; i < channel->app_contexts->len; i++)
		if (g_str_equal(g_ptr_array_index(channel->app_contexts, i), name))
			return TRUE;
	return FALSE;
}

/* [S] Whether channel can take app_contexts too: at most
 * TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX, each of a CTF field name of its
 * own, the ones it has counted once. */
static gboolean
check_app_contexts_locked(const TcChannel *channel, const GPtrArray *app_contexts,
			  GError **error)
{
	g_autoptr(GHashTable) fields = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GPtrArray) all = g_ptr_array_new();

	for (guint i = 0; i < channel->app_contexts->len; i++)
		g_ptr_array_add(all, g_ptr_array_index(channel->app_contexts, i));
	for (guint i = 0; i < app_contexts->len; i++)
		if (!channel_has_app_context_locked(channel, g_ptr_array_index(app_contexts, i)))
			g_ptr_array_add(all, g_ptr_array_index(app_contexts, i));
	if (all->len > TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Channel '%s' of session '%s' would record %u application contexts, "
			    "at most %u",
			    channel->name, channel->session->name, all->len,
			    TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX);
		return FALSE;
	}
	for (guint i = 0; i < all->len; i++) {
		char *field = tc_channel_config_app_context_field(g_ptr_array_index(all, i));

		if (!g_hash_table_add(fields, field)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Application context '$app.%s' would be recorded as '%s', as "
				    "another of channel '%s' is: rename one of them",
				    (const char *)g_ptr_array_index(all, i), field, channel->name);
			return FALSE;
		}
	}
	return TRUE;
}

/* [S] The contexts added to channel; checked. */
static void
channel_add_contexts_locked(TcChannel *channel, guint32 contexts, const GArray *perf_counters,
			    const GPtrArray *app_contexts)
{
	channel->contexts |= contexts;
	for (guint i = 0; i < perf_counters->len; i++) {
		const struct tc_perf_counter *counter =
		    &g_array_index(perf_counters, struct tc_perf_counter, i);

		if (!channel_has_perf_counter_locked(channel, counter))
			g_array_append_vals(channel->perf_counters, counter, 1);
	}
	for (guint i = 0; i < app_contexts->len; i++) {
		const char *name = g_ptr_array_index(app_contexts, i);

		if (!channel_has_app_context_locked(channel, name))
			g_ptr_array_add(channel->app_contexts, g_strdup(name));
	}
}

/* [S] Adds contexts to one channel, or to all when name is "": all or
 * none of them. */
static gboolean
add_context_locked(TcSession *session, const char *name, guint32 contexts,
		   const GArray *perf_counters, const GPtrArray *app_contexts, GError **error)
{
	TcChannel *channel;

	if (*name) {
		channel = resolve_channel_locked(session, name, error);
		if (channel == NULL || !check_perf_counters_locked(channel, perf_counters, error) ||
		    !check_app_contexts_locked(channel, app_contexts, error))
			return FALSE;
		channel_add_contexts_locked(channel, contexts, perf_counters, app_contexts);
		return TRUE;
	}
	if (session->channels->len == 0 && !add_default_channel_locked(session, error))
		return FALSE;
	for (guint i = 0; i < session->channels->len; i++)
		if (!check_perf_counters_locked(g_ptr_array_index(session->channels, i),
						perf_counters, error) ||
		    !check_app_contexts_locked(g_ptr_array_index(session->channels, i),
					       app_contexts, error))
			return FALSE;
	for (guint i = 0; i < session->channels->len; i++)
		channel_add_contexts_locked(g_ptr_array_index(session->channels, i), contexts,
					    perf_counters, app_contexts);
	return TRUE;
}

gboolean
tc_session_ops_add_context(TcSession *session, const char *channel, guint32 contexts,
			   const GArray *perf_counters, const GPtrArray *app_contexts,
			   GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
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
	return add_context_locked(session, channel, contexts, perf_counters, app_contexts, error);
}

gboolean
tc_session_ops_disable_channel(TcSession *session, const char *name, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
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
	tc_lttng_session_set_channel_enabled_locked(session, name, FALSE);
	g_message("Session '%s' of uid %u: channel '%s' disabled", session->name,
		  (unsigned)session->owner_uid, name);
	return TRUE;
}
