/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

/* Connects AddTrigger, ListTriggers and RemoveTrigger of the manager
 * skeleton (a TcDbusManager) to the trigger table (tc-triggers.h). */
void tc_dbus_triggers_connect(gpointer manager);
