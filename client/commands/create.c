/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl create [NAME] [-o DIR | -U URL | -C URL -D URL] [--live[=US]] [--snapshot] */
#include "tc-client.h"

/* lttng create --live: a one-second timer unless given. */
#define LIVE_TIMER_DEFAULT_US 1000000u

static guint32 live_timer_us;

static gboolean
parse_live_cb(const char *option, const char *value, gpointer data, GError **error)
{
	guint64 parsed;

	live_timer_us = LIVE_TIMER_DEFAULT_US;
	if (value == NULL)
		return TRUE;
	if (!g_ascii_string_to_unsigned(value, 10, 1, G_MAXUINT32, &parsed, NULL)) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--live takes a timer in microseconds, not '%s'", value);
		return FALSE;
	}
	live_timer_us = (guint32)parsed;
	return TRUE;
}

static void
add_string_option(GVariantBuilder *options, const char *key, const char *value)
{
	if (value != NULL)
		g_variant_builder_add(options, "{sv}", key, g_variant_new_string(value));
}

/* Where the trace goes, as the service says. */
static void
print_output(TcClientSession *session, gboolean snapshot)
{
	const char *url = tc_client_session_get_output_url(session);
	guint32 live = tc_client_session_get_live_timer(session);

	if (url == NULL || !g_str_has_prefix(url, "net")) {
		g_print("Traces will be written in %s%s\n",
			tc_client_session_get_output_directory(session),
			snapshot ? " on 'tracectl snapshot record'" : "");
		return;
	}
	g_print("Traces will be streamed to %s%s\n", url,
		snapshot ? " on 'tracectl snapshot record'" : "");
	if (live)
		g_print("Live timer: %u us; watch with 'tracectl view --live'\n", live);
}

/* {"name", "path", "output_directory", "output_url", "live_timer_us",
 * "snapshot"} of the new session. */
static JsonNode *
created_json(TcClientSession *session)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "path",
				       tc_client_object_path(session));
	tc_client_output_member_string(builder, "output_directory",
				       tc_client_session_get_output_directory(session));
	tc_client_output_member_string(builder, "output_url",
				       tc_client_session_get_output_url(session)
					       ? tc_client_session_get_output_url(session)
					       : "");
	tc_client_output_member_uint(builder, "live_timer_us",
				     tc_client_session_get_live_timer(session));
	tc_client_output_member_bool(builder, "snapshot", tc_client_session_get_snapshot(session));
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_cmd_create(int argc, char **argv)
{
	g_autofree char *output = NULL;
	g_autofree char *set_url = NULL, *ctrl_url = NULL, *data_url = NULL;
	gboolean snapshot = FALSE;
	const GOptionEntry entries[] = {
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		 "Write the trace in DIR (default: ~/tracectl-traces/NAME-DATE-TIME)", "DIR"},
		{"set-url", 'U', 0, G_OPTION_ARG_STRING, &set_url,
		 "Stream to net://HOST[:CTRL[:DATA]] or net6://[ADDR]... (lttng-relayd), "
		 "through SSH to net+ssh://[USER@]HOST[:SSH_PORT][/CTRL[:DATA]] (lttng-relayd on "
		 "HOST's loopback), or write in file://DIR",
		 "URL"},
		{"ctrl-url", 'C', 0, G_OPTION_ARG_STRING, &ctrl_url,
		 "Control connection tcp://HOST[:PORT] (with --data-url)", "URL"},
		{"data-url", 'D', 0, G_OPTION_ARG_STRING, &data_url,
		 "Data connection tcp://HOST[:PORT] (with --ctrl-url)", "URL"},
		{"live", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, parse_live_cb,
		 "Live session: flush to the relay every US microseconds (default 1000000), to "
		 "net://127.0.0.1 unless a URL is given",
		 "US"},
		{"snapshot", 0, 0, G_OPTION_ARG_NONE, &snapshot,
		 "Snapshot session: record in overwrite buffers, write only on 'tracectl "
		 "snapshot record'",
		 NULL},
		{NULL},
	};
	GVariantBuilder options;
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(TcClientSession) session = NULL;
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
	/* A relative directory is this machine's working directory's. */
	if (output && tc_client_is_remote() && !g_path_is_absolute(output))
		return tc_client_remote_refused("--output needs an absolute path on that host");
	if (output)
		directory = g_canonicalize_filename(output, NULL);
	manager = tc_client_manager(&error);
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (snapshot)
		g_variant_builder_add(&options, "{sv}", "snapshot", g_variant_new_boolean(TRUE));
	add_string_option(&options, "url", set_url);
	add_string_option(&options, "ctrl-url", ctrl_url);
	add_string_option(&options, "data-url", data_url);
	if (live_timer_us)
		g_variant_builder_add(&options, "{sv}", "live-timer-us",
				      g_variant_new_uint32(live_timer_us));
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
		g_print("%s %s created.\n", snapshot ? "Snapshot session" : "Session", name);
		print_output(session, snapshot);
	}
	if (!tc_client_set_current_session(name, &error))
		g_printerr("Warning: cannot remember the current session: %s\n", error->message);
	return TC_EXIT_OK;
}
