/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-registry.h"

/* The D-Bus object of each session, under TC_DBUS_SESSION_PATH_PREFIX:
 * its handlers parse a call and submit a request (tc-dbus-request.h). */
gpointer tc_session_object_export(TcSession *session, GDBusConnection *connection,
				  GError **error);
void tc_session_object_unexport(TcSession *session);
/* The "as" of the context names AddContext accepts in domain ("ust" or
 * "kernel"), or NULL for another domain. */
GVariant *tc_session_context_names(const char *domain);
/* The TRACECTL_CONTEXT_* bits of user-space context names (AddContext's);
 * InvalidArgument names an unknown one. */
gboolean tc_session_ust_context_bits(const char *const *names, guint32 *contexts,
				     GError **error);
/* The same for kernel context names (AddContext's in domain "kernel"). */
gboolean tc_session_kernel_context_bits(const char *const *names, guint32 *contexts,
					GError **error);
/* The checks of EnableChannel's geometry and timers (subbuf_size apart:
 * it may not fit the configuration's 32 bits). */
gboolean tc_session_check_channel_config(guint64 subbuf_size, const TcChannelConfig *config,
					 GError **error);
