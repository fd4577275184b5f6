/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* The manager object at TC_DBUS_MANAGER_PATH: creating, finding and
 * listing sessions, and what is not a session's. */
gpointer tc_dbus_manager_export(GDBusConnection *connection, GError **error);
/* Gives a session the service created itself (auto-loading, already in
 * the registry) its D-Bus object, and tells subscribers. Main thread: the
 * daemon hands it to auto-load as its TcAutoloadPublishFunc. */
gboolean tc_dbus_manager_publish_session(TcSession *session, GError **error);
/* Sets the LttngUstApplications property from what came of serving
 * LTTng-UST applications (tc-lttng-apps.h). Main thread. */
void tc_dbus_manager_refresh_lttng_status(gpointer manager);
