/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-listen.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-lttng-registry.h"
#include "tc-rundir.h"

#define MAX_EPOLL_EVENTS 64
/* How often pairings are checked against their deadline. */
#define DEADLINE_TICK_MS 500

/* The epoll data of the two sockets of the service's own; an
 * application's is its id, which starts at 1 and never reaches these. */
#define LISTEN_KEY G_MAXUINT64
#define STOP_KEY (G_MAXUINT64 - 1)
/* The notify socket's key is the application's id with this bit set. */
#define NOTIFY_BIT (G_GUINT64_CONSTANT(1) << 62)

struct _TcLttngListen {
	int listen_fd;
	int stop_fd;
	int epoll_fd;
	char *path;
	struct stat socket_stat;
	GThread *thread;
	gboolean is_stopping;
	TcLttngAcceptFunc accept_func;
	TcLttngGoneFunc gone_func;
	TcLttngNotifyFunc notify_func;
	gpointer user_data;
};

static void
accept_one(TcLttngListen *listen)
{
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	int fd = accept4(listen->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			g_warning("Failed to accept an LTTng-UST application: %s",
				  g_strerror(errno));
		if (errno == EMFILE || errno == ENFILE)
			g_usleep(100000); /* let descriptors be freed before trying again */
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0) {
		g_warning("Failed to read an LTTng-UST application's credentials: %s",
			  g_strerror(errno));
		close(fd);
		return;
	}
	listen->accept_func(fd, &cred, listen->user_data);
}

static void
report_app(TcLttngListen *listen, guint64 key, guint32 events)
{
	g_autoptr(TcLttngApp) app = tc_lttng_registry_find(key & ~NOTIFY_BIT);
	const char *why;

	if (app == NULL)
		return; /* gone already */
	if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		why = "hang-up";
	else if (key & NOTIFY_BIT) {
		listen->notify_func(app, listen->user_data);
		return;
	} else
		why = "input on its command socket";
	listen->gone_func(app, why, listen->user_data);
}

static void
expire_pairings(TcLttngListen *listen)
{
	g_autoptr(GPtrArray) expired = tc_lttng_registry_list_expired(g_get_monotonic_time());

	for (guint i = 0; i < expired->len; i++)
		listen->gone_func(g_ptr_array_index(expired, i), "no notify socket in time",
				  listen->user_data);
}

static gpointer
listen_thread(gpointer data)
{
	TcLttngListen *listen = data;
	struct epoll_event events[MAX_EPOLL_EVENTS];

	while (!g_atomic_int_get(&listen->is_stopping)) {
		int n = epoll_wait(listen->epoll_fd, events, MAX_EPOLL_EVENTS, DEADLINE_TICK_MS);

		if (n < 0 && errno != EINTR) {
			g_critical("epoll_wait failed: %s", g_strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			if (events[i].data.u64 == STOP_KEY)
				break;
			if (events[i].data.u64 == LISTEN_KEY)
				accept_one(listen);
			else
				report_app(listen, events[i].data.u64, events[i].events);
		}
		expire_pairings(listen);
	}
	return NULL;
}

static gboolean
epoll_add(TcLttngListen *listen, int fd, guint32 events, guint64 key, GError **error)
{
	struct epoll_event ev = {.events = events, .data.u64 = key};

	if (epoll_ctl(listen->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "epoll_ctl: %s",
			    g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_lttng_listen_watch(TcLttngListen *listen, TcLttngApp *app, GError **error)
{
	/* The command socket is read only by the owner's thread, which waits
	 * for answers on it: watch its hang-up only, never its input. */
	return epoll_add(listen, app->cmd_fd, EPOLLRDHUP | EPOLLONESHOT, app->id, error) &&
	       epoll_add(listen, app->notify_fd, EPOLLIN | EPOLLRDHUP | EPOLLONESHOT,
			 app->id | NOTIFY_BIT, error);
}

gboolean
tc_lttng_listen_rearm_notify(TcLttngListen *listen, TcLttngApp *app, GError **error)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT,
				 .data.u64 = app->id | NOTIFY_BIT};

	if (epoll_ctl(listen->epoll_fd, EPOLL_CTL_MOD, app->notify_fd, &ev) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "epoll_ctl: %s",
			    g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}

/* Whether a session daemon answers at path. Only a refused connection
 * (nobody listens on that file) or a missing file say no; anything else
 * (a full backlog, a file that is no socket) is not ours to take. */
static gboolean
is_answered(const char *path, GError **error)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, saved;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The socket path '%s' is too long", path);
		return TRUE;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "socket: %s",
			    g_strerror(errno));
		return TRUE;
	}
	saved = connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) == 0 ? 0 : errno;
	close(fd);
	if (saved == ECONNREFUSED || saved == ENOENT)
		return FALSE;
	/* A full backlog (EAGAIN) is a daemon too, a busy one. */
	if (saved == 0 || saved == EAGAIN)
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS, "it answers on '%s'", path);
	else
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "'%s' cannot be taken over: %s", path, g_strerror(saved));
	return TRUE;
}

static gboolean
start(TcLttngListen *listen, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(listen->path);

	if (g_mkdir_with_parents(dir, 0755) < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "Cannot create '%s': %s",
			    dir, g_strerror(errno));
		return FALSE;
	}
	if (is_answered(listen->path, error))
		return FALSE;
	/* Every user's applications connect here. */
	listen->listen_fd = tc_rundir_listen_stream(listen->path, SOCK_CLOEXEC | SOCK_NONBLOCK,
						    0666, SOMAXCONN, error);
	if (listen->listen_fd < 0)
		return FALSE;
	stat(listen->path, &listen->socket_stat);
	listen->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	listen->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (listen->epoll_fd < 0 || listen->stop_fd < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "epoll: %s", g_strerror(errno));
		return FALSE;
	}
	return epoll_add(listen, listen->listen_fd, EPOLLIN, LISTEN_KEY, error) &&
	       epoll_add(listen, listen->stop_fd, EPOLLIN, STOP_KEY, error);
}

TcLttngListen *
tc_lttng_listen_new(const char *path, TcLttngAcceptFunc accept_func, TcLttngGoneFunc gone_func,
		    TcLttngNotifyFunc notify_func, gpointer user_data, GError **error)
{
	TcLttngListen *listen = g_new0(TcLttngListen, 1);

	listen->listen_fd = listen->stop_fd = listen->epoll_fd = -1;
	listen->path = g_strdup(path);
	listen->accept_func = accept_func;
	listen->gone_func = gone_func;
	listen->notify_func = notify_func;
	listen->user_data = user_data;
	if (!start(listen, error)) {
		tc_lttng_listen_free(listen);
		return NULL;
	}
	listen->thread = g_thread_new("tc-lttng", listen_thread, listen);
	return listen;
}

void
tc_lttng_listen_stop(TcLttngListen *listen)
{
	if (listen->thread == NULL)
		return;
	g_atomic_int_set(&listen->is_stopping, TRUE);
	eventfd_write(listen->stop_fd, 1);
	g_thread_join(listen->thread);
	listen->thread = NULL;
}

void
tc_lttng_listen_free(TcLttngListen *listen)
{
	if (listen == NULL)
		return;
	tc_lttng_listen_stop(listen);
	if (listen->listen_fd >= 0) {
		close(listen->listen_fd);
		if (tc_rundir_is_same_file(listen->path, &listen->socket_stat))
			unlink(listen->path);
	}
	if (listen->stop_fd >= 0)
		close(listen->stop_fd);
	if (listen->epoll_fd >= 0)
		close(listen->epoll_fd);
	g_free(listen->path);
	g_free(listen);
}
