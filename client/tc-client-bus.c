/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reaching the service: the system bus when it can be reached, otherwise
 * the bus of an embedded tracectld, whose address is in <rundir>/bus.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tc-client.h"

#define TC_NAME "org.tracectl.Tracing1"
#define TC_MANAGER_PATH "/org/tracectl/Tracing1"
/* Stop waits until the trace is on disk: be patient. */
#define CALL_TIMEOUT_MS (10 * 60 * 1000)
/* An address is one line; anything longer is not one tracectld wrote. */
#define BUS_FILE_MAX 4096

static GDBusConnection *connection;

static const char *
rundir(void)
{
	const char *dir = g_getenv("TRACECTL_RUNDIR");

	return dir && *dir ? dir : TRACECTL_DEFAULT_RUNDIR;
}

/* Whom the bus file may belong to: root, the service's account, or the
 * caller (a tracectld of its own). Anyone else could point us anywhere. */
static gboolean
is_trusted_owner(uid_t uid)
{
	struct passwd *service = getpwnam(TRACECTL_USER);

	return uid == 0 || uid == getuid() || (service && uid == service->pw_uid);
}

static gboolean
check_bus_file(const char *path, const struct stat *st, GError **error)
{
	if (!S_ISREG(st->st_mode) || st->st_size > BUS_FILE_MAX) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "%s is not a regular file of at most %d bytes", path, BUS_FILE_MAX);
		return FALSE;
	}
	if (!is_trusted_owner(st->st_uid)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "%s belongs to uid %u, not to root, '%s' or you: not trusting it", path,
			    (unsigned)st->st_uid, TRACECTL_USER);
		return FALSE;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "%s is writable by its group or others (mode %04o): not trusting it",
			    path, (unsigned)(st->st_mode & 07777));
		return FALSE;
	}
	return TRUE;
}

/* The address in <rundir>/bus, read through the descriptor that was
 * checked. NULL with G_IO_ERROR_NOT_FOUND when there is no such file. */
static char *
read_bus_file(const char *path, GError **error)
{
	char buf[BUS_FILE_MAX + 1];
	struct stat st;
	ssize_t len = -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "%s: %s", path,
			    g_strerror(saved));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && check_bus_file(path, &st, error)) {
		len = read(fd, buf, BUS_FILE_MAX);
		if (len < 0)
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
				    "Cannot read %s: %s", path, g_strerror(errno));
	} else if (error && *error == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot check %s: %s", path,
			    g_strerror(errno));
	}
	close(fd);
	if (len < 0)
		return NULL;
	buf[len] = '\0';
	if (strlen(buf) != (size_t)len) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s holds a NUL byte",
			    path);
		return NULL;
	}
	return g_strstrip(g_strdup(buf));
}

static GDBusConnection *
connect_embedded(const char *why, GError **error)
{
	g_autofree char *path = g_build_filename(rundir(), "bus", NULL);
	g_autofree char *address = NULL;
	g_autoptr(GError) local_error = NULL;
	GDBusConnection *bus;

	address = read_bus_file(path, &local_error);
	if (address == NULL && g_error_matches(local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "cannot reach the tracectl service: no system bus (%s) and no %s "
			    "(is tracectld running? try 'tracectld --embedded')",
			    why, path);
		return NULL;
	}
	if (address == NULL || !tc_client_check_bus_address(address, &local_error)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "cannot reach the tracectl service: refusing the bus address in %s: %s",
			    path, local_error->message);
		return NULL;
	}
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
	g_autoptr(GError) embedded_error = NULL;

	if (connection)
		return connection;
	if (tc_client_is_remote()) {
		connection = tc_client_remote_connect(error);
		return connection;
	}
	connection = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &system_error);
	if (connection == NULL) {
		g_debug("No system bus: %s", system_error->message);
		connection = connect_embedded(system_error->message, &embedded_error);
	}
	/* Whatever kept us from a bus, the service is what cannot be reached
	 * (TC_EXIT_UNREACHABLE), not a session or a file. */
	if (connection == NULL)
		g_set_error_literal(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
				    embedded_error->message);
	return connection;
}

