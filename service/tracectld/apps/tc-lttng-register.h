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
 * is one of an ABI major version liblttng-ust-ctl does not serve, of
 * another byte order, or of another word size than the service's (its
 * buffers would be laid out for another consumer).
 *
 * liblttng-ust-ctl gives SO_PEERCRED's pid and uid, never the message's:
 * what the message claims is read here, from a copy of its first bytes
 * peeked before liblttng-ust-ctl receives it.
 */

/* LTTng-UST 2.13's registration message (struct lttng_ust_ctl_reg_msg of
 * its src/common/ustcomm.h): its size and where the claims are. */
#define TC_LTTNG_REGISTER_MSG_SIZE 136

typedef struct {
	guint32 pid, uid;
} TcLttngClaims;

/* What the message in raw (size bytes, as peeked) claims, in the
 * sender's byte order, which its magic number gives. FALSE with error
 * when it is too short or its magic is not LTTng-UST's. */
gboolean tc_lttng_register_parse_claims(const guint8 *raw, gsize size, TcLttngClaims *claims,
					GError **error);

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
