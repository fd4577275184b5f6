/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CLI's output module: --json modes, JSON text, exit statuses and the
 * error objects scripts read (docs/json.md). */
#include <string.h>

#include "tc-client-output.h"

static void
test_parse_mode(void)
{
	TcOutputMode mode;

	g_assert_true(tc_client_output_parse_mode(NULL, TRUE, &mode));
	g_assert_cmpint(mode, ==, TC_OUTPUT_JSON_PRETTY);
	g_assert_true(tc_client_output_parse_mode(NULL, FALSE, &mode));
	g_assert_cmpint(mode, ==, TC_OUTPUT_JSON_SHORT);
	g_assert_true(tc_client_output_parse_mode("short", TRUE, &mode));
	g_assert_cmpint(mode, ==, TC_OUTPUT_JSON_SHORT);
	g_assert_true(tc_client_output_parse_mode("pretty", FALSE, &mode));
	g_assert_cmpint(mode, ==, TC_OUTPUT_JSON_PRETTY);
	g_assert_false(tc_client_output_parse_mode("", FALSE, &mode));
	g_assert_false(tc_client_output_parse_mode("json", FALSE, &mode));
	g_assert_false(tc_client_output_parse_mode("PRETTY", FALSE, &mode));
}

static void
test_take_option(void)
{
	char *argv[] = {"tracectl", "list", "--json=short", "-u", "--", "--json", NULL};
	char *bad_argv[] = {"tracectl", "--json=yaml", "list", NULL};
	int argc = G_N_ELEMENTS(argv) - 1, bad_argc = G_N_ELEMENTS(bad_argv) - 1;
	const char *bad = NULL;

	tc_client_output_set_mode(TC_OUTPUT_TEXT);
	g_assert_true(tc_client_output_take_option(&argc, argv, &bad));
	g_assert_cmpint(argc, ==, 5);
	g_assert_cmpstr(argv[1], ==, "list");
	g_assert_cmpstr(argv[2], ==, "-u");
	/* After "--", --json is an argument, not the option. */
	g_assert_cmpstr(argv[3], ==, "--");
	g_assert_cmpstr(argv[4], ==, "--json");
	g_assert_null(argv[5]);
	g_assert_cmpint(tc_client_output_get_mode(), ==, TC_OUTPUT_JSON_SHORT);
	g_assert_true(tc_client_output_is_json());

	g_assert_false(tc_client_output_take_option(&bad_argc, bad_argv, &bad));
	g_assert_cmpstr(bad, ==, "--json=yaml");
	tc_client_output_set_mode(TC_OUTPUT_TEXT);
	g_assert_false(tc_client_output_is_json());
}

static JsonNode *
sample_node(void)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	const char *events[] = {"a:b", "c:*", NULL};

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", "s1");
	tc_client_output_member_string(builder, "problem", NULL);
	tc_client_output_member_uint(builder, "size", G_MAXUINT64);
	tc_client_output_member_int(builder, "pid", 42);
	tc_client_output_member_bool(builder, "snapshot", TRUE);
	tc_client_output_member_strv(builder, "events", events);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static void
test_to_string(void)
{
	g_autoptr(JsonNode) node = sample_node();
	g_autofree char *shortened = tc_client_output_to_string(node, FALSE);
	g_autofree char *pretty = tc_client_output_to_string(node, TRUE);
	g_autoptr(JsonParser) parser = json_parser_new();
	JsonObject *object;
	JsonArray *events;

	g_assert_null(strchr(shortened, '\n'));
	g_assert_cmpstr(shortened, ==,
			"{\"name\":\"s1\",\"problem\":null,\"size\":9223372036854775807,"
			"\"pid\":42,\"snapshot\":true,\"events\":[\"a:b\",\"c:*\"]}");
	g_assert_nonnull(strstr(pretty, "\n  \"name\" : \"s1\""));
	g_assert_true(json_parser_load_from_data(parser, pretty, -1, NULL));
	object = json_node_get_object(json_parser_get_root(parser));
	g_assert_cmpint(json_object_get_int_member(object, "pid"), ==, 42);
	g_assert_true(json_object_get_null_member(object, "problem"));
	g_assert_true(json_object_get_boolean_member(object, "snapshot"));
	events = json_object_get_array_member(object, "events");
	g_assert_cmpuint(json_array_get_length(events), ==, 2);
	g_assert_cmpstr(json_array_get_string_element(events, 1), ==, "c:*");
}

static void
assert_status(const char *dbus_name, int status)
{
	g_autoptr(GError) error = g_dbus_error_new_for_dbus_error(dbus_name, "it went wrong");

	g_assert_cmpint(tc_client_output_exit_status(error), ==, status);
}

