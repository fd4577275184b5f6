/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl [--json] monitor: the service's signals as they come. */
#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <poll.h>
#include <stdio.h>

#include "tc-client-gvariant.h"
#include "tc-client-interface.h"
#include "tc-client.h"

/* What the bus daemon is asked to route here: the service's signals
 * (most are unicast to subscribers, which need no rule; PropertiesChanged
 * is broadcast), and the service leaving the bus. */
#define SERVICE_RULE "type='signal',sender='" TC_NAME "'"
#define OWNER_RULE                                                                         \
	"type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"    \
	"member='NameOwnerChanged',arg0='" TC_NAME "'"

typedef struct {
	GMainLoop *loop;
	sd_bus *bus;
	/* The service's unique name: only its signals are printed. */
	char *service;
	gboolean json;
	gboolean is_done;
	int status;
} TcMonitor;

/* The names of the manager's signal member's arguments, as the interface
 * names them; NULL for a signal it does not describe. */
static const char *const *
signal_args(const char *member)
{
	for (gsize i = 0; i < G_N_ELEMENTS(tc_client_signal_args); i++)
		if (g_str_equal(tc_client_signal_args[i].interface, TC_MANAGER_INTERFACE) &&
		    g_str_equal(tc_client_signal_args[i].signal, member))
			return tc_client_signal_args[i].args;
	return NULL;
}

static char *
now_text(void)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();

	return g_date_time_format(now, "%H:%M:%S.%f");
}

/* The JSON of one signal: {"time", "signal", "path", then "args" named
 * after the interface's arguments, or for PropertiesChanged
 * "interface", "changed" and "invalidated"}. */
static JsonNode *
signal_json(const char *path, const char *member, GVariant *parameters)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree char *time = now_text();
	const char *const *args = signal_args(member);

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "time");
	json_builder_add_string_value(builder, time);
	json_builder_set_member_name(builder, "signal");
	json_builder_add_string_value(builder, member);
	json_builder_set_member_name(builder, "path");
	json_builder_add_string_value(builder, path);
	if (g_str_equal(member, "PropertiesChanged") &&
	    g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sa{sv}as)"))) {
		g_autoptr(GVariant) changed = g_variant_get_child_value(parameters, 1);
		g_autoptr(GVariant) invalidated = g_variant_get_child_value(parameters, 2);
		g_autoptr(GVariant) interface = g_variant_get_child_value(parameters, 0);

		json_builder_set_member_name(builder, "interface");
		json_builder_add_value(builder, json_gvariant_serialize(interface));
		json_builder_set_member_name(builder, "changed");
		json_builder_add_value(builder, json_gvariant_serialize(changed));
		json_builder_set_member_name(builder, "invalidated");
		json_builder_add_value(builder, json_gvariant_serialize(invalidated));
	} else {
		json_builder_set_member_name(builder, "args");
		json_builder_begin_object(builder);
		for (gsize i = 0; i < g_variant_n_children(parameters); i++) {
			g_autoptr(GVariant) value = g_variant_get_child_value(parameters, i);
			g_autofree char *fallback = g_strdup_printf("arg%zu", i);
			gboolean named = args && i < g_strv_length((char **)args);

			json_builder_set_member_name(builder, named ? args[i] : fallback);
			json_builder_add_value(builder, json_gvariant_serialize(value));
		}
		json_builder_end_object(builder);
	}
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static void
print_json(const char *path, const char *member, GVariant *parameters)
{
	g_autoptr(JsonNode) root = signal_json(path, member, parameters);
	g_autofree char *line = json_to_string(root, FALSE);

	printf("%s\n", line);
}

/* One line: time, signal, then name=value per argument. */
static void
print_text(const char *path, const char *member, GVariant *parameters)
{
	const char *const *args = signal_args(member);
	g_autoptr(GString) line = g_string_new(NULL);
	g_autofree char *time = now_text();

	g_string_append_printf(line, "%s %s", time, member);
	if (g_str_equal(member, "PropertiesChanged")) {
		g_autofree char *values = g_variant_print(parameters, FALSE);

		g_string_append_printf(line, " %s %s", path, values);
	} else {
		for (gsize i = 0; i < g_variant_n_children(parameters); i++) {
			g_autoptr(GVariant) value = g_variant_get_child_value(parameters, i);
			g_autofree char *text = g_variant_print(value, FALSE);
			gboolean named = args && i < g_strv_length((char **)args);

			g_string_append_printf(line, " %s=%s", named ? args[i] : "arg",
					       text);
		}
	}
	printf("%s\n", line->str);
}

static void
print_signal(TcMonitor *monitor, sd_bus_message *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) parameters = tc_client_gvariant_read_tuple(message, &error);
	const char *path = sd_bus_message_get_path(message);
	const char *member = sd_bus_message_get_member(message);

	if (parameters == NULL) {
		g_debug("A signal %s that cannot be read: %s", member, error->message);
		return;
	}
	if (monitor->json)
		print_json(path, member, parameters);
	else
		print_text(path, member, parameters);
	/* A pipe to a script must see each signal as it comes. */
	fflush(stdout);
}

/* The connection is gone: with -H, ssh says why. */
static void
connection_lost(TcMonitor *monitor)
{
	g_autoptr(GError) error =
		g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");

	monitor->status = tc_client_fail(error);
	monitor->is_done = TRUE;
}

