/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl [--json] monitor: the service's signals as they come. */
#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "tc-client.h"

#define TC_MONITOR_SERVICE "org.tracectl.Tracing1"

typedef struct {
	GMainLoop *loop;
	GDBusConnection *bus;
	gboolean json;
	int status;
} TcMonitor;

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
	GDBusSignalInfo *info = g_dbus_interface_info_lookup_signal(
		tc_dbus_manager_interface_info(), member);

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
			gboolean named = info && info->args && i < g_strv_length((char **)info->args);

			json_builder_set_member_name(builder, named ? info->args[i]->name : fallback);
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
	GDBusSignalInfo *info = g_dbus_interface_info_lookup_signal(
		tc_dbus_manager_interface_info(), member);
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
			gboolean named = info && info->args && i < g_strv_length((char **)info->args);

			g_string_append_printf(line, " %s=%s", named ? info->args[i]->name : "arg",
					       text);
		}
	}
	printf("%s\n", line->str);
}

static void
signal_cb(GDBusConnection *connection, const char *sender, const char *path,
	  const char *interface, const char *member, GVariant *parameters, gpointer user_data)
{
	TcMonitor *monitor = user_data;

	if (monitor->json)
		print_json(path, member, parameters);
	else
		print_text(path, member, parameters);
	/* A pipe to a script must see each signal as it comes. */
	fflush(stdout);
}

static void
service_vanished_cb(GDBusConnection *connection, const char *name, gpointer user_data)
{
	TcMonitor *monitor = user_data;

	/* The watcher passes no connection once it is closed. */
	if (g_dbus_connection_is_closed(monitor->bus)) {
		/* With -H, ssh's reason for losing the connection. */
		g_autoptr(GError) error = g_error_new_literal(
		    G_IO_ERROR, G_IO_ERROR_CLOSED, "The connection is closed");

		monitor->status = tc_client_fail(error);
	} else {
		g_printerr("Error: the service left the bus\n");
		monitor->status = TC_EXIT_FAILURE;
	}
	g_main_loop_quit(monitor->loop);
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
	g_autoptr(TcDbusManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
	TcMonitor monitor = {.loop = loop, .status = TC_EXIT_OK};
	GDBusConnection *bus;
	guint watch;
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
	bus = tc_client_connect(NULL);
	monitor.bus = bus;
	/* Listen first, so that nothing sent right after Subscribe is lost. */
	g_dbus_connection_signal_subscribe(bus, TC_MONITOR_SERVICE, NULL, NULL, NULL, NULL,
					   G_DBUS_SIGNAL_FLAGS_NONE, signal_cb, &monitor, NULL);
	reply = tc_client_call(manager, "Subscribe", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	watch = g_bus_watch_name_on_connection(bus, TC_MONITOR_SERVICE,
					       G_BUS_NAME_WATCHER_FLAGS_NONE, NULL,
					       service_vanished_cb, &monitor, NULL);
	g_unix_signal_add(SIGINT, interrupted_cb, &monitor);
	g_unix_signal_add(SIGTERM, interrupted_cb, &monitor);
	g_main_loop_run(loop);
	g_bus_unwatch_name(watch);
	return monitor.status;
}
