/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Application connections. One thread accepts on the registration socket
 * and reads every application socket (epoll). Identity comes from
 * SO_PEERCRED at accept time, never from a message. Every message is
 * checked (magic, type, exact size, strings, fields) before use; an
 * application that sends anything malformed is disconnected, which costs
 * nobody else anything.
 *
 * Closing order: an application is first unlinked from the registry under
 * the registry lock, and only then is its socket closed, so a descriptor
 * number reused by a new connection can never be mistaken for the old one.
 */
#define G_LOG_DOMAIN "tracectld-apps"

#include "tc-app-listener.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-metadata.h"
#include "tc-registry.h"
#include "tc-validate.h"

#define APP_SOCKET_SNDBUF (1 << 20)
#define MAX_EPOLL_EVENTS 64

struct _TcAppListener {
	int listen_fd;
	int wake_fd; /* eventfd: stop */
	int epoll_fd;
	char *socket_path; /* created by us, removed at exit; NULL if activated */
	GThread *thread;
	gboolean stopping;
	GHashTable *conns; /* fd -> TcApp * (a reference), listener thread only */
};

/* Sending (any thread, registry lock held). */

gboolean
tc_app_send_locked(TcApp *app, void *msg, guint32 type, guint32 size, guint32 seq,
		   const int *fds, guint n_fds)
{
	struct tracectl_msg_header *header = msg;
	struct iovec iov = {.iov_base = msg, .iov_len = size};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t sent;

	g_assert(n_fds <= 1);
	if (app->state == TC_APP_DEAD)
		return FALSE;
	header->magic = TRACECTL_ABI_MAGIC;
	header->type = type;
	header->size = size;
	header->seq = seq;
	if (n_fds == 1) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int));
	}
	do
		sent = sendmsg(app->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent == (ssize_t)size)
		return TRUE;
	/* A full socket means the application stopped reading: never wait. */
	tc_app_disconnect_locked(app, sent < 0 ? g_strerror(errno) : "short send");
	return FALSE;
}

void
tc_app_disconnect_locked(TcApp *app, const char *why)
{
	if (app->state == TC_APP_DEAD)
		return;
	g_message("Disconnecting application pid=%d uid=%u name='%s': %s", (int)app->pid,
		  (unsigned)app->uid, app->procname, why);
	tc_registry_remove_app_locked(app);
	/* The listener sees the hang-up and closes the descriptor. */
	shutdown(app->fd, SHUT_RDWR);
}

/* Receiving (listener thread). */

static void
read_procname(TcApp *app)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/comm", (int)app->pid);
	g_autofree char *contents = NULL;

	if (g_file_get_contents(path, &contents, NULL, NULL)) {
		g_strchomp(contents);
		g_strlcpy(app->procname, contents, sizeof(app->procname));
	} else {
		g_strlcpy(app->procname, "?", sizeof(app->procname));
	}
}

static gboolean
handle_register(TcApp *app, const struct tracectl_msg_register *msg, GError **error)
{
	if (app->state != TC_APP_CONNECTED) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "registered twice");
		return FALSE;
	}
	if (msg->abi_version != TRACECTL_ABI_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "ABI version %u, the service speaks %u", msg->abi_version,
			    TRACECTL_ABI_VERSION);
		return FALSE;
	}
	if (msg->bits_per_long != sizeof(long) * 8) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "%u-bit applications are not supported", msg->bits_per_long);
		return FALSE;
	}
	if (msg->pid != app->pid || msg->uid != app->uid)
		g_warning("Application pid=%d uid=%u claims pid=%d uid=%u; using its "
			  "credentials from the socket",
			  (int)app->pid, (unsigned)app->uid, msg->pid, msg->uid);
	app->tracer_major = msg->tracer_major;
	app->tracer_minor = msg->tracer_minor;
	read_procname(app);
	app->state = TC_APP_REGISTERED;
	g_message("Application registered: pid=%d uid=%u name='%s' tracer=%u.%u", (int)app->pid,
		  (unsigned)app->uid, app->procname, app->tracer_major, app->tracer_minor);
	return TRUE;
}