guint32
tc_client_caller_uid(void)
{
	static guint32 remote_uid = G_MAXUINT32;
	static gboolean is_asked;

	if (!tc_client_is_remote())
		return getuid();
	/* Asked once: a bus that does not answer is not asked again. */
	if (!is_asked && connection) {
		remote_uid = tc_client_remote_caller_uid(connection);
		is_asked = TRUE;
	}
	return remote_uid;
}

TcDbusManager *
tc_client_manager(GError **error)
{
	/* One proxy per command: each new one would look the owner up again. */
	static TcDbusManager *manager;
	GDBusConnection *bus;

	if (manager)
		return g_object_ref(manager);
	bus = tc_client_connect(error);
	if (bus == NULL)
		return NULL;
	/* One command calls a method or two and listens to no signal of the
	 * proxy (monitor subscribes on the connection); only `version` and
	 * `status` read a property (tc_client_manager_property()). So: no properties
	 * loaded, no match rule (not even for its owner's changes: a command
	 * does not outlive a service that goes), and no StartServiceByName
	 * before the first call, which starts an activatable service itself.
	 * Its construction is then one GetNameOwner, where it was four round
	 * trips. */
	manager = tc_dbus_manager_proxy_new_sync(
	    bus,
	    G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES | G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS |
		G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION |
		G_DBUS_PROXY_FLAGS_NO_MATCH_RULE,
	    TC_NAME, TC_MANAGER_PATH, NULL, error);
	if (manager == NULL)
		return NULL;
	g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(manager), CALL_TIMEOUT_MS);
	return g_object_ref(manager);
}

static GVariant *
property_value(GVariant *reply)
{
	GVariant *value = NULL;

	if (reply)
		g_variant_get(reply, "(v)", &value);
	return value;
}

/* The arguments of Properties.Get for a property of the manager. */
static GVariant *
manager_property_get_args(TcDbusManager *manager, const char *name)
{
	return g_variant_new("(ss)", g_dbus_proxy_get_interface_name(G_DBUS_PROXY(manager)),
			     name);
}

GVariant *
tc_client_manager_property(TcDbusManager *manager, const char *name)
{
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(
	    g_dbus_proxy_get_connection(G_DBUS_PROXY(manager)), TC_NAME, TC_MANAGER_PATH,
	    "org.freedesktop.DBus.Properties", "Get", manager_property_get_args(manager, name),
	    G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, NULL);

	return property_value(reply);
}

struct _TcClientPending {
	gboolean done;
	GVariant *value;
};

static void
pending_property_done(GObject *source, GAsyncResult *result, gpointer data)
{
	TcClientPending *pending = data;
	g_autoptr(GVariant) reply =
	    g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);

	pending->value = property_value(reply);
	pending->done = TRUE;
}

TcClientPending *
tc_client_manager_property_ask(TcDbusManager *manager, const char *name)
{
	TcClientPending *pending = g_new0(TcClientPending, 1);

	g_dbus_connection_call(g_dbus_proxy_get_connection(G_DBUS_PROXY(manager)), TC_NAME,
			       TC_MANAGER_PATH, "org.freedesktop.DBus.Properties", "Get",
			       manager_property_get_args(manager, name), G_VARIANT_TYPE("(v)"),
			       G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, pending_property_done,
			       pending);
	return pending;
}

GVariant *
tc_client_pending_wait(TcClientPending *pending)
{
	GVariant *value;

	/* The reply is dispatched in the default main context, which nothing
	 * else of a command iterates: the synchronous calls made meanwhile
	 * wait in contexts of their own. */
	while (!pending->done)
		g_main_context_iteration(NULL, TRUE);
	value = pending->value;
	g_free(pending);
	return value;
}

