/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Triggers: the table, and the threads that evaluate them.
 *
 * The tick thread wakes every TC_TRIGGER_TICK_US, takes a reference to
 * each trigger and to each session whose rotation completed, by owner,
 * lets go of the table's lock, and hands each owner's round to a thread
 * of that owner's (tc-owner-pool.h). There each trigger that is due (a
 * channel condition at its channel's monitor timer, when the consumer
 * has a new sample) asks the consumer and runs its actions. Both wait
 * on the owner's consumer, which runs as the owner, who can stop it:
 * an owner whose last round is still under way is skipped for the tick
 * (their rotations wait for the next), so one owner's consumer never
 * delays another owner's triggers. The table's lock is a leaf, never
 * held across I/O, so adding, listing and removing triggers on the main
 * loop never waits on a consumer. Fields marked [T] belong to the
 * round of the trigger's owner under way: an owner has one at a time.
 */
#define G_LOG_DOMAIN "tracectld-triggers"

#include "tc-triggers.h"

#include <math.h>
#include <urcu.h>

#include "tc-channel.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-notifier.h"
#include "tc-owner-pool.h"
#include "tc-registry.h"
#include "tc-session-ops.h"
#include "tc-session-op-snapshot.h"
#include "tc-session-op-statistics.h"
#include "tc-session-rotation.h"
#include "tc-session.h"
#include "tc-signals.h"
#include "tc-user-limits.h"
#include "tc-validate.h"

#define TC_TRIGGER_TICK_US (100 * G_TIME_SPAN_MILLISECOND)
/* A session condition's period when none of its channels has a monitor
 * timer (tc-triggers.h). */
#define TC_TRIGGER_SESSION_PERIOD_US G_TIME_SPAN_SECOND
/* Each action is a consumer round trip or more when the trigger fires. */
#define TC_TRIGGER_ACTIONS_MAX 16u
/* An event-rule trigger fires at most once in this time, however often
 * the applications (which may be hostile) say the event came: the
 * matches of the meantime fire it once at the end of it. */
#define TC_TRIGGER_EVENT_INTERVAL_US G_TIME_SPAN_SECOND

static const char *const condition_names[] = {
	[TC_CONDITION_BUFFER_USAGE_GE] = "channel-buffer-usage-ge",
	[TC_CONDITION_BUFFER_USAGE_LE] = "channel-buffer-usage-le",
	[TC_CONDITION_CONSUMED_SIZE_GE] = "session-consumed-size-ge",
	[TC_CONDITION_ROTATION_COMPLETED] = "session-rotation-completed",
	[TC_CONDITION_EVENT_RULE_MATCHES] = "event-rule-matches",
};

typedef enum {
	TC_ACTION_NOTIFY,
	TC_ACTION_START,
	TC_ACTION_STOP,
	TC_ACTION_SNAPSHOT,
	TC_ACTION_ROTATE,
} TcActionKind;

static const char *const action_names[] = {
	[TC_ACTION_NOTIFY] = "notify",
	[TC_ACTION_START] = "start-session",
	[TC_ACTION_STOP] = "stop-session",
	[TC_ACTION_SNAPSHOT] = "snapshot-session",
	[TC_ACTION_ROTATE] = "rotate-session",
};

typedef struct {
	TcActionKind kind;
	char *session; /* NULL: the condition's */
} TcAction;

typedef struct {
	gint refcount;
	char *name;
	uid_t owner_uid;
	TcUserCharge charge; /* one TC_LIMIT_TRIGGERS */
	TcConditionKind condition;
	char *session;
	char *channel;         /* buffer usage conditions */
	gboolean is_ratio;     /* threshold_ratio, else threshold_size */
	double threshold_ratio;
	guint64 threshold_size;
	/* event-rule-matches: the rule's options as the front end gave them,
	 * for the listing, and the notifier made from the rule */
	GBytes *rule_listing;
	TcNotifier *notifier;
	guint64 count_fired;   /* [T] the notifier's count when it last fired */
	gint64 fired_us;       /* [T] and when, monotonic; 0: never */
	GArray *actions;       /* TcAction */
	guint64 fire_count;    /* [lock] */
	gboolean is_removed;   /* [lock] */
	gboolean is_fired;     /* [T] true since it last fired */
	gint64 next_due_us;    /* [T] monotonic */
} TcTrigger;

