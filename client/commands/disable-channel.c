/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl disable-channel -u|-k NAME[,NAME...] [-s SESSION] */
#include "tc-client.h"

int
tc_cmd_disable_channel(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE;
	g_autofree char *session_name = NULL;
	const GOptionEntry entries[] = {
	    {"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
	    {"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel,
	     "Kernel domain (its one channel, channel0)", NULL},
	    {"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
	     "The session (default: the current one)", "SESSION"},
	    {NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("-u|-k NAME[,NAME...]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_auto(GStrv) names = NULL;
	int status = TC_EXIT_OK;

	g_option_context_set_summary(
	    context, "Disable one or more channels of a session (the current one by default): "
		     "the events enabled in them are no longer recorded, while the channels, "
		     "their buffers and their enabled events stay. 'tracectl enable-channel' "
		     "with the same name enables a channel again. A channel can be disabled "
		     "whether the session records or not.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (userspace == kernel || argc != 2) {
		g_printerr("Error: give -u or -k and one NAME[,NAME...] (try 'tracectl "
			   "disable-channel --help')\n");
		return TC_EXIT_USAGE;
	}
	names = tc_client_split_patterns(argv[1]);
	if (names[0] == NULL) {
		g_printerr("Error: no channel name given\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session == NULL)
		return tc_client_fail(error);
	for (guint i = 0; names[i]; i++) {
		g_autoptr(GVariant) reply = tc_client_call(
		    session, "DisableChannel",
		    g_variant_new("(ss)", kernel ? "kernel" : "ust", names[i]), &error);

		if (reply == NULL) {
			status = tc_client_fail(error);
			g_clear_error(&error);
			continue;
		}
		g_print("%s channel %s disabled for session %s\n", kernel ? "Kernel" : "UST",
			names[i], tc_client_session_get_name(session));
	}
	return status;
}
