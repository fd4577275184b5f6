/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl clear [SESSION] */
#include "tc-client.h"

int
tc_cmd_clear(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("[SESSION]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	int status;

	g_option_context_set_summary(context,
				     "Drop what a session (the current one by default) recorded "
				     "so far; recording goes on. Archives are kept.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2) {
		g_printerr("Error: too many arguments (try 'tracectl clear --help')\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(argc == 2 ? argv[1] : NULL, &error);
	if (session)
		reply = tc_client_call(session, "Clear", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Session %s cleared\n", tc_client_session_get_name(session));
	return TC_EXIT_OK;
}
