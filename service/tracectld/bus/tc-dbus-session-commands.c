/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-session-commands.h"

#include <string.h>

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-session-ops.h"
#include "tc-snapshot-output.h"
#include "tc-validate.h"

static void
submit(TcSession *session, TcRequest *request)
{
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
}

static gboolean
refuse(GDBusMethodInvocation *invocation, GError *error)
{
	g_dbus_method_invocation_return_gerror(invocation, error);
	return TRUE;
}

static void
set_unknown_option(const char *method, const char *key, GVariant *value, GError **error)
{
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown %s option '%.64s' of type %s", method, key,
		    g_variant_get_type_string(value));
}

void
tc_session_commands_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-stop-with-options", G_CALLBACK(handle_stop_with_options),
			 session);
	g_signal_connect(skeleton, "handle-disable-channel", G_CALLBACK(handle_disable_channel),
			 session);
	g_signal_connect(skeleton, "handle-add-snapshot-output",
			 G_CALLBACK(handle_add_snapshot_output), session);
	g_signal_connect(skeleton, "handle-list-snapshot-outputs",
			 G_CALLBACK(handle_list_snapshot_outputs), session);
	g_signal_connect(skeleton, "handle-del-snapshot-output",
			 G_CALLBACK(handle_del_snapshot_output), session);
	g_signal_connect(skeleton, "handle-record-snapshot-with-options",
			 G_CALLBACK(handle_record_snapshot_with_options), session);
}
