/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl view [NAME] [--viewer CMD] [--live [--live-port PORT]]:
 * babeltrace2 on the session's trace, or on its live stream. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-client.h"

/* lttng-relayd's default port for live viewers. */
#define LIVE_PORT_DEFAULT 5344

int
tc_cmd_view(int argc, char **argv)
{
	g_autofree char *viewer = NULL;
	gboolean live = FALSE;
	gint live_port = LIVE_PORT_DEFAULT;
	const GOptionEntry entries[] = {
		{"viewer", 0, 0, G_OPTION_ARG_STRING, &viewer,
		 "Run CMD on the trace directory (default: babeltrace2)", "CMD"},
		{"live", 0, 0, G_OPTION_ARG_NONE, &live,
		 "Read a live session from its relay daemon while it records", NULL},
		{"live-port", 0, 0, G_OPTION_ARG_INT, &live_port,
		 "The relay daemon's port for live viewers (default: 5344)", "PORT"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	g_auto(GStrv) command = NULL;
	g_autoptr(GStrvBuilder) args = g_strv_builder_new();
	int status;

	g_option_context_set_summary(context, "Print a session's trace (the current session by "
					      "default) with babeltrace2.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2) {
		g_printerr("Error: too many arguments (try 'tracectl view --help')\n");
		return TC_EXIT_USAGE;
	}
	if (live_port < 1 || live_port > G_MAXUINT16) {
		g_printerr("Error: --live-port takes a port between 1 and 65535\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(argc == 2 ? argv[1] : NULL, &error);
	if (session == NULL)
		return tc_client_fail(error);
	if (live)
		return tc_client_view_live(session, viewer, (guint16)live_port);
	if (!g_shell_parse_argv(viewer ? viewer : "babeltrace2", NULL, &command, &error))
		return tc_client_fail(error);
	g_strv_builder_addv(args, (const char **)command);
	g_strv_builder_add(args, tc_dbus_session_get_output_directory(session));
	g_strfreev(command);
	command = g_strv_builder_end(args);
	fflush(stdout);
	execvp(command[0], command);
	g_printerr("Error: cannot run %s: %s\n", command[0], g_strerror(errno));
	return TC_EXIT_FAILURE;
}
