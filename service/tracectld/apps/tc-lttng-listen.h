/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/socket.h>

#include "tc-lttng-app.h"

/*
 * LTTng's application socket (such as /var/run/lttng/lttng-ust-sock-8)
 * and the one thread that watches it and the applications' sockets with
 * epoll. The thread never reads or writes an application's socket: it
 * accepts connections and hands them over, and reports hang-ups, a
 * notify socket that speaks (served on a thread of the owner's, then
 * watched again) and pairings past their deadline. All the talking happens on the threads
 * of the applications' owners (tc-lttng-apps.c), so this thread never
 * waits on an application.
 */
typedef struct _TcLttngListen TcLttngListen;

/* A connection accepted (fd taken: blocking, close-on-exec), of the peer
 * whose SO_PEERCRED is cred. Called on the listen thread. */
typedef void (*TcLttngAcceptFunc)(int fd, const struct ucred *cred, gpointer user_data);
/* app must go (why says so). Called on the listen thread. */
typedef void (*TcLttngGoneFunc)(TcLttngApp *app, const char *why, gpointer user_data);

/* app's notify socket has a message to read (no hang-up): it is not
 * watched again until tc_lttng_listen_rearm_notify(). Called on the
 * listen thread. */
typedef void (*TcLttngNotifyFunc)(TcLttngApp *app, gpointer user_data);

/* Listens at path unless another session daemon answers there: then
 * TC_ERROR_ALREADY_EXISTS and the socket is left alone. A socket file
 * nobody answers on is stale and replaced. Starts the thread. */
TcLttngListen *tc_lttng_listen_new(const char *path, TcLttngAcceptFunc accept_func,
				   TcLttngGoneFunc gone_func, TcLttngNotifyFunc notify_func,
				   gpointer user_data, GError **error);
/* Watches app's notify socket again, once its message was read. */
gboolean tc_lttng_listen_rearm_notify(TcLttngListen *listen, TcLttngApp *app, GError **error);
/* Watches app's command socket for its hang-up and its notify socket for
 * its hang-up or any message; each reports at most once (EPOLLONESHOT). */
gboolean tc_lttng_listen_watch(TcLttngListen *listen, TcLttngApp *app, GError **error);
/* Stops the thread: no connection is accepted nor reported after this;
 * tc_lttng_listen_watch() still may be called. */
void tc_lttng_listen_stop(TcLttngListen *listen);
/* Stops the thread, removes the socket file it created. NULL-safe. */
void tc_lttng_listen_free(TcLttngListen *listen);