static GMutex lock;
static GCond wake;
static GPtrArray *triggers;          /* [lock] TcTrigger * */
static GPtrArray *rotated_sessions;  /* [lock] TcSession * refs, rotations to handle */
static gboolean is_stopping;         /* [lock] */
static GThread *thread;
static TcOwnerPool *rounds_pool; /* set before thread starts, freed after it ends */

/* One owner's work at a tick, on a thread of rounds_pool. */
typedef struct {
	GPtrArray *triggers; /* TcTrigger *, referenced: every trigger of the owner */
	GPtrArray *rotated;  /* TcSession *, referenced: rotations to handle */
} TcOwnerRound;

static TcTrigger *
trigger_ref(TcTrigger *trigger)
{
	g_atomic_int_inc(&trigger->refcount);
	return trigger;
}

static void
trigger_unref(TcTrigger *trigger)
{
	if (trigger == NULL || !g_atomic_int_dec_and_test(&trigger->refcount))
		return;
	tc_user_limits_release(&trigger->charge);
	for (guint i = 0; i < trigger->actions->len; i++)
		g_free(g_array_index(trigger->actions, TcAction, i).session);
	g_array_unref(trigger->actions);
	tc_notifier_free(trigger->notifier);
	if (trigger->rule_listing)
		g_bytes_unref(trigger->rule_listing);
	g_free(trigger->name);
	g_free(trigger->session);
	g_free(trigger->channel);
	g_free(trigger);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcTrigger, trigger_unref)

static void
table_ensure(void)
{
	if (triggers == NULL) {
		triggers = g_ptr_array_new_with_free_func((GDestroyNotify)trigger_unref);
		rotated_sessions = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	}
}

/* Parsing. */

static gboolean
parse_condition(const char *text, TcConditionKind *kind, GError **error)
{
	for (guint i = 0; i < G_N_ELEMENTS(condition_names); i++)
		if (g_str_equal(text, condition_names[i])) {
			*kind = i;
			return TRUE;
		}
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown condition '%.64s': channel-buffer-usage-ge, "
		    "channel-buffer-usage-le, session-consumed-size-ge, "
		    "session-rotation-completed or event-rule-matches",
		    text);
	return FALSE;
}

TcTriggerSpec *
tc_triggers_spec_new(const char *name, const char *condition, GError **error)
{
	g_autoptr(TcTriggerSpec) spec = g_new0(TcTriggerSpec, 1);

	spec->name = g_strdup(name);
	spec->actions = g_array_new(FALSE, FALSE, sizeof(TcAction));
	if (!tc_validate_name("trigger", name, error) ||
	    !parse_condition(condition, &spec->condition, error))
		return NULL;
	return g_steal_pointer(&spec);
}

void
tc_triggers_spec_free(TcTriggerSpec *spec)
{
	if (spec == NULL)
		return;
	for (guint i = 0; i < spec->actions->len; i++)
		g_free(g_array_index(spec->actions, TcAction, i).session);
	g_array_unref(spec->actions);
	tc_event_rule_free(spec->rule);
	if (spec->rule_listing)
		g_bytes_unref(spec->rule_listing);
	g_free(spec->name);
	g_free(spec->session);
	g_free(spec->channel);
	g_free(spec);
}

gboolean
tc_triggers_check_ratio(double ratio, GError **error)
{
	if (isfinite(ratio) && ratio >= 0 && ratio <= 1)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "The threshold ratio is from 0 to 1, not %g", ratio);
	return FALSE;
}

/* The options a condition needs, and no other. */
static gboolean
check_condition_options(TcTriggerSpec *spec, GError **error)
{
	const char *name = condition_names[spec->condition];
	gboolean is_buffer = spec->condition == TC_CONDITION_BUFFER_USAGE_GE ||
			     spec->condition == TC_CONDITION_BUFFER_USAGE_LE;
	gboolean is_event = spec->condition == TC_CONDITION_EVENT_RULE_MATCHES;

	if (spec->session == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The condition %s needs a session", name);
		return FALSE;
	}
	if (is_event != spec->has_rule_options || (is_event && !spec->has_rule_name)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    is_event ? "The condition %s needs an event name pattern ('name')"
				     : "The condition %s takes no event rule options",
			    name);
		return FALSE;
	}
	if (is_buffer && spec->channel == NULL)
		spec->channel = g_strdup(TC_DEFAULT_CHANNEL);
	if (!is_buffer && spec->channel != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The condition %s takes no channel", name);
		return FALSE;
	}
	if ((is_buffer || spec->condition == TC_CONDITION_CONSUMED_SIZE_GE) !=
		spec->has_threshold ||
	    (spec->condition == TC_CONDITION_CONSUMED_SIZE_GE && spec->is_ratio)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "The condition %s %s", name,
			    is_buffer ? "needs a threshold-ratio or a threshold-size"
			    : spec->condition == TC_CONDITION_CONSUMED_SIZE_GE
				? "needs a threshold-size"
				: "takes no threshold");
		return FALSE;
	}
	return TRUE;
}

