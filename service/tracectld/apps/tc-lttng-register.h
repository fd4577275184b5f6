/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/socket.h>

#include "tc-lttng-app.h"

/*
 * The registration message an LTTng-UST application sends first on each
 * of its two sockets (command, then notify), read by liblttng-ust-ctl
 * and checked here against what the kernel says of the peer. Identity is
 * SO_PEERCRED's: a message that claims another pid or uid is refused, as
 * is one of another ABI major version or of another word size than the
 * service's (its buffers would be laid out for another consumer).
 */

typedef struct {
	gboolean is_notify; /* else the command socket */
	guint32 abi_major, abi_minor;
	guint32 bits_per_long;
	char procname[TC_LTTNG_APP_PROCNAME_MAX + 1];
} TcLttngRegistration;

/* Receives and checks the registration message on fd (whose receive
 * timeout bounds the wait), sent by the peer of SO_PEERCRED cred. FALSE
 * with error naming what is wrong. */
gboolean tc_lttng_register_receive(int fd, const struct ucred *cred,
				   TcLttngRegistration *registration, GError **error);
/* Tells the application it may go on (its constructor waits for this,
 * bounded by LTTNG_UST_REGISTER_TIMEOUT). */
gboolean tc_lttng_register_done(TcLttngApp *app, GError **error);
