/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ack-waiter.h"

#include "tc-app.h"

void
tc_ack_waiter_init(TcAckWaiter *waiter, uid_t owner_uid)
{
	g_mutex_init(&waiter->lock);
	g_cond_init(&waiter->cond);
	waiter->owner_uid = owner_uid;
	waiter->remaining_owner = 0;
	waiter->remaining_others = 0;
}

static guint *
remaining_of_locked(TcAckWaiter *waiter, TcApp *app)
{
	return app->uid == waiter->owner_uid ? &waiter->remaining_owner : &waiter->remaining_others;
}

void
tc_ack_waiter_expect_locked(TcAckWaiter *waiter, TcApp *app)
{
	g_mutex_lock(&waiter->lock);
	(*remaining_of_locked(waiter, app))++;
	g_mutex_unlock(&waiter->lock);
}

void
tc_ack_waiter_signal_locked(TcAckWaiter *waiter, TcApp *app)
{
	guint *remaining;

	g_mutex_lock(&waiter->lock);
	remaining = remaining_of_locked(waiter, app);
	if (*remaining > 0)
		(*remaining)--;
	g_cond_broadcast(&waiter->cond);
	g_mutex_unlock(&waiter->lock);
}
