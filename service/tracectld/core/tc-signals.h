/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

#include "tc-authority.h"
#include "tc-session.h"

/*
 * The service's D-Bus signals, private by construction: never broadcast,
 * each one is sent to every subscribed connection allowed to see its
 * object, addressed to that connection alone (a unicast signal, which the
 * bus delivers to its destination only). Allowed: the object's owner,
 * root, and connections that polkit authorized for
 * TC_ACTION_MANAGE_OTHER_USERS when they subscribed.
 *
 * The tc_signals_* emitters may be called from any thread, with any lock
 * held: they copy what they send and queue it on the main context, which
 * alone reads the subscribers and talks to the bus. They never block and
 * cost an atomic read when nobody subscribed.
 */

/* Main thread: where signals go, and the watch dropping subscribers
 * that leave the bus. */
void tc_signals_init(GDBusConnection *connection);

/* Main thread: subscribes the bus name name of caller (authorized by
 * tc-authority.c). LimitExceeded when caller's user holds all the
 * subscriptions allowed (TC_LIMIT_SUBSCRIPTIONS). Subscribing twice
 * changes nothing. */
gboolean tc_signals_subscribe(const char *name, const TcCaller *caller, GError **error);
/* Main thread: forgets name's subscription, if any. */
void tc_signals_unsubscribe(const char *name);

/* Sessions. Each also sends PropertiesChanged for what it changed. */
void tc_signals_session_created(TcSession *session);
void tc_signals_session_state_changed(TcSession *session, gboolean is_active);
void tc_signals_session_destroyed(TcSession *session);
void tc_signals_problem_changed(TcSession *session, const char *problem);
void tc_signals_snapshot_recorded(TcSession *session, const char *directory);
/* A trace archive of session was closed at path (rotation). */
void tc_signals_archive_rotated(TcSession *session, const char *path);
/* Called by tc_signals_archive_rotated() from the rotating thread, with
 * subscribers or not: the trigger table's hook (set by tc-triggers.c,
 * which depends on this file, not the other way round). NULL: none. */
typedef void (*TcRotationFunc)(TcSession *session);
void tc_signals_set_rotation_func(TcRotationFunc func);
/* The Channels property changed (invalidated, not sent). */
void tc_signals_channels_changed(TcSession *session);

/* Applications, seen by their uid. */
void tc_signals_app_registered(pid_t pid, uid_t uid, const char *procname);
void tc_signals_app_gone(pid_t pid, uid_t uid);

/* A trigger of owner_uid with the notify action fired about the session
 * at session_path. */
void tc_signals_trigger_fired(const char *trigger, uid_t owner_uid, const char *session_path,
			      const char *condition);
