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

#include "tc-error.h"
#include "tc-process.h"
#include "tc-rundir.h"

#define CONNECT_TIMEOUT_MS 15000

static int listen_fd = -1;
static char *socket_path;
static struct stat socket_stat;

gboolean
tc_consumer_unit_available(void)
{
	return listen_fd >= 0;
}

void
tc_consumer_unit_init(const char *rundir)
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
tc_consumer_unit_shutdown(void)
{
	if (listen_fd < 0)
		return;
	close(listen_fd);
	listen_fd = -1;
	if (tc_rundir_is_same_file(socket_path, &socket_stat))
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

/*
 * Consumers of several users may be starting at once, and all connect to
 * the one listening socket: the thread that accepts a connection hands it
 * to the thread waiting for its uid. One waiting thread at a time polls
 * the socket, for a slice of ACCEPT_SLICE_MS, then lets the others look at
 * what arrived; nobody holds accept_lock while it polls.
 */
#define ACCEPT_SLICE_MS 100

typedef struct {
	int fd;
	pid_t pid;
} Arrived;

static GMutex accept_lock;      /* covers what follows */
static GCond accept_changed;    /* a connection arrived, or the poller left */
static gboolean is_polling;     /* a thread polls listen_fd */
static GHashTable *waiting;     /* uid -> number of threads waiting for it */
static GHashTable *arrived;     /* uid -> Arrived *: connected, not yet taken */

static void
arrived_free(gpointer data)
{
	Arrived *connection = data;

	close(connection->fd);
	g_free(connection);
}

/* No lock held: accepts one connection if one comes within timeout_ms,
 * and returns it with its peer's credentials, or -1. */
static int
accept_one(int timeout_ms, struct ucred *cred)
{
	struct pollfd pfd = {.fd = listen_fd, .events = POLLIN};
	socklen_t len = sizeof(*cred);
	int fd;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* accept_lock held: keeps a connection for the thread waiting for its
 * uid; refuses it when nobody waits for that uid. */
static void
hand_over_locked(int fd, const struct ucred *cred)
{
	Arrived *connection;

	if (!g_hash_table_contains(waiting, GUINT_TO_POINTER(cred->uid)) ||
	    g_hash_table_contains(arrived, GUINT_TO_POINTER(cred->uid))) {
		g_warning("Refusing a consumer connection from pid %d uid %u: no consumer of "
			  "that uid is starting",
			  (int)cred->pid, (unsigned)cred->uid);
		close(fd);
		return;
	}
	connection = g_new0(Arrived, 1);
	connection->fd = fd;
	connection->pid = cred->pid;
	g_hash_table_insert(arrived, GUINT_TO_POINTER(cred->uid), connection);
}

/* accept_lock held: counts a thread more (1) or less (-1) waiting for uid. */
static void
waiting_add_locked(uid_t uid, int delta)
{
	guint count = GPOINTER_TO_UINT(g_hash_table_lookup(waiting, GUINT_TO_POINTER(uid))) + delta;

	if (count == 0)
		g_hash_table_remove(waiting, GUINT_TO_POINTER(uid));
	else
		g_hash_table_insert(waiting, GUINT_TO_POINTER(uid), GUINT_TO_POINTER(count));
}

/* Waits for the connection of uid's consumer. */
static int
accept_consumer(uid_t uid, pid_t *pid, int *pidfd, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + CONNECT_TIMEOUT_MS * 1000;
	gpointer key = GUINT_TO_POINTER(uid);
	Arrived *connection = NULL;
	int fd = -1;

	g_mutex_lock(&accept_lock);
	if (waiting == NULL) {
		waiting = g_hash_table_new(g_direct_hash, g_direct_equal);
		arrived = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, arrived_free);
	}
	waiting_add_locked(uid, 1);
	for (;;) {
		gint64 now = g_get_monotonic_time();

		if (g_hash_table_steal_extended(arrived, key, NULL, (gpointer *)&connection))
			break;
		if (now >= deadline)
			break;
		if (is_polling) {
			g_cond_wait_until(&accept_changed, &accept_lock,
					  MIN(deadline, now + ACCEPT_SLICE_MS * 1000));
			continue;
		}
		is_polling = TRUE;
		g_mutex_unlock(&accept_lock);
		{
			struct ucred cred;
			int accepted = accept_one(
				(int)MIN(ACCEPT_SLICE_MS, (deadline - now) / 1000 + 1), &cred);

			g_mutex_lock(&accept_lock);
			if (accepted >= 0)
				hand_over_locked(accepted, &cred);
		}
		is_polling = FALSE;
		g_cond_broadcast(&accept_changed);
	}
	waiting_add_locked(uid, -1);
	g_mutex_unlock(&accept_lock);
	if (connection == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer of uid %u did not connect within %d s", (unsigned)uid,
			    CONNECT_TIMEOUT_MS / 1000);
		return -1;
	}
	fd = connection->fd;
	*pid = connection->pid;
	g_free(connection);
	*pidfd = tc_process_open_peer(fd);
	if (*pidfd < 0)
		g_warning("Cannot open a pidfd of the consumer of uid %u (pid %d), it cannot be "
			  "killed if it hangs: %s",
			  (unsigned)uid, (int)*pid, g_strerror(errno));
	return fd;
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