static gboolean
parse_action(const char *text, TcAction *action, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, ":", 2);

	action->session = NULL;
	/* An empty action splits into no part: parts[0] is NULL then. */
	for (guint i = 0; parts[0] != NULL && i < G_N_ELEMENTS(action_names); i++) {
		if (!g_str_equal(parts[0], action_names[i]))
			continue;
		action->kind = i;
		if (parts[1] == NULL)
			return TRUE;
		if (i == TC_ACTION_NOTIFY || !tc_validate_name("session", parts[1], error)) {
			if (i == TC_ACTION_NOTIFY)
				g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "The notify action takes no session");
			return FALSE;
		}
		action->session = g_strdup(parts[1]);
		return TRUE;
	}
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown action '%.64s': notify, start-session, stop-session, "
		    "snapshot-session or rotate-session, optionally followed by ':SESSION'",
		    text);
	return FALSE;
}

gboolean
tc_triggers_spec_check(TcTriggerSpec *spec, const char *const *actions, GError **error)
{
	if (!check_condition_options(spec, error))
		return FALSE;
	if (g_strv_length((char **)actions) > TC_TRIGGER_ACTIONS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "A trigger takes at most %u actions", TC_TRIGGER_ACTIONS_MAX);
		return FALSE;
	}
	for (; *actions; actions++) {
		TcAction action;

		if (!parse_action(*actions, &action, error))
			return FALSE;
		g_array_append_val(spec->actions, action);
	}
	if (spec->actions->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Trigger '%s' has no action", spec->name);
		return FALSE;
	}
	return TRUE;
}

/* The trigger of a checked spec, which it empties. */
static TcTrigger *
trigger_from_spec(uid_t owner, TcTriggerSpec *spec)
{
	TcTrigger *trigger = g_new0(TcTrigger, 1);

	trigger->refcount = 1;
	trigger->owner_uid = owner;
	trigger->name = g_steal_pointer(&spec->name);
	trigger->condition = spec->condition;
	trigger->session = g_steal_pointer(&spec->session);
	trigger->channel = g_steal_pointer(&spec->channel);
	trigger->is_ratio = spec->is_ratio;
	trigger->threshold_ratio = spec->threshold_ratio;
	trigger->threshold_size = spec->threshold_size;
	trigger->rule_listing = g_steal_pointer(&spec->rule_listing);
	trigger->actions = g_steal_pointer(&spec->actions);
	spec->actions = g_array_new(FALSE, FALSE, sizeof(TcAction));
	return trigger;
}

/* [lock] */
static guint
find_locked(uid_t owner, const char *name)
{
	for (guint i = 0; i < triggers->len; i++) {
		TcTrigger *trigger = g_ptr_array_index(triggers, i);

		if (trigger->owner_uid == owner && g_str_equal(trigger->name, name))
			return i;
	}
	return G_MAXUINT;
}

