/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-session.h"
#include "tc-tracker.h"

/*
 * The trackers of a session (tc-tracker.h) changed and applied: in user
 * space through the application sync (an application left out has its
 * events disabled, one let in gets buffers and events, and in root's
 * session a trace for its uid), in the kernel through the instance's pid
 * filter: tracefs filters events on the pid of the task only, so the
 * kernel helper lists the tasks whose ids the tracker lets in and rescans
 * /proc for processes whose ids changed (TC_KERNEL_TRACK).
 */

/* op_lock held, from a worker thread. Adds values to the set of kind
 * (track) or removes them (untrack); all: the set holds every value
 * (track) or none (untrack). */
gboolean tc_session_track_locked(TcSession *session, gboolean kernel, TcTrackKind kind,
				 const guint32 *values, guint count, gboolean all, gboolean track,
				 GError **error);
/* [S] The trackers of the kernel domain (kernel) or of user space: owned
 * by the session, read only while its lock is held. */
const TcTracker *tc_session_track_tracker_locked(TcSession *session, gboolean kernel);

/* op_lock held, from a worker thread. Tracks unit name, whose control
 * group systemd gave as cgroup (track), or untracks it (NotFound when not
 * tracked). A session tracking units records only the applications in
 * their control groups, whatever their uid, each uid in its own trace;
 * at most TC_UNITS_PER_SESSION_MAX units (LimitExceeded). */
gboolean tc_session_track_unit_locked(TcSession *session, const char *name, const char *cgroup,
				      gboolean track, GError **error);
/* op_lock held, from a worker thread: gives the session's state to the
 * applications again after their control groups changed, as untracking a
 * unit does (those it no longer reaches have its events disabled). */
void tc_session_track_apply_units_locked(TcSession *session);
/* [S] The names of the units the session tracks, in the order tracked:
 * a NULL-terminated copy the caller frees with g_strfreev(). */
char **tc_session_track_unit_names_locked(TcSession *session);
