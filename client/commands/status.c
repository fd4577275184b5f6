/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl status: the current session. */
#include "tc-client.h"

/* Who serves LTTng-UST applications, asked for before the session is
 * looked up and printed first (text only: the JSON output is the
 * session's). NULL when not asked. */
static TcClientPending *
ask_lttng_status(void)
{
	g_autoptr(TcClientManager) manager = NULL;

	if (tc_client_output_is_json())
		return NULL;
	manager = tc_client_manager(NULL);
	return manager ? tc_client_manager_property_ask("LttngUstApplications") : NULL;
}

static void
print_lttng_status(TcClientPending *pending)
{
	g_autoptr(GVariant) status = pending ? tc_client_pending_wait(pending) : NULL;

	if (status && g_variant_is_of_type(status, G_VARIANT_TYPE_STRING))
		g_print("LTTng-UST applications: %s\n", g_variant_get_string(status, NULL));
}

int
tc_cmd_status(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) statistics = NULL;
	TcClientPending *lttng_status;
	int status;

	g_option_context_set_summary(context, "Show the current session.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 1) {
		g_printerr("Error: status takes no argument (try 'tracectl list NAME')\n");
		return TC_EXIT_USAGE;
	}
	/* Its answer comes while the session is looked up: one wait less. */
	lttng_status = ask_lttng_status();
	session = tc_client_session_describe(NULL, &statistics, &error);
	print_lttng_status(lttng_status);
	if (session == NULL)
		return tc_client_fail(error);
	return tc_client_print_session(session, statistics);
}