GVariant *
tc_client_call(gpointer proxy, const char *method, GVariant *parameters, GError **error)
{
	/* Interactive: polkit may ask the person to authenticate, through the
	 * text agent when nobody else's agent serves this terminal. */
	GSubprocess *agent = tc_client_agent_open();
	GVariant *reply = g_dbus_proxy_call_sync(
		G_DBUS_PROXY(proxy), method, parameters,
		tc_client_agent_may_ask() ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
					  : G_DBUS_CALL_FLAGS_NONE,
		CALL_TIMEOUT_MS, NULL, error);

	tc_client_agent_close(agent);
	return reply;
}

/* The name FindSession found a session by, kept on its proxy. */
#define FOUND_NAME_KEY "tc-client-found-name"

/* name, or the current session's when name is NULL (then set in *current,
 * which the caller frees); NULL with an error when there is none. */
static const char *
session_name_or_current(const char *name, char **current, GError **error)
{
	if (name)
		return name;
	*current = tc_client_current_session();
	if (*current == NULL && tc_client_is_remote())
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "no session given: with -H, name the session (the current session "
			    "is this machine's)");
	else if (*current == NULL)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "no session given and no current session (create one with "
			    "'tracectl create')");
	return *current;
}

/* The proxy of the session at path, found by name, whose owner just
 * answered (the manager's): by that owner's unique name, no owner to
 * look up and follow for a proxy that lives for one command. Its
 * properties are read when asked for, with no match rule for their
 * changes: a command reads them once. */
static TcDbusSession *
session_proxy(TcDbusManager *manager, const char *path, const char *name, GError **error)
{
	g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(manager));
	TcDbusSession *session = tc_dbus_session_proxy_new_sync(
	    tc_client_connect(NULL),
	    G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS | G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
		G_DBUS_PROXY_FLAGS_NO_MATCH_RULE,
	    owner ? owner : TC_NAME, path, NULL, error);

	if (session == NULL)
		return NULL;
	g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(session), CALL_TIMEOUT_MS);
	g_object_set_data_full(G_OBJECT(session), FOUND_NAME_KEY, g_strdup(name), g_free);
	return session;
}

TcDbusSession *
tc_client_session_unloaded(const char *name, GError **error)
{
	g_autoptr(TcDbusManager) manager = tc_client_manager(error);
	g_autofree char *current = NULL;
	g_autoptr(GVariant) reply = NULL;
	const char *path;

	if (manager == NULL || !(name = session_name_or_current(name, &current, error)))
		return NULL;
	reply = tc_client_call(manager, "FindSession", g_variant_new("(s)", name), error);
	if (reply == NULL)
		return NULL;
	g_variant_get(reply, "(&o)", &path);
	return session_proxy(manager, path, name, error);
}

TcDbusSession *
tc_client_session_describe(const char *name, GVariant **statistics, GError **error)
{
	g_autoptr(TcDbusManager) manager = tc_client_manager(error);
	g_autofree char *current = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariantIter) properties = NULL;
	TcDbusSession *session;
	const char *path, *property;
	GVariant *value;

	if (manager == NULL || !(name = session_name_or_current(name, &current, error)))
		return NULL;
	reply = tc_client_call(manager, "DescribeSession", g_variant_new("(s)", name), error);
	if (reply == NULL)
		return NULL;
	g_variant_get(reply, "(&oa{sv}@a(ssttttt))", &path, &properties, statistics);
	session = session_proxy(manager, path, name, error);
	while (session && g_variant_iter_next(properties, "{&sv}", &property, &value)) {
		g_dbus_proxy_set_cached_property(G_DBUS_PROXY(session), property, value);
		g_variant_unref(value);
	}
	if (session == NULL)
		g_clear_pointer(statistics, g_variant_unref);
	return session;
}

const char *
tc_client_session_name(TcDbusSession *session)
{
	const char *loaded = tc_dbus_session_get_name(session);

	return loaded ? loaded : g_object_get_data(G_OBJECT(session), FOUND_NAME_KEY);
}

