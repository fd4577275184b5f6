/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* Track, Untrack, TrackAll, UntrackAll, TrackUnit and UntrackUnit of a session's object
 * (a TcDbusSession skeleton), which holds a reference to session for as
 * long as it exists. */
void tc_dbus_track_connect(gpointer skeleton, TcSession *session);
