/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LTTng-UST applications: registration and listing.
 *
 * An application linked with LTTng-UST 2.13 connects twice to the global
 * socket: its command socket, on which it sends its registration message
 * and then waits for commands, and its notify socket, with the same
 * message. Its constructor waits for register_done on the command socket
 * (or LTTNG_UST_REGISTER_TIMEOUT, 3 s by default) before main() runs.
 * One that found nobody listening waits on the wait page's futex
 * (tc-lttng-wait.h) and connects once it is woken.
 *
 *   listen thread (tc-lttng-listen.c)      owner's thread (tc-lttng-owner.h)
 *   accept, SO_PEERCRED, timeouts  ──work──> receive and check the message
 *   charge the connection                    command: keep it, pairing
 *                                            notify: pair it by pid and uid,
 *                                              watch, publish, apply
 *                                              sessions, register_done
 *   a listing asked for (list -u) ─work──>   list each application again
 *   hang-up, deadline ────────────────────>  (unlink; the last reference
 *     unlink from the registry                 closes the sockets)
 *   notify input ───────────> owner's notify thread (notify_pool): one
 *                             message answered (tc-lttng-notify.c), the
 *                             socket watched again
 *
 * Why a thread per owner: every exchange with an application is
 * liblttng-ust-ctl's blocking send and receive, bounded by the socket
 * timeouts (TC_LTTNG_APPS_SOCKET_TIMEOUT_MS, lttng-sessiond's default).
 * An application that stops answering holds the thread it is served on
 * for that long; on its owner's thread it delays only its owner's
 * applications, never another user's, nor the listen thread or the D-Bus
 * main loop. The commands of sessions (channels, events, start, stop)
 * run there too, queued by the session operations, which wait for them
 * with a deadline (tc-lttng-owner.h, tc-lttng-session.h); a
 * registration applies the active sessions on the same thread, never
 * blocking on an operation that waits for it.
 */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-apps.h"

#include <errno.h>
#include <lttng/ust-sigbus.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-agents.h"
#include "tc-error.h"
#include "tc-lttng-list.h"
#include "tc-lttng-refused.h"
#include "tc-lttng-listen.h"
#include "tc-lttng-notify.h"
#include "tc-lttng-owner.h"
#include "tc-lttng-register.h"
#include "tc-lttng-registry.h"
#include "tc-lttng-session.h"
#include "tc-lttng-wait.h"
#include "tc-owner-pool.h"
#include "tc-peer-identity.h"
#include "tc-user-limits.h"

/* liblttng-ust-ctl asks its executable for this thread-local state (it
 * serves the reading of LTTng-UST's buffers, which is the consumer's,
 * never the service's); defined here, in the file the daemon always
 * links. */
DEFINE_LTTNG_UST_SIGBUS_STATE();

/* One owner's listing of its applications again, and the callers waiting
 * for it; its work on the owner's thread holds a reference, and so does
 * each caller. */
typedef struct {
	gint refcount;
	uid_t owner;
	GMutex lock;
	GCond done;
	gboolean is_done; /* [lock] */
} TcLttngRefresh;

/* A work on the owner's thread: a new connection (fd), a refresh, or
 * the rest of a registration (app). */
typedef struct {
	int fd; /* a new connection, or -1 */
	struct ucred cred;
	TcUserCharge charge;
	TcLttngRefresh *refresh;
	GPtrArray *to_list;  /* with refresh: TcLttngApp *, NULL before its first step */
	TcLttngApp *app;     /* registered, its sessions to apply */
	GHashTable *applied; /* with app: the ids of the sessions done */
} TcLttngWork;

static GMutex state_lock;
/* The notify sockets' messages, each owner's on a thread of its own,
 * apart from the owner's commands (tc-lttng-notify.h says why). */
static TcOwnerPool *notify_pool; /* set at start, freed at stop */
static TcLttngListen *listen_socket; /* set at start, freed at stop */
static char *status;		     /* [state_lock] */
/* [state_lock] owner -> its TcLttngRefresh queued and not started yet,
 * which every listing asked for meanwhile joins: however often its
 * applications are listed, an owner's thread has at most one listing
 * queued before the registrations that come after it. */
static GHashTable *queued_refreshes;

static void
set_status(char *text)
{
	g_mutex_lock(&state_lock);
	g_free(status);
	status = text;
	g_mutex_unlock(&state_lock);
}

char *
tc_lttng_apps_dup_status(void)
{
	char *copy;

	g_mutex_lock(&state_lock);
	copy = g_strdup(status ? status : "not served: not asked to (tracectld --lttng-ust)");
	g_mutex_unlock(&state_lock);
	return copy;
}

static void
refresh_unref(TcLttngRefresh *refresh)
{
	if (refresh == NULL || !g_atomic_int_dec_and_test(&refresh->refcount))
		return;
	g_mutex_clear(&refresh->lock);
	g_cond_clear(&refresh->done);
	g_free(refresh);
}

/* The refresh no longer takes callers: it started, or it was dropped. */
static void
refresh_dequeue(TcLttngRefresh *refresh)
{
	gpointer key = GUINT_TO_POINTER(refresh->owner);

	g_mutex_lock(&state_lock);
	if (queued_refreshes && g_hash_table_lookup(queued_refreshes, key) == refresh)
		g_hash_table_remove(queued_refreshes, key);
	g_mutex_unlock(&state_lock);
}

static void
work_free(gpointer data)
{
	TcLttngWork *work = data;

	if (work->fd >= 0)
		close(work->fd);
	if (work->app)
		tc_lttng_app_unref(work->app);
	if (work->applied)
		g_hash_table_unref(work->applied);
	if (work->to_list)
		g_ptr_array_unref(work->to_list);
	tc_user_limits_release(&work->charge);
	if (work->refresh) {
		refresh_dequeue(work->refresh);
		g_mutex_lock(&work->refresh->lock);
		work->refresh->is_done = TRUE;
		g_cond_broadcast(&work->refresh->done);
		g_mutex_unlock(&work->refresh->lock);
		refresh_unref(work->refresh);
	}
	g_free(work);
}

static void
app_gone(TcLttngApp *app, const char *why)
{
	tc_lttng_owner_drop(app, why);
}

static void
gone_cb(TcLttngApp *app, const char *why, gpointer user_data)
{
	app_gone(app, why);
}

static void owner_work_cb(gpointer data, gpointer user_data);

/* Owner's thread: the sessions first, then register_done, as
 * lttng-sessiond does: the constructor of the application waits for
 * register_done, so what main() records from its first line is
 * recorded. A session whose operation holds its op_lock (and may be
 * waiting for this thread) is tried again behind the works queued. */
static void
finish_registration(TcLttngWork *work)
{
	g_autoptr(GError) error = NULL;
	TcLttngApp *app = work->app;
	TcLttngWork *again;

	if (!tc_lttng_session_apply_all(app, work->applied)) {
		again = g_new0(TcLttngWork, 1);
		again->fd = -1;
		tc_user_limits_charge_init(&again->charge, app->uid);
		again->app = g_steal_pointer(&work->app);
		again->applied = g_steal_pointer(&work->applied);
		/* A short pause: the operation's works are queued behind
		 * this one or running elsewhere; no spinning meanwhile. */
		g_usleep(TC_LTTNG_APPS_REQUEUE_PAUSE_MS * 1000);
		tc_lttng_owner_push(again->app->uid, owner_work_cb, again, work_free);
		return;
	}
	g_mutex_lock(&app->cmd_lock);
	if (!tc_lttng_register_done(app, &error)) {
		g_mutex_unlock(&app->cmd_lock);
		app_gone(app, error->message);
		return;
	}
	g_mutex_unlock(&app->cmd_lock);
	/* Not listed now: a listing is a round trip per event and per field
	 * (LTTng-UST's own tracepoints alone are 26 events and 110 fields),
	 * on this thread, where a crowd of applications starting together
	 * would wait behind each other's listings past their constructors'
	 * patience. As lttng-sessiond, the service lists them when asked
	 * (tc_lttng_apps_refresh()). */
	g_message("LTTng-UST application registered: pid=%d uid=%u name='%s' abi=%u.%u",
		  (int)app->pid, (unsigned)app->uid, app->procname, app->abi_major,
		  app->abi_minor);
}

/* Owner's thread: the command socket of a new application, kept until
 * its notify socket comes. */
static void
keep_command_socket(TcLttngWork *work, const TcLttngRegistration *registration)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcLttngApp) app = NULL;

	if (!tc_user_limits_charge(&work->charge, TC_LIMIT_LTTNG_APPLICATIONS, 1, &error)) {
		g_warning("Refused the LTTng-UST application pid=%d uid=%u name='%s': %s",
			  (int)work->cred.pid, (unsigned)work->cred.uid, registration->procname,
			  error->message);
		return;
	}
	app = tc_lttng_app_new(work->fd, work->cred.pid, work->cred.uid, work->cred.gid,
			       &work->charge);
	work->fd = -1;
	tc_user_limits_charge_init(&work->charge, work->charge.user); /* the app's now */
	memcpy(app->procname, registration->procname, sizeof(app->procname));
	app->abi_major = registration->abi_major;
	app->abi_minor = registration->abi_minor;
	app->bits_per_long = registration->bits_per_long;
	app->deadline_us = g_get_monotonic_time() + TC_LTTNG_APPS_SOCKET_TIMEOUT_MS * 1000;
	tc_lttng_registry_add(app);
}

