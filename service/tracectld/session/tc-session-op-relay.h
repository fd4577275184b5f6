/* What the session's relay lost, if it streams, asked of the owner's
 * consumer and put in Problem (a new state logged, naming the session,
 * its owner and the relay's URL) as ChannelStatistics does: for a session
 * set up with no caller to answer, such as one loaded at start, and by the
 * relay watch (tc-relay-watch.h). Skipped while another operation holds
 * the session, and when the owner's consumer is not running. */
void tc_session_op_refresh_relay_problem(TcSession *session);
