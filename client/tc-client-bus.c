/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reaching the service: the system bus when it can be reached, otherwise
 * the bus of an embedded tracectld, whose address is in <rundir>/bus; and
 * calling it. One sd-bus connection, made and used synchronously on the
 * calling thread: no worker thread, no type system, every argument and
 * reply crossing tc-client-gvariant.c. Errors read as GDBus's did.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tc-client-gvariant.h"
#include "tc-client.h"

/* Stop waits until the trace is on disk: be patient. */
#define CALL_TIMEOUT_MS (10 * 60 * 1000)
/* An address is one line; anything longer is not one tracectld wrote. */
#define BUS_FILE_MAX 4096
/* sd-bus's default, and GDBus's. */
#define SYSTEM_BUS_ADDRESS "unix:path=/run/dbus/system_bus_socket"
#define PROPERTIES_INTERFACE "org.freedesktop.DBus.Properties"

/* The one connection of the command, used from the main thread only
 * (sd-bus is not thread-safe). */
static sd_bus *bus;

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

/* A client connection to address, started: the socket is connected on
 * return; authentication and Hello finish with the first call, which
 * waits for them (sd-bus pipelines the three). No descriptor passing is
 * negotiated: the interface passes none (tc-client-gvariant.h). */
static sd_bus *
open_address(const char *address, GError **error)
{
	sd_bus *b = NULL;
	int r = sd_bus_new(&b);

	if (r >= 0)
		r = sd_bus_set_address(b, address);
	if (r >= 0)
		r = tc_client_bus_setup(b);
	if (r >= 0)
		r = sd_bus_start(b);
	if (r < 0) {
		/* GDBus's words, which the messages built on them kept. */
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-r), "Could not connect: %s",
			    g_strerror(-r));
		sd_bus_unref(b);
		return NULL;
	}
	return b;
}

int
tc_client_bus_setup(sd_bus *b)
{
	int r = sd_bus_set_bus_client(b, TRUE);

	if (r >= 0)
		r = sd_bus_negotiate_fds(b, FALSE);
	/* sd-bus's default is 25 s; Stop waits until the trace is on disk. */
	if (r >= 0)
		r = sd_bus_set_method_call_timeout(b, (guint64)CALL_TIMEOUT_MS * 1000);
	return r;
}

static sd_bus *
connect_system(GError **error)
{
	const char *address = g_getenv("DBUS_SYSTEM_BUS_ADDRESS");

	return open_address(address && *address ? address : SYSTEM_BUS_ADDRESS, error);
}

static sd_bus *
connect_embedded(const char *why, GError **error)
{
	g_autofree char *path = g_build_filename(rundir(), "bus", NULL);
	g_autofree char *address = NULL;
	g_autoptr(GError) local_error = NULL;
	sd_bus *b;

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
	b = open_address(address, &local_error);
	if (b == NULL)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "cannot reach the tracectl service at %s (from %s): %s", address, path,
			    local_error->message);
	return b;
}

sd_bus *
tc_client_bus(GError **error)
{
	g_autoptr(GError) system_error = NULL;
	g_autoptr(GError) embedded_error = NULL;

	if (bus)
		return bus;
	if (!tc_client_libsystemd_load(&system_error)) {
		g_set_error_literal(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
				    system_error->message);
		return NULL;
	}
	if (tc_client_is_remote()) {
		bus = tc_client_remote_connect(error);
		return bus;
	}
	bus = connect_system(&system_error);
	if (bus == NULL) {
		g_debug("No system bus: %s", system_error->message);
		bus = connect_embedded(system_error->message, &embedded_error);
	}
	/* Whatever kept us from a bus, the service is what cannot be reached
	 * (TC_EXIT_UNREACHABLE), not a session or a file. */
	if (bus == NULL)
		g_set_error_literal(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
				    embedded_error->message);
	return bus;
}

guint32
tc_client_caller_uid(void)
{
	static guint32 remote_uid = G_MAXUINT32;
	static gboolean is_asked;

	if (!tc_client_is_remote())
		return getuid();
	/* Asked once: a bus that does not answer is not asked again. */
	if (!is_asked && bus) {
		remote_uid = tc_client_remote_caller_uid(bus);
		is_asked = TRUE;
	}
	return remote_uid;
}

/* Whether a failed call's error is sd-bus's own timeout, not an error
 * that a peer named Timeout: sd-bus words its own with strerror(). */
static gboolean
is_local_timeout(int r, const sd_bus_error *bus_error)
{
	return r == -ETIMEDOUT && sd_bus_error_has_name(bus_error, SD_BUS_ERROR_TIMEOUT) &&
	       g_strcmp0(bus_error->message, g_strerror(ETIMEDOUT)) == 0;
}

void
tc_client_bus_set_error(int r, const sd_bus_error *bus_error, GError **error)
{
	/* The GErrors GDBus gave, so that what the user reads, the exit
	 * status and the JSON error's "dbus_error" stay as they were: an
	 * error a peer sent is "GDBus.Error:NAME: message" in the domain
	 * registered for NAME (tc_client_fail() strips the prefix). */
	if (bus && !sd_bus_is_open(bus))
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CLOSED,
				    "The connection is closed");
	else if (is_local_timeout(r, bus_error))
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "Timeout was reached");
	else if (sd_bus_error_is_set(bus_error))
		g_propagate_error(error, g_dbus_error_new_for_dbus_error(
						 bus_error->name,
						 bus_error->message ? bus_error->message : ""));
	else
		g_set_error_literal(error, G_IO_ERROR, g_io_error_from_errno(-r), g_strerror(-r));
}

/* The reply's arguments, checked against reply_type when one is given,
 * as GDBus checked them. */
