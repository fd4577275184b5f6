/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-app.h"

/*
 * Waits for applications to acknowledge commands. Lives on the stack of
 * the operation that sent them; see tc_ack_waiter_wait()
 * (tc-ack-waiter-wait.h). The answers of all applications are awaited
 * together, against one deadline: the caller's for the session owner's
 * applications, and at most TC_ACK_OTHER_USERS_TIMEOUT_MS for other
 * users' (root's sessions record everyone's), so that no user's slow or
 * mute applications delay another user's commands by more than that.
 * Its lock is a leaf below an application's [A].
 */
#define TC_ACK_OTHER_USERS_TIMEOUT_MS 200

typedef struct _TcAckWaiter TcAckWaiter;

struct _TcAckWaiter {
	GMutex lock;
	GCond cond;
	uid_t owner_uid;	/* the session's owner */
	guint remaining_owner;	/* [lock] answers due from owner_uid's applications */
	guint remaining_others; /* [lock] and from other users' */
};

void tc_ack_waiter_init(TcAckWaiter *waiter, uid_t owner_uid);
/* [A] held: one more answer is due from app. */
void tc_ack_waiter_expect_locked(TcAckWaiter *waiter, TcApp *app);
/* [A] held: app answered, or died. */
void tc_ack_waiter_signal_locked(TcAckWaiter *waiter, TcApp *app);
