/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

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

/* Main loop or any thread. Adds a trigger owned by owner. Errors:
 * InvalidArgument (an unknown condition, option or action, a missing
 * session), AlreadyExists (owner has a trigger of that name),
 * LimitExceeded (MaxTriggers), NotSupported (rotate-session). */
gboolean tc_triggers_add(uid_t owner, const char *name, const char *condition,
			 GVariant *options, const char *const *actions, GError **error);
/* NotFound when owner has no trigger of that name. */
gboolean tc_triggers_remove(uid_t owner, const char *name, GError **error);
/* a(susa{sv}ast): name, owner, condition, options, actions, times fired;
 * owner's triggers, or everyone's when all. */
GVariant *tc_triggers_list(uid_t owner, gboolean all);