/* Owner's thread: lists the events of app. A refusal by a limit leaves
 * it registered with no event listed; any other failure (it does not
 * answer in time, it answers nonsense) ends it. */
static gboolean
list_app(TcLttngApp *app)
{
	g_autoptr(GError) error = NULL;
	gboolean ok;

	g_mutex_lock(&app->cmd_lock);
	ok = tc_lttng_list_events(app, &error);
	g_mutex_unlock(&app->cmd_lock);
	if (ok)
		return TRUE;
	if (g_error_matches(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED)) {
		g_warning("Refused the events of the LTTng-UST application pid=%d uid=%u: %s",
			  (int)app->pid, (unsigned)app->uid, error->message);
		return TRUE;
	}
	g_prefix_error(&error, "listing its events: ");
	app_gone(app, error->message);
	return FALSE;
}

/* Owner's thread: the notify socket of an application whose command
 * socket came: both are tied, the application may go on. */
static void
pair_notify_socket(TcLttngWork *work)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcLttngApp) app = tc_lttng_registry_find_pairing(work->cred.pid, work->cred.uid);
	g_autoptr(GPtrArray) events = NULL;

	if (app == NULL) {
		g_warning("Refused a notify socket of pid=%d uid=%u: no command socket of it waits",
			  (int)work->cred.pid, (unsigned)work->cred.uid);
		return;
	}
	app->notify_fd = work->fd;
	work->fd = -1;
	app->notify_charge = work->charge;
	tc_user_limits_charge_init(&work->charge, work->charge.user);
	/* Its notify socket is watched before any session is applied: the
	 * application describes its channel and events there while it
	 * starts a session. */
	if (!tc_lttng_listen_watch(listen_socket, app, &error)) {
		app_gone(app, error->message);
		return;
	}
	if (!tc_lttng_registry_publish(app))
		return;
	work->app = tc_lttng_app_ref(app);
	work->applied = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	finish_registration(work);
}

