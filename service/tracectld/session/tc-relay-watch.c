/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-relay-watch.h"

#include <urcu.h>

#include "tc-owner-pool.h"
#include "tc-session.h"

/*
 * A look waits for the owner's consumer, which runs as the owner, who
 * can make it slow (a relay of theirs that takes data a byte at a time
 * holds its loop until the service's reply timeout). So each owner's
 * sessions are looked at on a thread of their own, from looks_pool
 * (tc-owner-pool.h), and an owner whose look is still under way is
 * skipped for the round:
 * one user's consumer never delays the news of another's relay, and
 * never holds more than one thread.
 */

static GMutex watch_lock;
static GCond watch_cond;
static TcRelayWatchFunc watch_refresh;
static GThread *watch_thread;	/* [watch_lock] */
static GPtrArray *watched;	/* [watch_lock] TcSession *, referenced */
static gboolean watch_stopping; /* [watch_lock] */
static TcOwnerPool *looks_pool; /* [watch_lock] set with watch_thread */

/* One owner's sessions to look at, on a thread of looks_pool:
 * TcSession *, referenced. */
typedef GPtrArray TcOwnerLook;

void
tc_relay_watch_set_func(TcRelayWatchFunc refresh)
{
	watch_refresh = refresh;
}

static gboolean
streams_now(TcSession *session)
{
	gboolean streams;

	g_mutex_lock(&session->lock);
	streams = !session->destroyed && session->state == TC_SESSION_ACTIVE &&
		  session->relay != NULL && !session->snapshot;
	g_mutex_unlock(&session->lock);
	return streams;
}

/* New references to the watched sessions once the interval passed; NULL
 * when stopping. With none watched, waits without waking until one is. */
static GPtrArray *
next_round(void)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&watch_lock);
	GPtrArray *copy;
	gint64 deadline;

	while (!watch_stopping && watched->len == 0)
		g_cond_wait(&watch_cond, &watch_lock);
	deadline = g_get_monotonic_time() + TC_RELAY_WATCH_INTERVAL_US;
	while (!watch_stopping && g_cond_wait_until(&watch_cond, &watch_lock, deadline))
		;
	if (watch_stopping)
		return NULL;
	copy = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	for (guint i = 0; i < watched->len; i++)
		g_ptr_array_add(copy, tc_session_ref(g_ptr_array_index(watched, i)));
	return copy;
}

/* Drops a session that no longer streams, unless it started again since
 * the look (its start found it watched and added nothing). */
static void
unwatch(TcSession *session)
{
	g_mutex_lock(&watch_lock);
	g_ptr_array_remove(watched, session);
	g_mutex_unlock(&watch_lock);
	if (streams_now(session))
		tc_relay_watch_add(session);
}

/* looks_pool's function: the owner's sessions, one after another. */
static void
owner_look_run(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer unused)
{
	TcOwnerLook *look = data;

	/* A look may wait for a busy consumer: a stopping service does not
	 * wait for the rest. */
	for (guint i = 0; i < look->len && !tc_owner_pool_is_stopping(pool); i++) {
		TcSession *session = g_ptr_array_index(look, i);

		if (streams_now(session))
			watch_refresh(session);
		else
			unwatch(session);
	}
}

/* Hands each owner's look to looks_pool, unless that owner's last look
 * is still under way: its sessions wait for the next round. */
static void
start_looks(GPtrArray *sessions)
{
	/* uid -> TcOwnerLook */
	g_autoptr(GHashTable) looks = tc_session_group_by_owner(sessions);

	g_mutex_lock(&watch_lock);
	if (!watch_stopping)
		tc_owner_pool_try_push_each(looks_pool, looks);
	g_mutex_unlock(&watch_lock);
}

/* Registered with liburcu, as every thread that may drop the last
 * reference to what the pool refused. */
static gpointer
watch_main(gpointer data)
{
	GPtrArray *sessions;

	rcu_register_thread();
	while ((sessions = next_round()) != NULL) {
		start_looks(sessions);
		g_ptr_array_unref(sessions);
	}
	rcu_unregister_thread();
	return NULL;
}

void
tc_relay_watch_add(TcSession *session)
{
	g_autoptr(GMutexLocker) locker = NULL;

	if (watch_refresh == NULL || session->relay == NULL || session->snapshot)
		return;
	locker = g_mutex_locker_new(&watch_lock);
	if (watch_stopping)
		return;
	if (watched == NULL)
		watched = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	if (g_ptr_array_find(watched, session, NULL))
		return;
	g_ptr_array_add(watched, tc_session_ref(session));
	if (watch_thread == NULL) {
		/* Threads as owners looked at at once: one each at most. */
		looks_pool =
		    tc_owner_pool_new(owner_look_run, (GDestroyNotify)g_ptr_array_unref, NULL);
		watch_thread = g_thread_new("tc-relay-watch", watch_main, NULL);
	}
	g_cond_broadcast(&watch_cond);
}

void
tc_relay_watch_stop(void)
{
	GThread *thread;
	TcOwnerPool *pool;

	g_mutex_lock(&watch_lock);
	watch_stopping = TRUE;
	g_cond_broadcast(&watch_cond);
	thread = g_steal_pointer(&watch_thread);
	g_mutex_unlock(&watch_lock);
	if (thread)
		g_thread_join(thread);
	/* No look starts now; those under way end at their next session. */
	g_mutex_lock(&watch_lock);
	pool = g_steal_pointer(&looks_pool);
	g_mutex_unlock(&watch_lock);
	tc_owner_pool_free(pool);
	g_mutex_lock(&watch_lock);
	g_clear_pointer(&watched, g_ptr_array_unref);
	g_mutex_unlock(&watch_lock);
}
