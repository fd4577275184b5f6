/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * A work queue shared fairly between keys (the service keys it on the
 * caller's uid). Each key has its own first-in first-out queue; the keys
 * that have work are served round-robin, one item per turn, and a key
 * never has more than max_running_per_key items taken and not yet done.
 * So a key whose work is stalled holds at most that many of the threads
 * that pop, and an item of any other key is taken as soon as a thread is
 * free, whatever the stalled key has queued.
 *
 * Any thread may push, pop and mark done; the queue has its own lock,
 * held only for the bookkeeping, never while an item runs.
 */
typedef struct _TcFairQueue TcFairQueue;

TcFairQueue *tc_fair_queue_new(guint max_running_per_key);
/* The queue must be closed, every taken item done. Items still queued
 * are dropped without being freed. */
void tc_fair_queue_free(TcFairQueue *queue);

void tc_fair_queue_push(TcFairQueue *queue, guint32 key, gpointer item);
/*
 * Takes the next item, in round-robin order of the keys below their
 * share, waiting for one until timeout_us passes (-1: forever) or the
 * queue is closed. Returns NULL then. The caller calls
 * tc_fair_queue_done() with *key once the item is finished.
 */
gpointer tc_fair_queue_pop(TcFairQueue *queue, gint64 timeout_us, guint32 *key);
void tc_fair_queue_done(TcFairQueue *queue, guint32 key);
/* From now on tc_fair_queue_pop() returns what is still queued, with no
 * share per key, then NULL at once instead of waiting. */
void tc_fair_queue_close(TcFairQueue *queue);

/* How many items of key are taken and not done (for tests and logs). */
guint tc_fair_queue_running(TcFairQueue *queue, guint32 key);
/* How many items of key wait. */
guint tc_fair_queue_queued(TcFairQueue *queue, guint32 key);
