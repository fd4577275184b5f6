/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-session.h"

/*
 * What happens in the service that its subscribers are told of, reported
 * by the layers below the front ends and delivered by the one front end
 * that has subscribers: bus/tc-dbus-signals.c sets itself as the sink at
 * start, on the main thread, so that no lower layer calls up into bus/.
 * Without a sink (before the bus is up, unit tests, fuzz targets) a
 * report goes nowhere, but for the rotation hook below.
 *
 * The tc_signals_* reports may be called from any thread, with any lock
 * held: the sink copies what it sends and never blocks.
 */

/* The sink's functions, one per report; all set. */
typedef struct {
	void (*session_state_changed)(TcSession *session, gboolean is_active);
	void (*problem_changed)(TcSession *session, const char *problem);
	void (*snapshot_recorded)(TcSession *session, const char *directory);
	void (*archive_rotated)(TcSession *session, const char *path);
	void (*app_registered)(pid_t pid, uid_t uid, const char *procname);
	void (*app_gone)(pid_t pid, uid_t uid);
	void (*trigger_fired)(const char *trigger, uid_t owner_uid, const char *session_path,
			      const char *condition);
} TcSignalsSink;

/* Main thread, at start: where the reports go from now on. sink must
 * outlive the service (a static table). */
void tc_signals_set_sink(const TcSignalsSink *sink);

/* Sessions. */
void tc_signals_session_state_changed(TcSession *session, gboolean is_active);
void tc_signals_problem_changed(TcSession *session, const char *problem);
void tc_signals_snapshot_recorded(TcSession *session, const char *directory);
/* A trace archive of session was closed at path (rotation). */
void tc_signals_archive_rotated(TcSession *session, const char *path);
/* Called by tc_signals_archive_rotated() from the rotating thread, with a
 * sink or not, before the sink: the trigger table's hook (set by
 * tc-triggers.c, which depends on this file, not the other way round).
 * NULL: none. */
typedef void (*TcRotationFunc)(TcSession *session);
void tc_signals_set_rotation_func(TcRotationFunc func);

/* Applications, seen by their uid. */
void tc_signals_app_registered(pid_t pid, uid_t uid, const char *procname);
void tc_signals_app_gone(pid_t pid, uid_t uid);

/* A trigger of owner_uid with the notify action fired about the session
 * at session_path. */
void tc_signals_trigger_fired(const char *trigger, uid_t owner_uid, const char *session_path,
			      const char *condition);
