/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl snapshot record [-s SESSION] */
#include "tc-client.h"

/* {"session", "directory"}: the RecordSnapshot reply. */
static JsonNode *
recorded_json(TcDbusSession *session, const char *directory)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "session", tc_dbus_session_get_name(session));
	tc_client_output_member_string(builder, "directory", directory);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_cmd_snapshot(int argc, char **argv)
{
	g_autofree char *session_name = NULL;
	const GOptionEntry entries[] = {
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("record");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	const char *directory;
	int status;

	g_option_context_set_summary(context,
				     "Write what the buffers of a snapshot session hold now into "
				     "a new directory of its output; tracing goes on.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 2 || !g_str_equal(argv[1], "record")) {
		g_printerr("Error: the only snapshot action is 'record' (try 'tracectl snapshot "
			   "--help')\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session)
		reply = tc_client_call(session, "RecordSnapshot", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(&s)", &directory);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = recorded_json(session, directory);

		tc_client_output_print_json(node);
	} else {
		g_print("Snapshot recorded in %s\n", directory);
	}
	return TC_EXIT_OK;
}