static void
test_exit_status(void)
{
	g_autoptr(GError) unreachable =
		g_error_new_literal(TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE, "no bus");
	g_autoptr(GError) no_current = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "x");
	g_autoptr(GError) option = g_error_new_literal(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "x");
	g_autoptr(GError) local_denied =
		g_error_new_literal(G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "x");
	g_autoptr(GError) other = g_error_new_literal(G_IO_ERROR, G_IO_ERROR_FAILED, "x");
	g_autoptr(GError) service_unknown =
		g_error_new_literal(G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN, "x");

	assert_status("org.tracectl.Tracing1.Error.NotFound", TC_EXIT_NOT_FOUND);
	assert_status("org.tracectl.Tracing1.Error.PermissionDenied", TC_EXIT_PERMISSION);
	assert_status("org.tracectl.Tracing1.Error.InvalidArgument", TC_EXIT_FAILURE);
	assert_status("org.tracectl.Tracing1.Error.Failed", TC_EXIT_FAILURE);
	assert_status("org.tracectl.Tracing1.Error.AlreadyExists", TC_EXIT_FAILURE);
	assert_status("org.tracectl.Tracing1.Error.InvalidState", TC_EXIT_FAILURE);
	assert_status("org.tracectl.Tracing1.Error.LimitExceeded", TC_EXIT_FAILURE);
	assert_status("org.freedesktop.DBus.Error.AccessDenied", TC_EXIT_PERMISSION);
	assert_status("org.freedesktop.DBus.Error.ServiceUnknown", TC_EXIT_UNREACHABLE);
	assert_status("org.freedesktop.DBus.Error.NameHasNoOwner", TC_EXIT_UNREACHABLE);
	assert_status("org.freedesktop.DBus.Error.NoReply", TC_EXIT_UNREACHABLE);
	assert_status("org.freedesktop.DBus.Error.Spawn.ChildExited", TC_EXIT_UNREACHABLE);
	assert_status("org.freedesktop.DBus.Error.UnknownObject", TC_EXIT_NOT_FOUND);
	assert_status("org.freedesktop.DBus.Error.UnknownMethod", TC_EXIT_FAILURE);
	assert_status("org.example.Whatever", TC_EXIT_FAILURE);
	/* A name that only starts like a known one is not that one. */
	assert_status("org.tracectl.Tracing1.Error.NotFoundAtAll", TC_EXIT_FAILURE);

	g_assert_cmpint(tc_client_output_exit_status(unreachable), ==, TC_EXIT_UNREACHABLE);
	g_assert_cmpint(tc_client_output_exit_status(no_current), ==, TC_EXIT_NOT_FOUND);
	g_assert_cmpint(tc_client_output_exit_status(option), ==, TC_EXIT_USAGE);
	g_assert_cmpint(tc_client_output_exit_status(local_denied), ==, TC_EXIT_PERMISSION);
	g_assert_cmpint(tc_client_output_exit_status(other), ==, TC_EXIT_FAILURE);
	g_assert_cmpint(tc_client_output_exit_status(service_unknown), ==, TC_EXIT_UNREACHABLE);
}

static void
test_error_class(void)
{
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_FAILURE), ==, "failed");
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_USAGE), ==, "usage");
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_NOT_FOUND), ==, "not_found");
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_PERMISSION), ==,
			"permission_denied");
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_UNREACHABLE), ==, "unreachable");
	g_assert_cmpstr(tc_client_output_error_class(TC_EXIT_PARTIAL), ==, "partial");
}

static void
test_error_node(void)
{
	g_autoptr(GError) remote = g_dbus_error_new_for_dbus_error(
		"org.tracectl.Tracing1.Error.NotFound", "No session 'x'");
	g_autoptr(JsonNode) remote_node =
		tc_client_output_error_node(remote, "No session 'x'", TC_EXIT_NOT_FOUND);
	g_autoptr(JsonNode) local_node =
		tc_client_output_error_node(NULL, "bad option", TC_EXIT_USAGE);
	JsonObject *object = json_node_get_object(remote_node);

	g_assert_cmpstr(json_object_get_string_member(object, "error"), ==, "not_found");
	g_assert_cmpstr(json_object_get_string_member(object, "message"), ==, "No session 'x'");
	g_assert_cmpint(json_object_get_int_member(object, "exit_status"), ==, 3);
	g_assert_cmpstr(json_object_get_string_member(object, "dbus_error"), ==,
			"org.tracectl.Tracing1.Error.NotFound");
	object = json_node_get_object(local_node);
	g_assert_cmpstr(json_object_get_string_member(object, "error"), ==, "usage");
	g_assert_false(json_object_has_member(object, "dbus_error"));
	g_assert_cmpuint(json_object_get_size(object), ==, 3);
}

