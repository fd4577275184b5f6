/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-registry.h"

/* Connects the channel and event methods of a session's exported
 * skeleton (a TcDbusSessionSkeleton) to handlers acting on session, which
 * the skeleton keeps referenced while it exists. */
void tc_dbus_channels_connect(gpointer skeleton, TcSession *session);
/* [S] The Channels property: the user-space channels, then the kernel's
 * when the session has kernel events. */
GVariant *tc_dbus_channels_variant_locked(TcSession *session);
/* What ChannelStatistics answers for session: its a(ssttttt), floating.
 * Worker thread: asks the consumer. */
GVariant *tc_dbus_channels_statistics(TcSession *session, GError **error);
