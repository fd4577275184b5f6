/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-relay-watch.h"

#include <urcu.h>

static GMutex watch_lock;
static GCond watch_cond;
static TcRelayWatchFunc watch_refresh;
static GThread *watch_thread;   /* [watch_lock] */
static GPtrArray *watched;      /* [watch_lock] TcSession *, referenced */
static gboolean watch_stopping; /* [watch_lock] */

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

static gboolean
stopping_now(void)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&watch_lock);

	return watch_stopping;
}

static gpointer
watch_main(gpointer data)
{
	GPtrArray *sessions;

	rcu_register_thread();
	while ((sessions = next_round()) != NULL) {
		/* A look may wait for a busy consumer: a stopping service
		 * does not wait for the rest of the round. */
		for (guint i = 0; i < sessions->len && !stopping_now(); i++) {
			TcSession *session = g_ptr_array_index(sessions, i);

			if (streams_now(session))
				watch_refresh(session);
			else
				unwatch(session);
		}
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
	if (watch_thread == NULL)
		watch_thread = g_thread_new("tc-relay-watch", watch_main, NULL);
	g_cond_broadcast(&watch_cond);
}

void
tc_relay_watch_stop(void)
{
	GThread *thread;

	g_mutex_lock(&watch_lock);
	watch_stopping = TRUE;
	g_cond_broadcast(&watch_cond);
	thread = g_steal_pointer(&watch_thread);
	g_mutex_unlock(&watch_lock);
	if (thread)
		g_thread_join(thread);
	g_mutex_lock(&watch_lock);
	g_clear_pointer(&watched, g_ptr_array_unref);
	g_mutex_unlock(&watch_lock);
}