gboolean
tc_triggers_add(uid_t owner, TcTriggerSpec *spec, GError **error)
{
	TcEventRule *rule = g_steal_pointer(&spec->rule);
	g_autoptr(TcTrigger) trigger = trigger_from_spec(owner, spec);
	g_autoptr(GMutexLocker) locker = NULL;
	const char *name = trigger->name;

	/* The event rule goes to the owner's applications: not under the
	 * table's lock, which is never held across I/O. */
	if (trigger->condition == TC_CONDITION_EVENT_RULE_MATCHES) {
		trigger->notifier = tc_notifier_new(trigger->owner_uid, rule, error);
		if (trigger->notifier == NULL)
			return FALSE;
	} else
		tc_event_rule_free(rule);
	locker = g_mutex_locker_new(&lock);
	table_ensure();
	if (find_locked(owner, name) != G_MAXUINT) {
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "You have a trigger named '%s' already", name);
		g_clear_pointer(&locker, g_mutex_locker_free);
		return FALSE;
	}
	tc_user_limits_charge_init(&trigger->charge, owner);
	if (!tc_user_limits_charge(&trigger->charge, TC_LIMIT_TRIGGERS, 1, error)) {
		/* Its notifier is taken back from applications after the lock. */
		g_clear_pointer(&locker, g_mutex_locker_free);
		return FALSE;
	}
	g_message("Trigger '%s' of uid %u added: %s on session '%s'", name, (unsigned)owner,
		  condition_names[trigger->condition], trigger->session);
	g_ptr_array_add(triggers, g_steal_pointer(&trigger));
	g_cond_signal(&wake);
	return TRUE;
}

gboolean
tc_triggers_remove(uid_t owner, const char *name, GError **error)
{
	/* Declared first, so let go of after the lock: freeing a notifier
	 * talks to applications. */
	g_autoptr(TcTrigger) removed = NULL;
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&lock);
	TcTrigger *trigger;
	guint index;

	table_ensure();
	index = find_locked(owner, name);
	if (index == G_MAXUINT) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "You have no trigger named '%s'",
			    name);
		return FALSE;
	}
	trigger = g_ptr_array_index(triggers, index);
	trigger->is_removed = TRUE;
	/* Given back now: its owner's round may hold it a while longer. */
	tc_user_limits_release(&trigger->charge);
	removed = g_ptr_array_steal_index(triggers, index);
	g_message("Trigger '%s' of uid %u removed", name, (unsigned)owner);
	return TRUE;
}

void
tc_triggers_info_free(TcTriggerInfo *info)
{
	if (info == NULL)
		return;
	g_free(info->name);
	g_free(info->session);
	g_free(info->channel);
	if (info->rule_listing)
		g_bytes_unref(info->rule_listing);
	g_strfreev(info->actions);
	g_free(info);
}

/* [lock] */
static TcTriggerInfo *
info_locked(const TcTrigger *trigger)
{
	TcTriggerInfo *info = g_new0(TcTriggerInfo, 1);

	info->name = g_strdup(trigger->name);
	info->owner_uid = trigger->owner_uid;
	info->condition = trigger->condition;
	info->condition_name = condition_names[trigger->condition];
	info->session = g_strdup(trigger->session);
	info->channel = g_strdup(trigger->channel);
	info->is_ratio = trigger->is_ratio;
	info->threshold_ratio = trigger->threshold_ratio;
	info->threshold_size = trigger->threshold_size;
	info->rule_listing = trigger->rule_listing ? g_bytes_ref(trigger->rule_listing) : NULL;
	info->actions = g_new0(char *, trigger->actions->len + 1);
	for (guint i = 0; i < trigger->actions->len; i++) {
		const TcAction *action = &g_array_index(trigger->actions, TcAction, i);

		info->actions[i] =
		    action->session
			? g_strdup_printf("%s:%s", action_names[action->kind], action->session)
			: g_strdup(action_names[action->kind]);
	}
	info->fire_count = trigger->fire_count;
	return info;
}

GPtrArray *
tc_triggers_list(uid_t owner, gboolean all)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&lock);
	GPtrArray *infos = g_ptr_array_new_with_free_func((GDestroyNotify)tc_triggers_info_free);

	table_ensure();
	for (guint i = 0; i < triggers->len; i++) {
		TcTrigger *trigger = g_ptr_array_index(triggers, i);

		if (!all && trigger->owner_uid != owner)
			continue;
		g_ptr_array_add(infos, info_locked(trigger));
	}
	return infos;
}

/* Firing: a thread of the trigger's owner, no lock held. */

