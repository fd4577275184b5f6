/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-owner-pool.h"

#include <urcu.h>

/*
 * An owner is busy from the push that starts its work until its queue is
 * empty; a busy owner's works run one after another on the thread that
 * runs the first, so each owner holds at most one thread, and an owner's
 * works never run at once (which lets a work use owner-only state with
 * no lock of its own: each run starts under pool->lock after the last
 * one ended under it).
 */

struct _TcOwnerPool {
	GMutex lock;
	TcOwnerWorkFunc func;
	GDestroyNotify free_func;
	gpointer user_data;
	GThreadPool *threads; /* set at creation, taken at free */
	GHashTable *busy;     /* [lock] owner uid -> GQueue * of works still to do */
	gboolean is_stopping; /* [lock] */
};

static void
work_free(TcOwnerPool *pool, gpointer work)
{
	if (pool->free_func)
		pool->free_func(work);
}

/* The owner's next work, or NULL when none is left (the owner is then
 * no longer busy). */
static gpointer
next_work(TcOwnerPool *pool, uid_t owner)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&pool->lock);
	GQueue *queue = g_hash_table_lookup(pool->busy, GUINT_TO_POINTER(owner));
	gpointer work = pool->is_stopping ? NULL : g_queue_pop_head(queue);

	if (work == NULL)
		g_hash_table_remove(pool->busy, GUINT_TO_POINTER(owner));
	return work;
}

/* A pool thread: the owner's works, in order, until none is left. */
static void
owner_run(gpointer data, gpointer pool_data)
{
	TcOwnerPool *pool = pool_data;
	uid_t owner = (uid_t)(GPOINTER_TO_SIZE(data) - 1);
	gpointer work;

	rcu_register_thread();
	while ((work = next_work(pool, owner)) != NULL) {
		pool->func(pool, owner, work, pool->user_data);
		work_free(pool, work);
	}
	rcu_unregister_thread();
}

static void
queue_free(gpointer data)
{
	g_queue_free(data);
}

TcOwnerPool *
tc_owner_pool_new(TcOwnerWorkFunc func, GDestroyNotify free_func, gpointer user_data)
{
	TcOwnerPool *pool = g_new0(TcOwnerPool, 1);

	g_mutex_init(&pool->lock);
	pool->func = func;
	pool->free_func = free_func;
	pool->user_data = user_data;
	pool->busy = g_hash_table_new_full(NULL, NULL, NULL, queue_free);
	/* Unbounded: one thread per busy owner, and no more. */
	pool->threads = g_thread_pool_new(owner_run, pool, -1, FALSE, NULL);
	return pool;
}

/* [lock] Queues work for owner; starts the owner's thread when the owner
 * was not busy. */
static void
push_locked(TcOwnerPool *pool, uid_t owner, gpointer work)
{
	gpointer key = GUINT_TO_POINTER(owner);
	GQueue *queue = g_hash_table_lookup(pool->busy, key);

	if (queue == NULL) {
		queue = g_queue_new();
		g_hash_table_insert(pool->busy, key, queue);
		/* The owner's uid is the thread's data: a uid of 0 would be a
		 * NULL datum, which GThreadPool refuses, so it is biased. */
		g_thread_pool_push(pool->threads, GSIZE_TO_POINTER((gsize)owner + 1), NULL);
	}
	g_queue_push_tail(queue, work);
}

gboolean
tc_owner_pool_try_push(TcOwnerPool *pool, uid_t owner, gpointer work)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&pool->lock);

	if (pool->is_stopping || g_hash_table_contains(pool->busy, GUINT_TO_POINTER(owner)))
		return FALSE;
	push_locked(pool, owner, work);
	return TRUE;
}

void
tc_owner_pool_try_push_each(TcOwnerPool *pool, GHashTable *works)
{
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, works);
	while (g_hash_table_iter_next(&iter, &key, &value))
		if (tc_owner_pool_try_push(pool, GPOINTER_TO_UINT(key), value))
			g_hash_table_iter_steal(&iter);
}

gboolean
tc_owner_pool_push(TcOwnerPool *pool, uid_t owner, gpointer work)
{
	g_mutex_lock(&pool->lock);
	if (!pool->is_stopping) {
		push_locked(pool, owner, work);
		g_mutex_unlock(&pool->lock);
		return TRUE;
	}
	g_mutex_unlock(&pool->lock);
	work_free(pool, work);
	return FALSE;
}

gboolean
tc_owner_pool_is_stopping(TcOwnerPool *pool)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&pool->lock);

	return pool->is_stopping;
}

void
tc_owner_pool_free(TcOwnerPool *pool)
{
	g_autoptr(GPtrArray) dropped = NULL;
	GHashTableIter iter;
	gpointer queue;

	if (pool == NULL)
		return;
	dropped = g_ptr_array_new();
	g_mutex_lock(&pool->lock);
	pool->is_stopping = TRUE;
	/* Works not started are dropped; each owner's thread then finds its
	 * queue empty after the work under way. */
	g_hash_table_iter_init(&iter, pool->busy);
	while (g_hash_table_iter_next(&iter, NULL, &queue)) {
		gpointer work;

		while ((work = g_queue_pop_head(queue)) != NULL)
			g_ptr_array_add(dropped, work);
	}
	g_mutex_unlock(&pool->lock);
	/* Freed without the lock: a work's free may take others. */
	for (guint i = 0; i < dropped->len; i++)
		work_free(pool, g_ptr_array_index(dropped, i));
	g_thread_pool_free(pool->threads, FALSE, TRUE);
	g_hash_table_unref(pool->busy);
	g_mutex_clear(&pool->lock);
	g_free(pool);
}
