/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Text or JSON output, exit statuses and error objects (tc-client-output.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-client-output.h"

#define JSON_OPTION "--json"
#define PRETTY_INDENT 2

static TcOutputMode output_mode = TC_OUTPUT_TEXT;
/* What g_printerr() wrote while --json holds it back (begin/end). */
static GString *held_messages;
static guint errors_reported;

G_DEFINE_QUARK(tc-client-error-quark, tc_client_error)

gboolean
tc_client_output_parse_mode(const char *value, gboolean is_terminal, TcOutputMode *mode)
{
	if (value == NULL)
		*mode = is_terminal ? TC_OUTPUT_JSON_PRETTY : TC_OUTPUT_JSON_SHORT;
	else if (g_str_equal(value, "short"))
		*mode = TC_OUTPUT_JSON_SHORT;
	else if (g_str_equal(value, "pretty"))
		*mode = TC_OUTPUT_JSON_PRETTY;
	else
		return FALSE;
	return TRUE;
}

gboolean
tc_client_output_take_option(int *argc, char **argv, const char **bad)
{
	int kept = 0, i;

	for (i = 0; i < *argc && !g_str_equal(argv[i], "--"); i++) {
		const char *value = NULL;
		TcOutputMode mode;

		if (g_str_has_prefix(argv[i], JSON_OPTION "="))
			value = argv[i] + strlen(JSON_OPTION "=");
		else if (!g_str_equal(argv[i], JSON_OPTION)) {
			argv[kept++] = argv[i];
			continue;
		}
		if (!tc_client_output_parse_mode(value, isatty(STDOUT_FILENO), &mode)) {
			*bad = argv[i];
			return FALSE;
		}
		output_mode = mode;
	}
	for (; i < *argc; i++)
		argv[kept++] = argv[i];
	argv[kept] = NULL;
	*argc = kept;
	return TRUE;
}

void
tc_client_output_set_mode(TcOutputMode mode)
{
	output_mode = mode;
}

TcOutputMode
tc_client_output_get_mode(void)
{
	return output_mode;
}

gboolean
tc_client_output_is_json(void)
{
	return output_mode != TC_OUTPUT_TEXT;
}

char *
tc_client_output_to_string(JsonNode *node, gboolean pretty)
{
	g_autoptr(JsonGenerator) generator = json_generator_new();

	json_generator_set_root(generator, node);
	json_generator_set_pretty(generator, pretty);
	json_generator_set_indent(generator, PRETTY_INDENT);
	return json_generator_to_data(generator, NULL);
}

void
tc_client_output_print_json(JsonNode *node)
{
	g_autofree char *text =
		tc_client_output_to_string(node, output_mode == TC_OUTPUT_JSON_PRETTY);

	g_print("%s\n", text);
}

void
tc_client_output_print_builder(JsonBuilder *builder)
{
	g_autoptr(JsonNode) node = json_builder_get_root(builder);

	tc_client_output_print_json(node);
}

void
tc_client_output_member_string(JsonBuilder *builder, const char *key, const char *value)
{
	json_builder_set_member_name(builder, key);
	if (value)
		json_builder_add_string_value(builder, value);
	else
		json_builder_add_null_value(builder);
}

void
tc_client_output_member_int(JsonBuilder *builder, const char *key, gint64 value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_int_value(builder, value);
}

void
tc_client_output_member_uint(JsonBuilder *builder, const char *key, guint64 value)
{
	tc_client_output_member_int(builder, key, (gint64)MIN(value, (guint64)G_MAXINT64));
}

void
tc_client_output_member_bool(JsonBuilder *builder, const char *key, gboolean value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_boolean_value(builder, value);
}

void
tc_client_output_member_strv(JsonBuilder *builder, const char *key, const char *const *values)
{
	json_builder_set_member_name(builder, key);
	json_builder_begin_array(builder);
	for (guint i = 0; values && values[i]; i++)
		json_builder_add_string_value(builder, values[i]);
	json_builder_end_array(builder);
}

typedef struct {
	const char *name;
	int status;
} ErrorStatus;

/* D-Bus error names that say more than "it failed". Every other name, the
 * service's Failed, InvalidArgument, AlreadyExists, InvalidState,
 * NotSupported and LimitExceeded among them, gives TC_EXIT_FAILURE: usage
 * errors are the command lines the CLI itself rejects, before any call.
 * The error object carries the name for scripts that need more. */
static const ErrorStatus error_statuses[] = {
	{"org.tracectl.Tracing1.Error.NotFound", TC_EXIT_NOT_FOUND},
	{"org.tracectl.Tracing1.Error.PermissionDenied", TC_EXIT_PERMISSION},
	{"org.freedesktop.DBus.Error.UnknownObject", TC_EXIT_NOT_FOUND},
	{"org.freedesktop.DBus.Error.AccessDenied", TC_EXIT_PERMISSION},
	{"org.freedesktop.DBus.Error.AuthFailed", TC_EXIT_PERMISSION},
	{"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", TC_EXIT_PERMISSION},
	{"org.freedesktop.DBus.Error.ServiceUnknown", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.NameHasNoOwner", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.NoServer", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.NoNetwork", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.Disconnected", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.NoReply", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.Timeout", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.TimedOut", TC_EXIT_UNREACHABLE},
	{"org.freedesktop.DBus.Error.Spawn.", TC_EXIT_UNREACHABLE}, /* a prefix */
};

/* The D-Bus name of an error that came from the bus, or NULL. */
static char *
dbus_error_name(const GError *error)
{
	char *name = g_dbus_error_get_remote_error(error);

	if (name == NULL && error->domain == G_DBUS_ERROR)
		name = g_dbus_error_encode_gerror(error);
	return name;
}

static int
status_for_name(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(error_statuses); i++) {
		const char *known = error_statuses[i].name;

		if (g_str_equal(name, known) ||
		    (g_str_has_suffix(known, ".") && g_str_has_prefix(name, known)))
			return error_statuses[i].status;
	}
	return TC_EXIT_FAILURE;
}

int
tc_client_output_exit_status(const GError *error)
{
	g_autofree char *name = dbus_error_name(error);

	if (name)
		return status_for_name(name);
	if (g_error_matches(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE))
		return TC_EXIT_UNREACHABLE;
	if (error->domain == G_OPTION_ERROR)
		return TC_EXIT_USAGE;
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
		return TC_EXIT_NOT_FOUND;
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
		return TC_EXIT_PERMISSION;
	return TC_EXIT_FAILURE;
}

const char *
tc_client_output_error_class(int status)
{
	switch (status) {
	case TC_EXIT_OK:
		return "ok";
	case TC_EXIT_USAGE:
		return "usage";
	case TC_EXIT_NOT_FOUND:
		return "not_found";
	case TC_EXIT_PERMISSION:
		return "permission_denied";
	case TC_EXIT_UNREACHABLE:
		return "unreachable";
	case TC_EXIT_PARTIAL:
		return "partial";
	default:
		return "failed";
	}
}

JsonNode *
tc_client_output_error_node(const GError *error, const char *message, int status)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree char *name = error ? dbus_error_name(error) : NULL;

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "error", tc_client_output_error_class(status));
	tc_client_output_member_string(builder, "message", message);
	tc_client_output_member_int(builder, "exit_status", status);
	if (name)
		tc_client_output_member_string(builder, "dbus_error", name);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_client_output_combine(guint n_ok, int failed_status)
{
	if (failed_status == TC_EXIT_OK)
		return TC_EXIT_OK;
	return n_ok > 0 ? TC_EXIT_PARTIAL : failed_status;
}

