/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl status: the current session. */
#include "tc-client.h"

int
tc_cmd_status(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	int status;

	g_option_context_set_summary(context, "Show the current session.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 1) {
		g_printerr("Error: status takes no argument (try 'tracectl list NAME')\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(NULL, &error);
	if (session == NULL)
		return tc_client_fail(error);
	return tc_client_print_session(session);
}
