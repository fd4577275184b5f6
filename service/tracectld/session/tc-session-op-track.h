/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-registry.h"
#include "tc-tracker.h"

/*
 * Tracking and delegation, each a worker's operation under the session's
 * op_lock (tc-session-op.h); tc-session-track.c changes and applies the
 * trackers.
 */

/* Tracking (tc-session-track.h): kernel or user-space domain. The
 * kernel domain needs its helper. */
gboolean tc_session_op_track(TcSession *session, gboolean kernel, TcTrackKind kind,
			     const guint32 *values, guint count, gboolean all, gboolean track,
			     GError **error);
/* Delegation (tc-unit.h): asks systemd for unit's control group, then
 * tc_session_track_unit_locked(). */
gboolean tc_session_op_track_unit(TcSession *session, const char *unit, gboolean track,
				  GError **error);
