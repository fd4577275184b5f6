/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op-track.h"

#include "tc-session-op-kernel.h"
#include "tc-session-op.h"
#include "tc-session-track.h"
#include "tc-unit-watch.h"
#include "tc-unit.h"

gboolean
tc_session_op_track(TcSession *session, gboolean kernel, TcTrackKind kind, const guint32 *values,
		    guint count, gboolean all, gboolean track, GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (kernel && !tc_session_op_kernel_check_helper(error))
		return FALSE;
	op = tc_session_op_begin(session, error);
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
	op = tc_session_op_begin(session, error);
	if (op == NULL || !tc_session_track_unit_locked(session, unit, cgroup, track, error))
		return FALSE;
	if (track)
		tc_unit_watch_kick();
	return TRUE;
}
