/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer.h"
#include "tc-session.h"

/*
 * The per-uid traces of a session (TcUidTrace): their creation through
 * the owner's consumer, their buffers and their metadata. Called by the
 * session operations and by the application sync; calls neither.
 */

/* The consumer session of uid's trace in session (the session's id for the
 * owner's), 0 when it has none. Takes session->lock. */
guint64 tc_session_trace_consumer_id(TcSession *session, uid_t uid);
/* Creates the directory trace_dir of uid's trace through the consumer.
 * op_lock held. */
gboolean tc_session_trace_create(TcSession *session, TcConsumer *consumer, uid_t uid,
				 const char *trace_dir, GError **error);
/* Gives uid its trace in the session, with buffers in every channel and
 * the metadata so far. op_lock held. */
gboolean tc_session_trace_uid(TcSession *session, TcConsumer *consumer, uid_t uid,
			      GError **error);
/* Sends the metadata produced since the last call to every trace that has
 * buffers, and keeps it for traces created later. op_lock held. */
gboolean tc_session_trace_flush_metadata(TcSession *session, TcConsumer *consumer,
					 GError **error);

/* Registration: gives uid its own trace in root's session when it has
 * none yet (takes op_lock, asks the consumer). No lock held. */
void tc_session_trace_uid_for_app(TcSession *session, uid_t uid);

/* New event classes of applications of uid that registered while a
 * session records: their metadata and layouts go to the consumer of each
 * of sessions (TcSession, referenced; the array is referenced until done),
 * from a worker of its own, so that a trace read while recording can
 * decode their events; then then(data), on that worker, after the earlier
 * calls for uid. Any thread, no lock held. */
void tc_session_trace_flush_metadata_then(uid_t uid, GPtrArray *sessions,
					  void (*then)(gpointer data), gpointer data);