static GVariant *
reply_tuple(sd_bus_message *reply, const GVariantType *reply_type, const char *method,
	    GError **error)
{
	GVariant *tuple = tc_client_gvariant_read_tuple(reply, error);

	if (tuple && reply_type && !g_variant_is_of_type(tuple, reply_type)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Method '%s' returned type '%s', but expected '%s'", method,
			    g_variant_get_type_string(tuple), g_variant_type_peek_string(reply_type));
		g_clear_pointer(&tuple, g_variant_unref);
	}
	return tuple;
}

/* A method call of the service's, with parameters (a tuple, consumed when
 * floating) as its arguments; interactive lets polkit ask the person. */
static sd_bus_message *
new_call(const char *path, const char *interface, const char *method, GVariant *parameters,
	 gboolean interactive, int *r)
{
	sd_bus_message *call = NULL;

	*r = sd_bus_message_new_method_call(bus, &call, TC_NAME, path, interface, method);
	if (*r >= 0)
		*r = sd_bus_message_set_allow_interactive_authorization(call, interactive);
	if (*r >= 0)
		*r = tc_client_gvariant_append_tuple(call, parameters);
	else if (parameters)
		g_variant_unref(g_variant_ref_sink(parameters));
	if (*r < 0)
		call = sd_bus_message_unref(call);
	return call;
}

static GVariant *
call_full(const char *path, const char *interface, const char *method, GVariant *parameters,
	  const GVariantType *reply_type, gboolean interactive, GError **error)
{
	__attribute__((cleanup(tc_client_libsystemd_error_clear))) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
	sd_bus_message *call, *reply = NULL;
	GVariant *tuple;
	int r;

	if (tc_client_bus(error) == NULL) {
		if (parameters)
			g_variant_unref(g_variant_ref_sink(parameters));
		return NULL;
	}
	call = new_call(path, interface, method, parameters, interactive, &r);
	if (call)
		r = sd_bus_call(bus, call, 0, &bus_error, &reply);
	sd_bus_message_unref(call);
	if (r < 0) {
		tc_client_bus_set_error(r, &bus_error, error);
		return NULL;
	}
	tuple = reply_tuple(reply, reply_type, method, error);
	sd_bus_message_unref(reply);
	return tuple;
}

GVariant *
tc_client_bus_call(const char *path, const char *interface, const char *method,
		   GVariant *parameters, const GVariantType *reply_type, GError **error)
{
	/* Interactive: polkit may ask the person to authenticate, through the
	 * text agent when nobody else's agent serves this terminal. */
	GSubprocess *agent = tc_client_agent_open();
	GVariant *reply = call_full(path, interface, method, parameters, reply_type,
				    tc_client_agent_may_ask(), error);

	tc_client_agent_close(agent);
	return reply;
}

GVariant *
tc_client_bus_get_all(const char *path, const char *interface, GError **error)
{
	g_autoptr(GVariant) reply =
		call_full(path, PROPERTIES_INTERFACE, "GetAll", g_variant_new("(s)", interface),
			  G_VARIANT_TYPE("(a{sv})"), FALSE, error);

	return reply ? g_variant_get_child_value(reply, 0) : NULL;
}

static GVariant *
property_value(GVariant *reply)
{
	GVariant *value = NULL;

	if (reply)
		g_variant_get(reply, "(v)", &value);
	return value;
}

GVariant *
tc_client_manager_property(const char *name)
{
	g_autoptr(GVariant) reply =
		call_full(TC_MANAGER_PATH, PROPERTIES_INTERFACE, "Get",
			  g_variant_new("(ss)", TC_MANAGER_INTERFACE, name),
			  G_VARIANT_TYPE("(v)"), FALSE, NULL);

	return property_value(reply);
}

struct _TcClientPending {
	gboolean done;
	GVariant *value;
	sd_bus_slot *slot;
};

static int
pending_property_done(sd_bus_message *reply, void *data, sd_bus_error *ret_error)
{
	TcClientPending *pending = data;
	g_autoptr(GVariant) tuple = NULL;

	if (!sd_bus_message_is_method_error(reply, NULL))
		tuple = reply_tuple(reply, G_VARIANT_TYPE("(v)"), "Get", NULL);
	pending->value = property_value(tuple);
	pending->done = TRUE;
	return 0;
}

TcClientPending *
tc_client_manager_property_ask(const char *name)
{
	TcClientPending *pending = g_new0(TcClientPending, 1);
	sd_bus_message *call;
	int r = -ENOTCONN;

	call = bus ? new_call(TC_MANAGER_PATH, PROPERTIES_INTERFACE, "Get",
			      g_variant_new("(ss)", TC_MANAGER_INTERFACE, name), FALSE, &r)
		   : NULL;
	if (call)
		r = sd_bus_call_async(bus, &pending->slot, call, pending_property_done, pending, 0);
	sd_bus_message_unref(call);
	/* Not asked: nothing to wait for. */
	if (r < 0)
		pending->done = TRUE;
	return pending;
}

GVariant *
tc_client_pending_wait(TcClientPending *pending)
{
	GVariant *value;

	/* The reply may already be queued: a synchronous call made meanwhile
	 * reads what comes before its own reply and keeps it for
	 * sd_bus_process(). On a connection that ends, sd-bus fails the
	 * pending call, and a failed process or wait ends the loop too. */
	while (!pending->done) {
		int r = sd_bus_process(bus, NULL);

		if (r > 0)
			continue;
		if (r < 0 || sd_bus_wait(bus, UINT64_MAX) < 0)
			break;
	}
	value = pending->value;
	sd_bus_slot_unref(pending->slot);
	g_free(pending);
	return value;
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
