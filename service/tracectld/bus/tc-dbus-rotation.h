/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* Connects the rotation methods of a session's exported skeleton
 * (a TcDbusSessionSkeleton) to handlers acting on session, which the
 * skeleton keeps referenced while it exists. */
void tc_dbus_rotation_connect(gpointer skeleton, TcSession *session);

/* [S] The rotation properties of the D-Bus session object (RotationTimer,
 * RotationSize, LastArchive), or NULL for another name. */
GVariant *tc_dbus_rotation_property_locked(TcSession *session, const char *name);
