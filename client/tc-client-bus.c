/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reaching the service: the system bus when it can be reached, otherwise
 * the bus of an embedded tracectld, whose address is in <rundir>/bus.
 */
#include <string.h>

#include "config.h"
#include "tc-client.h"

#define TC_NAME "org.tracectl.Tracing1"
#define TC_MANAGER_PATH "/org/tracectl/Tracing1"
/* Stop waits until the trace is on disk: be patient. */
#define CALL_TIMEOUT_MS (10 * 60 * 1000)

static GDBusConnection *connection;

static const char *
rundir(void)
{
	const char *dir = g_getenv("TRACECTL_RUNDIR");

	return dir && *dir ? dir : TRACECTL_DEFAULT_RUNDIR;
}

static GDBusConnection *
connect_embedded(const char *why, GError **error)
{
	g_autofree char *path = g_build_filename(rundir(), "bus", NULL);
	g_autofree char *address = NULL;
	g_autoptr(GError) local_error = NULL;
	GDBusConnection *bus;

	if (!g_file_get_contents(path, &address, NULL, &local_error)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "cannot reach the tracectl service: no system bus (%s) and no %s "
			    "(is tracectld running? try 'tracectld --embedded')",
			    why, path);
		return NULL;
	}
	g_strstrip(address);
	bus = g_dbus_connection_new_for_address_sync(
		address,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
			G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
		NULL, NULL, &local_error);
	if (bus == NULL)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "cannot reach the tracectl service at %s (from %s): %s", address, path,
			    local_error->message);
	return bus;
}

GDBusConnection *
tc_client_connect(GError **error)
{
	g_autoptr(GError) system_error = NULL;

	if (connection)
		return connection;
	connection = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &system_error);
	if (connection == NULL) {
		g_debug("No system bus: %s", system_error->message);
		connection = connect_embedded(system_error->message, error);
	}
	return connection;
}

TcDbusManager *
tc_client_manager(GError **error)
{
	GDBusConnection *bus = tc_client_connect(error);
	TcDbusManager *manager;

	if (bus == NULL)
		return NULL;
	manager = tc_dbus_manager_proxy_new_sync(bus, G_DBUS_PROXY_FLAGS_NONE, TC_NAME,
						 TC_MANAGER_PATH, NULL, error);
	if (manager)
		g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(manager), CALL_TIMEOUT_MS);
	return manager;
}

GVariant *
tc_client_call(gpointer proxy, const char *method, GVariant *parameters, GError **error)
{
	/* Interactive: polkit may ask the person to authenticate. */
	return g_dbus_proxy_call_sync(G_DBUS_PROXY(proxy), method, parameters,
				      G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
				      CALL_TIMEOUT_MS, NULL, error);
}

TcDbusSession *
tc_client_session(const char *name, GError **error)
{
	g_autoptr(TcDbusManager) manager = tc_client_manager(error);
	g_autofree char *current = NULL;
	g_autoptr(GVariant) reply = NULL;
	const char *path;
	TcDbusSession *session;

	if (manager == NULL)
		return NULL;
	if (name == NULL) {
		current = tc_client_current_session();
		if (current == NULL) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
				    "no session given and no current session (create one with "
				    "'tracectl create')");
			return NULL;
		}
		name = current;
	}
	reply = tc_client_call(manager, "FindSession", g_variant_new("(s)", name), error);
	if (reply == NULL)
		return NULL;
	g_variant_get(reply, "(&o)", &path);
	session = tc_dbus_session_proxy_new_sync(tc_client_connect(NULL), G_DBUS_PROXY_FLAGS_NONE,
						 TC_NAME, path, NULL, error);
	if (session)
		g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(session), CALL_TIMEOUT_MS);
	return session;
}

int
tc_client_fail(GError *error)
{
	if (g_dbus_error_is_remote_error(error))
		g_dbus_error_strip_remote_error(error);
	g_printerr("Error: %s\n", error->message);
	return TC_EXIT_FAILURE;
}

gboolean
tc_client_parse(GOptionContext *context, int *argc, char ***argv, int *status)
{
	g_autoptr(GError) error = NULL;

	g_option_context_set_strict_posix(context, FALSE);
	if (!g_option_context_parse(context, argc, argv, &error)) {
		g_printerr("Error: %s (try '%s --help')\n", error->message, g_get_prgname());
		*status = TC_EXIT_USAGE;
		return FALSE;
	}
	return TRUE;
}
