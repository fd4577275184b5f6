/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl regenerate statedump [-s SESSION] */
#include "tc-client.h"

int
tc_cmd_regenerate(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("statedump");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autofree char *name = NULL;
	GOptionEntry entries[] = {
	    {"session", 's', 0, G_OPTION_ARG_STRING, &name,
	     "The session (the current one by default)", "NAME"},
	    {NULL},
	};
	int status;

	g_option_context_set_summary(context,
				     "Write the kernel state dump (processes, descriptors, memory "
				     "maps, devices) into a recording session's kernel trace again.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 2 || strcmp(argv[1], "statedump") != 0) {
		g_printerr("Error: 'tracectl regenerate' takes 'statedump' (LTTng's 'metadata' is "
			   "not needed: tracectl's metadata grows with the trace)\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(name, &error);
	if (session)
		reply = tc_client_call(session, "RegenerateStatedump", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonBuilder) builder = json_builder_new();

		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "session",
					       tc_client_session_get_name(session));
		tc_client_output_member_string(builder, "regenerated", "statedump");
		json_builder_end_object(builder);
		tc_client_output_print_builder(builder);
		return TC_EXIT_OK;
	}
	g_print("State dump of session %s regenerated\n", tc_client_session_get_name(session));
	return TC_EXIT_OK;
}
