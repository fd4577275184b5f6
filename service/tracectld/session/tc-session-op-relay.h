/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer.h"
#include "tc-registry.h"

/*
 * The Problem of a streaming session whose relay went away: what the
 * owner's consumer says the relay lost, logged and signalled once per new
 * state, never over another problem.
 */

/* [op_lock] Asks consumer about the consumer sessions ids (guint64) of
 * the streaming session and puts what their relay lost in Problem, unless
 * another problem is there. Nothing for a session that does not stream. */
void tc_session_op_relay_refresh_problem_locked(TcSession *session, TcConsumer *consumer,
						GArray *ids);
/* What the session's relay lost, if it streams, asked of the owner's
 * consumer and put in Problem (a new state logged, naming the session,
 * its owner and the relay's URL) as ChannelStatistics does: for a session
 * set up with no caller to answer, such as one loaded at start, and by the
 * relay watch (tc-relay-watch.h). Skipped while another operation holds
 * the session, and when the owner's consumer is not running. */
void tc_session_op_relay_refresh_problem(TcSession *session);
