/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the operation queue shared fairly between users. */
#include <glib.h>

#include "tc-fair-queue.h"

#define ITEM(n) GUINT_TO_POINTER(n)

static gpointer
pop_now(TcFairQueue *queue, guint32 *key)
{
	return tc_fair_queue_pop(queue, 0, key);
}

/* Keys with work take turns, one item each, in the order they came. */
static void
test_round_robin(void)
{
	TcFairQueue *queue = tc_fair_queue_new(100);
	const guint expected[] = {1, 11, 21, 2, 3};
	const guint32 expected_keys[] = {1000, 1001, 0, 1000, 1000};
	guint32 key = 0;

	tc_fair_queue_push(queue, 1000, ITEM(1));
	tc_fair_queue_push(queue, 1000, ITEM(2));
	tc_fair_queue_push(queue, 1000, ITEM(3));
	tc_fair_queue_push(queue, 1001, ITEM(11));
	tc_fair_queue_push(queue, 0, ITEM(21));
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
		g_assert_cmpuint(GPOINTER_TO_UINT(pop_now(queue, &key)), ==, expected[i]);
		g_assert_cmpuint(key, ==, expected_keys[i]);
		tc_fair_queue_done(queue, key);
	}
	g_assert_null(pop_now(queue, &key));
	tc_fair_queue_close(queue);
	tc_fair_queue_free(queue);
}

/* A key at its share waits, whatever it queued; the others go by. */
static void
test_share(void)
{
	TcFairQueue *queue = tc_fair_queue_new(2);
	guint32 key = 0;

	for (guint i = 1; i <= 5; i++)
		tc_fair_queue_push(queue, 1000, ITEM(i));
	g_assert_cmpuint(GPOINTER_TO_UINT(pop_now(queue, &key)), ==, 1);
	g_assert_cmpuint(GPOINTER_TO_UINT(pop_now(queue, &key)), ==, 2);
	g_assert_cmpuint(tc_fair_queue_running(queue, 1000), ==, 2);
	/* Nothing more of 1000 while two of its items run. */
	g_assert_null(pop_now(queue, &key));
	tc_fair_queue_push(queue, 1001, ITEM(11));
	g_assert_cmpuint(GPOINTER_TO_UINT(pop_now(queue, &key)), ==, 11);
	g_assert_cmpuint(key, ==, 1001);
	g_assert_null(pop_now(queue, &key));
	tc_fair_queue_done(queue, 1000);
	g_assert_cmpuint(GPOINTER_TO_UINT(pop_now(queue, &key)), ==, 3);
	g_assert_cmpuint(key, ==, 1000);
	g_assert_cmpuint(tc_fair_queue_queued(queue, 1000), ==, 2);
	tc_fair_queue_done(queue, 1000);
	tc_fair_queue_done(queue, 1000);
	tc_fair_queue_done(queue, 1001);
	/* Closing serves what is left, with no share. */
	tc_fair_queue_close(queue);
	g_assert_cmpuint(GPOINTER_TO_UINT(tc_fair_queue_pop(queue, -1, &key)), ==, 4);
	g_assert_cmpuint(GPOINTER_TO_UINT(tc_fair_queue_pop(queue, -1, &key)), ==, 5);
	g_assert_null(tc_fair_queue_pop(queue, -1, &key));
	tc_fair_queue_done(queue, 1000);
	tc_fair_queue_done(queue, 1000);
	g_assert_cmpuint(tc_fair_queue_running(queue, 1000), ==, 0);
	tc_fair_queue_free(queue);
}

/*
 * The service's use, with threads: a pool of four, two per key. Key 1000
 * floods work that blocks until released (a stopped consumer); key 1001's
 * work must all be done while 1000's is still blocked.
 */
#define POOL_THREADS 4
#define STALLED_KEY 1000
#define VICTIM_KEY 1001

typedef struct {
	TcFairQueue *queue;
	GMutex lock;
	GCond cond;
	gboolean is_released; /* [lock] the stalled work may finish */
	guint victim_done;    /* [lock] */
	guint stalled_done;   /* [lock] */
} Pool;

static gpointer
pool_thread(gpointer data)
{
	Pool *pool = data;
	guint32 key;

	while (tc_fair_queue_pop(pool->queue, -1, &key) != NULL) {
		g_mutex_lock(&pool->lock);
		if (key == STALLED_KEY) {
			while (!pool->is_released)
				g_cond_wait(&pool->cond, &pool->lock);
			pool->stalled_done++;
		} else {
			pool->victim_done++;
		}
		g_cond_broadcast(&pool->cond);
		g_mutex_unlock(&pool->lock);
		tc_fair_queue_done(pool->queue, key);
	}
	return NULL;
}

static void
test_stalled_key(void)
{
	Pool pool = {.queue = tc_fair_queue_new(2)};
	GThread *threads[POOL_THREADS];
	gint64 deadline;

	g_mutex_init(&pool.lock);
	g_cond_init(&pool.cond);
	for (guint i = 0; i < POOL_THREADS; i++)
		threads[i] = g_thread_new("pool", pool_thread, &pool);
	for (guint i = 1; i <= 20; i++)
		tc_fair_queue_push(pool.queue, STALLED_KEY, ITEM(i));
	for (guint i = 1; i <= 50; i++)
		tc_fair_queue_push(pool.queue, VICTIM_KEY, ITEM(i));

	deadline = g_get_monotonic_time() + 10 * G_TIME_SPAN_SECOND;
	g_mutex_lock(&pool.lock);
	while (pool.victim_done < 50)
		g_assert_true(g_cond_wait_until(&pool.cond, &pool.lock, deadline));
	g_assert_cmpuint(pool.stalled_done, ==, 0);
	g_mutex_unlock(&pool.lock);
	g_assert_cmpuint(tc_fair_queue_running(pool.queue, STALLED_KEY), ==, 2);
	g_assert_cmpuint(tc_fair_queue_queued(pool.queue, STALLED_KEY), ==, 18);

	g_mutex_lock(&pool.lock);
	pool.is_released = TRUE;
	g_cond_broadcast(&pool.cond);
	while (pool.stalled_done < 20)
		g_assert_true(g_cond_wait_until(&pool.cond, &pool.lock, deadline));
	g_mutex_unlock(&pool.lock);

	tc_fair_queue_close(pool.queue);
	for (guint i = 0; i < POOL_THREADS; i++)
		g_thread_join(threads[i]);
	tc_fair_queue_free(pool.queue);
	g_mutex_clear(&pool.lock);
	g_cond_clear(&pool.cond);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/fair-queue/round-robin", test_round_robin);
	g_test_add_func("/tracectl/fair-queue/share", test_share);
	g_test_add_func("/tracectl/fair-queue/stalled-key", test_stalled_key);
	return g_test_run();
}