static gboolean
check_field(const struct tracectl_abi_field *field)
{
	if (memchr(field->name, '\0', sizeof(field->name)) == NULL ||
	    !tc_validate_field_name(field->name))
		return FALSE;
	switch (field->type) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		return field->size == 1 || field->size == 2 || field->size == 4 ||
		       field->size == 8;
	case TRACECTL_FIELD_DOUBLE:
		return field->size == 8;
	case TRACECTL_FIELD_STRING:
	case TRACECTL_FIELD_BYTES:
		return field->size == 0;
	default:
		return FALSE;
	}
}

static gboolean
check_event(const struct tracectl_msg_event *msg, GError **error)
{
	if (memchr(msg->name, '\0', sizeof(msg->name)) == NULL ||
	    !tc_validate_event_name(msg->name)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "bad event name");
		return FALSE;
	}
	if (msg->nr_fields > TRACECTL_ABI_FIELDS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "event '%s' has %u fields", msg->name, msg->nr_fields);
		return FALSE;
	}
	for (guint i = 0; i < msg->nr_fields; i++) {
		if (!check_field(&msg->fields[i])) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "event '%s' has a bad field %u", msg->name, i);
			return FALSE;
		}
		for (guint j = 0; j < i; j++) {
			if (g_str_equal(msg->fields[i].name, msg->fields[j].name)) {
				g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "event '%s' has two fields '%s'", msg->name,
					    msg->fields[i].name);
				return FALSE;
			}
		}
	}
	return TRUE;
}

static gboolean
handle_event(TcApp *app, const struct tracectl_msg_event *msg, GError **error)
{
	TcAppEvent *event;

	if (app->state != TC_APP_REGISTERED || msg->index != app->events->len ||
	    app->events->len >= TRACECTL_ABI_EVENTS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "unexpected event %u (have %u)", msg->index, app->events->len);
		return FALSE;
	}
	if (!check_event(msg, error))
		return FALSE;
	event = g_new0(TcAppEvent, 1);
	memcpy(event->name, msg->name, sizeof(event->name));
	event->loglevel = msg->loglevel;
	event->nr_fields = msg->nr_fields;
	memcpy(event->fields, msg->fields, sizeof(event->fields[0]) * msg->nr_fields);
	event->signature = tc_metadata_signature(event->fields, event->nr_fields);
	g_ptr_array_add(app->events, event);
	return TRUE;
}

static gboolean
handle_events_end(TcApp *app, const struct tracectl_msg_batch *msg, GError **error)
{
	g_autoptr(GPtrArray) sessions = NULL;
	struct tracectl_msg_batch done = {.batch = msg->batch};

	if (app->state != TC_APP_REGISTERED) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "events before register");
		return FALSE;
	}
	g_debug("Application pid=%d sent %u event(s) in batch %u", (int)app->pid,
		app->events->len - app->batch_start, msg->batch);
	app->batch_start = app->events->len;
	/* The shadow copy: every session of the owner, as it is now. */
	sessions = tc_registry_sessions_locked(app->uid);
	for (guint i = 0; i < sessions->len && app->state != TC_APP_DEAD; i++)
		tc_app_sync_locked(app, g_ptr_array_index(sessions, i), NULL);
	tc_app_send_locked(app, &done, TRACECTL_MSG_EVENTS_DONE, sizeof(done), 0, NULL, 0);
	return TRUE;
}

static gboolean
handle_reply(TcApp *app, const struct tracectl_msg_reply *msg, GError **error)
{
	TcAckWaiter *waiter = g_hash_table_lookup(app->pending, GUINT_TO_POINTER(msg->header.seq));

	if (msg->status < 0)
		g_warning("Application pid=%d failed command %u: %s", (int)app->pid,
			  msg->header.seq, g_strerror(-msg->status));
	if (waiter) {
		g_hash_table_remove(app->pending, GUINT_TO_POINTER(msg->header.seq));
		tc_ack_waiter_signal_locked(waiter);
	}
	return TRUE;
}

