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
/* [S] or op_lock: a snapshot session's kernel channel as a flight
 * recorder, the kernel channel's sub-buffers or the default channel's. */
void tc_session_kernel_flight_geometry(const TcSession *session, guint32 *subbuf_size,
				       guint32 *num_subbuf);
/* [S] or op_lock: KiB of the kernel's buffer per CPU: as the kernel
 * channel asked (0: the kernel's default), or, for a flight recorder, the
 * default channel's geometry rather than the kernel's default, so that a
 * snapshot holds what the channel says. */
guint32 tc_session_kernel_buffer_kb(const TcSession *session);
/* A snapshot session's kernel trace, if it has one, written by its
 * consumer into root/kernel, or sent to relay under that path (relative
 * then), at most per_stream bytes of each CPU (0: no bound); *packets
 * grows by the packets written. */
gboolean tc_session_kernel_snapshot_locked(TcSession *session, TcConsumer *consumer,
					   const char *root,
					   const struct tc_consumer_relay_output *relay,
					   guint64 per_stream, guint64 *packets, GError **error);
/* After the consumer let go of the buffers. */
void tc_session_kernel_destroyed_locked(TcSession *session);
