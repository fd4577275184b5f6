/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl set-session NAME: the current session of the CLI. */
#include "tc-client.h"

int
tc_cmd_set_session(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("NAME");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	int status;

	g_option_context_set_summary(
	    context, "Set the current tracing session: the one that commands act on when "
		     "they are given no session name. The name is kept in ~/.tracectlrc, "
		     "like lttng's ~/.lttngrc; the session must be one of yours.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 2) {
		g_printerr("Error: give one session NAME (try 'tracectl set-session --help')\n");
		return TC_EXIT_USAGE;
	}
	if (tc_client_is_remote())
		return tc_client_remote_refused(
		    "there is no current session: it is this machine's (~/.tracectlrc); name "
		    "the session in each command");
	/* Only a session the caller owns becomes current: FindSession looks
	 * among the caller's own sessions. */
	session = tc_client_session(argv[1], &error);
	if (session == NULL)
		return tc_client_fail(error);
	if (!tc_client_set_current_session(tc_client_session_get_name(session), &error))
		return tc_client_fail(error);
	g_print("Session set to %s\n", tc_client_session_get_name(session));
	return TC_EXIT_OK;
}
