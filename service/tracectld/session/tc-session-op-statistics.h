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
