/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * Work done for one owner at a time, each owner's on a pool thread of
 * their own: the shape of every shared thread whose work waits on what
 * an owner controls (their consumer, their outputs). One owner's work
 * waiting never delays another's, and never holds more than one thread.
 *
 * Periodic users (the relay watch, triggers) call
 * tc_owner_pool_try_push() at each round, which refuses an owner whose
 * last work is still under way: that owner is skipped for the round.
 * One-off users (auto-loading) call tc_owner_pool_push(), which queues
 * the work behind the owner's work under way, on the same thread.
 *
 * Each work runs on a thread registered with liburcu, so it may look
 * sessions up. All functions may be called from any thread.
 */

typedef struct _TcOwnerPool TcOwnerPool;

/* Does work for owner, on a thread of pool. The pool frees work
 * (free_func) afterwards. */
typedef void (*TcOwnerWorkFunc)(TcOwnerPool *pool, uid_t owner, gpointer work, gpointer user_data);

/* free_func frees a work, done or dropped; it may be NULL. */
TcOwnerPool *tc_owner_pool_new(TcOwnerWorkFunc func, GDestroyNotify free_func, gpointer user_data);

/* Starts work for owner, unless owner's last work is still under way or
 * the pool stops: then FALSE, and work stays the caller's, to be freed on
 * the caller's thread (which must then be registered with liburcu if
 * freeing it may enter a read-side section). */
gboolean tc_owner_pool_try_push(TcOwnerPool *pool, uid_t owner, gpointer work);

/* tc_owner_pool_try_push() of each work of works (uid -> work): those
 * started leave the table (stolen), those refused stay in it. */
void tc_owner_pool_try_push_each(TcOwnerPool *pool, GHashTable *works);

/* Starts work for owner now, or after owner's works under way and
 * queued. FALSE (work freed) once the pool stops. */
gboolean tc_owner_pool_push(TcOwnerPool *pool, uid_t owner, gpointer work);

/* TRUE once tc_owner_pool_free() began: a long work ends at its next step. */
gboolean tc_owner_pool_is_stopping(TcOwnerPool *pool);

/* Stops the pool: works queued are dropped (freed), those under way are
 * waited for. NULL-safe. */
void tc_owner_pool_free(TcOwnerPool *pool);
