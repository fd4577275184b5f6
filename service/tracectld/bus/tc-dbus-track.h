/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/* Track, Untrack, TrackAll, UntrackAll, TrackUnit and UntrackUnit of a session's object
 * (a TcDbusSession skeleton), which holds a reference to session for as
 * long as it exists. */
void tc_dbus_track_connect(gpointer skeleton, TcSession *session);

/* [S] The Tracking property, a(ssbau): (domain, kind, every value, values)
 * for each set of both domains, user space first. */
GVariant *tc_dbus_track_tracking_variant_locked(TcSession *session);
/* [S] The TrackedUnits property, as: the units the session tracks. */
GVariant *tc_dbus_track_units_variant_locked(TcSession *session);
