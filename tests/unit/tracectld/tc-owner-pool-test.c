/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <glib.h>

#include "tc-owner-pool.h"

/* A work that waits until the test lets it go, and says when it ran. */
typedef struct {
	GMutex lock;
	GCond cond;
	gboolean is_released; /* [lock] */
	guint running;	      /* [lock] works under way */
	GArray *order;	      /* [lock] the ids of the works done, in order */
} Fixture;

typedef struct {
	guint id;
	gboolean blocks;
} Work;

static guint freed;

static void
work_free(gpointer data)
{
	g_atomic_int_inc(&freed);
	g_free(data);
}

static void
run_cb(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer user_data)
{
	Work *work = data;
	Fixture *fixture = user_data;

	g_mutex_lock(&fixture->lock);
	fixture->running++;
	g_cond_broadcast(&fixture->cond);
	while (work->blocks && !fixture->is_released)
		g_cond_wait(&fixture->cond, &fixture->lock);
	g_array_append_val(fixture->order, work->id);
	fixture->running--;
	g_cond_broadcast(&fixture->cond);
	g_mutex_unlock(&fixture->lock);
}

static Work *
work_new(guint id, gboolean blocks)
{
	Work *work = g_new0(Work, 1);

	work->id = id;
	work->blocks = blocks;
	return work;
}

static void
wait_running(Fixture *fixture, guint count)
{
	g_mutex_lock(&fixture->lock);
	while (fixture->running != count)
		g_cond_wait(&fixture->cond, &fixture->lock);
	g_mutex_unlock(&fixture->lock);
}

static void
wait_done(Fixture *fixture, guint count)
{
	g_mutex_lock(&fixture->lock);
	while (fixture->order->len < count)
		g_cond_wait(&fixture->cond, &fixture->lock);
	g_mutex_unlock(&fixture->lock);
}

static void
release(Fixture *fixture)
{
	g_mutex_lock(&fixture->lock);
	fixture->is_released = TRUE;
	g_cond_broadcast(&fixture->cond);
	g_mutex_unlock(&fixture->lock);
}

static void
fixture_init(Fixture *fixture)
{
	g_mutex_init(&fixture->lock);
	g_cond_init(&fixture->cond);
	fixture->order = g_array_new(FALSE, FALSE, sizeof(guint));
	freed = 0;
}

/* An owner whose work is under way is refused by try_push; another owner,
 * root included, is served at once, on a thread of their own. */
static void
test_busy_owner_skipped(void)
{
	Fixture fixture = {0};
	TcOwnerPool *pool;
	Work *refused = work_new(2, FALSE);

	fixture_init(&fixture);
	pool = tc_owner_pool_new(run_cb, work_free, &fixture);
	g_assert_true(tc_owner_pool_try_push(pool, 1000, work_new(1, TRUE)));
	wait_running(&fixture, 1);
	g_assert_false(tc_owner_pool_try_push(pool, 1000, refused));
	g_assert_true(tc_owner_pool_try_push(pool, 0, work_new(3, FALSE)));
	wait_done(&fixture, 1);
	g_assert_cmpuint(g_array_index(fixture.order, guint, 0), ==, 3);
	release(&fixture);
	wait_done(&fixture, 2);
	tc_owner_pool_free(pool);
	g_free(refused);
	g_assert_cmpuint(freed, ==, 2);
	g_array_unref(fixture.order);
}

/* try_push_each starts every owner's work but a busy owner's, which
 * stays in the table for the caller; the others leave it. */
static void
test_push_each(void)
{
	g_autoptr(GHashTable) works = g_hash_table_new_full(NULL, NULL, NULL, work_free);
	Fixture fixture = {0};
	TcOwnerPool *pool;

	fixture_init(&fixture);
	pool = tc_owner_pool_new(run_cb, work_free, &fixture);
	g_assert_true(tc_owner_pool_try_push(pool, 1000, work_new(1, TRUE)));
	wait_running(&fixture, 1);
	g_hash_table_insert(works, GUINT_TO_POINTER(1000), work_new(2, FALSE));
	g_hash_table_insert(works, GUINT_TO_POINTER(1001), work_new(3, FALSE));
	g_hash_table_insert(works, GUINT_TO_POINTER(0), work_new(4, FALSE));
	tc_owner_pool_try_push_each(pool, works);
	g_assert_cmpuint(g_hash_table_size(works), ==, 1);
	g_assert_cmpuint(((Work *)g_hash_table_lookup(works, GUINT_TO_POINTER(1000)))->id, ==, 2);
	wait_done(&fixture, 2);
	release(&fixture);
	wait_done(&fixture, 3);
	tc_owner_pool_free(pool);
	g_assert_cmpuint(freed, ==, 3);
	g_array_unref(fixture.order);
}

static gpointer
free_thread(gpointer pool)
{
	tc_owner_pool_free(pool);
	return NULL;
}

/* push queues behind the owner's work under way, in order; free drops
 * what is queued and waits for what runs. */
static void
test_queue_and_free(void)
{
	Fixture fixture = {0};
	TcOwnerPool *pool;
	GThread *freeing;

	fixture_init(&fixture);
	pool = tc_owner_pool_new(run_cb, work_free, &fixture);
	g_assert_true(tc_owner_pool_push(pool, 7, work_new(1, TRUE)));
	wait_running(&fixture, 1);
	g_assert_true(tc_owner_pool_push(pool, 7, work_new(2, FALSE)));
	g_assert_true(tc_owner_pool_push(pool, 7, work_new(3, FALSE)));
	g_assert_true(tc_owner_pool_push(pool, 8, work_new(4, FALSE)));
	wait_done(&fixture, 1);
	g_assert_cmpuint(g_array_index(fixture.order, guint, 0), ==, 4);
	release(&fixture);
	wait_done(&fixture, 4);
	g_assert_cmpuint(g_array_index(fixture.order, guint, 2), ==, 2);
	g_assert_cmpuint(g_array_index(fixture.order, guint, 3), ==, 3);

	/* Once free began, queued works are dropped, not run. */
	fixture.is_released = FALSE;
	g_assert_true(tc_owner_pool_push(pool, 7, work_new(5, TRUE)));
	wait_running(&fixture, 1);
	g_assert_true(tc_owner_pool_push(pool, 7, work_new(6, FALSE)));
	freeing = g_thread_new("free", free_thread, pool);
	while (!tc_owner_pool_is_stopping(pool))
		g_usleep(1000);
	release(&fixture);
	g_thread_join(freeing);
	g_assert_cmpuint(freed, ==, 6);
	g_assert_cmpuint(fixture.order->len, ==, 5);
	g_array_unref(fixture.order);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/owner-pool/busy-owner-skipped", test_busy_owner_skipped);
	g_test_add_func("/tracectl/owner-pool/queue-and-free", test_queue_and_free);
	g_test_add_func("/tracectl/owner-pool/push-each", test_push_each);
	return g_test_run();
}
