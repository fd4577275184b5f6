/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Consumers as systemd units. On a systemd machine tracectld runs as an
 * unprivileged user and cannot switch to another uid, so each user's
 * consumer is an instance of the template tracectl-consumer@.service,
 * tracectl-consumer@<uid>.service, which runs as that uid and is restarted
 * on failure, started through org.freedesktop.systemd1 (a shipped polkit
 * rule lets the tracectl user start these units and no others, and never
 * the one of uid 0, which only a tracectld running as root may use; the
 * socket path is fixed in the unit). The consumer connects back to
 * <rundir>/consumer.sock; the service knows it by the uid the kernel
 * gives for the connection (SO_PEERCRED), never by what it says.
 */
#define G_LOG_DOMAIN "tracectld-consumer"

#include "tc-consumer-unit.h"

#include <errno.h>
#include <gio/gio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "tc-app-listener.h"
#include "tc-error.h"
#include "tc-process.h"
#include "tc-rundir.h"

#define CONNECT_TIMEOUT_MS 15000

static int listen_fd = -1;
static char *socket_path;
static struct stat socket_stat;

gboolean
tc_consumer_units_available(void)
{
	return listen_fd >= 0;
}

void
tc_consumer_units_init(const char *rundir)
{
	struct sockaddr_un addr;
	const char *launcher = g_getenv("TRACECTL_CONSUMER_LAUNCHER");
	g_autoptr(GError) error = NULL;

	/* The direct launcher when there is no systemd, or when asked. */
	if (sd_booted() <= 0 || g_strcmp0(launcher, "direct") == 0)
		return;
	socket_path = g_build_filename(rundir, "consumer.sock", NULL);
	if (strlen(socket_path) >= sizeof(addr.sun_path))
		return;
	/* Any user's consumer connects; the uid of the connection says whose. */
	listen_fd = tc_rundir_listen(socket_path, SOCK_CLOEXEC, 0666, 64, &error);
	if (listen_fd < 0) {
		g_warning("Using the direct launcher: %s", error->message);
		return;
	}
	stat(socket_path, &socket_stat);
	g_message("Consumers are started as systemd units and connect to '%s'", socket_path);
}

void
tc_consumer_units_shutdown(void)
{
	if (listen_fd < 0)
		return;
	close(listen_fd);
	listen_fd = -1;
	if (tc_path_is_same_file(socket_path, &socket_stat))
		unlink(socket_path);
	g_clear_pointer(&socket_path, g_free);
}

static gboolean
start_unit(const char *unit, GError **error)
{
	g_autoptr(GDBusConnection) bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, error);
	g_autoptr(GVariant) reply = NULL;

	if (bus == NULL)
		return FALSE;
	/* Starting a running instance is a no-op: then it is connecting
	 * again after a restart, and accept_consumer() takes it. */
	reply = g_dbus_connection_call_sync(
		bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
		"org.freedesktop.systemd1.Manager", "StartUnit",
		g_variant_new("(ss)", unit, "replace"), G_VARIANT_TYPE("(o)"),
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
	if (reply == NULL) {
		g_prefix_error(error, "systemd could not start %s: ", unit);
		return FALSE;
	}
	return TRUE;
}

/* Waits for the connection of uid's consumer; others are closed. */
static int
accept_consumer(uid_t uid, pid_t *pid, int *pidfd, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + CONNECT_TIMEOUT_MS * 1000;

	for (;;) {
		gint64 left_ms = (deadline - g_get_monotonic_time()) / 1000;
		struct pollfd pfd = {.fd = listen_fd, .events = POLLIN};
		struct ucred cred;
		socklen_t len = sizeof(cred);
		int fd;

		if (left_ms <= 0 || poll(&pfd, 1, left_ms) == 0) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer of uid %u did not connect within %d s",
				    (unsigned)uid, CONNECT_TIMEOUT_MS / 1000);
			return -1;
		}
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == uid) {
			*pid = cred.pid;
			*pidfd = tc_process_open_peer(fd);
			if (*pidfd < 0)
				g_warning("Cannot open a pidfd of the consumer of uid %u (pid %d), "
					  "it cannot be killed if it hangs: %s",
					  (unsigned)uid, (int)cred.pid, g_strerror(errno));
			return fd;
		}
		g_warning("Refusing a consumer connection from pid %d uid %u (waiting for uid %u)",
			  (int)cred.pid, (unsigned)cred.uid, (unsigned)uid);
		close(fd);
	}
}

int
tc_consumer_unit_start(uid_t uid, pid_t *pid, int *pidfd, GError **error)
{
	g_autofree char *unit = g_strdup_printf("tracectl-consumer@%u.service", (unsigned)uid);

	/* Root's consumer writes with root's rights: it serves only a service
	 * that is root itself, and the polkit rule does not let us start it. */
	if (uid == 0 && geteuid() != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Sessions of root record only when tracectld runs as root: a "
			    "consumer running as root is never started for a service running as "
			    "uid %u",
			    (unsigned)geteuid());
		return -1;
	}
	if (!start_unit(unit, error))
		return -1;
	return accept_consumer(uid, pid, pidfd, error);
}