static guint32
expected_size(guint32 type)
{
	switch (type) {
	case TRACECTL_MSG_REGISTER:
		return sizeof(struct tracectl_msg_register);
	case TRACECTL_MSG_EVENT:
		return sizeof(struct tracectl_msg_event);
	case TRACECTL_MSG_EVENTS_END:
		return sizeof(struct tracectl_msg_batch);
	case TRACECTL_MSG_REPLY:
		return sizeof(struct tracectl_msg_reply);
	default:
		return 0;
	}
}

/* [R] Checks the framing and dispatches one message. */
static gboolean
handle_message_locked(TcApp *app, const void *buf, size_t len, GError **error)
{
	const struct tracectl_msg_header *header = buf;
	guint32 expected;

	if (len < sizeof(*header) || header->magic != TRACECTL_ABI_MAGIC) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "bad message header");
		return FALSE;
	}
	expected = expected_size(header->type);
	if (expected == 0 || header->size != len || len != expected) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "message type %u of %zu bytes", header->type, len);
		return FALSE;
	}
	switch (header->type) {
	case TRACECTL_MSG_REGISTER:
		return handle_register(app, buf, error);
	case TRACECTL_MSG_EVENT:
		return handle_event(app, buf, error);
	case TRACECTL_MSG_EVENTS_END:
		return handle_events_end(app, buf, error);
	case TRACECTL_MSG_REPLY:
		return handle_reply(app, buf, error);
	default:
		g_assert_not_reached();
	}
}

static void
close_received_fds(struct msghdr *mh)
{
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(mh); cmsg; cmsg = CMSG_NXTHDR(mh, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
			size_t n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < n; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
				close(fd);
			}
		}
	}
}

/*
 * Reads one message. Returns 1 when one was handled, 0 when there is
 * nothing more to read, -1 when the application must go.
 */
