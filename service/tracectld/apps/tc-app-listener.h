/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>

/*
 * The registration socket of instrumented applications, <rundir>/app.sock,
 * served by one thread of its own with epoll, so that the D-Bus main loop
 * never waits on an application.
 */
typedef struct _TcAppListener TcAppListener;

/* Takes the socket from systemd (socket activation, name "app") when it
 * was passed, or creates it at socket_path. Starts the thread. */
TcAppListener *tc_app_listener_new(const char *socket_path, GError **error);
/* Stops the thread, closes every application socket, removes the socket
 * file it created. */
void tc_app_listener_free(TcAppListener *listener);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcAppListener, tc_app_listener_free)