static void
run_action(TcTrigger *trigger, const TcAction *action, TcSession *session,
	   const char *description)
{
	g_autoptr(TcSession) target = action->session ? tc_registry_find_session_by_name(
							      trigger->owner_uid, action->session)
						      : tc_session_ref(session);
	g_autoptr(GError) error = NULL;
	g_autofree char *directory = NULL;
	gboolean ok = TRUE;

	if (action->kind == TC_ACTION_NOTIFY) {
		tc_signals_trigger_fired(trigger->name, trigger->owner_uid, session->object_path,
					 description);
		return;
	}
	if (target == NULL) {
		g_warning("Trigger '%s' of uid %u: no session '%s' to %s", trigger->name,
			  (unsigned)trigger->owner_uid, action->session,
			  action_names[action->kind]);
		return;
	}
	if (action->kind == TC_ACTION_START)
		ok = tc_session_ops_start(target, &error);
	else if (action->kind == TC_ACTION_STOP)
		ok = tc_session_ops_stop(target, &error);
	else if (action->kind == TC_ACTION_SNAPSHOT)
		ok = tc_session_op_snapshot_record(target, &directory, &error);
	else if (action->kind == TC_ACTION_ROTATE)
		ok = tc_session_rotation_rotate(target, &directory, &error);
	if (!ok)
		g_warning("Trigger '%s' of uid %u: %s of session '%s' failed: %s", trigger->name,
			  (unsigned)trigger->owner_uid, action_names[action->kind], target->name,
			  error->message);
}

static void
fire(TcTrigger *trigger, TcSession *session, const char *description)
{
	g_mutex_lock(&lock);
	if (trigger->is_removed) {
		g_mutex_unlock(&lock);
		return;
	}
	trigger->fire_count++;
	g_mutex_unlock(&lock);
	g_message("Trigger '%s' of uid %u fired: %s", trigger->name, (unsigned)trigger->owner_uid,
		  description);
	for (guint i = 0; i < trigger->actions->len; i++)
		run_action(trigger, &g_array_index(trigger->actions, TcAction, i), session,
			   description);
}

/* [S] The sub-buffer size of each channel of session, by name, and how
 * often trigger's condition gets a new sample: its channel's monitor
 * timer, or the session's most frequent one for its consumed size. */
static GHashTable *
channel_subbuf_sizes_locked(TcSession *session, TcTrigger *trigger, gint64 *period)
{
	GHashTable *sizes = g_hash_table_new(g_str_hash, g_str_equal);

	*period = TC_TRIGGER_SESSION_PERIOD_US;
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *each = g_ptr_array_index(session->channels, i);

		g_hash_table_insert(sizes, each->name,
				    GSIZE_TO_POINTER((gsize)each->config.subbuf_size));
		if (each->config.monitor_timer_us > 0 &&
		    (trigger->channel ? g_str_equal(each->name, trigger->channel)
				      : each->config.monitor_timer_us < *period))
			*period = each->config.monitor_timer_us;
	}
	return sizes;
}

/* A buffer usage condition on one channel's sample. */
static gboolean
buffer_usage_is_true(TcTrigger *trigger, const char *channel, guint64 size, guint64 used,
		     char **description)
{
	gboolean is_ge = trigger->condition == TC_CONDITION_BUFFER_USAGE_GE;
	const char *name = condition_names[trigger->condition];
	double ratio = (double)used / (double)size;

	g_free(*description);
	if (trigger->is_ratio) {
		*description = g_strdup_printf("%s %s %.3f", name, channel, ratio);
		return is_ge ? ratio >= trigger->threshold_ratio : ratio <= trigger->threshold_ratio;
	}
	*description = g_strdup_printf("%s %s %" G_GUINT64_FORMAT, name, channel, used);
	return is_ge ? used >= trigger->threshold_size : used <= trigger->threshold_size;
}

/*
 * The condition's value now, in *description (left NULL when it cannot
 * be told: the session does not record, no such channel); TRUE when it
 * holds. Sets the next time the trigger is due.
 */