/* The notify pool's thread of the application's owner: one message. */
static void
notify_work_cb(TcOwnerPool *owner_pool, uid_t owner, gpointer data, gpointer user_data)
{
	TcLttngApp *app = data;
	g_autoptr(GError) error = NULL;

	if (!tc_lttng_notify_serve(app, &error) ||
	    !tc_lttng_listen_rearm_notify(listen_socket, app, &error))
		app_gone(app, error->message);
}

/* Listen thread: a notify socket has a message. */
static void
notify_cb(TcLttngApp *app, gpointer user_data)
{
	tc_owner_pool_push(notify_pool, app->uid, tc_lttng_app_ref(app));
}

static void
serve_connection(TcLttngWork *work)
{
	g_autoptr(GError) error = NULL;
	TcLttngRegistration registration;

	if (!tc_lttng_register_receive(work->fd, &work->cred, &registration, &error)) {
		/* One it cannot serve retries every few seconds: said once,
		 * and listed (tracectl list -u) while it runs. */
		if (g_error_matches(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED) &&
		    !tc_lttng_refused_add(work->cred.pid, work->cred.uid, error->message))
			return;
		g_warning("Refused the LTTng-UST application pid=%d uid=%u: %s",
			  (int)work->cred.pid, (unsigned)work->cred.uid, error->message);
		return;
	}
	if (registration.is_notify)
		pair_notify_socket(work);
	else
		keep_command_socket(work, &registration);
}

