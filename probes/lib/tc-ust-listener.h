/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The listener thread: connects to <rundir>/app.sock, registers the
 * process and its events, and applies the service's commands.
 */
#ifndef TC_UST_LISTENER_H
#define TC_UST_LISTENER_H

/* Resolves the socket path from the environment. Call once, before start. */
void tc_ust_listener_configure(void);
/* Starts the thread with every signal blocked. Returns 0 or a negative errno. */
int tc_ust_listener_start(void);
/* Wakes the listener so that it sends the events it has not sent yet.
 * Requires tc_ust_state.lock. */
void tc_ust_listener_request_batch_locked(void);

#endif /* TC_UST_LISTENER_H */
