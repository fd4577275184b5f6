/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-lttng-app.h"

/*
 * The owners' threads of LTTng-UST applications, and the operations'
 * waits on them.
 *
 * Every command to an LTTng-UST application (its registration's, a
 * listing's, a session's setup, start, stop, events, release) runs on
 * the thread of its owner (its uid) of one per-owner pool: an
 * application that stops answering holds that thread for at most the
 * socket timeout per command, which delays its owner's applications
 * only, never another user's, the listen thread or a session operation.
 *
 * A session operation sends its commands as a batch: one work per
 * application, queued on each owner's thread, all waited for against
 * one deadline (tc_lttng_owner_batch_wait()). An application whose
 * work is not done by then is named in a warning and the operation goes
 * on; its work still runs later, in order with the works queued after
 * it on the same thread, so a later stop or release of the same session
 * always reaches an application after the start did. The works of one
 * batch hold references to what they use; the batch outlives its
 * waiter while one of them is queued.
 *
 * An application whose command socket broke or timed out mid-command is
 * dropped (tc_lttng_owner_drop()): its answer to that command may still
 * come and would be read as the answer to the next one. Its sockets are
 * shut down, so LTTng-UST's listener thread in it connects and
 * registers again, and the active sessions are applied to it afresh.
 */

/* Does run(data) on owner's thread, after the owner's works queued, then
 * free_func(data) (also when the pool stops first). FALSE (data freed)
 * once stopped or not started. Any thread. */
gboolean tc_lttng_owner_push(uid_t owner, GFunc run, gpointer data, GDestroyNotify free_func);
/* What an application's end undoes beyond the registry and the traces'
 * bindings (the per-PID traces it wrote): called once per application,
 * on its owner's thread, by the drop that unlinks it. */
typedef void (*TcLttngOwnerGoneFunc)(TcLttngApp *app);

/* Starts and stops the pool (stop waits for the works under way and
 * drops those queued); gone may be NULL. */
void tc_lttng_owner_start(TcLttngOwnerGoneFunc gone);
void tc_lttng_owner_stop(void);

/* Unlinks app from the registry and every trace, shuts its sockets down
 * (the application registers again by itself), logs why, and calls the
 * pool's gone function. */
void tc_lttng_owner_drop(TcLttngApp *app, const char *why);

typedef struct _TcLttngBatch TcLttngBatch;

/* One application's part of an operation: run on its owner's thread
 * unless the application is gone; FALSE (error set) when it failed;
 * a G_IO_ERROR drops the application (its link is lost). */
typedef gboolean (*TcLttngBatchFunc)(TcLttngApp *app, gpointer data, GError **error);

/* A batch of the operation what (for the log) of session session_name. */
TcLttngBatch *tc_lttng_owner_batch_new(const char *session_name, const char *what);
/* Queues func(app, data) on app's owner's thread; free_func frees data
 * once done or dropped. */
void tc_lttng_owner_batch_add(TcLttngBatch *batch, TcLttngApp *app, TcLttngBatchFunc func,
			      gpointer data, GDestroyNotify free_func);
/* Waits until every work of batch is done or timeout_ms passed, warns of
 * each application not done by then, and frees the caller's part of the
 * batch. Any thread but an owner's of the pool (it would wait for
 * itself) and the main loop's. */
void tc_lttng_owner_batch_wait(TcLttngBatch *batch, guint timeout_ms);
