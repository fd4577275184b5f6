/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl snapshot record [-n NAME] [-m SIZE] [-s SESSION] [URL|OUTPUT]
 * tracectl snapshot add-output [-n NAME] [-s SESSION] URL
 * tracectl snapshot list-output [-s SESSION]
 * tracectl snapshot del-output [-s SESSION] ID|NAME
 */
#include "tc-client.h"

/* {"session", "directory"}: the RecordSnapshot reply. */
static JsonNode *
recorded_json(TcClientSession *session, const char *directory)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "session", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "directory", directory);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

typedef struct {
	char *session_name;
	char *name;
	char *max_size;
} SnapshotOptions;

static void
snapshot_options_clear(SnapshotOptions *options)
{
	g_free(options->session_name);
	g_free(options->name);
	g_free(options->max_size);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SnapshotOptions, snapshot_options_clear)

/* --max-size into *max_size (0 when not given); prints the error. */
static gboolean
parse_max_size(const SnapshotOptions *options, guint64 *max_size)
{
	*max_size = 0;
	if (options->max_size == NULL ||
	    (tc_client_parse_size(options->max_size, max_size) && *max_size > 0))
		return TRUE;
	g_printerr("Error: bad --max-size '%s': give a number of bytes, with k, M or G for KiB, "
		   "MiB, GiB\n",
		   options->max_size);
	return FALSE;
}

static int
record(TcClientSession *session, const SnapshotOptions *options, const char *output)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder builder;
	const char *directory;
	guint64 max_size = 0;

	if (!parse_max_size(options, &max_size))
		return TC_EXIT_USAGE;
	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	if (options->name)
		g_variant_builder_add(&builder, "{sv}", "name",
				      g_variant_new_string(options->name));
	if (max_size)
		g_variant_builder_add(&builder, "{sv}", "max-size", g_variant_new_uint64(max_size));
	if (output)
		g_variant_builder_add(&builder, "{sv}", "output", g_variant_new_string(output));
	reply = tc_client_call(session, "RecordSnapshotWithOptions",
			       g_variant_new("(a{sv})", &builder), &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(&s)", &directory);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = recorded_json(session, directory);

		tc_client_output_print_json(node);
		return TC_EXIT_OK;
	}
	g_print("Snapshot recorded successfully for session %s in %s\n",
		tc_client_session_get_name(session), directory);
	return TC_EXIT_OK;
}

static int
add_output(TcClientSession *session, const SnapshotOptions *options, const char *url)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder builder;
	guint64 max_size = 0;
	guint32 id;

	if (url == NULL) {
		g_printerr("Error: give one URL: /PATH or file:///PATH\n");
		return TC_EXIT_USAGE;
	}
	if (!parse_max_size(options, &max_size))
		return TC_EXIT_USAGE;
	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	if (max_size)
		g_variant_builder_add(&builder, "{sv}", "max-size", g_variant_new_uint64(max_size));
	reply = tc_client_call(
	    session, "AddSnapshotOutput",
	    g_variant_new("(ssa{sv})", options->name ? options->name : "", url, &builder), &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(u)", &id);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonBuilder) json = json_builder_new();
		g_autoptr(JsonNode) node = NULL;

		json_builder_begin_object(json);
		tc_client_output_member_string(json, "session", tc_client_session_get_name(session));
		tc_client_output_member_uint(json, "id", id);
		tc_client_output_member_string(json, "url", url);
		json_builder_end_object(json);
		node = json_builder_get_root(json);
		tc_client_output_print_json(node);
		return TC_EXIT_OK;
	}
	g_print("Snapshot output %u (%s) added to session %s\n", id, url,
		tc_client_session_get_name(session));
	return TC_EXIT_OK;
}

/* {"session", "outputs": [{"id", "name", "url", "max_size"}]}. */
static int
list_outputs_json(TcClientSession *session, GVariantIter *iter)
{
	g_autoptr(JsonBuilder) json = json_builder_new();
	g_autoptr(JsonNode) node = NULL;
	const char *name, *url;
	guint64 max_size;
	guint32 id;

	json_builder_begin_object(json);
	tc_client_output_member_string(json, "session", tc_client_session_get_name(session));
	json_builder_set_member_name(json, "outputs");
	json_builder_begin_array(json);
	while (g_variant_iter_next(iter, "(u&s&st)", &id, &name, &url, &max_size)) {
		json_builder_begin_object(json);
		tc_client_output_member_uint(json, "id", id);
		tc_client_output_member_string(json, "name", name);
		tc_client_output_member_string(json, "url", url);
		tc_client_output_member_uint(json, "max_size", max_size);
		json_builder_end_object(json);
	}
	json_builder_end_array(json);
	json_builder_end_object(json);
	node = json_builder_get_root(json);
	tc_client_output_print_json(node);
	return TC_EXIT_OK;
}

