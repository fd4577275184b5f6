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
/* What RecordSnapshotWithOptions may choose; NULL members for defaults. */
typedef struct {
	const char *name;   /* the snapshot directory's prefix */
	const char *output; /* an output's id or name, or a directory URL */
	guint64 max_bytes;  /* 0: the output's bound, if any */
} TcSnapshotOptions;
gboolean tc_session_op_record_snapshot_with(TcSession *session, const TcSnapshotOptions *options,
					    char **directory, GError **error);
/* Snapshot outputs (tc-snapshot-output.h), each under the op_lock. */
gboolean tc_session_op_add_snapshot_output(TcSession *session, const char *name, const char *url,
					   guint64 max_bytes, guint32 *id, GError **error);
GVariant *tc_session_op_list_snapshot_outputs(TcSession *session, GError **error);
gboolean tc_session_op_del_snapshot_output(TcSession *session, const char *output,
					   GError **error);
/* disable-channel: the channel's events are disabled in every application;
 * enable-channel brings them back. */
gboolean tc_session_op_disable_channel(TcSession *session, const char *name, GError **error);
/* disable-channel -k: the session's tracefs instance stops recording until
 * enable-channel -k. */
gboolean tc_session_op_disable_kernel_channel(TcSession *session, GError **error);
/* The kernel domain: events "system:event" (globs), and the per-CPU
 * buffer size of the session's instance. */
/* A kernel pattern with a filter in tracefs syntax (tc_filter_to_tracefs()). */
gboolean tc_session_op_kernel_filtered_event(TcSession *session, const char *pattern,
					     const char *filter, GError **error);
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
/* Tracking (tc-session-track.h): kernel or user-space domain. The
 * kernel domain needs its helper. */
gboolean tc_session_op_track(TcSession *session, gboolean kernel, TcTrackKind kind,
			     const guint32 *values, guint count, gboolean all, gboolean track,
			     GError **error);
/* Delegation (tc-unit.h): asks systemd for unit's control group, then
 * tc_session_track_unit_locked(). */
gboolean tc_session_op_track_unit(TcSession *session, const char *unit, gboolean track,
				  GError **error);
/* One channel's figures, summed over the session's traces. */
typedef struct {
	const char *domain; /* "ust" or "kernel" */
	char *channel;
	TcChannelStats stats;
} TcChannelStatistics;
/* The figures of each channel, the user-space ones in the order they were
 * enabled, then the kernel's: a GArray of TcChannelStatistics that frees
 * its names (ChannelStatistics in the D-Bus interface). */
GArray *tc_session_op_channel_statistics(TcSession *session, GError **error);
/* What the session's relay lost, if it streams, asked of the owner's
 * consumer and put in Problem (a new state logged, naming the session,
 * its owner and the relay's URL) as ChannelStatistics does: for a session
 * set up with no caller to answer, such as one loaded at start, and by the
 * relay watch (tc-relay-watch.h). Skipped while another operation holds
 * the session, and when the owner's consumer is not running. */
void tc_session_op_refresh_relay_problem(TcSession *session);
gboolean tc_session_op_enable_event(TcSession *session, const char *channel,
				    const char *pattern, GError **error);
/* Takes rule (tc-event-rule.h): an EnableEventWithOptions call. */
gboolean tc_session_op_enable_event_rule(TcSession *session, const char *channel,
					 TcEventRule *rule, GError **error);
gboolean tc_session_op_disable_event(TcSession *session, const char *channel,
				     const char *pattern, GError **error);

/* The consumer of uid died: every session of uid with buffers says what
 * was lost in its Problem property. Any thread, no lock held; the daemon
 * passes it to tc_consumer_set_lost_func(). */
void tc_sessions_consumer_lost(uid_t uid, const char *why);
