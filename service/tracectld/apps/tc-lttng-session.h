/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "config.h"
#include "tc-lttng-app.h"
#include "tc-session.h"

/*
 * Tracing sessions applied to LTTng-UST applications, as lttng-sessiond
 * applies them (ust-app.c): in the application, a session, the default
 * channel's per-UID buffers (the channel's and each stream's object data,
 * which the owner's consumer created), an event rule per enabled pattern,
 * enabled, and the session started; at stop, the session stopped.
 *
 * Every command goes on the application's command socket under its
 * cmd_lock, and the caller holds the tracing session's op_lock (which
 * serializes a start and a registration applying the same session).
 * Each blocks for at most the socket timeouts
 * (TC_LTTNG_APPS_SOCKET_TIMEOUT_MS) per command.
 */

#if TRACECTL_HAVE_LTTNG_UST

/* Applies the active session to app (its traces' uid's): set up the
 * first time, started again after a stop. op_lock held. */
gboolean tc_lttng_session_apply_locked(TcSession *session, TcLttngApp *app, GError **error);
/* Applies the session to every registered LTTng-UST application it
 * records, logging failures. op_lock held. */
void tc_lttng_session_start_locked(TcSession *session);
/* Stops the session in the applications it was applied to, then has the
 * consumer write out their buffers. op_lock held. */
gboolean tc_lttng_session_stop_locked(TcSession *session, GError **error);
/* Events of pattern enabled in channel of session, after the session
 * was applied to applications: enabled in each of them (those that
 * register later get every pattern). op_lock held. */
void tc_lttng_session_enable_event_locked(TcSession *session, const char *channel,
					  const char *pattern);
/* Events of pattern disabled in channel of session: every rule of that
 * pattern the applications were given is disabled. op_lock held. */
void tc_lttng_session_disable_event_locked(TcSession *session, const char *channel,
					   const char *pattern);
/* Releases the session in the applications, forgets its LTTng-UST
 * traces and destroys their consumer sessions. op_lock held. */
void tc_lttng_session_destroy_locked(TcSession *session);
/* Applies every active session that records app to it, after its
 * registration; any thread but the main loop's. */
void tc_lttng_session_apply_all(TcLttngApp *app);

#else

static inline void
tc_lttng_session_start_locked(TcSession *session)
{
}
static inline gboolean
tc_lttng_session_stop_locked(TcSession *session, GError **error)
{
	return TRUE;
}
static inline void
tc_lttng_session_destroy_locked(TcSession *session)
{
}
static inline void
tc_lttng_session_enable_event_locked(TcSession *session, const char *channel,
				     const char *pattern)
{
}
static inline void
tc_lttng_session_disable_event_locked(TcSession *session, const char *channel,
				      const char *pattern)
{
}

#endif
