/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-channel-config.h"
#include "tc-registry.h"

/*
 * The kernel domain's operations, each a worker's under the session's
 * op_lock (tc-session-op.h), the work done by tc-session-kernel.c and the
 * kernel helper it starts on demand.
 */

/* Whether the kernel helper answers and speaks this protocol; checked
 * before anything is promised. */
gboolean tc_session_op_kernel_check_helper(GError **error);
/* disable-channel -k: the session's tracefs instance stops recording until
 * enable-channel -k. */
gboolean tc_session_op_kernel_disable_channel(TcSession *session, GError **error);
/* RegenerateStatedump: the kernel state dump again, into the recording
 * session's kernel trace; InvalidState when it is not recording, NotFound
 * when it records no kernel events. */
gboolean tc_session_op_kernel_statedump(TcSession *session, GError **error);
/* The kernel domain: events "system:event" (globs), or LTTng's bare
 * names and globs, each the tracefs patterns it stands for on this
 * machine (tc-kernel-event-name.h); and the per-CPU buffer size of the
 * session's instance. */
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
