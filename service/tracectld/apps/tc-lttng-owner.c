/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Why the works of a batch may outlive its wait: a work waiting for an
 * application cannot be interrupted (liblttng-ust-ctl blocks in the
 * socket's send or receive, bounded by its timeouts), and the works
 * queued behind it on the same thread must keep their order. So each
 * work holds a reference to the batch, and the waiter only stops
 * counting. Lock order: an application's cmd_lock (held inside a work)
 * → a batch's lock → [L]; the batch's lock is never held across a work.
 */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-owner.h"

#include <gio/gio.h>
#include <sys/socket.h>

#include "tc-lttng-registry.h"
#include "tc-lttng-trace.h"
#include "tc-owner-pool.h"

typedef struct {
	GFunc run;
	gpointer data;
	GDestroyNotify free_func;
} OwnerWork;

/* pool is pushed to from the listen thread, the owners' threads and the
 * operations' threads until after stop: they push under pool_lock,
 * under which stop takes the pool away. */
static GMutex pool_lock;
static TcOwnerPool *pool; /* [pool_lock] */
static TcLttngOwnerGoneFunc gone_func; /* [pool_lock] */

static void
owner_work_run(TcOwnerPool *owner_pool, uid_t owner, gpointer data, gpointer user_data)
{
	OwnerWork *work = data;

	work->run(work->data, NULL);
}

static void
owner_work_free(gpointer data)
{
	OwnerWork *work = data;

	if (work->free_func)
		work->free_func(work->data);
	g_free(work);
}

gboolean
tc_lttng_owner_push(uid_t owner, GFunc run, gpointer data, GDestroyNotify free_func)
{
	OwnerWork *work = g_new0(OwnerWork, 1);
	gboolean pushed = FALSE;

	work->run = run;
	work->data = data;
	work->free_func = free_func;
	g_mutex_lock(&pool_lock);
	if (pool)
		pushed = tc_owner_pool_push(pool, owner, work);
	else
		owner_work_free(work);
	g_mutex_unlock(&pool_lock);
	return pushed;
}

void
tc_lttng_owner_start(TcLttngOwnerGoneFunc gone)
{
	TcOwnerPool *new_pool = tc_owner_pool_new(owner_work_run, owner_work_free, NULL);

	g_mutex_lock(&pool_lock);
	pool = new_pool;
	gone_func = gone;
	g_mutex_unlock(&pool_lock);
}

void
tc_lttng_owner_stop(void)
{
	TcOwnerPool *stopping;

	g_mutex_lock(&pool_lock);
	stopping = g_steal_pointer(&pool);
	g_mutex_unlock(&pool_lock);
	tc_owner_pool_free(stopping);
}

void
tc_lttng_owner_drop(TcLttngApp *app, const char *why)
{
	TcLttngOwnerGoneFunc gone;

	tc_lttng_trace_unbind_app(app->id);
	if (!tc_lttng_registry_remove(app))
		return;
	/* The descriptors stay open while references remain (never reused
	 * under a thread still using them); the application sees the end
	 * of both connections now. */
	(void)shutdown(app->cmd_fd, SHUT_RDWR);
	if (app->notify_fd >= 0)
		(void)shutdown(app->notify_fd, SHUT_RDWR);
	g_message("LTTng-UST application unregistered: pid=%d uid=%u name='%s' (%s)",
		  (int)app->pid, (unsigned)app->uid, app->procname, why);
	g_mutex_lock(&pool_lock);
	gone = gone_func;
	g_mutex_unlock(&pool_lock);
	if (gone)
		gone(app);
}

typedef enum {
	ENTRY_QUEUED,
	ENTRY_RUNNING,
	ENTRY_DONE,
} EntryState;

typedef struct {
	TcLttngBatch *batch;
	TcLttngApp *app;
	TcLttngBatchFunc func;
	gpointer data;
	GDestroyNotify free_func;
	EntryState state; /* [batch's lock] */
} BatchEntry;

struct _TcLttngBatch {
	gint refcount; /* the waiter's and one per work not freed */
	char *session_name;
	char *what;
	GMutex lock;
	GCond changed;
	GPtrArray *entries; /* BatchEntry *, added before the wait only */
	guint pending;	    /* [lock] works not done */
};

static void
entry_free(gpointer data)
{
	BatchEntry *entry = data;

	tc_lttng_app_unref(entry->app);
	g_free(entry);
}

TcLttngBatch *
tc_lttng_owner_batch_new(const char *session_name, const char *what)
{
	TcLttngBatch *batch = g_new0(TcLttngBatch, 1);

	batch->refcount = 1;
	batch->session_name = g_strdup(session_name);
	batch->what = g_strdup(what);
	g_mutex_init(&batch->lock);
	g_cond_init(&batch->changed);
	batch->entries = g_ptr_array_new_with_free_func(entry_free);
	return batch;
}

static void
batch_unref(TcLttngBatch *batch)
{
	if (!g_atomic_int_dec_and_test(&batch->refcount))
		return;
	g_ptr_array_unref(batch->entries);
	g_mutex_clear(&batch->lock);
	g_cond_clear(&batch->changed);
	g_free(batch->session_name);
	g_free(batch->what);
	g_free(batch);
}

static void
entry_set_state(BatchEntry *entry, EntryState state)
{
	TcLttngBatch *batch = entry->batch;

	g_mutex_lock(&batch->lock);
	if (state == ENTRY_DONE && entry->state != ENTRY_DONE)
		batch->pending--;
	entry->state = state;
	g_cond_broadcast(&batch->changed);
	g_mutex_unlock(&batch->lock);
}

static gboolean
app_is_gone(TcLttngApp *app)
{
	gboolean gone;

	g_mutex_lock(&app->lock);
	gone = app->state == TC_LTTNG_APP_GONE;
	g_mutex_unlock(&app->lock);
	return gone;
}

/* The owner's thread: one application's part. */
static void
entry_run(gpointer data, gpointer unused)
{
	BatchEntry *entry = data;
	g_autoptr(GError) error = NULL;

	if (app_is_gone(entry->app))
		return;
	entry_set_state(entry, ENTRY_RUNNING);
	if (entry->func(entry->app, entry->data, &error))
		return;
	g_warning("Session '%s': %s failed in the LTTng-UST application pid=%d uid=%u: %s",
		  entry->batch->session_name, entry->batch->what, (int)entry->app->pid,
		  (unsigned)entry->app->uid, error->message);
	if (error->domain == G_IO_ERROR)
		tc_lttng_owner_drop(entry->app, error->message);
}

/* Done, or dropped by a pool stopping: either way it counts as done. */
static void
entry_release(gpointer data)
{
	BatchEntry *entry = data;
	TcLttngBatch *batch = entry->batch;

	if (entry->free_func)
		entry->free_func(entry->data);
	entry->data = NULL;
	entry_set_state(entry, ENTRY_DONE);
	batch_unref(batch);
}

void
tc_lttng_owner_batch_add(TcLttngBatch *batch, TcLttngApp *app, TcLttngBatchFunc func,
			 gpointer data, GDestroyNotify free_func)
{
	BatchEntry *entry = g_new0(BatchEntry, 1);

	entry->batch = batch;
	entry->app = tc_lttng_app_ref(app);
	entry->func = func;
	entry->data = data;
	entry->free_func = free_func;
	entry->state = ENTRY_QUEUED;
	g_ptr_array_add(batch->entries, entry);
	g_mutex_lock(&batch->lock);
	batch->pending++;
	g_mutex_unlock(&batch->lock);
	g_atomic_int_inc(&batch->refcount);
	/* Refused once stopping: released at once, which counts it done. */
	(void)tc_lttng_owner_push(app->uid, entry_run, entry, entry_release);
}

/* [lock] held: names each application not done in time. */
static void
warn_late_locked(TcLttngBatch *batch, guint timeout_ms)
{
	for (guint i = 0; i < batch->entries->len; i++) {
		BatchEntry *entry = g_ptr_array_index(batch->entries, i);

		if (entry->state == ENTRY_DONE)
			continue;
		g_warning("Session '%s': %s not done in the LTTng-UST application pid=%d uid=%u "
			  "within %u ms (%s), carrying on",
			  batch->session_name, batch->what, (int)entry->app->pid,
			  (unsigned)entry->app->uid, timeout_ms,
			  entry->state == ENTRY_RUNNING ? "it does not answer"
							: "its owner's thread is busy");
	}
}

void
tc_lttng_owner_batch_wait(TcLttngBatch *batch, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	/* One deadline for all the applications, never one after another. */
	g_mutex_lock(&batch->lock);
	while (batch->pending > 0 && g_cond_wait_until(&batch->changed, &batch->lock, deadline))
		;
	if (batch->pending > 0)
		warn_late_locked(batch, timeout_ms);
	g_mutex_unlock(&batch->lock);
	batch_unref(batch);
}
