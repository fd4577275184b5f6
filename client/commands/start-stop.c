/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl start [NAME], tracectl stop [NAME] [-n] */
#include "tc-client.h"

/* {"name", "path", "state"}: the state the successful call left. */
static JsonNode *
state_json(TcClientSession *session, const char *state)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", tc_client_session_name(session));
	tc_client_output_member_string(builder, "path",
				       tc_client_object_path(session));
	tc_client_output_member_string(builder, "state", state);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
run_state_change(int argc, char **argv, const char *method, const char *summary,
		 const char *done_verb, const char *state, gboolean has_no_wait)
{
	gboolean no_wait = FALSE;
	const GOptionEntry entries[] = {
	    {"no-wait", 'n', 0, G_OPTION_ARG_NONE, &no_wait,
	     "Return without waiting for the trace to be written out", NULL},
	    {NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	int status;

	g_option_context_set_summary(context, summary);
	if (has_no_wait)
		g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2) {
		g_printerr("Error: too many arguments (try 'tracectl %s --help')\n", argv[0]);
		return TC_EXIT_USAGE;
	}
	/* Nothing but its name is read, and that is the name it is found by. */
	session = tc_client_session_unloaded(argc == 2 ? argv[1] : NULL, &error);
	if (session && no_wait) {
		GVariantBuilder options;

		g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
		g_variant_builder_add(&options, "{sv}", "no-wait", g_variant_new_boolean(TRUE));
		reply = tc_client_call(session, "StopWithOptions",
				       g_variant_new("(a{sv})", &options), &error);
	} else if (session) {
		reply = tc_client_call(session, method, NULL, &error);
	}
	if (reply == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = state_json(session, state);

		tc_client_output_print_json(node);
	} else {
		g_print("Tracing %s for session %s\n", done_verb, tc_client_session_name(session));
	}
	return TC_EXIT_OK;
}

int
tc_cmd_start(int argc, char **argv)
{
	return run_state_change(argc, argv, "Start",
				"Start recording in a session (the current one by default).",
				"started", "active", FALSE);
}

int
tc_cmd_stop(int argc, char **argv)
{
	return run_state_change(
	    argc, argv, "Stop",
	    "Stop recording in a session (the current one by default). By default the "
	    "command returns once everything recorded is written out, so that the "
	    "trace can be read at once; with --no-wait it returns as soon as the "
	    "service has the request, and the trace is written out meanwhile.",
	    "stopped", "inactive", TRUE);
}
