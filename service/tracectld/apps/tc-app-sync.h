/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-ack-waiter.h"
#include "tc-app.h"
#include "tc-session.h"

/*
 * The shadow copy of sessions into applications: what each registered
 * application was told about each session of its owner
 * (TcAppSessionState), and the commands that bring it up to date.
 */

/*
 * [S] and [A] held: brings app to the state of session (channels and
 * their buffers, enabled events, started or stopped), sending only what
 * differs from what the application already has. Commands that need an
 * answer are counted in waiter when it is not NULL. An application that
 * cannot take a message is disconnected.
 */
void tc_app_sync_locked(TcApp *app, TcSession *session, TcAckWaiter *waiter);
/* [S] held: tc_app_sync_locked() for every registered application of the
 * owner. */
void tc_app_sync_session_locked(TcSession *session, TcAckWaiter *waiter);
/* No lock held: syncs app with every session of its owner (registration,
 * or a later batch of events), taking each session's lock, then the
 * application's, and with its owner's event-rule triggers, and answers EVENTS_DONE for batch: at once, or once the
 * consumer has the metadata and layouts of new event classes. */
void tc_app_sync_all_sessions(TcApp *app, guint32 batch);
/* [S] held: tells the owner's applications to forget the session. */
void tc_app_sync_forget_session_locked(TcSession *session, TcAckWaiter *waiter);
void tc_app_sync_session_state_free(TcAppSessionState *state);
