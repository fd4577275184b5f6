/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lifecycle methods of org.tracectl.Tracing1.Session: Start, Stop,
 * StopWithOptions, and RegenerateStatedump (what a start writes). Each parses, submits under manage-sessions and lets
 * tc-session-ops.c do the work in a worker.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-lifecycle.h"

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-session-op-kernel.h"
#include "tc-session-ops.h"

static gboolean
start_work(TcRequest *request, GError **error)
{
	return tc_session_ops_start(request->session, error);
}

static gboolean
handle_start(TcDbusSession *object, GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = start_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
regenerate_statedump_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_statedump(request->session, error);
}

static gboolean
handle_regenerate_statedump(TcDbusSession *object, GDBusMethodInvocation *invocation,
			    TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = regenerate_statedump_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
stop_work(TcRequest *request, GError **error)
{
	return tc_session_ops_stop(request->session, error);
}

static gboolean
handle_stop(TcDbusSession *object, GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = stop_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

/* StopWithOptions. */

/* Main loop, authorized: with no-wait the caller is answered next, so the
 * one mistake a caller can see is checked first. The worker checks again. */
static gboolean
stop_check_active(TcRequest *request, GError **error)
{
	TcSession *session = request->session;
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (session->state == TC_SESSION_ACTIVE && !session->destroyed)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "Session '%s' is not started",
		    session->name);
	return FALSE;
}

static gboolean
handle_stop_with_options(TcDbusSession *object, GDBusMethodInvocation *invocation,
			 GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	gboolean no_wait = FALSE;
	GVariantIter iter;
	const char *key;
	GVariant *value;
	TcRequest *request;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;

		if (g_str_equal(key, "no-wait") &&
		    g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
			no_wait = g_variant_get_boolean(value);
		else {
			tc_dbus_request_set_unknown_option("StopWithOptions", key, value, &error);
			return tc_dbus_request_refuse(invocation, error);
		}
	}
	request = tc_dbus_request_new(invocation, session);
	request->no_wait = no_wait;
	request->authorized = stop_check_active;
	request->work = stop_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

void
tc_dbus_lifecycle_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-start", G_CALLBACK(handle_start), session);
	g_signal_connect(skeleton, "handle-regenerate-statedump",
			 G_CALLBACK(handle_regenerate_statedump), session);
	g_signal_connect(skeleton, "handle-stop", G_CALLBACK(handle_stop), session);
	g_signal_connect(skeleton, "handle-stop-with-options", G_CALLBACK(handle_stop_with_options),
			 session);
}
