/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl export [SESSION] [--trace DIR]... [--live] --url URL | --output FILE:
 * the spans of a trace, or of a live session as it records, to
 * OpenTelemetry or Zipkin, through babeltrace2 and the tracectl plugin
 * (exporter/), whose sink does the work; this only builds its command line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tc-client.h"

typedef struct {
	const char *name;      /* --format */
	const char *component; /* babeltrace2 sink */
	const char *params;    /* fixed parameters, or NULL */
} ExportFormat;

static const ExportFormat formats[] = {
	{"otlp", "sink.tracectl.otlp", NULL},
	{"otlp-json", "sink.tracectl.otlp", "encoding=\"json\""},
	{"zipkin", "sink.tracectl.zipkin", NULL},
};

static const ExportFormat *
find_format(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(formats); i++)
		if (g_str_equal(formats[i].name, name))
			return &formats[i];
	return NULL;
}

/* A babeltrace2 string parameter: name="value", quotes and backslashes escaped. */
static char *
string_param(const char *name, const char *value)
{
	GString *out = g_string_new(name);

	g_string_append(out, "=\"");
	for (const char *c = value; *c; c++) {
		if (*c == '"' || *c == '\\')
			g_string_append_c(out, '\\');
		g_string_append_c(out, *c);
	}
	g_string_append_c(out, '"');
	return g_string_free(out, FALSE);
}

static gboolean
check_destination(const char *url, const char *output, GError **error)
{
	if (!url == !output) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
			    "give one of --url URL or --output FILE ('-': standard output)");
		return FALSE;
	}
	if (url && !g_str_has_prefix(url, "http://") && !g_str_has_prefix(url, "https://")) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--url '%s': an http:// or https:// URL is needed, e.g. "
			    "http://127.0.0.1:4318/v1/traces", url);
		return FALSE;
	}
	return TRUE;
}

/* The plugin's directory: $TRACECTL_BT_PLUGIN_PATH (a build tree), else
 * where it is installed. */
static const char *
plugin_dir(void)
{
	const char *dir = g_getenv("TRACECTL_BT_PLUGIN_PATH");

	return dir && *dir ? dir : TRACECTL_BT_PLUGIN_DIR;
}

/* The session's trace root, or its live viewer URL with live; NULL with
 * the error printed. */
static char *
session_trace(const char *name, gboolean live, int live_port, int *status)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = tc_client_session(name, &error);
	char *input = NULL;

	if (session == NULL) {
		*status = tc_client_fail(error);
		return NULL;
	}
	if (live) {
		input = tc_client_live_viewer_url(session, (guint16)live_port, &error);
	} else if (*tc_client_session_get_output_directory(session) != '\0') {
		input = g_strdup(tc_client_session_get_output_directory(session));
	} else {
		g_set_error(&error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "Session '%s' streams to a relay daemon, where its trace is (export "
			    "a live session with --live, or the relay's copy with --trace)",
			    tc_client_session_get_name(session));
	}
	if (input == NULL)
		*status = tc_client_fail(error);
	return input;
}

static char **
command_line(const ExportFormat *format, char **traces, const char *url, const char *output,
	     int batch_size)
{
	g_autoptr(GStrvBuilder) args = g_strv_builder_new();
	g_autoptr(GString) params = g_string_new(NULL);
	g_autofree char *destination = url ? string_param("url", url)
					   : string_param("path", output);
	g_autofree char *plugin_path = g_strdup_printf("--plugin-path=%s", plugin_dir());

	g_strv_builder_add(args, "babeltrace2");
	g_strv_builder_add(args, plugin_path);
	/* A live session: wait for none that the relay does not know. */
	if (traces[0] && g_str_has_prefix(traces[0], "net://"))
		g_strv_builder_add_many(args, "--input-format=lttng-live", traces[0], "--params",
					"session-not-found-action=\"fail\"", NULL);
	else
		g_strv_builder_addv(args, (const char **)traces);
	g_strv_builder_add_many(args, "-c", format->component, NULL);
	g_string_append(params, destination);
	if (format->params)
		g_string_append_printf(params, ",%s", format->params);
	if (batch_size > 0)
		g_string_append_printf(params, ",batch-size=%d", batch_size);
	g_strv_builder_add_many(args, "-p", params->str, NULL);
	return g_strv_builder_end(args);
}

