/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-register"

#include "tc-app-register.h"

#include <errno.h>
#include <gio/gio.h>
#include <limits.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <urcu/futex.h>
#include <urcu/uatomic.h>
#include <urcu/wfcqueue.h>

#include "tc-app-protocol.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-error.h"
#include "tc-peer-identity.h"
#include "tc-registry.h"
#include "tc-signals.h"
#include "tc-user-limits.h"

#define APP_SOCKET_SNDBUF (1 << 20)
#define MESSAGES_PER_TURN 256
#define MAX_EPOLL_EVENTS 64

typedef struct {
	struct cds_wfcq_node node;
	TcApp *app; /* not published until the handshake is complete */
	gint64 deadline_us;
	gboolean is_in_epoll;
} TcRegistration;

typedef struct {
	TcRegistrar *registrar;
	struct cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	int32_t futex; /* -1 while the worker sleeps on it */
	GThread *thread;
} TcWorker;

struct _TcRegistrar {
	int listen_fd;
	int stop_fd;  /* eventfd: every thread returns */
	int inbox_fd; /* eventfd: the inbox has registrations */
	int epoll_fd; /* dispatcher: registrations waiting for data */
	struct cds_wfcq_head inbox_head;
	struct cds_wfcq_tail inbox_tail;
	GHashTable *parked; /* fd -> TcRegistration *, dispatcher only */
	TcWorker *workers;
	guint n_workers;
	guint next_worker;
	GThread *accept_thread;
	GThread *dispatch_thread;
	gboolean is_stopping; /* atomic */
	TcAppAdoptFunc adopt;
	gpointer adopt_data;
};

static void
registration_drop(TcRegistration *registration, const char *why)
{
	TcApp *app = registration->app;

	g_message("Dropping the registration of pid=%d uid=%u: %s", (int)app->pid,
		  (unsigned)app->uid, why);
	close(app->fd);
	tc_app_unref(app);
	g_free(registration);
}

/* Any thread: hands a registration to the dispatcher. */
static void
inbox_push(TcRegistrar *registrar, TcRegistration *registration)
{
	cds_wfcq_node_init(&registration->node);
	cds_wfcq_enqueue(&registrar->inbox_head, &registrar->inbox_tail, &registration->node);
	eventfd_write(registrar->inbox_fd, 1);
}

/* Accept thread. */

/* A user at the limit may be trying to flood us: one line a second. */
static void
warn_refused(const struct ucred *cred, const GError *error)
{
	static gint64 last_us;
	static guint refused;
	gint64 now = g_get_monotonic_time();

	refused++;
	if (now - last_us < G_USEC_PER_SEC)
		return;
	g_warning("Refused a connection of pid=%d uid=%u: %s (%u refused in all)", (int)cred->pid,
		  (unsigned)cred->uid, error->message, refused);
	last_us = now;
}

/* Counts the connection against the limits of the user who pays for it;
 * FALSE with error when the peer is gone or at the limit. */
static gboolean
charge_connection(int fd, const struct ucred *cred, TcUserCharge *charge, GError **error)
{
	TcPeerUserSource source;
	uid_t user;

	if (!tc_peer_identity_accountable_user(fd, cred, &user, &source, error))
		return FALSE;
	tc_user_limits_charge_init(charge, user);
	if (!tc_user_limits_charge(charge, TC_LIMIT_CONNECTIONS, 1, error)) {
		g_prefix_error(error, "by its %s %u: ", tc_peer_identity_user_source_name(source),
			       (unsigned)user);
		return FALSE;
	}
	return TRUE;
}