static int
read_one_message(TcApp *app, char **why)
{
	/* One byte more than the largest message, to see oversized ones. */
	guint64 buf[TRACECTL_ABI_MSG_MAX / sizeof(guint64) + 1];
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	g_autoptr(GError) error = NULL;
	ssize_t len;
	gboolean ok;

	len = recvmsg(app->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (len < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (len < 0) {
		*why = g_strdup(g_strerror(errno));
		return -1;
	}
	if (len == 0) {
		*why = g_strdup("connection closed");
		return -1;
	}
	if (mh.msg_controllen > 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		close_received_fds(&mh);
		*why = g_strdup("oversized message or unexpected file descriptors");
		return -1;
	}
	tc_registry_lock_acquire();
	ok = app->state != TC_APP_DEAD && handle_message_locked(app, buf, len, &error);
	tc_registry_lock_release();
	if (!ok) {
		*why = g_strdup_printf("protocol error: %s",
				       error ? error->message : "application disconnected");
		return -1;
	}
	return 1;
}

static void
close_app(TcAppListener *listener, TcApp *app, const char *why)
{
	int fd = app->fd;

	tc_registry_lock_acquire();
	if (app->state != TC_APP_DEAD) {
		if (app->state == TC_APP_REGISTERED)
			g_message("Application unregistered: pid=%d uid=%u name='%s' (%s)",
				  (int)app->pid, (unsigned)app->uid, app->procname, why);
		else
			g_message("Dropping connection of pid=%d uid=%u: %s", (int)app->pid,
				  (unsigned)app->uid, why);
		tc_registry_remove_app_locked(app);
	}
	tc_registry_lock_release();
	epoll_ctl(listener->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
	g_hash_table_remove(listener->conns, GINT_TO_POINTER(fd));
	close(fd);
}

static void
service_app(TcAppListener *listener, int fd, guint32 events)
{
	TcApp *app = g_hash_table_lookup(listener->conns, GINT_TO_POINTER(fd));
	g_autofree char *why = NULL;
	int result;

	if (app == NULL)
		return;
	/* Bounded: a flood from one application must not starve the others. */
	for (guint i = 0; i < 64; i++) {
		result = read_one_message(app, &why);
		if (result <= 0)
			break;
	}
	if (result < 0 || ((events & (EPOLLHUP | EPOLLERR)) && result == 0)) {
		close_app(listener, app, why ? why : "hang-up");
		return;
	}
}

static void
accept_app(TcAppListener *listener)
{
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
	int sndbuf = APP_SOCKET_SNDBUF;
	TcApp *app;
	int fd;

	fd = accept4(listener->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			g_warning("Failed to accept an application connection: %s",
				  g_strerror(errno));
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0) {
		g_warning("Failed to read the peer credentials of an application: %s",
			  g_strerror(errno));
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	app = tc_app_new(fd, cred.pid, cred.uid, cred.gid);
	ev.data.fd = fd;
	if (epoll_ctl(listener->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		g_warning("Failed to watch application pid=%d: %s", (int)cred.pid,
			  g_strerror(errno));
		tc_app_unref(app);
		close(fd);
		return;
	}
	g_hash_table_insert(listener->conns, GINT_TO_POINTER(fd), app);
	tc_registry_lock_acquire();
	tc_registry_add_app_locked(app);
	tc_registry_lock_release();
	g_debug("Application connected: pid=%d uid=%u", (int)cred.pid, (unsigned)cred.uid);
}

static gpointer
listener_thread(gpointer data)
{
	TcAppListener *listener = data;
	struct epoll_event events[MAX_EPOLL_EVENTS];

	while (!g_atomic_int_get(&listener->stopping)) {
		int n = epoll_wait(listener->epoll_fd, events, MAX_EPOLL_EVENTS, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_critical("epoll_wait failed: %s", g_strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = events[i].data.fd;

			if (fd == listener->wake_fd)
				continue;
			if (fd == listener->listen_fd)
				accept_app(listener);
			else
				service_app(listener, fd, events[i].events);
		}
	}
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
	unlink(path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    chmod(path, 0666) < 0 || listen(fd, SOMAXCONN) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "Failed to listen on '%s': %s", path, g_strerror(saved));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static gboolean
watch_fd(TcAppListener *listener, int fd, GError **error)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

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
	listener->conns = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						(GDestroyNotify)tc_app_unref);
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
		g_message("Listening for applications on '%s'", socket_path);
	}
	listener->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	listener->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (listener->epoll_fd < 0 || listener->wake_fd < 0 ||
	    !watch_fd(listener, listener->listen_fd, error) ||
	    !watch_fd(listener, listener->wake_fd, error)) {
		if (error && *error == NULL)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "epoll: %s",
				    g_strerror(errno));
		return NULL;
	}
	listener->thread = g_thread_new("tc-apps", listener_thread, listener);
	return g_steal_pointer(&listener);
}

void
tc_app_listener_free(TcAppListener *listener)
{
	GHashTableIter iter;
	gpointer value;

	if (listener == NULL)
		return;
	if (listener->thread) {
		g_atomic_int_set(&listener->stopping, TRUE);
		eventfd_write(listener->wake_fd, 1);
		g_thread_join(listener->thread);
	}
	g_hash_table_iter_init(&iter, listener->conns);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcApp *app = value;

		tc_registry_lock_acquire();
		if (app->state != TC_APP_DEAD)
			tc_registry_remove_app_locked(app);
		tc_registry_lock_release();
		close(app->fd);
	}
	g_hash_table_unref(listener->conns);
	if (listener->listen_fd >= 0)
		close(listener->listen_fd);
	if (listener->socket_path)
		unlink(listener->socket_path);
	if (listener->wake_fd >= 0)
		close(listener->wake_fd);
	if (listener->epoll_fd >= 0)
		close(listener->epoll_fd);
	g_free(listener->socket_path);
	g_free(listener);
}