int
tc_cmd_export(int argc, char **argv)
{
	g_autofree char *format_name = NULL;
	g_autofree char *url = NULL;
	g_autofree char *output = NULL;
	g_auto(GStrv) traces = NULL;
	int batch_size = 0;
	gboolean live = FALSE;
	int live_port = TC_CLIENT_LIVE_PORT_DEFAULT;
	const GOptionEntry entries[] = {
		{"format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
		 "otlp (OTLP/HTTP protobuf, the default), otlp-json or zipkin", "FORMAT"},
		{"url", 0, 0, G_OPTION_ARG_STRING, &url,
		 "POST the spans there, e.g. http://127.0.0.1:4318/v1/traces (OTLP) or "
		 "http://127.0.0.1:9411/api/v2/spans (Zipkin)", "URL"},
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		 "Write them to FILE ('-': standard output)", "FILE"},
		{"trace", 't', 0, G_OPTION_ARG_FILENAME_ARRAY, &traces,
		 "Read this trace directory instead of a session's (repeatable: traces of "
		 "several machines are joined)", "DIR"},
		{"live", 0, 0, G_OPTION_ARG_NONE, &live,
		 "Export a live session while it records, from its relay daemon: spans are "
		 "sent as they end, until the session is destroyed", NULL},
		{"live-port", 0, 0, G_OPTION_ARG_INT, &live_port,
		 "The relay daemon's port for live viewers (default: 5344)", "PORT"},
		{"batch-size", 0, 0, G_OPTION_ARG_INT, &batch_size,
		 "With --url, send ended spans in requests of at most N spans (default 512)", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[SESSION]");
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) command = NULL;
	const ExportFormat *format;
	int status;

	g_option_context_set_summary(
		context, "Export the spans (tracectl/span.h) a session recorded, or those of the "
			 "traces given, to an OpenTelemetry or Zipkin back end. Spans are joined "
			 "by trace id across every trace read; spans whose process died before "
			 "they ended are exported with tracectl.unfinished=true.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	format = find_format(format_name ? format_name : "otlp");
	if (format == NULL || argc > 2 || (argc == 2 && traces) || batch_size < 0 ||
	    (live && traces) || live_port < 1 || live_port > G_MAXUINT16 ||
	    !check_destination(url, output, &error)) {
		g_printerr("Error: %s (try 'tracectl export --help')\n",
			   error ? error->message
			   : format == NULL ? "--format: otlp, otlp-json or zipkin"
			   : batch_size < 0 ? "--batch-size: a positive number"
			   : live_port < 1 || live_port > G_MAXUINT16
				   ? "--live-port: a port between 1 and 65535"
				   : "give a session name or --trace, not both (nor --trace with --live)");
		return TC_EXIT_USAGE;
	}
	/* --trace reads this machine's directories and needs no service. */
	if (traces == NULL && tc_client_is_remote() && !live)
		return tc_client_remote_refused(
		    "export cannot read the session's trace: it is on that host (export a live "
		    "session with --live, or a copy of the trace with --trace DIR)");
	if (traces == NULL) {
		char *root = session_trace(argc == 2 ? argv[1] : NULL, live, live_port, &status);

		if (root == NULL)
			return status;
		traces = g_new0(char *, 2);
		traces[0] = root;
	}
	command = command_line(format, traces, url, output, batch_size);
	fflush(stdout);
	execvp(command[0], command);
	g_printerr("Error: cannot run %s: %s\n", command[0], g_strerror(errno));
	return TC_EXIT_FAILURE;
}