static gboolean
is_service_gone(sd_bus_message *message)
{
	const char *name, *old_owner, *new_owner;

	return sd_bus_message_is_signal(message, "org.freedesktop.DBus", "NameOwnerChanged") &&
	       g_strcmp0(sd_bus_message_get_sender(message), "org.freedesktop.DBus") == 0 &&
	       sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) >= 0 &&
	       g_str_equal(name, TC_NAME) && *new_owner == '\0';
}

/* Every message that comes: the filter sees them all, with no local match
 * to keep in step with the bus daemon's rules. */
static int
message_cb(sd_bus_message *message, void *data, sd_bus_error *ret_error)
{
	TcMonitor *monitor = data;

	if (monitor->is_done)
		return 0;
	if (sd_bus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected")) {
		connection_lost(monitor);
	} else if (is_service_gone(message)) {
		g_printerr("Error: the service left the bus\n");
		monitor->status = TC_EXIT_FAILURE;
		monitor->is_done = TRUE;
	} else if (sd_bus_message_is_signal(message, NULL, NULL) &&
		   g_strcmp0(sd_bus_message_get_sender(message), monitor->service) == 0) {
		print_signal(monitor, message);
	}
	return 0;
}

/* Dispatches what the bus has, queued or readable; FALSE once the
 * monitor is done. */
static gboolean
process(TcMonitor *monitor)
{
	int r = 0;

	while (!monitor->is_done && (r = sd_bus_process(monitor->bus, NULL)) > 0)
		;
	if (!monitor->is_done && r < 0)
		connection_lost(monitor);
	/* A write that would have blocked (an answer to a Ping) is finished
	 * now: the loop waits for input only. */
	if (!monitor->is_done && (sd_bus_get_events(monitor->bus) & POLLOUT))
		sd_bus_flush(monitor->bus);
	return !monitor->is_done;
}

static gboolean
bus_ready_cb(int fd, GIOCondition condition, gpointer user_data)
{
	TcMonitor *monitor = user_data;

	if (process(monitor))
		return G_SOURCE_CONTINUE;
	g_main_loop_quit(monitor->loop);
	return G_SOURCE_REMOVE;
}

static int
add_match(sd_bus *bus, const char *rule, GError **error)
{
	__attribute__((cleanup(tc_client_libsystemd_error_clear))) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				   "org.freedesktop.DBus", "AddMatch", &bus_error, NULL, "s", rule);

	if (r < 0)
		tc_client_bus_set_error(r, &bus_error, error);
	return r;
}

/* The service's unique name, asked once it answered Subscribe (which may
 * have started it). */
static char *
service_owner(sd_bus *bus, GError **error)
{
	__attribute__((cleanup(tc_client_libsystemd_error_clear))) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *owner;
	char *result = NULL;
	int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				   "org.freedesktop.DBus", "GetNameOwner", &bus_error, &reply, "s",
				   TC_NAME);

	if (r >= 0 && (r = sd_bus_message_read(reply, "s", &owner)) >= 0)
		result = g_strdup(owner);
	if (r < 0)
		tc_client_bus_set_error(r, &bus_error, error);
	sd_bus_message_unref(reply);
	return result;
}

static gboolean
interrupted_cb(gpointer user_data)
{
	TcMonitor *monitor = user_data;

	g_main_loop_quit(monitor->loop);
	return G_SOURCE_REMOVE;
}

int
tc_cmd_monitor(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
	TcMonitor monitor = {.loop = loop, .status = TC_EXIT_OK};
	sd_bus_slot *filter = NULL;
	int status;

	g_option_context_set_summary(context,
				     "Print the service's signals as they come: your sessions' "
				     "lifecycle and property changes, snapshots, applications, "
				     "triggers fired (everyone's for administrators). Ends with "
				     "Ctrl-C. With --json, one JSON object per line, whatever "
				     "--json's style.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 1) {
		g_printerr("Error: monitor takes no argument (try 'tracectl monitor --help')\n");
		return TC_EXIT_USAGE;
	}
	monitor.json = tc_client_output_is_json();
	manager = tc_client_manager(&error);
	if (manager == NULL)
		return tc_client_fail(error);
	monitor.bus = tc_client_bus(NULL);
	/* Listen first, so that nothing sent right after Subscribe is lost:
	 * what comes meanwhile waits in sd-bus's queue for process(). */
	if (add_match(monitor.bus, SERVICE_RULE, &error) < 0 ||
	    add_match(monitor.bus, OWNER_RULE, &error) < 0)
		return tc_client_fail(error);
	reply = tc_client_call(manager, "Subscribe", NULL, &error);
	if (reply == NULL || !(monitor.service = service_owner(monitor.bus, &error)))
		return tc_client_fail(error);
	sd_bus_add_filter(monitor.bus, &filter, message_cb, &monitor);
	if (process(&monitor)) {
		g_unix_fd_add(sd_bus_get_fd(monitor.bus), G_IO_IN | G_IO_HUP | G_IO_ERR,
			      bus_ready_cb, &monitor);
		g_unix_signal_add(SIGINT, interrupted_cb, &monitor);
		g_unix_signal_add(SIGTERM, interrupted_cb, &monitor);
		g_main_loop_run(loop);
	}
	sd_bus_slot_unref(filter);
	g_free(monitor.service);
	return monitor.status;
}
