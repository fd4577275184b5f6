/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-queue"

#include "tc-fair-queue.h"

/*
 * Invariant, under queue->lock: a key is in the ready ring exactly when it
 * has queued items and fewer than max_running_per_key running; a key with
 * neither queued nor running items is not in the table.
 */
typedef struct {
	guint32 key;
	GQueue items;  /* gpointer, oldest first */
	guint running; /* taken, not done */
	GList *ready_link; /* its link in queue->ready, or NULL */
} KeyQueue;

struct _TcFairQueue {
	GMutex lock;
	GCond cond;
	guint max_running_per_key;
	GHashTable *keys; /* key -> KeyQueue * (owned) */
	GQueue ready;     /* KeyQueue *, in turn order */
	gboolean is_closed;
};

TcFairQueue *
tc_fair_queue_new(guint max_running_per_key)
{
	TcFairQueue *queue;

	g_return_val_if_fail(max_running_per_key > 0, NULL);
	queue = g_new0(TcFairQueue, 1);
	g_mutex_init(&queue->lock);
	g_cond_init(&queue->cond);
	queue->max_running_per_key = max_running_per_key;
	queue->keys = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	g_queue_init(&queue->ready);
	return queue;
}

void
tc_fair_queue_free(TcFairQueue *queue)
{
	GHashTableIter iter;
	gpointer value;

	if (queue == NULL)
		return;
	g_hash_table_iter_init(&iter, queue->keys);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_queue_clear(&((KeyQueue *)value)->items);
	g_queue_clear(&queue->ready);
	g_hash_table_unref(queue->keys);
	g_mutex_clear(&queue->lock);
	g_cond_clear(&queue->cond);
	g_free(queue);
}

/* Lock held: puts the key at the end of the turn when it may run more. */
static void
key_update_ready_locked(TcFairQueue *queue, KeyQueue *kq)
{
	gboolean is_ready = !g_queue_is_empty(&kq->items) &&
			    kq->running < queue->max_running_per_key;

	if (is_ready && kq->ready_link == NULL) {
		g_queue_push_tail(&queue->ready, kq);
		kq->ready_link = queue->ready.tail;
		g_cond_signal(&queue->cond);
	} else if (!is_ready && kq->ready_link != NULL) {
		g_queue_delete_link(&queue->ready, kq->ready_link);
		kq->ready_link = NULL;
	}
	if (g_queue_is_empty(&kq->items) && kq->running == 0)
		g_hash_table_remove(queue->keys, GUINT_TO_POINTER(kq->key));
}

void
tc_fair_queue_push(TcFairQueue *queue, guint32 key, gpointer item)
{
	KeyQueue *kq;

	g_return_if_fail(item != NULL);
	g_mutex_lock(&queue->lock);
	kq = g_hash_table_lookup(queue->keys, GUINT_TO_POINTER(key));
	if (kq == NULL) {
		kq = g_new0(KeyQueue, 1);
		kq->key = key;
		g_queue_init(&kq->items);
		g_hash_table_insert(queue->keys, GUINT_TO_POINTER(key), kq);
	}
	g_queue_push_tail(&kq->items, item);
	key_update_ready_locked(queue, kq);
	g_mutex_unlock(&queue->lock);
}

gpointer
tc_fair_queue_pop(TcFairQueue *queue, gint64 timeout_us, guint32 *key)
{
	gint64 deadline = timeout_us < 0 ? G_MAXINT64 : g_get_monotonic_time() + timeout_us;
	gpointer item = NULL;
	KeyQueue *kq;

	g_mutex_lock(&queue->lock);
	while (!queue->is_closed && g_queue_is_empty(&queue->ready)) {
		if (timeout_us < 0)
			g_cond_wait(&queue->cond, &queue->lock);
		else if (!g_cond_wait_until(&queue->cond, &queue->lock, deadline))
			break;
	}
	if (!g_queue_is_empty(&queue->ready)) {
		/* Taking the head and requeueing the key at the tail is the turn. */
		kq = g_queue_pop_head(&queue->ready);
		kq->ready_link = NULL;
		item = g_queue_pop_head(&kq->items);
		kq->running++;
		*key = kq->key;
		key_update_ready_locked(queue, kq);
	}
	g_mutex_unlock(&queue->lock);
	return item;
}

void
tc_fair_queue_done(TcFairQueue *queue, guint32 key)
{
	KeyQueue *kq;

	g_mutex_lock(&queue->lock);
	kq = g_hash_table_lookup(queue->keys, GUINT_TO_POINTER(key));
	g_assert(kq != NULL && kq->running > 0);
	kq->running--;
	key_update_ready_locked(queue, kq);
	g_mutex_unlock(&queue->lock);
}

void
tc_fair_queue_close(TcFairQueue *queue)
{
	g_autoptr(GList) all = NULL;

	g_mutex_lock(&queue->lock);
	queue->is_closed = TRUE;
	/* What is queued is still served, by any number of threads. */
	queue->max_running_per_key = G_MAXUINT;
	all = g_hash_table_get_values(queue->keys);
	for (GList *l = all; l; l = l->next)
		key_update_ready_locked(queue, l->data);
	g_cond_broadcast(&queue->cond);
	g_mutex_unlock(&queue->lock);
}

guint
tc_fair_queue_running(TcFairQueue *queue, guint32 key)
{
	KeyQueue *kq;
	guint running;

	g_mutex_lock(&queue->lock);
	kq = g_hash_table_lookup(queue->keys, GUINT_TO_POINTER(key));
	running = kq ? kq->running : 0;
	g_mutex_unlock(&queue->lock);
	return running;
}

guint
tc_fair_queue_queued(TcFairQueue *queue, guint32 key)
{
	KeyQueue *kq;
	guint queued;

	g_mutex_lock(&queue->lock);
	kq = g_hash_table_lookup(queue->keys, GUINT_TO_POINTER(key));
	queued = kq ? kq->items.length : 0;
	g_mutex_unlock(&queue->lock);
	return queued;
}
