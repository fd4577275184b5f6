/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

/* The manager's DescribeSession: one of the caller's sessions by name,
 * its properties and its channels' statistics in one call, authorized
 * once (manage-sessions, as FindSession). Connects its handler to the
 * exported manager skeleton (a TcDbusManagerSkeleton). */
void tc_dbus_describe_connect(gpointer manager);
