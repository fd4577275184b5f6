/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl create [NAME] [-o DIR] [--snapshot] */
#include "tc-client.h"

/* {"name", "path", "output_directory", "snapshot"} of the new session. */
static JsonNode *
created_json(TcDbusSession *session)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", tc_dbus_session_get_name(session));
	tc_client_output_member_string(builder, "path",
				       g_dbus_proxy_get_object_path(G_DBUS_PROXY(session)));
	tc_client_output_member_string(builder, "output_directory",
				       tc_dbus_session_get_output_directory(session));
	tc_client_output_member_bool(builder, "snapshot", tc_dbus_session_get_snapshot(session));
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static void
print_created_text(TcDbusSession *session, const char *name, gboolean snapshot)
{
	g_print("%s %s created.\n", snapshot ? "Snapshot session" : "Session", name);
	g_print("Traces will be written in %s%s\n", tc_dbus_session_get_output_directory(session),
		snapshot ? " on 'tracectl snapshot record'" : "");
}

int
tc_cmd_create(int argc, char **argv)
{
	g_autofree char *output = NULL;
	gboolean snapshot = FALSE;
	const GOptionEntry entries[] = {
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		 "Write the trace in DIR (default: ~/tracectl-traces/NAME-DATE-TIME)", "DIR"},
		{"snapshot", 0, 0, G_OPTION_ARG_NONE, &snapshot,
		 "Snapshot session: record in overwrite buffers, write only on 'tracectl "
		 "snapshot record'",
		 NULL},
		{NULL},
	};
	GVariantBuilder options;
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusManager) manager = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autofree char *name = NULL, *directory = NULL;
	int status;

	g_option_context_set_summary(context,
				     "Create a tracing session and make it the current one.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2) {
		g_printerr("Error: too many arguments (try 'tracectl create --help')\n");
		return TC_EXIT_USAGE;
	}
	if (argc == 2) {
		name = g_strdup(argv[1]);
	} else {
		g_autoptr(GDateTime) now = g_date_time_new_now_local();

		name = g_date_time_format(now, "auto-%Y%m%d-%H%M%S");
	}
	if (output)
		directory = g_canonicalize_filename(output, NULL);
	manager = tc_client_manager(&error);
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (snapshot)
		g_variant_builder_add(&options, "{sv}", "snapshot", g_variant_new_boolean(TRUE));
	if (manager)
		reply = tc_client_call(manager, "CreateSessionWithOptions",
				       g_variant_new("(ssa{sv})", name, directory ? directory : "",
						     &options),
				       &error);
	else
		g_variant_builder_clear(&options);
	if (reply)
		session = tc_client_session(name, &error);
	if (session == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = created_json(session);

		tc_client_output_print_json(node);
	} else {
		print_created_text(session, name, snapshot);
	}
	if (!tc_client_set_current_session(name, &error))
		g_printerr("Warning: cannot remember the current session: %s\n", error->message);
	return TC_EXIT_OK;
}
