/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-register.h"

#include <errno.h>
#include <lttng/ust-ctl.h>
#include <lttng/ust-endian.h>
#include <lttng/ust-error.h>
#include <string.h>
#include <sys/socket.h>

#include "tc-error.h"

G_STATIC_ASSERT(TC_LTTNG_APP_PROCNAME_MAX == LTTNG_UST_ABI_PROCNAME_LEN);

/* The claims' places in the message: after magic, major and minor. */
#define CLAIM_PID_OFFSET 12
#define CLAIM_UID_OFFSET 20

static guint32
read_u32(const guint8 *raw, gsize offset, gboolean is_swapped)
{
	guint32 value;

	memcpy(&value, raw + offset, sizeof(value));
	return is_swapped ? GUINT32_SWAP_LE_BE(value) : value;
}

gboolean
tc_lttng_register_parse_claims(const guint8 *raw, gsize size, TcLttngClaims *claims,
			       GError **error)
{
	guint32 magic;

	if (size < TC_LTTNG_REGISTER_MSG_SIZE) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "a registration message of %" G_GSIZE_FORMAT " bytes, not %d", size,
			    TC_LTTNG_REGISTER_MSG_SIZE);
		return FALSE;
	}
	magic = read_u32(raw, 0, FALSE);
	if (magic != LTTNG_UST_ABI_COMM_MAGIC &&
	    magic != GUINT32_SWAP_LE_BE((guint32)LTTNG_UST_ABI_COMM_MAGIC)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "not LTTng-UST's registration (magic 0x%08x)", magic);
		return FALSE;
	}
	claims->pid = read_u32(raw, CLAIM_PID_OFFSET, magic != LTTNG_UST_ABI_COMM_MAGIC);
	claims->uid = read_u32(raw, CLAIM_UID_OFFSET, magic != LTTNG_UST_ABI_COMM_MAGIC);
	return TRUE;
}

/* A copy of the message's bytes, left in the socket for
 * liblttng-ust-ctl; the socket's receive timeout bounds the wait. */
static gboolean
peek_claims(int fd, TcLttngClaims *claims, GError **error)
{
	guint8 raw[TC_LTTNG_REGISTER_MSG_SIZE];
	ssize_t size;

	do
		size = recv(fd, raw, sizeof(raw), MSG_PEEK | MSG_WAITALL);
	while (size < 0 && errno == EINTR);
	if (size < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "no registration message: %s", g_strerror(errno));
		return FALSE;
	}
	return tc_lttng_register_parse_claims(raw, size, claims, error);
}

static gboolean
receive_failed(int ret, const TcLttngRegistration *registration, GError **error)
{
	if (ret == -LTTNG_UST_ERR_UNSUP_MAJOR)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "unsupported LTTng-UST ABI %u.%u (this service speaks %u)",
			    registration->abi_major, registration->abi_minor,
			    LTTNG_UST_ABI_MAJOR_VERSION);
	else
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "no valid registration message (%d)", ret);
	return FALSE;
}

/* What the message says against what the kernel says, and what the
 * service serves. pid and uid are liblttng-ust-ctl's (SO_PEERCRED's). */
static gboolean
check_claims(const struct ucred *cred, const TcLttngClaims *claims, guint32 pid, guint32 uid,
	     int byte_order, const TcLttngRegistration *registration, GError **error)
{
	if (claims->pid != (guint32)cred->pid || claims->uid != (guint32)cred->uid ||
	    pid != (guint32)cred->pid || uid != (guint32)cred->uid) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "it claims pid %u uid %u, the kernel says pid %d uid %u", claims->pid,
			    claims->uid, (int)cred->pid, (unsigned)cred->uid);
		return FALSE;
	}
	/* liblttng-ust-ctl refuses the others already; again here, so that
	 * the bound is this file's. */
	if (registration->abi_major < LTTNG_UST_ABI_MAJOR_VERSION_OLDEST_COMPATIBLE ||
	    registration->abi_major > LTTNG_UST_ABI_MAJOR_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "unsupported LTTng-UST ABI %u.%u (this service speaks %u to %u)",
			    registration->abi_major, registration->abi_minor,
			    LTTNG_UST_ABI_MAJOR_VERSION_OLDEST_COMPATIBLE,
			    LTTNG_UST_ABI_MAJOR_VERSION);
		return FALSE;
	}
	if (byte_order != LTTNG_UST_BYTE_ORDER) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "an application of the other byte order");
		return FALSE;
	}
	if (registration->bits_per_long != sizeof(long) * 8) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "a %u-bit application, the service serves %zu-bit ones only",
			    registration->bits_per_long, sizeof(long) * 8);
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_lttng_register_receive(int fd, const struct ucred *cred, TcLttngRegistration *registration,
			  GError **error)
{
	enum lttng_ust_ctl_socket_type type;
	guint32 pid = 0, ppid, uid = 0, gid = 0, align8, align16, align32, align64, align_long;
	int byte_order, ret;
	/* The name need not end in a NUL: one byte more, always 0. */
	char name[LTTNG_UST_ABI_PROCNAME_LEN + 1] = {0};
	TcLttngClaims claims;

	memset(registration, 0, sizeof(*registration));
	if (!peek_claims(fd, &claims, error))
		return FALSE;
	ret = lttng_ust_ctl_recv_reg_msg(fd, &type, &registration->abi_major,
					 &registration->abi_minor, &pid, &ppid, &uid, &gid,
					 &registration->bits_per_long, &align8, &align16, &align32,
					 &align64, &align_long, &byte_order, name);
	if (ret < 0)
		return receive_failed(ret, registration, error);
	if (type != LTTNG_UST_CTL_SOCKET_CMD && type != LTTNG_UST_CTL_SOCKET_NOTIFY) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "unknown socket type %d",
			    (int)type);
		return FALSE;
	}
	if (!check_claims(cred, &claims, pid, uid, byte_order, registration, error))
		return FALSE;
	registration->is_notify = type == LTTNG_UST_CTL_SOCKET_NOTIFY;
	/* Shown in listings and logs: printable ASCII only. */
	for (char *c = name; *c; c++)
		if (!g_ascii_isprint(*c))
			*c = '?';
	/* Up to its first NUL only: what follows is not its name. */
	g_strlcpy(registration->procname, name, sizeof(registration->procname));
	return TRUE;
}

gboolean
tc_lttng_register_done(TcLttngApp *app, GError **error)
{
	int ret = lttng_ust_ctl_register_done(app->cmd_fd);

	if (ret < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "register_done was not taken (%d)", ret);
		return FALSE;
	}
	return TRUE;
}
