/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-event-rule.h"
#include "tc-session.h"

/*
 * Triggers, as LTTng 2.13's add-trigger: a condition on one of the
 * owner's sessions and the actions taken when it becomes true, with
 * nobody watching. Conditions:
 *   "channel-buffer-usage-ge", "channel-buffer-usage-le": the bytes in
 *     use in a channel's buffers at the consumer's last monitor sample, as
 *     a ratio of the buffers' size ("threshold-ratio", d) or in bytes
 *     ("threshold-size", t); evaluated at the channel's monitor timer
 *     while the session records;
 *   "session-consumed-size-ge": the bytes the consumer wrote for the
 *     session, counted in whole packets ("threshold-size");
 *   "session-rotation-completed": a trace archive was closed (the
 *     rotation code calls tc_signals_archive_rotated()).
 * Actions: "notify" (the TriggerFired signal, to subscribers allowed to
 * see it), "start-session", "stop-session", "snapshot-session", each on
 * the condition's session or, written "ACTION:SESSION", on another
 * session of the owner.
 *
 * A trigger fires when its condition becomes true and is armed again
 * once it is false, so a full buffer fires once, not at every sample.
 * Triggers belong to the user who added them and count against that
 * user's MaxTriggers. A condition's evaluation period is its channel's
 * monitor timer (a session condition: the session's most frequent one),
 * a second when there is none (or none more frequent), never under the
 * tick of 100 ms; event rules and rotations are looked at every tick.
 * Each owner's triggers are evaluated on a thread of that owner's, which
 * waits on the owner's consumer and runs the actions through the session
 * operations, never on the main loop: another owner's stopped consumer
 * or slow snapshot delays no trigger of theirs.
 */

/* Starts the tick thread and the owners' threads. */
void tc_triggers_start(void);
/* Stops them, after the trigger each owner's thread is evaluating. */
void tc_triggers_stop(void);

typedef enum {
	TC_CONDITION_BUFFER_USAGE_GE,
	TC_CONDITION_BUFFER_USAGE_LE,
	TC_CONDITION_CONSUMED_SIZE_GE,
	TC_CONDITION_ROTATION_COMPLETED,
	TC_CONDITION_EVENT_RULE_MATCHES,
} TcConditionKind;

/*
 * A trigger on its way in, as a front end parsed it: tc_triggers_spec_new()
 * checks the name and the condition, the front end fills in the options it
 * was given, tc_triggers_spec_check() checks them against the condition
 * and parses the actions, the front end makes the event rule of an
 * event-rule-matches condition, and tc_triggers_add() takes the trigger.
 * Each step fails with InvalidArgument naming what is wrong.
 */
typedef struct {
	char *name;
	TcConditionKind condition;
	char *session;		/* NULL: not given */
	char *channel;		/* NULL: not given; the default channel once checked */
	gboolean has_threshold; /* threshold-ratio or threshold-size given */
	gboolean is_ratio;	/* threshold_ratio, else threshold_size */
	double threshold_ratio; /* checked by tc_triggers_check_ratio() */
	guint64 threshold_size;
	gboolean has_rule_options; /* any event rule option given */
	gboolean has_rule_name;	   /* among them, the event name pattern */
	/* event-rule-matches, set by the front end once checked: the rule, and
	 * its options as given in the front end's own form, opaque here and
	 * handed back by the listing */
	TcEventRule *rule;
	GBytes *rule_listing;
	GArray *actions; /* set by tc_triggers_spec_check() */
} TcTriggerSpec;

/* NULL with InvalidArgument for a name that is not one or an unknown
 * condition. */
TcTriggerSpec *tc_triggers_spec_new(const char *name, const char *condition, GError **error);
void tc_triggers_spec_free(TcTriggerSpec *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcTriggerSpec, tc_triggers_spec_free)
/* A threshold ratio is from 0 to 1. */
gboolean tc_triggers_check_ratio(double ratio, GError **error);
/* The options the condition needs and no other (a buffer condition gets
 * the default channel), then one to TC_TRIGGER_ACTIONS_MAX actions. */
gboolean tc_triggers_spec_check(TcTriggerSpec *spec, const char *const *actions, GError **error);

/* Main loop or any thread. Adds the trigger of a checked spec, owned by
 * owner, taking what spec holds (free it still). Errors: AlreadyExists
 * (owner has a trigger of that name), LimitExceeded (MaxTriggers), and
 * those of giving an event rule to the owner's applications. */
gboolean tc_triggers_add(uid_t owner, TcTriggerSpec *spec, GError **error);
/* NotFound when owner has no trigger of that name. */
gboolean tc_triggers_remove(uid_t owner, const char *name, GError **error);

/* A trigger as listed: a copy. */
typedef struct {
	char *name;
	uid_t owner_uid;
	TcConditionKind condition;
	const char *condition_name; /* static */
	char *session;
	char *channel; /* NULL for a condition on the session */
	gboolean is_ratio;
	double threshold_ratio;
	guint64 threshold_size;
	GBytes *rule_listing; /* event-rule-matches: as the front end gave it */
	char **actions;	      /* "ACTION" or "ACTION:SESSION", as given */
	guint64 fire_count;
} TcTriggerInfo;

void tc_triggers_info_free(TcTriggerInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcTriggerInfo, tc_triggers_info_free)
/* TcTriggerInfo * of owner's triggers, or everyone's when all, in the
 * order added; the caller's. */
GPtrArray *tc_triggers_list(uid_t owner, gboolean all);
