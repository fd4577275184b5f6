/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Embedded mode, for machines without a system bus (containers, minimal
 * machines, CI): tracectld starts its own dbus-daemon with the system-bus
 * configuration shipped in data/ (listening on <rundir>/system_bus_socket.<pid>)
 * and the real polkit daemon on it, points DBUS_SYSTEM_BUS_ADDRESS at it,
 * and writes the address to <rundir>/bus, where tracectl and other
 * clients find it when the system bus cannot be reached.
 */
typedef struct _TcEmbedded TcEmbedded;

TcEmbedded *tc_embedded_start(const char *rundir, GError **error);
/* Stops polkitd and the bus, removes <rundir>/bus. NULL-safe. */
void tc_embedded_stop(TcEmbedded *embedded);