/* Error and warning objects go to stderr, one per line, whatever the mode:
 * a reader splits them on newlines. */
static void
print_stderr_json(JsonNode *node)
{
	g_autofree char *text = tc_client_output_to_string(node, FALSE);

	fprintf(stderr, "%s\n", text);
	fflush(stderr);
}

int
tc_client_output_fail(GError *error)
{
	int status = tc_client_output_exit_status(error);
	g_autoptr(GError) stripped = g_error_copy(error);

	if (g_dbus_error_is_remote_error(stripped))
		g_dbus_error_strip_remote_error(stripped);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node =
			tc_client_output_error_node(error, stripped->message, status);

		print_stderr_json(node);
		errors_reported++;
	} else {
		g_printerr("Error: %s\n", stripped->message);
	}
	return status;
}

static void
hold_message_cb(const char *text)
{
	g_string_append(held_messages, text);
}

void
tc_client_output_begin(void)
{
	if (!tc_client_output_is_json())
		return;
	held_messages = g_string_new(NULL);
	g_set_printerr_handler(hold_message_cb);
}

/* One held message: a line starting "Error: " or "Warning: " and the lines
 * that follow it up to the next such line. */
static void
flush_message(GString *message, gboolean is_warning, int status)
{
	g_autoptr(JsonNode) node = NULL;

	g_strchomp(message->str);
	if (message->str[0] == '\0')
		return;
	if (is_warning || status == TC_EXIT_OK) {
		g_autoptr(JsonBuilder) builder = json_builder_new();

		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "warning", message->str);
		json_builder_end_object(builder);
		node = json_builder_get_root(builder);
	} else {
		node = tc_client_output_error_node(NULL, message->str, status);
		errors_reported++;
	}
	print_stderr_json(node);
}

static void
flush_held_messages(int status)
{
	g_auto(GStrv) lines = g_strsplit(held_messages->str, "\n", -1);
	g_autoptr(GString) message = g_string_new(NULL);
	gboolean is_warning = FALSE;

	for (guint i = 0; lines[i]; i++) {
		const char *line = lines[i];
		gboolean starts_error = g_str_has_prefix(line, "Error: ");
		gboolean starts_warning = g_str_has_prefix(line, "Warning: ");

		if (starts_error || starts_warning) {
			flush_message(message, is_warning, status);
			g_string_truncate(message, 0);
			is_warning = starts_warning;
			line = strchr(line, ' ') + 1;
		} else if (message->len > 0) {
			g_string_append_c(message, '\n');
		}
		g_string_append(message, line);
	}
	flush_message(message, is_warning, status);
}

int
tc_client_output_end(int status)
{
	if (held_messages == NULL)
		return status;
	g_set_printerr_handler(NULL);
	flush_held_messages(status);
	g_string_free(g_steal_pointer(&held_messages), TRUE);
	/* Every failure is reported, even one a command did not explain. */
	if (status != TC_EXIT_OK && errors_reported == 0) {
		g_autoptr(JsonNode) node = tc_client_output_error_node(
			NULL, tc_client_output_error_class(status), status);

		print_stderr_json(node);
	}
	return status;
}
