/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * The client side of tracectl-kernel-helper (service/abi/tc-kernel-abi.h):
 * on a systemd machine its socket, <rundir>/kernel-helper.sock, starts it
 * on demand; otherwise (tracectld running as root) tracectld starts it
 * with a socket pair. Worker threads only: requests wait for the reply.
 */
void tc_kernel_init(const char *rundir);
/* Checks the helper answers, starting it if needed; its protocol version. */
gboolean tc_kernel_ping(guint32 *version, GError **error);
void tc_kernel_shutdown(void);