static int
list_outputs(TcClientSession *session)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(session, "ListSnapshotOutputs", NULL, &error);
	g_autoptr(GVariantIter) iter = NULL;
	const char *name, *url;
	guint64 max_size;
	guint32 id;

	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(a(usst))", &iter);
	if (tc_client_output_is_json())
		return list_outputs_json(session, iter);
	g_print("Snapshot outputs of session %s:\n", tc_client_session_get_name(session));
	if (g_variant_iter_n_children(iter) == 0)
		g_print("    (none: snapshots go to the session's output directory)\n");
	while (g_variant_iter_next(iter, "(u&s&st)", &id, &name, &url, &max_size)) {
		if (max_size)
			g_print("    [%u] %s: %s (max size: %" G_GUINT64_FORMAT " bytes)\n", id,
				name, url, max_size);
		else
			g_print("    [%u] %s: %s\n", id, name, url);
	}
	return TC_EXIT_OK;
}

static int
del_output(TcClientSession *session, const char *output)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = NULL;

	if (output == NULL) {
		g_printerr("Error: give the output's ID or NAME (see 'tracectl snapshot "
			   "list-output')\n");
		return TC_EXIT_USAGE;
	}
	reply = tc_client_call(session, "DelSnapshotOutput", g_variant_new("(s)", output), &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Snapshot output %s deleted from session %s\n", output,
		tc_client_session_get_name(session));
	return TC_EXIT_OK;
}

int
tc_cmd_snapshot(int argc, char **argv)
{
	g_auto(SnapshotOptions) options = {0};
	const GOptionEntry entries[] = {
	    {"session", 's', 0, G_OPTION_ARG_STRING, &options.session_name,
	     "The session (default: the current one)", "SESSION"},
	    {"name", 'n', 0, G_OPTION_ARG_STRING, &options.name,
	     "record: the snapshot's name; add-output: the output's name", "NAME"},
	    {"max-size", 'm', 0, G_OPTION_ARG_STRING, &options.max_size,
	     "Write at most SIZE bytes (k, M, G suffixes) per snapshot, the newest data", "SIZE"},
	    {NULL},
	};
	g_autoptr(GOptionContext) context =
	    g_option_context_new("record|add-output|list-output|del-output [ARGUMENT]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	const char *action, *argument;
	int status;

	g_option_context_set_summary(
	    context,
	    "Take and manage snapshots of a snapshot session (tracectl create --snapshot), "
	    "the current one by default.\n\n"
	    "  record [URL|OUTPUT]    Write what the buffers hold now into a new "
	    "directory\n"
	    "                         of the session's output directory, of the snapshot\n"
	    "                         output OUTPUT (an ID or NAME), or of URL; tracing\n"
	    "                         goes on. --name names the directory, --max-size\n"
	    "                         bounds what is written, keeping the newest data.\n"
	    "  add-output URL         Add a snapshot output: /PATH, file:///PATH or an\n"
	    "                         lttng-relayd's net://HOST[:CTRL[:DATA]], with\n"
	    "                         --name and --max-size for its snapshots.\n"
	    "  list-output            List the session's snapshot outputs.\n"
	    "  del-output ID|NAME     Delete a snapshot output.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc < 2 || argc > 3) {
		g_printerr("Error: give an action: record, add-output, list-output or del-output "
			   "(try 'tracectl snapshot --help')\n");
		return TC_EXIT_USAGE;
	}
	action = argv[1];
	argument = argc == 3 ? argv[2] : NULL;
	if (!g_str_equal(action, "record") && !g_str_equal(action, "add-output") &&
	    !g_str_equal(action, "list-output") && !g_str_equal(action, "del-output")) {
		g_printerr("Error: unknown snapshot action '%s' (try 'tracectl snapshot --help')\n",
			   action);
		return TC_EXIT_USAGE;
	}
	if (g_str_equal(action, "list-output") && argument) {
		g_printerr("Error: list-output takes no argument\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(options.session_name, &error);
	if (session == NULL)
		return tc_client_fail(error);
	if (g_str_equal(action, "record"))
		return record(session, &options, argument);
	if (g_str_equal(action, "add-output"))
		return add_output(session, &options, argument);
	if (g_str_equal(action, "list-output"))
		return list_outputs(session);
	return del_output(session, argument);
}