/* Owner's thread: one application of a refresh listed, and the next one
 * queued behind the works that came meanwhile, so that a registration
 * waits for one application's listing at most, never for a whole
 * owner's. */
static void
refresh_step(TcLttngWork *work)
{
	TcLttngWork *next;

	if (work->to_list == NULL) {
		/* A listing asked for from now on lists again after this. */
		refresh_dequeue(work->refresh);
		work->to_list = tc_lttng_registry_list(work->refresh->owner, FALSE);
	}
	if (work->to_list->len == 0)
		return;
	list_app(g_ptr_array_index(work->to_list, 0));
	g_ptr_array_remove_index(work->to_list, 0);
	if (work->to_list->len == 0)
		return;
	next = g_new0(TcLttngWork, 1);
	next->fd = -1;
	tc_user_limits_charge_init(&next->charge, work->refresh->owner);
	next->refresh = g_steal_pointer(&work->refresh);
	next->to_list = g_steal_pointer(&work->to_list);
	/* Refused by a pool stopping, it is freed at once: the refresh ends. */
	tc_lttng_owner_push(next->refresh->owner, owner_work_cb, next, work_free);
}

static void
owner_work_cb(gpointer data, gpointer user_data)
{
	TcLttngWork *work = data;

	if (work->fd >= 0)
		serve_connection(work);
	else if (work->app)
		finish_registration(work);
	else
		refresh_step(work);
}

/* Listen thread: who pays for the connection, its timeouts, and on to
 * its owner's thread. */
static void
accept_cb(int fd, const struct ucred *cred, gpointer user_data)
{
	g_autoptr(GError) error = NULL;
	struct timeval timeout = {.tv_sec = TC_LTTNG_APPS_SOCKET_TIMEOUT_MS / 1000};
	TcLttngWork *work = g_new0(TcLttngWork, 1);
	TcPeerUserSource source;
	uid_t user;

	work->fd = fd;
	work->cred = *cred;
	tc_user_limits_charge_init(&work->charge, cred->uid);
	if (!tc_peer_identity_accountable_user(fd, cred, &user, &source, &error) ||
	    (tc_user_limits_charge_init(&work->charge, user),
	     !tc_user_limits_charge(&work->charge, TC_LIMIT_CONNECTIONS, 1, &error))) {
		g_warning("Refused a connection of the LTTng-UST application pid=%d uid=%u: %s",
			  (int)cred->pid, (unsigned)cred->uid, error->message);
		work_free(work);
		return;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) < 0) {
		g_warning("Cannot bound the waits on pid=%d's socket, refused: %s", (int)cred->pid,
			  g_strerror(errno));
		work_free(work);
		return;
	}
	tc_lttng_owner_push(cred->uid, owner_work_cb, work, work_free);
}

void
tc_lttng_apps_start(const char *socket_path, const char *wait_shm)
{
	g_autoptr(GError) error = NULL;

	notify_pool = tc_owner_pool_new(notify_work_cb, (GDestroyNotify)tc_lttng_app_unref, NULL);
	tc_lttng_owner_start(tc_lttng_session_app_gone);
	listen_socket = tc_lttng_listen_new(socket_path, accept_cb, gone_cb, notify_cb, NULL, &error);
	if (listen_socket == NULL) {
		g_message("Not serving LTTng-UST applications: %s", error->message);
		if (g_error_matches(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS))
			set_status(g_strdup_printf("served by another session daemon (%s; "
						   "tracectld leaves it alone)",
						   error->message));
		else
			set_status(g_strdup_printf("not served: %s", error->message));
		return;
	}
	g_message("Listening for LTTng-UST applications on '%s'", socket_path);
	set_status(g_strdup_printf("served on '%s'", socket_path));
	if (!tc_agents_start(TC_AGENTS_PORT_FILE, &error))
		g_warning("Not serving LTTng's agents (Python, Java): %s", error->message);
	g_clear_error(&error);
	if (!tc_lttng_wait_ready(wait_shm, &error))
		g_warning("LTTng-UST applications waiting for a session daemon will not be woken: %s",
			  error->message);
}

