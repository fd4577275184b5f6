/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer.h"
#include "tc-session.h"

/* The kernel domain of a session (tc-session-kernel.c). All with op_lock
 * held, from worker threads. */
gboolean tc_session_kernel_validate_event(const char *pattern, GError **error);
/* Only before the first start. */
gboolean tc_session_kernel_context_locked(TcSession *session, guint32 contexts, GError **error);
gboolean tc_session_kernel_event_locked(TcSession *session, const char *pattern,
					gboolean enable, GError **error);
/* Enables pattern with filter, in tracefs syntax (tc_filter_to_tracefs()),
 * which the events get before they are enabled. */
gboolean tc_session_kernel_filtered_event_locked(TcSession *session, const char *pattern,
						 const char *filter, GError **error);
gboolean tc_session_kernel_probe_locked(TcSession *session, guint32 kind, const char *name,
					const char *location, GError **error);
gboolean tc_session_kernel_start_locked(TcSession *session, TcConsumer *consumer,
					GError **error);
gboolean tc_session_kernel_stop_locked(TcSession *session, GError **error);
/* The kernel state dump into the session's recording instance (every
 * start does one; `regenerate statedump` another): NotFound when the
 * session records no kernel events. */
gboolean tc_session_kernel_statedump_locked(TcSession *session, GError **error);
/* The instance, if it exists, records the processes tracker lets in:
 * by set_event_pid alone when only pids are tracked, through the
 * helper's rescans of /proc when other ids are (tc-kernel.h). */
gboolean tc_session_kernel_pids_locked(TcSession *session, const TcTracker *tracker,
				       GError **error);
/* [S] or op_lock: whether the session has a kernel side (events,
 * probes, contexts, a kernel channel, tracking, an instance). */
gboolean tc_session_kernel_in_use(const TcSession *session);
/* After the consumer let go of the buffers. */
void tc_session_kernel_destroyed_locked(TcSession *session);
