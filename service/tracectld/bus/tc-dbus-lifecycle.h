/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "tc-registry.h"

/* Connects Start, Stop and StopWithOptions of a session's exported
 * skeleton (a TcDbusSessionSkeleton) to handlers acting on session, which
 * the skeleton keeps referenced while it exists. */
void tc_dbus_lifecycle_connect(gpointer skeleton, TcSession *session);