void
tc_lttng_apps_stop(void)
{
	tc_lttng_wait_stopping();
	/* No new connection, then the owners' works under way (they may
	 * still watch sockets through listen_socket), then the rest. */
	if (listen_socket)
		tc_lttng_listen_stop(listen_socket);
	tc_agents_stop();
	tc_lttng_owner_stop();
	g_clear_pointer(&notify_pool, tc_owner_pool_free);
	g_clear_pointer(&listen_socket, tc_lttng_listen_free);
	/* Empty: the works of the refreshes queued were dropped with the
	 * owners' pool. */
	g_mutex_lock(&state_lock);
	g_clear_pointer(&queued_refreshes, g_hash_table_unref);
	g_mutex_unlock(&state_lock);
	tc_lttng_registry_clear();
	tc_lttng_refused_clear();
}

/* The listing of owner's applications queued and not started, joined, or
 * a new one queued; a reference for the caller. */
static TcLttngRefresh *
refresh_join(uid_t owner)
{
	gpointer key = GUINT_TO_POINTER(owner);
	TcLttngRefresh *refresh;
	TcLttngWork *work;

	g_mutex_lock(&state_lock);
	if (queued_refreshes == NULL)
		queued_refreshes = g_hash_table_new(g_direct_hash, g_direct_equal);
	refresh = g_hash_table_lookup(queued_refreshes, key);
	if (refresh != NULL) {
		g_atomic_int_inc(&refresh->refcount);
		g_mutex_unlock(&state_lock);
		return refresh;
	}
	refresh = g_new0(TcLttngRefresh, 1);
	refresh->refcount = 2; /* the caller's and the work's */
	refresh->owner = owner;
	g_mutex_init(&refresh->lock);
	g_cond_init(&refresh->done);
	g_hash_table_insert(queued_refreshes, key, refresh);
	g_mutex_unlock(&state_lock);
	work = g_new0(TcLttngWork, 1);
	work->fd = -1;
	tc_user_limits_charge_init(&work->charge, owner);
	work->refresh = refresh;
	/* Once stopped, or refused by a pool stopping, the work is freed at
	 * once, which counts it done. */
	tc_lttng_owner_push(owner, owner_work_cb, work, work_free);
	return refresh;
}

void
tc_lttng_apps_refresh(uid_t uid, gboolean all)
{
	g_autoptr(GPtrArray) apps = tc_lttng_registry_list(uid, all);
	g_autoptr(GHashTable) owners = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GPtrArray) refreshes = g_ptr_array_new_with_free_func(
	    (GDestroyNotify)refresh_unref);
	gint64 deadline = g_get_monotonic_time() + TC_LTTNG_APPS_REFRESH_TIMEOUT_MS * 1000;
	GHashTableIter iter;
	gpointer owner;

	for (guint i = 0; i < apps->len; i++)
		g_hash_table_add(owners, GUINT_TO_POINTER(((TcLttngApp *)apps->pdata[i])->uid));
	g_hash_table_iter_init(&iter, owners);
	while (g_hash_table_iter_next(&iter, &owner, NULL))
		g_ptr_array_add(refreshes, refresh_join(GPOINTER_TO_UINT(owner)));
	for (guint i = 0; i < refreshes->len; i++) {
		TcLttngRefresh *refresh = g_ptr_array_index(refreshes, i);

		g_mutex_lock(&refresh->lock);
		while (!refresh->is_done &&
		       g_cond_wait_until(&refresh->done, &refresh->lock, deadline))
			;
		g_mutex_unlock(&refresh->lock);
	}
}
