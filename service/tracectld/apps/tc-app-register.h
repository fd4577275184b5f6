/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-app.h"

/*
 * The registration path of applications (§3.5.2 of the session-daemon
 * thesis, David Goulet, "Unified Kernel/User-Space Efficient Linux Tracing
 * Architecture", École Polytechnique de Montréal, 2012, with the thread
 * pool its section 5.2 asked for):
 *
 *   accept thread ──wfcqueue──> dispatcher ──wfcqueue + futex──> worker 1..N
 *        (SO_PEERCRED)          (epoll: waits until a         (reads what is there,
 *                                connection has data,          checks it, and either
 *                                drops it at its deadline)     gives the connection
 *                                     ^                        back or publishes it)
 *                                     └──────── not finished ──────┘
 *
 * A worker only ever reads what is already there, so a registration that
 * stalls occupies no worker: it waits in the dispatcher's epoll until its
 * deadline. Garbage ends the connection at once. A finished registration
 * is published in the registry, synced with every session of its owner
 * (the shadow copy), answered with EVENTS_DONE, and adopted by the
 * listener thread, which serves the application from then on.
 */
typedef struct _TcRegistrar TcRegistrar;

/* Takes a published application (and one reference to it). */
typedef void (*TcAppAdoptFunc)(TcApp *app, gpointer user_data);

#define TC_REGISTRATION_TIMEOUT_MS 5000

TcRegistrar *tc_app_register_new(int listen_fd, guint n_workers, TcAppAdoptFunc adopt,
				 gpointer user_data, GError **error);
/* Stops every thread and drops the registrations in progress. */
void tc_app_register_free(TcRegistrar *registrar);
