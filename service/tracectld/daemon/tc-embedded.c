/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-embedded"

#include "tc-embedded.h"

#include <errno.h>
#include <string.h>
#include <gio/gio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "tc-error.h"
#include "tc-process.h"
#include "tc-rundir.h"

#define DBUS_DAEMON "dbus-daemon"
#define POLKITD_PATH "/usr/lib/polkit-1/polkitd"
/* polkitd starts its JavaScript engine and reads every rule before it
 * takes its name: seconds on a loaded two-CPU machine, which the
 * sanitized test suite makes (over 15 s was seen). */
#define START_TIMEOUT_MS 30000

struct _TcEmbedded {
	GPid bus_pid;
	GPid polkit_pid;
	/* Taken at spawn, while the unreaped children still own their pids. */
	int bus_pidfd;
	int polkit_pidfd;
	char *bus_file;
	char *socket_path;
	struct stat bus_file_stat; /* ours, to be removed at exit */
	struct stat socket_stat;
	gboolean has_bus_file;
	gboolean has_socket;
};

/* The children must not outlive the service, even if it crashes. */
static void
die_with_parent_cb(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static char *
bus_config_path(void)
{
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);

	if (self && g_str_has_prefix(self, TRACECTL_BUILD_SERVICEDIR "/"))
		return g_build_filename(TRACECTL_BUILD_DATADIR, "embedded-bus.conf", NULL);
	return g_build_filename(TRACECTL_DATADIR, "embedded-bus.conf", NULL);
}

/* Reads the address dbus-daemon prints once it listens. */
static char *
read_address(int fd, GError **error)
{
	g_autoptr(GIOChannel) channel = g_io_channel_unix_new(fd);
	g_autofree char *line = NULL;

	g_io_channel_set_close_on_unref(channel, TRUE);
	if (g_io_channel_read_line(channel, &line, NULL, NULL, error) != G_IO_STATUS_NORMAL ||
	    line == NULL) {
		if (error && *error == NULL)
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "dbus-daemon exited without printing its address");
		return NULL;
	}
	return g_strstrip(g_steal_pointer(&line));
}

static gboolean
start_bus(TcEmbedded *embedded, GError **error)
{
	g_autofree char *config = bus_config_path();
	g_autofree char *config_arg = g_strdup_printf("--config-file=%s", config);
	g_autofree char *address_arg =
		g_strdup_printf("--address=unix:path=%s", embedded->socket_path);
	const char *argv[] = {DBUS_DAEMON,   config_arg, address_arg, "--nofork",
			      "--nopidfile", "--print-address", NULL};
	g_autofree char *address = NULL;
	int out_fd;

	if (!g_file_test(config, G_FILE_TEST_EXISTS)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The bus configuration '%s' is missing",
			    config);
		return FALSE;
	}
	unlink(embedded->socket_path);
	if (!g_spawn_async_with_pipes(NULL, (char **)argv, NULL,
				      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
				      die_with_parent_cb, NULL, &embedded->bus_pid, NULL, &out_fd,
				      NULL, error)) {
		g_prefix_error(error, "Failed to start dbus-daemon: ");
		return FALSE;
	}
	embedded->bus_pidfd = tc_process_open(embedded->bus_pid);
	address = read_address(out_fd, error);
	if (address == NULL)
		return FALSE;
	embedded->has_socket = stat(embedded->socket_path, &embedded->socket_stat) == 0;
	g_setenv("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);
	g_message("Embedded system bus at '%s' (pid %d)", address, (int)embedded->bus_pid);
	return TRUE;
}

static gboolean
wait_for_polkit(GError **error)
{
	g_autoptr(GDBusConnection) bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, error);
	gint64 deadline = g_get_monotonic_time() + START_TIMEOUT_MS * 1000;

	if (bus == NULL)
		return FALSE;
	while (g_get_monotonic_time() < deadline) {
		g_autoptr(GVariant) reply = g_dbus_connection_call_sync(
			bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			"org.freedesktop.DBus", "NameHasOwner",
			g_variant_new("(s)", "org.freedesktop.PolicyKit1"), G_VARIANT_TYPE("(b)"),
			G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
		gboolean has_owner = FALSE;

		if (reply == NULL)
			return FALSE;
		g_variant_get(reply, "(b)", &has_owner);
		if (has_owner)
			return TRUE;
		g_usleep(20000);
	}
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "polkitd did not appear on the bus");
	return FALSE;
}

