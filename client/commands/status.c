/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl status: the current session. */
#include "tc-client.h"

/* Who serves LTTng-UST applications, when the service says (text only:
 * the JSON output is the session's). */
static void
print_lttng_status(void)
{
	g_autoptr(TcDbusManager) manager = NULL;
	g_autoptr(GVariant) status = NULL;

	if (tc_client_output_is_json())
		return;
	manager = tc_client_manager(NULL);
	status = manager ? tc_client_manager_property(manager, "LttngUstApplications") : NULL;
	if (status && g_variant_is_of_type(status, G_VARIANT_TYPE_STRING))
		g_print("LTTng-UST applications: %s\n", g_variant_get_string(status, NULL));
}

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
	print_lttng_status();
	session = tc_client_session(NULL, &error);
	if (session == NULL)
		return tc_client_fail(error);
	return tc_client_print_session(session);
}
