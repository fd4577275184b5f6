/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-ack-waiter.h"

/*
 * The wait on a TcAckWaiter. Apart from the waiter itself because giving
 * up on the answers forgets the waiter in every registered application:
 * it walks the registry's table, which in turn releases the waiters of an
 * application it unlinks (tc-ack-waiter.h sits below the registry, this
 * file above it).
 */

/* Waits at most timeout_ms for the answers (less for other users'
 * applications), then forgets the rest and marks the applications that
 * owed them unresponsive. No session or application lock may be held. */
void tc_ack_waiter_wait(TcAckWaiter *waiter, guint timeout_ms);
