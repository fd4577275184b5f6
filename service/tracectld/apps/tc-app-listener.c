/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Registered applications. The registration path (tc-app-register.c)
 * hands each published application to this module's thread, which reads
 * its answers to commands, later event batches (providers loaded with
 * dlopen) and its hang-up, with epoll. Sending to an application
 * (tc-app-protocol.c) happens from any thread, under the application's
 * lock, never blocking.
 *
 * Closing order: an application is first unlinked from the registry under
 * its lock, and only then is its socket closed, so a descriptor number
 * reused by a new connection can never be mistaken for the old one.
 */
#define G_LOG_DOMAIN "tracectld-apps"

#include "tc-app-listener.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "tc-app-protocol.h"
#include "tc-app-register.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-error.h"
#include "tc-registry.h"
#include "tc-rundir.h"
#include "tc-signals.h"

#define MAX_EPOLL_EVENTS 64
#define MESSAGES_PER_TURN 64
/* Registration is short work (a worker only handles what a connection
 * already sent, it never waits for more): a fixed two workers are plenty,
 * whatever the number of cores. */
#define TC_REGISTRATION_WORKERS 2

struct _TcAppListener {
	int listen_fd;
	int wake_fd; /* eventfd: stop */
	int epoll_fd;
	char *socket_path; /* created by us, removed at exit; NULL if activated */
	struct stat socket_stat; /* so that we never remove a successor's socket */
	GThread *thread;
	gboolean stopping;
	TcRegistrar *registrar;
};

/* Serving registered applications (listener thread). */

/* A later batch of events (a provider loaded with dlopen): same shadow
 * copy as at registration, then the answer. */
static void
finish_batch(TcApp *app, guint32 batch)
{
	tc_app_sync_all_sessions(app, batch);
}

/* Handles one message; FALSE with *why when the application must go. */
static gboolean
handle_message(TcApp *app, const TcAppMessage *message, char **why)
{
	g_autoptr(GError) error = NULL;
	TcAppHandled handled;
	gboolean is_dead;

	g_mutex_lock(&app->lock);
	handled = tc_app_protocol_handle_message(app, message, &error);
	is_dead = app->state == TC_APP_DEAD;
	g_mutex_unlock(&app->lock);
	if (handled == TC_APP_REFUSED || is_dead) {
		*why = g_strdup_printf("%s: %s",
				       g_error_matches(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED)
					       ? "refused"
					       : "protocol error",
				       error ? error->message : "disconnected");
		return FALSE;
	}
	if (handled == TC_APP_BATCH_ENDED)
		finish_batch(app, message->batch.batch);
	return TRUE;
}

/*
 * glibc keeps freed memory in its per-thread arenas; give it back once a
 * wave of applications is gone, so the service returns to its baseline
 * after a thousand applications come and go. Rare, off every hot path.
 */
static struct rcu_head trim_head;
static gboolean is_trim_pending; /* atomic */

static void
trim_rcu(struct rcu_head *head)
{
	malloc_trim(0);
	g_atomic_int_set(&is_trim_pending, FALSE);
}

static void
trim_after_unregistrations(void)
{
	static guint unregistered;

	if (++unregistered % 256 != 0 && tc_registry_app_count() != 0)
		return;
	/* After the applications' own call_rcu frees, which come first. */
	if (g_atomic_int_compare_and_exchange(&is_trim_pending, FALSE, TRUE))
		call_rcu(&trim_head, trim_rcu);
}

static void
close_app(TcAppListener *listener, TcApp *app, const char *why)
{
	g_mutex_lock(&app->lock);
	if (app->state != TC_APP_DEAD) {
		g_message("Application unregistered: pid=%d uid=%u name='%s' (%s)", (int)app->pid,
			  (unsigned)app->uid, app->procname, why);
		if (app->state == TC_APP_REGISTERED)
			tc_signals_app_gone(app->pid, app->uid);
		tc_registry_remove_app_locked(app);
	}
	g_mutex_unlock(&app->lock);
	epoll_ctl(listener->epoll_fd, EPOLL_CTL_DEL, app->fd, NULL);
	close(app->fd);
	tc_app_unref(app); /* the listener's */
	trim_after_unregistrations();
}

static void
service_app(TcAppListener *listener, TcApp *app, guint32 events)
{
	g_autofree char *why = NULL;
	TcAppMessage message;

	/* Bounded: a flood from one application must not starve the others. */
	for (guint i = 0; i < MESSAGES_PER_TURN; i++) {
		switch (tc_app_protocol_read_message(app->fd, &message, &why)) {
		case TC_APP_READ_NOTHING:
			if (events & (EPOLLHUP | EPOLLERR))
				close_app(listener, app, "hang-up");
			return;
		case TC_APP_READ_GONE:
			close_app(listener, app, why);
			return;
		case TC_APP_READ_MESSAGE:
			if (!handle_message(app, &message, &why)) {
				close_app(listener, app, why);
				return;
			}
		}
	}
}