gboolean
tc_client_session_load(TcDbusSession *session, GError **error)
{
	GDBusProxy *proxy = G_DBUS_PROXY(session);
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariantIter) properties = NULL;
	const char *name;
	GVariant *value;

	reply = g_dbus_connection_call_sync(
	    g_dbus_proxy_get_connection(proxy), g_dbus_proxy_get_name(proxy),
	    g_dbus_proxy_get_object_path(proxy), "org.freedesktop.DBus.Properties", "GetAll",
	    g_variant_new("(s)", g_dbus_proxy_get_interface_name(proxy)),
	    G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, error);
	if (reply == NULL)
		return FALSE;
	g_variant_get(reply, "(a{sv})", &properties);
	while (g_variant_iter_next(properties, "{&sv}", &name, &value)) {
		g_dbus_proxy_set_cached_property(proxy, name, value);
		g_variant_unref(value);
	}
	return TRUE;
}

TcDbusSession *
tc_client_session(const char *name, GError **error)
{
	TcDbusSession *session = tc_client_session_unloaded(name, error);

	if (session)
		tc_client_session_load_or_log(session);
	return session;
}

void
tc_client_session_load_or_log(TcDbusSession *session)
{
	g_autoptr(GError) error = NULL;

	/* As a proxy loading its properties: a command goes on without them
	 * (each getter then gives its type's zero) and says why in debug. */
	if (!tc_client_session_load(session, &error))
		g_debug("The session's properties could not be read: %s", error->message);
}

int
tc_client_fail(GError *error)
{
	g_autofree char *ssh_errors = NULL;
	g_autoptr(GError) remote = NULL;

	if (!tc_client_is_remote())
		return tc_client_output_fail(error);
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CLOSED)) {
		/* A remote connection that ssh lost: ssh says why. */
		ssh_errors = tc_client_remote_ssh_errors();
		remote = g_error_new(TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
				     "the connection to %s was lost (%s)%s%s",
				     tc_client_remote_host(), error->message,
				     ssh_errors ? ": ssh: " : "", ssh_errors ? ssh_errors : "");
		return tc_client_output_fail(remote);
	}
	if (error->domain == G_DBUS_ERROR &&
	    tc_client_output_exit_status(error) == TC_EXIT_UNREACHABLE) {
		/* No service on the remote bus: say which bus. The D-Bus
		 * name stays, from the domain and code. */
		remote = g_error_copy(error);
		g_dbus_error_strip_remote_error(remote);
		g_prefix_error(&remote, "on %s: ", tc_client_remote_host());
		return tc_client_output_fail(remote);
	}
	return tc_client_output_fail(error);
}

static gboolean
json_option_cb(const char *name, const char *value, gpointer data, GError **error)
{
	TcOutputMode mode;

	if (!tc_client_output_parse_mode(value, isatty(STDOUT_FILENO), &mode)) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "the JSON modes are short and pretty, not '%s'", value);
		return FALSE;
	}
	tc_client_output_set_mode(mode);
	return TRUE;
}

/* main() takes --json out of argv before any command parses it; the entry
 * is here so that every command's --help (and completion built from these
 * tables) shows it. */
static void
add_output_options(GOptionContext *context)
{
	const GOptionEntry entries[] = {
		{"json", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, json_option_cb,
		 "Print the result as JSON: short or pretty (docs/json.md)", "MODE"},
		{NULL},
	};
	g_option_context_add_main_entries(context, entries, NULL);
}

gboolean
tc_client_parse(GOptionContext *context, int *argc, char ***argv, int *status)
{
	g_autoptr(GError) error = NULL;

	add_output_options(context);
	g_option_context_set_strict_posix(context, FALSE);
	if (!g_option_context_parse(context, argc, argv, &error)) {
		g_printerr("Error: %s (try '%s --help')\n", error->message, g_get_prgname());
		*status = TC_EXIT_USAGE;
		return FALSE;
	}
	return TRUE;
}
