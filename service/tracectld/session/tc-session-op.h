/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-session.h"

/*
 * Where every operation on a published session starts (tc-session-ops.h
 * and its neighbours tc-session-op-*.h): the session's op_lock, which
 * serialises them, and a check that the session is still alive.
 */

/* The session's op_lock, held until the returned locker goes out of
 * scope, with the session still alive: only destroy clears that, under
 * op_lock, so it holds for the whole operation. NULL with NotFound when
 * the session was destroyed. */
GMutexLocker *tc_session_op_begin(TcSession *session, GError **error);