static void
accept_one(TcRegistrar *registrar)
{
	g_autoptr(GError) error = NULL;
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	int sndbuf = APP_SOCKET_SNDBUF;
	TcRegistration *registration;
	TcUserCharge charge;
	int fd;

	fd = accept4(registrar->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			g_warning("Failed to accept an application: %s", g_strerror(errno));
		if (errno == EMFILE || errno == ENFILE)
			g_usleep(100000); /* let descriptors be freed before trying again */
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0) {
		g_warning("Failed to read an application's credentials: %s", g_strerror(errno));
		close(fd);
		return;
	}
	if (!charge_connection(fd, &cred, &charge, &error)) {
		warn_refused(&cred, error);
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	registration = g_new0(TcRegistration, 1);
	registration->app = tc_app_new(fd, cred.pid, cred.uid, cred.gid);
	registration->app->charge = charge;
	if (!tc_peer_identity_virtual_ids(fd, &cred, &registration->app->ids.value[TC_TRACK_VPID],
					  &registration->app->ids.value[TC_TRACK_VUID],
					  &registration->app->ids.value[TC_TRACK_VGID], &error) ||
	    /* Its control group, for the units sessions track (tc-unit.h). */
	    !tc_peer_identity_cgroup(fd, &cred, &registration->app->cgroup, &error)) {
		/* Gone already: nothing to trace, nor to track. */
		warn_refused(&cred, error);
		tc_app_unref(registration->app);
		g_free(registration);
		close(fd);
		return;
	}
	registration->deadline_us =
		g_get_monotonic_time() + (gint64)TC_REGISTRATION_TIMEOUT_MS * 1000;
	inbox_push(registrar, registration);
}

static gpointer
accept_thread(gpointer data)
{
	TcRegistrar *registrar = data;
	struct pollfd fds[2] = {
		{.fd = registrar->listen_fd, .events = POLLIN},
		{.fd = registrar->stop_fd, .events = POLLIN},
	};

	while (!uatomic_read(&registrar->is_stopping)) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR) {
			g_critical("poll failed on the registration socket: %s", g_strerror(errno));
			break;
		}
		if (fds[1].revents)
			break;
		if (fds[0].revents & POLLIN)
			accept_one(registrar);
	}
	return NULL;
}

/* Workers. */

