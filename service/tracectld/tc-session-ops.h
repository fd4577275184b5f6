/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-registry.h"

/*
 * Control operations on a session. Each may wait on the consumer or on
 * applications, so each runs in a worker thread, never on the D-Bus main
 * loop, under the session's op_lock. Errors are TC_ERROR codes with a
 * message for a person.
 */

/* How long an operation waits for applications to acknowledge commands.
 * A slow or dead application delays the reply by at most this much, and
 * never fails the operation. */
#define TC_APP_ACK_TIMEOUT_MS 2000

/* Adds the session to the registry and creates its trace directory
 * through the owner's consumer. */
gboolean tc_session_op_create(TcSession *session, GError **error);
gboolean tc_session_op_start(TcSession *session, GError **error);
/* Returns once everything recorded is written out. */
gboolean tc_session_op_stop(TcSession *session, GError **error);
gboolean tc_session_op_destroy(TcSession *session, GError **error);
gboolean tc_session_op_enable_channel(TcSession *session, const char *name,
				      const TcChannelConfig *config, GError **error);
/* Adds TRACECTL_CONTEXT_* fields to a channel, or to every channel when
 * channel is "". Only before the first start. */
gboolean tc_session_op_add_context(TcSession *session, const char *channel, guint32 contexts,
				   GError **error);
/* Snapshot sessions: writes what the buffers hold into a new directory,
 * returned in *directory. */
gboolean tc_session_op_record_snapshot(TcSession *session, char **directory, GError **error);
/* The kernel domain: events "system:event" (globs), and the per-CPU
 * buffer size of the session's instance. */
/* The own-process tier's events (tc-session-kernel-own.h). */
gboolean tc_session_op_kernel_own_event(TcSession *session, const char *pattern, gboolean enable,
					GError **error);
gboolean tc_session_op_kernel_event(TcSession *session, const char *pattern, gboolean enable,
				    GError **error);
/* kind: TC_KERNEL_PROBE_*. */
gboolean tc_session_op_kernel_probe(TcSession *session, guint32 kind, const char *name,
				    const char *location, GError **error);
gboolean tc_session_op_kernel_context(TcSession *session, guint32 contexts, GError **error);
gboolean tc_session_op_kernel_channel(TcSession *session, const TcChannelConfig *config,
				      GError **error);
/* a(ssttttt), see ChannelStatistics in the D-Bus interface. */
GVariant *tc_session_op_channel_statistics(TcSession *session, GError **error);
gboolean tc_session_op_enable_event(TcSession *session, const char *channel,
				    const char *pattern, GError **error);
gboolean tc_session_op_disable_event(TcSession *session, const char *channel,
				     const char *pattern, GError **error);

/* The consumer of uid died: every session of uid with buffers says what
 * was lost in its Problem property. Any thread, no lock held; the daemon
 * passes it to tc_consumer_set_lost_func(). */
void tc_sessions_consumer_lost(uid_t uid, const char *why);
