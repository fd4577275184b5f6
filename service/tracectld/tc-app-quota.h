/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * How many connections each user holds on the registration socket. Every
 * connection costs tracectld a descriptor, and any local user may connect:
 * without a limit one user could take all of the service's descriptors and
 * keep every other user's applications from registering. Root is never
 * limited (it can stop the service anyway).
 */

#define TC_APP_QUOTA_DEFAULT 8192u

/* 0: no limit. Set once, before the registration socket is served. */
void tc_app_quota_set_max(guint max);
/* Counts one more connection of uid; FALSE (nothing counted) when uid
 * holds the maximum already. Any thread. */
gboolean tc_app_quota_take(uid_t uid);
/* The connection of uid is closed. Any thread. */
void tc_app_quota_release(uid_t uid);
