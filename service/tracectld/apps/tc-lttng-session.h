/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "config.h"
#include "tc-consumer.h"
#include "tc-lttng-app.h"
#include "tc-session.h"

/*
 * Tracing sessions applied to LTTng-UST applications, as lttng-sessiond
 * applies them (ust-app.c): in the application, a session, each
 * channel's per-UID buffers (the channel's and each stream's object data,
 * which the owner's consumer created), an event rule per enabled pattern,
 * enabled, and the session started; at stop, the session stopped. A
 * snapshot session's buffers stay in memory (overwrite mode) until a
 * snapshot copies them.
 *
 * Every command runs on the application owner's thread
 * (tc-lttng-owner.h) under the application's cmd_lock. A session
 * operation (start, stop, events, destroy) holds the session's op_lock,
 * queues one work per application and waits for them all at most
 * TC_LTTNG_SESSION_DEADLINE_MS: whatever its applications do, it
 * returns by then, and an application late or stalled delays only the
 * works queued behind it on its owner's thread.
 *
 * The invariant that keeps a registration and an operation from
 * waiting for each other: a work on an owner's thread never blocks on
 * an op_lock. The operation holds op_lock while it waits for owners'
 * threads; a registration, which runs on one, only tries op_lock
 * (tc_lttng_session_apply_all()) and, when it is held, is queued again
 * behind the operation's works. It holds op_lock only to read the
 * session's state and find its trace, never across a command: a stop or
 * release that takes op_lock after it queues its works behind the
 * registration's, on the same thread, so they reach the application
 * after it. Applying is idempotent per application (a bound application
 * is only started again), so a start and a registration may both
 * queue it.
 */

/* How long a session operation waits for its LTTng-UST applications:
 * tracectl's own applications' (TC_APP_ACK_TIMEOUT_MS). */
#define TC_LTTNG_SESSION_DEADLINE_MS 2000
/* How long a work that found a session's op_lock held pauses before it
 * is queued again (tc-lttng-apps.h's for registrations). */
#define TC_LTTNG_SESSION_REQUEUE_PAUSE_MS 5

#if TRACECTL_HAVE_LTTNG_UST

/* Applies the session to every registered LTTng-UST application it
 * records (set up the first time, started again after a stop), logging
 * failures and applications late. op_lock held. */
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
/* disable-channel and enable-channel of channel, after the session was
 * applied to applications: the channel disabled or enabled in each of
 * them (its events stay; those that register later get it in its
 * state). op_lock held. */
void tc_lttng_session_set_channel_enabled_locked(TcSession *session, const char *channel,
						 gboolean enabled);
/* Releases the session in the applications, forgets its LTTng-UST
 * traces and destroys their consumer sessions. op_lock held. */
void tc_lttng_session_destroy_locked(TcSession *session);
/* The application is gone: its per-PID traces are written out and
 * closed, on their sessions' owners' threads (each waits for the
 * operation of its session under way, if any). Its owner's thread. */
void tc_lttng_session_app_gone(TcLttngApp *app);
/* The LTTng-UST traces of session (one per traced uid, or per
 * application with per-PID buffers). */
guint tc_lttng_session_trace_count(TcSession *session);
/* Appends the consumer session ids of session's LTTng-UST traces to ids
 * (guint64): a rotation or a clear of the session is theirs too. */
void tc_lttng_session_append_consumer_ids(TcSession *session, GArray *ids);
/* A snapshot session's LTTng-UST buffers, each trace into <root>/<its
 * path> (lttng-ust/uid/<uid>/64-bit, lttng-ust/pid/...), at most
 * per_stream bytes of each stream (0: all), by the owner's consumer:
 * locally, or to relay (root
 * then relative to the session's directory there) when not NULL;
 * *packets grows by what was written. op_lock held. */
gboolean tc_lttng_session_snapshot_locked(TcSession *session, TcConsumer *consumer,
					  const char *root,
					  const struct tc_consumer_relay_output *relay,
					  guint64 per_stream, guint64 *packets, GError **error);
/* Applies every active session that records app to it, after its
 * registration, skipping those whose id is in applied (guint64 *) and
 * adding those done. FALSE when a session's op_lock is held: the caller
 * queues the rest behind the operation. app's owner's thread. */
gboolean tc_lttng_session_apply_all(TcLttngApp *app, GHashTable *applied);
/* Adds the figures of channel in every LTTng-UST trace of session (of
 * the applications still there, with per-PID buffers) to *stats.
 * op_lock held. */
gboolean tc_lttng_session_channel_stats_locked(TcSession *session, TcConsumer *consumer,
					       const char *channel, TcChannelStats *stats,
					       GError **error);

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
tc_lttng_session_set_channel_enabled_locked(TcSession *session, const char *channel,
					    gboolean enabled)
{
}
static inline guint
tc_lttng_session_trace_count(TcSession *session)
{
	return 0;
}
static inline void
tc_lttng_session_append_consumer_ids(TcSession *session, GArray *ids)
{
}
static inline gboolean
tc_lttng_session_channel_stats_locked(TcSession *session, TcConsumer *consumer,
				      const char *channel, TcChannelStats *stats, GError **error)
{
	return TRUE;
}
static inline gboolean
tc_lttng_session_snapshot_locked(TcSession *session, TcConsumer *consumer, const char *root,
				 const struct tc_consumer_relay_output *relay, guint64 per_stream,
				 guint64 *packets, GError **error)
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
