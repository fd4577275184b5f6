/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "tc-session.h"

/* The session methods of the everyday commands (StopWithOptions,
 * DisableChannel, the snapshot outputs, RecordSnapshotWithOptions), on the
 * session's skeleton: each handler parses and submits a request, like
 * those of tc-dbus-session.c. The skeleton holds session for as long as it
 * exists. */
void tc_session_commands_connect(gpointer skeleton, TcSession *session);