static void
adopt_app_cb(TcApp *app, gpointer user_data)
{
	TcAppListener *listener = user_data;
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = app};

	if (epoll_ctl(listener->epoll_fd, EPOLL_CTL_ADD, app->fd, &ev) < 0) {
		g_warning("Cannot watch application pid=%d: %s", (int)app->pid, g_strerror(errno));
		g_mutex_lock(&app->lock);
		if (app->state == TC_APP_REGISTERED)
			tc_signals_app_gone(app->pid, app->uid);
		tc_registry_remove_app_locked(app);
		g_mutex_unlock(&app->lock);
		close(app->fd);
		tc_app_unref(app);
	}
}

static gpointer
listener_thread(gpointer data)
{
	TcAppListener *listener = data;
	struct epoll_event events[MAX_EPOLL_EVENTS];

	rcu_register_thread();
	while (!g_atomic_int_get(&listener->stopping)) {
		int n = epoll_wait(listener->epoll_fd, events, MAX_EPOLL_EVENTS, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_critical("epoll_wait failed: %s", g_strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			if (events[i].data.ptr == listener)
				continue;
			service_app(listener, events[i].data.ptr, events[i].events);
		}
	}
	rcu_unregister_thread();
	return NULL;
}

/* Socket set-up. */

static int
activated_socket(void)
{
	char **names = NULL;
	int n = sd_listen_fds_with_names(TRUE, &names);
	int found = -1;

	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;

		if (found < 0 && g_strcmp0(names[i], "app") == 0 &&
		    sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, NULL, 0) > 0)
			found = fd;
		else if (fd != found)
			close(fd);
	}
	g_strfreev(names);
	return found;
}

static gboolean
socket_is_live(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	gboolean live;

	live = fd >= 0 && connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	if (fd >= 0)
		close(fd);
	return live;
}

static int
create_socket(const char *path, GError **error)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The socket path '%s' is too long", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	if (socket_is_live(&addr)) {
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "Another tracectld is listening on '%s'", path);
		return -1;
	}
	/* Every user's applications register here. */
	fd = tc_rundir_listen(path, SOCK_CLOEXEC | SOCK_NONBLOCK, 0666, SOMAXCONN, error);
	if (fd < 0)
		g_prefix_error(error, "Failed to listen for applications: ");
	return fd;
}

static gboolean
watch_fd(TcAppListener *listener, int fd, GError **error)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = listener};

	if (epoll_ctl(listener->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "epoll_ctl: %s",
			    g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}

TcAppListener *
tc_app_listener_new(const char *socket_path, GError **error)
{
	g_autoptr(TcAppListener) listener = g_new0(TcAppListener, 1);

	listener->listen_fd = -1;
	listener->wake_fd = -1;
	listener->epoll_fd = -1;
	listener->listen_fd = activated_socket();
	if (listener->listen_fd >= 0) {
		g_message("Using the socket-activated registration socket");
		fcntl(listener->listen_fd, F_SETFL,
		      fcntl(listener->listen_fd, F_GETFL) | O_NONBLOCK);
	} else {
		listener->listen_fd = create_socket(socket_path, error);
		if (listener->listen_fd < 0)
			return NULL;
		listener->socket_path = g_strdup(socket_path);
		stat(socket_path, &listener->socket_stat);
		g_message("Listening for applications on '%s'", socket_path);
	}
	listener->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	listener->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (listener->epoll_fd < 0 || listener->wake_fd < 0 ||
	    !watch_fd(listener, listener->wake_fd, error)) {
		if (error && *error == NULL)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "epoll: %s",
				    g_strerror(errno));
		return NULL;
	}
	listener->thread = g_thread_new("tc-apps", listener_thread, listener);
	listener->registrar = tc_app_register_new(listener->listen_fd, TC_REGISTRATION_WORKERS,
						  adopt_app_cb, listener, error);
	if (listener->registrar == NULL)
		return NULL;
	return g_steal_pointer(&listener);
}

void
tc_app_listener_free(TcAppListener *listener)
{
	g_autoptr(GPtrArray) apps = NULL;

	if (listener == NULL)
		return;
	/* No new application first, then stop serving the others. */
	g_clear_pointer(&listener->registrar, tc_app_register_free);
	if (listener->thread) {
		g_atomic_int_set(&listener->stopping, TRUE);
		eventfd_write(listener->wake_fd, 1);
		g_thread_join(listener->thread);
	}
	apps = tc_registry_list_apps(0, TRUE);
	for (guint i = 0; i < apps->len; i++)
		close_app(listener, tc_app_ref(g_ptr_array_index(apps, i)), "the service stops");
	if (listener->listen_fd >= 0)
		close(listener->listen_fd);
	if (listener->socket_path &&
	    tc_rundir_is_same_file(listener->socket_path, &listener->socket_stat))
		unlink(listener->socket_path);
	if (listener->wake_fd >= 0)
		close(listener->wake_fd);
	if (listener->epoll_fd >= 0)
		close(listener->epoll_fd);
	g_free(listener->socket_path);
	g_free(listener);
}
