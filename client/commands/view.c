/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl view [NAME] [--viewer CMD] [--trace-path] [--live [--live-port PORT]]:
 * babeltrace2 on the session's trace, or on its live stream. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-client.h"

/* The trace directory of the session named (the current one for NULL),
 * or of a session of that name the caller destroyed lately. */
static char *
trace_path(const char *name, GError **error)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(TcClientSession) session = tc_client_session(name, &local_error);
	char *destroyed;

	if (session && *tc_client_session_get_output_directory(session) == '\0') {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "session '%s' streams to %s; its trace is on the relay daemon "
			    "(tracectl view --live for a live session)",
			    tc_client_session_get_name(session),
			    tc_client_session_get_output_url(session));
		return NULL;
	}
	if (session)
		return g_strdup(tc_client_session_get_output_directory(session));
	destroyed = name ? tc_client_destroyed_trace(name) : NULL;
	if (destroyed)
		return destroyed;
	g_propagate_error(error, g_steal_pointer(&local_error));
	return NULL;
}


int
tc_cmd_view(int argc, char **argv)
{
	g_autofree char *viewer = NULL;
	gboolean print_path = FALSE;
	gboolean live = FALSE;
	gint live_port = TC_CLIENT_LIVE_PORT_DEFAULT;
	const GOptionEntry entries[] = {
	    {"viewer", 'e', 0, G_OPTION_ARG_STRING, &viewer,
	     "Run CMD on the trace directory (default: babeltrace2)", "CMD"},
	    {"trace-path", 't', 0, G_OPTION_ARG_NONE, &print_path,
	     "Print the trace directory instead of viewing it", NULL},
	    {"live", 0, 0, G_OPTION_ARG_NONE, &live,
	     "Read a live session from its relay daemon while it records", NULL},
	    {"live-port", 0, 0, G_OPTION_ARG_INT, &live_port,
	     "The relay daemon's port for live viewers (default: 5344)", "PORT"},
	    {NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autofree char *path = NULL;
	g_auto(GStrv) command = NULL;
	g_autoptr(GStrvBuilder) args = g_strv_builder_new();
	int status;

	g_option_context_set_summary(
	    context, "View the trace of a tracing session (the current one by default) "
		     "with babeltrace2, or with the viewer of --viewer, which gets the trace "
		     "directory as its last argument. A session you destroyed lately is "
		     "still found by NAME: tracectl remembers the trace directories of your "
		     "last 16 destroyed sessions in ~/.tracectl-destroyed.");
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
	/* The trace is in a directory of the remote machine: a viewer here
	 * would read this machine's directory of that name, if any. */
	if (tc_client_is_remote() && !live && !print_path)
		return tc_client_remote_refused(
		    "view cannot read the trace: it is on that host ('view --trace-path' "
		    "prints its directory there; or view a live session with --live)");
	if (live) {
		g_autoptr(TcClientSession) session = tc_client_session(argc == 2 ? argv[1] : NULL,
								     &error);

		if (session == NULL)
			return tc_client_fail(error);
		return tc_client_view_live(session, viewer, (guint16)live_port);
	}
	path = trace_path(argc == 2 ? argv[1] : NULL, &error);
	if (path == NULL)
		return tc_client_fail(error);
	if (print_path) {
		g_print("%s\n", path);
		return TC_EXIT_OK;
	}
	if (!g_shell_parse_argv(viewer ? viewer : "babeltrace2", NULL, &command, &error))
		return tc_client_fail(error);
	g_strv_builder_addv(args, (const char **)command);
	g_strv_builder_add(args, path);
	g_strfreev(command);
	command = g_strv_builder_end(args);
	fflush(stdout);
	execvp(command[0], command);
	g_printerr("Error: cannot run %s: %s\n", command[0], g_strerror(errno));
	return TC_EXIT_FAILURE;
}