static gboolean
condition_is_true(TcTrigger *trigger, TcSession *session, char **description)
{
	g_autoptr(GArray) statistics = NULL;
	g_autoptr(GHashTable) subbuf_sizes = NULL;
	gboolean is_active, is_true = FALSE;
	guint64 consumed = 0;
	gint64 period;

	g_mutex_lock(&session->lock);
	is_active = session->state == TC_SESSION_ACTIVE;
	subbuf_sizes = channel_subbuf_sizes_locked(session, trigger, &period);
	g_mutex_unlock(&session->lock);
	trigger->next_due_us = g_get_monotonic_time() + MAX(period, TC_TRIGGER_TICK_US);
	if (is_active)
		statistics = tc_session_op_statistics(session, NULL);
	if (statistics == NULL)
		return FALSE;
	for (guint i = 0; i < statistics->len; i++) {
		const TcChannelStatistics *channel =
		    &g_array_index(statistics, TcChannelStatistics, i);
		const TcChannelStats *stats = &channel->stats;

		/* Channels are never removed: the name is still in the table. */
		consumed += stats->packets_written *
			    GPOINTER_TO_SIZE(g_hash_table_lookup(subbuf_sizes, channel->channel));
		if (trigger->channel && g_str_equal(channel->channel, trigger->channel) &&
		    stats->buffer_bytes > 0)
			is_true =
			    buffer_usage_is_true(trigger, channel->channel, stats->buffer_bytes,
						 stats->bytes_used, description);
	}
	if (trigger->condition != TC_CONDITION_CONSUMED_SIZE_GE)
		return is_true;
	*description = g_strdup_printf("%s %" G_GUINT64_FORMAT,
				       condition_names[trigger->condition], consumed);
	return consumed >= trigger->threshold_size;
}

/*
 * An event-rule trigger, at every tick: fires when the notifier's count
 * changed since it last fired, at most once in TC_TRIGGER_EVENT_INTERVAL_US.
 * The count comes from applications: only its changes are used, never its
 * value as a number of events.
 */
static void
evaluate_event_rule(TcTrigger *trigger, TcSession *session)
{
	guint64 count = tc_notifier_count(trigger->notifier);
	gint64 now = g_get_monotonic_time();
	g_autofree char *description = NULL;

	trigger->next_due_us = now + TC_TRIGGER_TICK_US;
	if (count == trigger->count_fired ||
	    (trigger->fired_us != 0 && now - trigger->fired_us < TC_TRIGGER_EVENT_INTERVAL_US))
		return;
	trigger->count_fired = count;
	trigger->fired_us = now;
	description = g_strdup_printf("%s %s", condition_names[trigger->condition],
				      tc_notifier_pattern(trigger->notifier));
	fire(trigger, session, description);
}

static void
evaluate(TcTrigger *trigger)
{
	g_autoptr(TcSession) session =
		tc_registry_find_session_by_name(trigger->owner_uid, trigger->session);
	g_autofree char *description = NULL;

	if (session == NULL) {
		trigger->next_due_us = g_get_monotonic_time() + TC_TRIGGER_SESSION_PERIOD_US;
		/* Matches while its session is missing do not fire later. */
		if (trigger->notifier)
			trigger->count_fired = tc_notifier_count(trigger->notifier);
		return;
	}
	if (trigger->condition == TC_CONDITION_EVENT_RULE_MATCHES) {
		evaluate_event_rule(trigger, session);
		return;
	}
	if (!condition_is_true(trigger, session, &description)) {
		/* Armed again once the value is on the other side. */
		if (description != NULL)
			trigger->is_fired = FALSE;
		return;
	}
	if (trigger->is_fired)
		return;
	trigger->is_fired = TRUE;
	fire(trigger, session, description);
}

static void
handle_rotation(TcSession *rotated, GPtrArray *all)
{
	for (guint i = 0; i < all->len; i++) {
		TcTrigger *trigger = g_ptr_array_index(all, i);

		if (trigger->condition == TC_CONDITION_ROTATION_COMPLETED &&
		    trigger->owner_uid == rotated->owner_uid &&
		    g_str_equal(trigger->session, rotated->name))
			fire(trigger, rotated, condition_names[trigger->condition]);
	}
}

static void
owner_round_free(TcOwnerRound *round)
{
	/* The last reference to a removed trigger may be here: freeing its
	 * notifier talks to applications, never under the lock. */
	g_ptr_array_unref(round->triggers);
	g_ptr_array_unref(round->rotated);
	g_free(round);
}

/* rounds_pool's function: the owner's rotations, then the owner's
 * triggers that are due. A stopping service does not wait for the rest. */
static void
owner_round_run(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer unused)
{
	TcOwnerRound *round = data;

	for (guint i = 0; i < round->rotated->len; i++)
		handle_rotation(g_ptr_array_index(round->rotated, i), round->triggers);
	for (guint i = 0; i < round->triggers->len && !tc_owner_pool_is_stopping(pool); i++) {
		TcTrigger *trigger = g_ptr_array_index(round->triggers, i);

		if (trigger->condition != TC_CONDITION_ROTATION_COMPLETED &&
		    trigger->next_due_us <= g_get_monotonic_time())
			evaluate(trigger);
	}
}

