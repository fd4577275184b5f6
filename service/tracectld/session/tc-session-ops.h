/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-event-rule.h"
#include "tc-session.h"

/*
 * Control operations on a session. Each may wait on the consumer or on
 * applications, so each runs in a worker thread, never on the D-Bus main
 * loop, under the session's op_lock (tc-session-op.h). Errors are
 * TC_ERROR codes with a message for a person. This file holds the
 * session's lifecycle, channels, events and contexts; the operations of
 * other subjects are in tc-session-op-*.h beside it.
 */

/* How long an operation waits for applications to acknowledge commands.
 * A slow or dead application delays the reply by at most this much, and
 * never fails the operation. */
#define TC_APP_ACK_TIMEOUT_MS 2000

/* Adds the session to the registry and creates its trace directory
 * through the owner's consumer. */
gboolean tc_session_ops_create(TcSession *session, GError **error);
gboolean tc_session_ops_start(TcSession *session, GError **error);
/* Returns once everything recorded is written out. */
gboolean tc_session_ops_stop(TcSession *session, GError **error);
gboolean tc_session_ops_destroy(TcSession *session, GError **error);
/* A user-space channel, with the buffering scheme of the session's
 * LTTng-UST applications (TC_BUFFERS_UNSET: the session's; only the first
 * channel sets it, the others must agree). */
gboolean tc_session_ops_enable_channel(TcSession *session, const char *name,
				       const TcChannelConfig *config, TcBufferScheme buffers,
				       GError **error);
/* Adds TRACECTL_CONTEXT_* fields, perf_counters and app_contexts
 * (tc_channel_config_ust_contexts_parse()'s) to a
 * channel, or to every channel when channel is "", those already there
 * once. Only before the first start; InvalidArgument when a channel would
 * record more than TC_CHANNEL_PERF_COUNTERS_MAX counters or
 * TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX application contexts, or two
 * application contexts of one CTF field name ("a_b:c" and "a:b_c"). */
gboolean tc_session_ops_add_context(TcSession *session, const char *channel, guint32 contexts,
				    const GArray *perf_counters, const GPtrArray *app_contexts,
				    GError **error);
/* disable-channel: the channel's events are disabled in every application;
 * enable-channel brings them back. */
gboolean tc_session_ops_disable_channel(TcSession *session, const char *name, GError **error);
gboolean tc_session_ops_enable_event(TcSession *session, const char *channel, const char *pattern,
				     GError **error);
/* Takes rule (tc-event-rule.h): an EnableEventWithOptions call. */
gboolean tc_session_ops_enable_event_rule(TcSession *session, const char *channel,
					  TcEventRule *rule, GError **error);
gboolean tc_session_ops_disable_event(TcSession *session, const char *channel, const char *pattern,
				      GError **error);
/* Removes every rule of rule's key (an agent's domain and logger), taking
 * rule. */
gboolean tc_session_ops_disable_event_rule(TcSession *session, const char *channel,
					   TcEventRule *rule, GError **error);

/* The consumer of uid died: every session of uid with buffers says what
 * was lost in its Problem property. Any thread, no lock held; the daemon
 * passes it to tc_consumer_set_lost_func(). */
void tc_session_ops_consumer_lost(uid_t uid, const char *why);
