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
GPtrArray *tc_session_op_list_snapshot_outputs(TcSession *session, GError **error);
gboolean tc_session_op_del_snapshot_output(TcSession *session, const char *output,
					   GError **error);
