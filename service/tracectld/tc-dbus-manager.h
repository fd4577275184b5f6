/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

/* The manager object at TC_DBUS_MANAGER_PATH: creating, finding and
 * listing sessions, and what is not a session's. */
gpointer tc_manager_object_export(GDBusConnection *connection, GError **error);