static void
test_combine(void)
{
	g_assert_cmpint(tc_client_output_combine(0, TC_EXIT_OK), ==, TC_EXIT_OK);
	g_assert_cmpint(tc_client_output_combine(3, TC_EXIT_OK), ==, TC_EXIT_OK);
	g_assert_cmpint(tc_client_output_combine(0, TC_EXIT_NOT_FOUND), ==, TC_EXIT_NOT_FOUND);
	g_assert_cmpint(tc_client_output_combine(2, TC_EXIT_PERMISSION), ==, TC_EXIT_PARTIAL);
}

/* The subprocesses of the tests below: what they print is checked by the
 * parent through g_test_trap. */
static void
fail_in_json(void)
{
	g_autoptr(GError) error = g_dbus_error_new_for_dbus_error(
		"org.tracectl.Tracing1.Error.PermissionDenied", "Not authorized");

	tc_client_output_set_mode(TC_OUTPUT_JSON_SHORT);
	tc_client_output_begin();
	exit(tc_client_output_end(tc_client_output_fail(error)));
}

static void
fail_in_text(void)
{
	g_autoptr(GError) error = g_dbus_error_new_for_dbus_error(
		"org.tracectl.Tracing1.Error.NotFound", "No session named 'x'");

	exit(tc_client_output_fail(error));
}

static void
held_messages(void)
{
	tc_client_output_set_mode(TC_OUTPUT_JSON_PRETTY);
	tc_client_output_begin();
	g_printerr("Warning: cannot remember the current session\n");
	g_printerr("Error: give -u or -k\n(try 'tracectl list --help')\n");
	exit(tc_client_output_end(TC_EXIT_USAGE));
}

static void
silent_failure(void)
{
	tc_client_output_set_mode(TC_OUTPUT_JSON_SHORT);
	tc_client_output_begin();
	exit(tc_client_output_end(TC_EXIT_FAILURE));
}

static void
print_pretty(void)
{
	g_autoptr(JsonNode) node = sample_node();

	tc_client_output_set_mode(TC_OUTPUT_JSON_PRETTY);
	tc_client_output_print_json(node);
	exit(0);
}

static void
test_reports(void)
{
	g_test_trap_subprocess("/tracectl/client-output/subprocess/fail-json", 0, 0);
	g_test_trap_assert_failed(); /* exits 4 */
	g_test_trap_assert_stdout("");
	g_test_trap_assert_stderr(
		"{\"error\":\"permission_denied\",\"message\":\"Not authorized\",\"exit_status\":4,"
		"\"dbus_error\":\"org.tracectl.Tracing1.Error.PermissionDenied\"}\n");

	g_test_trap_subprocess("/tracectl/client-output/subprocess/fail-text", 0, 0);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("Error: No session named 'x'\n");

	g_test_trap_subprocess("/tracectl/client-output/subprocess/held", 0, 0);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr(
		"{\"warning\":\"cannot remember the current session\"}\n"
		"{\"error\":\"usage\",\"message\":\"give -u or -k\\n(try 'tracectl list "
		"--help')\",\"exit_status\":2}\n");

	g_test_trap_subprocess("/tracectl/client-output/subprocess/silent", 0, 0);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("{\"error\":\"failed\",\"message\":\"failed\",\"exit_status\":1}\n");

	g_test_trap_subprocess("/tracectl/client-output/subprocess/pretty", 0, 0);
	g_test_trap_assert_passed();
	g_test_trap_assert_stdout("{\n  \"name\" : \"s1\",*\n}\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/client-output/parse-mode", test_parse_mode);
	g_test_add_func("/tracectl/client-output/take-option", test_take_option);
	g_test_add_func("/tracectl/client-output/to-string", test_to_string);
	g_test_add_func("/tracectl/client-output/exit-status", test_exit_status);
	g_test_add_func("/tracectl/client-output/error-class", test_error_class);
	g_test_add_func("/tracectl/client-output/error-node", test_error_node);
	g_test_add_func("/tracectl/client-output/combine", test_combine);
	g_test_add_func("/tracectl/client-output/reports", test_reports);
	g_test_add_func("/tracectl/client-output/subprocess/fail-json", fail_in_json);
	g_test_add_func("/tracectl/client-output/subprocess/fail-text", fail_in_text);
	g_test_add_func("/tracectl/client-output/subprocess/held", held_messages);
	g_test_add_func("/tracectl/client-output/subprocess/silent", silent_failure);
	g_test_add_func("/tracectl/client-output/subprocess/pretty", print_pretty);
	return g_test_run();
}
