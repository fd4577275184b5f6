/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-registry.h"

/*
 * Snapshots of a snapshot session, each a worker's operation under the
 * session's op_lock (tc-session-op.h): what the buffers hold written by
 * the owner's consumer into a new directory or to a relay, and the outputs
 * they may go to (tc-snapshot-output.h).
 */

/* Snapshot sessions: writes what the buffers hold into a new directory,
 * returned in *directory. */
gboolean tc_session_op_snapshot_record(TcSession *session, char **directory, GError **error);
/* What RecordSnapshotWithOptions may choose; NULL members for defaults. */
typedef struct {
	const char *name;   /* the snapshot directory's prefix */
	const char *output; /* an output's id or name, or a directory URL */
	guint64 max_bytes;  /* 0: the output's bound, if any */
} TcSnapshotOptions;
gboolean tc_session_op_snapshot_record_with(TcSession *session, const TcSnapshotOptions *options,
					    char **directory, GError **error);
/* Snapshot outputs (tc-snapshot-output.h), each under the op_lock. */
gboolean tc_session_op_snapshot_add_output(TcSession *session, const char *name, const char *url,
					   guint64 max_bytes, guint32 *id, GError **error);
GPtrArray *tc_session_op_snapshot_list_outputs(TcSession *session, GError **error);
gboolean tc_session_op_snapshot_del_output(TcSession *session, const char *output, GError **error);