static void
worker_wake(TcWorker *worker)
{
	cmm_smp_mb();
	if (uatomic_read(&worker->futex) == -1) {
		uatomic_set(&worker->futex, 0);
		futex_noasync(&worker->futex, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
}

static void
worker_push(TcWorker *worker, TcRegistration *registration)
{
	cds_wfcq_node_init(&registration->node);
	cds_wfcq_enqueue(&worker->head, &worker->tail, &registration->node);
	worker_wake(worker);
}

/* The handshake is complete: publish, shadow-copy, answer, hand over. */
static void
registration_complete(TcRegistrar *registrar, TcRegistration *registration, guint32 batch)
{
	TcApp *app = registration->app;

	app->state = TC_APP_REGISTERED;
	tc_registry_add_app(app);
	g_message("Application registered: pid=%d uid=%u name='%s' tracer=%u.%u, %u event(s)",
		  (int)app->pid, (unsigned)app->uid, app->procname, app->tracer_major,
		  app->tracer_minor, app->events->len);
	tc_signals_app_registered(app->pid, app->uid, app->procname);
	tc_app_sync_all_sessions(app, batch);
	registrar->adopt(app, registrar->adopt_data);
	g_free(registration);
}

typedef enum {
	STEP_AGAIN,    /* more to read */
	STEP_WAIT,     /* nothing there yet: back to the dispatcher */
	STEP_DONE,     /* EVENTS_END: registered */
	STEP_DROPPED,  /* freed */
} TcStep;

static TcStep
registration_step(TcRegistration *registration, guint32 *batch)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *why = NULL;
	TcAppMessage message;
	TcApp *app = registration->app;

	switch (tc_app_protocol_read_message(app->fd, &message, &why)) {
	case TC_APP_READ_NOTHING:
		return STEP_WAIT;
	case TC_APP_READ_GONE:
		registration_drop(registration, why);
		return STEP_DROPPED;
	case TC_APP_READ_MESSAGE:
		break;
	}
	switch (tc_app_protocol_handle_message(app, &message, &error)) {
	case TC_APP_HANDLED:
		return STEP_AGAIN;
	case TC_APP_BATCH_ENDED:
		*batch = message.batch.batch;
		return STEP_DONE;
	case TC_APP_REFUSED:
		break;
	}
	/* A limit reached, or a version of the protocol the service does
	 * not speak, is no fault of the application's. */
	why = g_strdup_printf("%s: %s",
			      g_error_matches(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED) ||
					      g_error_matches(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED)
				      ? "refused"
				      : "protocol error",
			      error->message);
	registration_drop(registration, why);
	return STEP_DROPPED;
}

/* Reads what the application sent so far; never waits for more. */
static void
worker_serve(TcRegistrar *registrar, TcRegistration *registration)
{
	guint32 batch = 0;

	for (guint i = 0; i < MESSAGES_PER_TURN; i++) {
		switch (registration_step(registration, &batch)) {
		case STEP_AGAIN:
			continue;
		case STEP_DONE:
			registration_complete(registrar, registration, batch);
			return;
		case STEP_DROPPED:
			return;
		case STEP_WAIT:
			inbox_push(registrar, registration);
			return;
		}
	}
	/* A long registration yields to the others. */
	inbox_push(registrar, registration);
}

static gpointer
worker_thread(gpointer data)
{
	TcWorker *worker = data;
	TcRegistrar *registrar = worker->registrar;

	rcu_register_thread();
	while (!uatomic_read(&registrar->is_stopping)) {
		struct cds_wfcq_node *node = cds_wfcq_dequeue_blocking(&worker->head, &worker->tail);

		if (node) {
			worker_serve(registrar, caa_container_of(node, TcRegistration, node));
			continue;
		}
		/* Sleep until pushed to; re-check the queue after announcing it,
		 * so that a push in between is never missed. */
		uatomic_set(&worker->futex, -1);
		cmm_smp_mb();
		if (cds_wfcq_empty(&worker->head, &worker->tail) &&
		    !uatomic_read(&registrar->is_stopping))
			futex_noasync(&worker->futex, FUTEX_WAIT, -1, NULL, NULL, 0);
		uatomic_set(&worker->futex, 0);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Dispatcher. */

static void
park(TcRegistrar *registrar, TcRegistration *registration)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT,
		.data.ptr = registration,
	};
	int op = registration->is_in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (epoll_ctl(registrar->epoll_fd, op, registration->app->fd, &ev) < 0) {
		registration_drop(registration, g_strerror(errno));
		return;
	}
	registration->is_in_epoll = TRUE;
	g_hash_table_insert(registrar->parked, GINT_TO_POINTER(registration->app->fd),
			    registration);
}

static void
take_inbox(TcRegistrar *registrar)
{
	struct cds_wfcq_node *node;
	eventfd_t count;

	eventfd_read(registrar->inbox_fd, &count);
	while ((node = cds_wfcq_dequeue_blocking(&registrar->inbox_head,
						 &registrar->inbox_tail)) != NULL)
		park(registrar, caa_container_of(node, TcRegistration, node));
}

static void
dispatch(TcRegistrar *registrar, TcRegistration *registration)
{
	TcWorker *worker = &registrar->workers[registrar->next_worker];

	registrar->next_worker = (registrar->next_worker + 1) % registrar->n_workers;
	g_hash_table_remove(registrar->parked, GINT_TO_POINTER(registration->app->fd));
	worker_push(worker, registration);
}

/* Drops the registrations that did not finish in time. */
static void
sweep(TcRegistrar *registrar)
{
	gint64 now = g_get_monotonic_time();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, registrar->parked);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcRegistration *registration = value;

		if (registration->deadline_us > now)
			continue;
		g_hash_table_iter_remove(&iter);
		epoll_ctl(registrar->epoll_fd, EPOLL_CTL_DEL, registration->app->fd, NULL);
		registration_drop(registration, "registration timed out");
	}
}

static gpointer
dispatch_thread(gpointer data)
{
	TcRegistrar *registrar = data;
	struct epoll_event events[MAX_EPOLL_EVENTS];

	while (!uatomic_read(&registrar->is_stopping)) {
		/* A timer only while registrations are pending: none when idle. */
		int timeout = g_hash_table_size(registrar->parked) ? 1000 : -1;
		int n = epoll_wait(registrar->epoll_fd, events, MAX_EPOLL_EVENTS, timeout);

		if (n < 0 && errno != EINTR) {
			g_critical("epoll_wait failed: %s", g_strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			if (events[i].data.ptr == &registrar->stop_fd)
				return NULL;
			if (events[i].data.ptr == &registrar->inbox_fd)
				take_inbox(registrar);
			else
				dispatch(registrar, events[i].data.ptr);
		}
		sweep(registrar);
	}
	return NULL;
}

static gboolean
watch(int epoll_fd, int fd, gpointer tag, GError **error)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag};

	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "epoll_ctl: %s",
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