static gboolean
start_polkit(TcEmbedded *embedded, GError **error)
{
	const char *argv[] = {POLKITD_PATH, "--no-debug", NULL};

	if (!g_file_test(POLKITD_PATH, G_FILE_TEST_IS_EXECUTABLE)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "%s is missing (Debian package polkitd)", POLKITD_PATH);
		return FALSE;
	}
	if (!g_spawn_async(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
			   die_with_parent_cb, NULL, &embedded->polkit_pid, error)) {
		g_prefix_error(error, "Failed to start polkitd: ");
		return FALSE;
	}
	embedded->polkit_pidfd = tc_process_open(embedded->polkit_pid);
	if (!wait_for_polkit(error))
		return FALSE;
	g_message("polkitd running on the embedded bus (pid %d)", (int)embedded->polkit_pid);
	return TRUE;
}

/* Sockets of instances that died without cleaning up (SIGKILL). */
static void
remove_stale_sockets(const char *rundir)
{
	g_autoptr(GDir) dir = g_dir_open(rundir, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir)) != NULL) {
		guint64 pid;
		g_autofree char *proc = NULL;

		if (!g_str_has_prefix(name, "system_bus_socket.") ||
		    !g_ascii_string_to_unsigned(name + strlen("system_bus_socket."), 10, 1,
						G_MAXINT, &pid, NULL))
			continue;
		proc = g_strdup_printf("/proc/%" G_GUINT64_FORMAT, pid);
		if (!g_file_test(proc, G_FILE_TEST_EXISTS)) {
			g_autofree char *path = g_build_filename(rundir, name, NULL);

			unlink(path);
		}
	}
}

TcEmbedded *
tc_embedded_start(const char *rundir, GError **error)
{
	TcEmbedded *embedded = g_new0(TcEmbedded, 1);
	g_autofree char *socket_name = g_strdup_printf("system_bus_socket.%d", (int)getpid());
	const char *address;

	embedded->bus_pidfd = -1;
	embedded->polkit_pidfd = -1;
	/* One socket per instance: dbus-daemon removes its socket when it
	 * exits, which must never be the socket of the next instance. */
	remove_stale_sockets(rundir);
	embedded->socket_path = g_build_filename(rundir, socket_name, NULL);
	embedded->bus_file = g_build_filename(rundir, "bus", NULL);
	if (!start_bus(embedded, error) || !start_polkit(embedded, error))
		goto fail;
	address = g_getenv("DBUS_SYSTEM_BUS_ADDRESS");
	if (!g_file_set_contents_full(embedded->bus_file, address, -1,
				      G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
		goto fail;
	embedded->has_bus_file = stat(embedded->bus_file, &embedded->bus_file_stat) == 0;
	return embedded;
fail:
	tc_embedded_stop(embedded);
	return NULL;
}

/* Our unreaped child cannot lose its pid to another process, so without a
 * pidfd (none could be opened) kill() is still safe here. */
static void
signal_child(GPid pid, int pidfd, int sig)
{
	if (pidfd >= 0)
		tc_process_signal(pidfd, sig);
	else
		kill(pid, sig);
}

static void
stop_child(GPid pid, int pidfd, const char *what)
{
	int status;

	if (pid <= 0)
		return;
	signal_child(pid, pidfd, SIGTERM);
	for (guint i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) != 0)
			return;
		g_usleep(10000);
	}
	g_warning("%s (pid %d) did not exit, killing it", what, (int)pid);
	signal_child(pid, pidfd, SIGKILL);
	waitpid(pid, &status, 0);
}

void
tc_embedded_stop(TcEmbedded *embedded)
{
	if (embedded == NULL)
		return;
	/* Remove only what is still ours: a new instance may already run. */
	if (embedded->has_bus_file &&
	    tc_rundir_is_same_file(embedded->bus_file, &embedded->bus_file_stat))
		unlink(embedded->bus_file);
	stop_child(embedded->polkit_pid, embedded->polkit_pidfd, "polkitd");
	stop_child(embedded->bus_pid, embedded->bus_pidfd, "dbus-daemon");
	if (embedded->polkit_pidfd >= 0)
		close(embedded->polkit_pidfd);
	if (embedded->bus_pidfd >= 0)
		close(embedded->bus_pidfd);
	if (embedded->has_socket &&
	    tc_rundir_is_same_file(embedded->socket_path, &embedded->socket_stat))
		unlink(embedded->socket_path);
	g_free(embedded->bus_file);
	g_free(embedded->socket_path);
	g_free(embedded);
}
