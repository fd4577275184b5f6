/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* The D-Bus object of each session, under TC_DBUS_SESSION_PATH_PREFIX:
 * its handlers parse a call and submit a request (tc-dbus-request.h). */
gpointer tc_dbus_session_export(TcSession *session, GDBusConnection *connection, GError **error);
void tc_dbus_session_unexport(TcSession *session);
/* Main thread: whether session is on the bus. The registry holds a
 * session before its object is exported (a creation's work, auto-load's
 * publishing on the main loop): callers see only exported ones, so that
 * every path they are given has an object behind it. */
gboolean tc_dbus_session_is_exported(TcSession *session);
/* Main thread: session when it is exported; else unreferences it and
 * returns NULL. */
TcSession *tc_dbus_session_exported_or_unref(TcSession *session);
/* The "as" of the context names AddContext accepts in domain ("ust" or
 * "kernel"), or NULL for another domain. */
GVariant *tc_dbus_session_context_names(const char *domain);
/* Every property of session's object, as GetAll gives them to its owner:
 * an a{sv}, floating. Takes session->lock. */
GVariant *tc_dbus_session_properties(TcSession *session);