TcRegistrar *
tc_app_register_new(int listen_fd, guint n_workers, TcAppAdoptFunc adopt, gpointer user_data,
		    GError **error)
{
	TcRegistrar *registrar = g_new0(TcRegistrar, 1);

	registrar->listen_fd = listen_fd;
	registrar->adopt = adopt;
	registrar->adopt_data = user_data;
	registrar->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	registrar->inbox_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	registrar->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	registrar->parked = g_hash_table_new(g_direct_hash, g_direct_equal);
	cds_wfcq_init(&registrar->inbox_head, &registrar->inbox_tail);
	if (registrar->stop_fd < 0 || registrar->inbox_fd < 0 || registrar->epoll_fd < 0 ||
	    !watch(registrar->epoll_fd, registrar->stop_fd, &registrar->stop_fd, error) ||
	    !watch(registrar->epoll_fd, registrar->inbox_fd, &registrar->inbox_fd, error)) {
		if (error && *error == NULL)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
				    g_strerror(errno));
		tc_app_register_free(registrar);
		return NULL;
	}
	registrar->n_workers = MAX(1, n_workers);
	registrar->workers = g_new0(TcWorker, registrar->n_workers);
	for (guint i = 0; i < registrar->n_workers; i++) {
		TcWorker *worker = &registrar->workers[i];

		worker->registrar = registrar;
		cds_wfcq_init(&worker->head, &worker->tail);
		worker->thread = g_thread_new("tc-register", worker_thread, worker);
	}
	registrar->dispatch_thread = g_thread_new("tc-dispatch", dispatch_thread, registrar);
	registrar->accept_thread = g_thread_new("tc-accept", accept_thread, registrar);
	return registrar;
}

static void
drop_queue(struct cds_wfcq_head *head, struct cds_wfcq_tail *tail)
{
	struct cds_wfcq_node *node;

	while ((node = cds_wfcq_dequeue_blocking(head, tail)) != NULL)
		registration_drop(caa_container_of(node, TcRegistration, node),
				  "the service is stopping");
}

void
tc_app_register_free(TcRegistrar *registrar)
{
	GHashTableIter iter;
	gpointer value;

	if (registrar == NULL)
		return;
	uatomic_set(&registrar->is_stopping, TRUE);
	if (registrar->stop_fd >= 0)
		eventfd_write(registrar->stop_fd, 1);
	if (registrar->accept_thread)
		g_thread_join(registrar->accept_thread);
	if (registrar->dispatch_thread)
		g_thread_join(registrar->dispatch_thread);
	for (guint i = 0; i < registrar->n_workers; i++) {
		uatomic_set(&registrar->workers[i].futex, 0);
		futex_noasync(&registrar->workers[i].futex, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		g_thread_join(registrar->workers[i].thread);
		drop_queue(&registrar->workers[i].head, &registrar->workers[i].tail);
		cds_wfcq_destroy(&registrar->workers[i].head, &registrar->workers[i].tail);
	}
	drop_queue(&registrar->inbox_head, &registrar->inbox_tail);
	cds_wfcq_destroy(&registrar->inbox_head, &registrar->inbox_tail);
	g_hash_table_iter_init(&iter, registrar->parked);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		registration_drop(value, "the service is stopping");
	g_hash_table_unref(registrar->parked);
	g_free(registrar->workers);
	if (registrar->stop_fd >= 0)
		close(registrar->stop_fd);
	if (registrar->inbox_fd >= 0)
		close(registrar->inbox_fd);
	if (registrar->epoll_fd >= 0)
		close(registrar->epoll_fd);
	g_free(registrar);
}
