/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op.h"

#include "tc-error.h"
#include "tc-session.h"

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
GMutexLocker *
tc_session_op_begin(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = g_mutex_locker_new(&session->op_lock);
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (!check_alive_locked(session, error))
		return NULL;
	return g_steal_pointer(&op);
}
