/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-session.h"

/*
 * The relays of started streaming sessions, looked at every
 * TC_RELAY_WATCH_INTERVAL_US, each owner's on a thread of its own: a
 * relay the consumer lost shows in the session's Problem, and subscribers
 * get ProblemChanged, without anybody asking for the session's status.
 * A session leaves the watch once it is stopped or destroyed; with none
 * watched the thread sleeps until one starts, so an idle service never
 * wakes for it.
 */

#define TC_RELAY_WATCH_INTERVAL_US (2 * G_USEC_PER_SEC)

/* What a look does (tc_session_op_relay_refresh_problem): set once,
 * before any session starts. */
typedef void (*TcRelayWatchFunc)(TcSession *session);
void tc_relay_watch_set_func(TcRelayWatchFunc refresh);

/* Watches a streaming session that has just started (a no-op for others
 * and for one watched already). */
void tc_relay_watch_add(TcSession *session);

/* Ends the watch; the service stops. Waits for the looks under way,
 * each at most a consumer's reply timeout. */
void tc_relay_watch_stop(void);
