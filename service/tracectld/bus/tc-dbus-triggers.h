/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

/* Connects AddTrigger, ListTriggers and RemoveTrigger of the manager
 * skeleton (a TcDbusManager) to the trigger table (tc-triggers.h). */
void tc_dbus_triggers_connect(gpointer manager);

/* Main loop or any thread. Adds a trigger owned by owner from AddTrigger's
 * arguments (tc-triggers.h says which). Errors: InvalidArgument (an
 * unknown condition, option or action, a missing session), AlreadyExists
 * (owner has a trigger of that name), LimitExceeded (MaxTriggers),
 * NotSupported (rotate-session). */
gboolean tc_dbus_triggers_add(uid_t owner, const char *name, const char *condition,
			      GVariant *options, const char *const *actions, GError **error);
/* a(susa{sv}ast): name, owner, condition, options, actions, times fired;
 * owner's triggers, or everyone's when all. */
GVariant *tc_dbus_triggers_list(uid_t owner, gboolean all);
