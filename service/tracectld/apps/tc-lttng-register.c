/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-register.h"

#include <lttng/ust-ctl.h>
#include <lttng/ust-error.h>
#include <string.h>

#include "tc-error.h"

G_STATIC_ASSERT(TC_LTTNG_APP_PROCNAME_MAX == LTTNG_UST_ABI_PROCNAME_LEN);

static gboolean
receive_failed(int ret, const TcLttngRegistration *registration, GError **error)
{
	if (ret == -LTTNG_UST_ERR_UNSUP_MAJOR)
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "unsupported LTTng-UST ABI %u.%u (this service speaks %u)",
			    registration->abi_major, registration->abi_minor,
			    LTTNG_UST_ABI_MAJOR_VERSION);
	else
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "no valid registration message (%d)", ret);
	return FALSE;
}

/* What the message says against what the kernel says. */
static gboolean
check_claims(const struct ucred *cred, guint32 pid, guint32 uid, guint32 gid,
	     const TcLttngRegistration *registration, GError **error)
{
	if (pid != (guint32)cred->pid || uid != (guint32)cred->uid) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "it claims pid %u uid %u, the kernel says pid %d uid %u", pid, uid,
			    (int)cred->pid, (unsigned)cred->uid);
		return FALSE;
	}
	if (registration->abi_major != LTTNG_UST_ABI_MAJOR_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "unsupported LTTng-UST ABI %u.%u (this service speaks %u)",
			    registration->abi_major, registration->abi_minor,
			    LTTNG_UST_ABI_MAJOR_VERSION);
		return FALSE;
	}
	if (registration->bits_per_long != sizeof(long) * 8) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
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

	memset(registration, 0, sizeof(*registration));
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
	if (!check_claims(cred, pid, uid, gid, registration, error))
		return FALSE;
	registration->is_notify = type == LTTNG_UST_CTL_SOCKET_NOTIFY;
	/* Shown in listings and logs: printable ASCII only. */
	for (char *c = name; *c; c++)
		if (!g_ascii_isprint(*c))
			*c = '?';
	memcpy(registration->procname, name, sizeof(registration->procname));
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
