/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* The D-Bus object of each session, under TC_DBUS_SESSION_PATH_PREFIX:
 * its handlers parse a call and submit a request (tc-dbus-request.h). */
gpointer tc_dbus_session_export(TcSession *session, GDBusConnection *connection, GError **error);
void tc_dbus_session_unexport(TcSession *session);
/* The "as" of the context names AddContext accepts in domain ("ust" or
 * "kernel"), or NULL for another domain. */
GVariant *tc_dbus_session_context_names(const char *domain);
/* Every property of session's object, as GetAll gives them to its owner:
 * an a{sv}, floating. Takes session->lock. */
GVariant *tc_dbus_session_properties(TcSession *session);
