/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-ack-waiter-wait.h"

#include "tc-ack-waiter.h"
#include "tc-app.h"
#include "tc-registry.h"

/* Drops every reference applications hold to waiter; those that still
 * owed it an answer are marked unresponsive. */
static void
forget_waiter(TcAckWaiter *waiter)
{
	g_autoptr(GPtrArray) apps = tc_registry_list_apps(0, TRUE);
	GHashTableIter pending;
	gpointer value;

	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);
		gboolean owed = FALSE;

		g_mutex_lock(&app->lock);
		if (app->pending) {
			g_hash_table_iter_init(&pending, app->pending);
			while (g_hash_table_iter_next(&pending, NULL, &value))
				if (value == waiter) {
					g_hash_table_iter_remove(&pending);
					owed = TRUE;
				}
		}
		if (owed && app->state == TC_APP_REGISTERED)
			tc_app_mark_unresponsive_locked(app);
		g_mutex_unlock(&app->lock);
	}
}

void
tc_ack_waiter_wait(TcAckWaiter *waiter, guint timeout_ms)
{
	gint64 start = g_get_monotonic_time();
	gint64 owner_deadline = start + (gint64)timeout_ms * 1000;
	gint64 others_deadline =
	    start + (gint64)MIN(timeout_ms, TC_ACK_OTHER_USERS_TIMEOUT_MS) * 1000;
	guint remaining;

	/* One deadline for all the applications, never one after the other. */
	g_mutex_lock(&waiter->lock);
	while (waiter->remaining_owner > 0 || waiter->remaining_others > 0) {
		gint64 deadline = waiter->remaining_owner > 0 ? owner_deadline : others_deadline;

		if (!g_cond_wait_until(&waiter->cond, &waiter->lock, deadline))
			break;
	}
	remaining = waiter->remaining_owner + waiter->remaining_others;
	g_mutex_unlock(&waiter->lock);
	if (remaining > 0) {
		g_message("%u command(s) not acknowledged within %u ms (%u ms for other users' "
			  "applications), carrying on",
			  remaining, timeout_ms, MIN(timeout_ms, TC_ACK_OTHER_USERS_TIMEOUT_MS));
		/* The waiter lives on the caller's stack. Applications signal it
		 * under their lock, so once forgotten it is never touched. */
		forget_waiter(waiter);
	}
	g_mutex_clear(&waiter->lock);
	g_cond_clear(&waiter->cond);
}