static TcOwnerRound *
round_for(GHashTable *rounds, uid_t owner)
{
	TcOwnerRound *round = g_hash_table_lookup(rounds, GUINT_TO_POINTER(owner));

	if (round == NULL) {
		round = g_new0(TcOwnerRound, 1);
		round->triggers = g_ptr_array_new_with_free_func((GDestroyNotify)trigger_unref);
		round->rotated = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
		g_hash_table_insert(rounds, GUINT_TO_POINTER(owner), round);
	}
	return round;
}

/* [lock] The tick's rounds, uid -> TcOwnerRound: new references to every
 * trigger, and the rotations to handle (taken from rotated_sessions). */
static GHashTable *
collect_locked(void)
{
	GHashTable *rounds =
	    g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)owner_round_free);

	for (guint i = 0; i < triggers->len; i++) {
		TcTrigger *trigger = g_ptr_array_index(triggers, i);

		g_ptr_array_add(round_for(rounds, trigger->owner_uid)->triggers,
				trigger_ref(trigger));
	}
	for (guint i = 0; i < rotated_sessions->len; i++) {
		TcSession *session = g_ptr_array_index(rotated_sessions, i);

		g_ptr_array_add(round_for(rounds, session->owner_uid)->rotated,
				tc_session_ref(session));
	}
	g_ptr_array_set_size(rotated_sessions, 0);
	return rounds;
}

/* Each owner's round to a thread of theirs, unless their last one is
 * still under way: then their rotations go back for the next tick. */
static void
start_rounds(GHashTable *rounds)
{
	GHashTableIter iter;
	gpointer value;

	tc_owner_pool_try_push_each(rounds_pool, rounds);
	g_hash_table_iter_init(&iter, rounds);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcOwnerRound *round = value;

		g_mutex_lock(&lock);
		for (guint i = 0; i < round->rotated->len; i++)
			g_ptr_array_add(rotated_sessions,
					tc_session_ref(g_ptr_array_index(round->rotated, i)));
		g_mutex_unlock(&lock);
	}
}

/* Registered with liburcu: a round the pool refuses is freed here, and
 * with it maybe the last reference to a removed trigger, whose notifier
 * walks the applications' table in a read-side section. */
static gpointer
tick_thread(gpointer data)
{
	rcu_register_thread();
	g_mutex_lock(&lock);
	while (!is_stopping) {
		g_autoptr(GHashTable) rounds = collect_locked();

		g_mutex_unlock(&lock);
		start_rounds(rounds);
		g_clear_pointer(&rounds, g_hash_table_unref);
		g_mutex_lock(&lock);
		/* With no trigger, sleep until one is added. */
		if (!is_stopping && rotated_sessions->len == 0 && triggers->len == 0)
			g_cond_wait(&wake, &lock);
		else if (!is_stopping)
			g_cond_wait_until(&wake, &lock, g_get_monotonic_time() + TC_TRIGGER_TICK_US);
	}
	g_mutex_unlock(&lock);
	rcu_unregister_thread();
	return NULL;
}

static void
rotation_completed_cb(TcSession *session)
{
	g_mutex_lock(&lock);
	table_ensure();
	g_ptr_array_add(rotated_sessions, tc_session_ref(session));
	g_cond_signal(&wake);
	g_mutex_unlock(&lock);
}

void
tc_triggers_start(void)
{
	g_mutex_lock(&lock);
	table_ensure();
	is_stopping = FALSE;
	g_mutex_unlock(&lock);
	tc_signals_set_rotation_func(rotation_completed_cb);
	/* Threads as owners evaluated at once: one each at most. */
	rounds_pool = tc_owner_pool_new(owner_round_run, (GDestroyNotify)owner_round_free, NULL);
	thread = g_thread_new("tc-triggers", tick_thread, NULL);
}

void
tc_triggers_stop(void)
{
	if (thread == NULL)
		return;
	g_mutex_lock(&lock);
	is_stopping = TRUE;
	g_cond_signal(&wake);
	g_mutex_unlock(&lock);
	g_thread_join(thread);
	thread = NULL;
	/* No round starts now; those under way end after their trigger. */
	g_clear_pointer(&rounds_pool, tc_owner_pool_free);
	tc_signals_set_rotation_func(NULL);
}
