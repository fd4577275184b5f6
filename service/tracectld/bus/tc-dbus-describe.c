/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DescribeSession (tc-dbus-describe.h): what `tracectl status` and
 * `tracectl list NAME` print, for one polkit check and one round trip
 * where FindSession, ChannelStatistics and GetAll took three of each.
 * Once authorized, the session is looked up among the caller's own (on
 * the main loop, as FindSession does), its statistics asked of the
 * consumer in a worker, and its properties read last, so that a Problem
 * the consumer's answer set is in the reply.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-describe.h"

#include "tc-dbus-channels.h"
#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-dbus-session.h"
#include "tc-error.h"
#include "tc-registry.h"
#include "tc-validate.h"

/* Main loop, authorized: the caller's session of that name. */
static gboolean
describe_find(TcRequest *request, GError **error)
{
	request->session = tc_dbus_session_exported_or_unref(
		tc_registry_find_session_by_name(request->caller.uid, request->name));
	if (request->session)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "You have no session named '%s'",
		    request->name);
	return FALSE;
}

/* The statistics are best effort, as a listing is: when the consumer
 * cannot give them (a session its relay lost, a consumer restarting),
 * the session is described without them. */
static gboolean
describe_work(TcRequest *request, GError **error)
{
	g_autoptr(GError) statistics_error = NULL;
	GVariant *statistics = tc_dbus_channels_statistics(request->session, &statistics_error);

	if (statistics == NULL) {
		g_debug("DescribeSession of '%s': no statistics: %s", request->session->name,
			statistics_error->message);
		statistics = g_variant_new_array(G_VARIANT_TYPE("(ssttttt)"), NULL, 0);
	}
	request->data = g_variant_ref_sink(statistics);
	request->data_free = (GDestroyNotify)g_variant_unref;
	return TRUE;
}

static void
describe_done(TcRequest *request)
{
	g_dbus_method_invocation_return_value(
	    request->invocation,
	    g_variant_new("(o@a{sv}@a(ssttttt))", request->session->object_path,
			  tc_dbus_session_properties(request->session), (GVariant *)request->data));
}

static gboolean
handle_describe_session(TcDbusManager *manager, GDBusMethodInvocation *invocation,
			const char *name)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!tc_validate_name("session", name, &error))
		return tc_dbus_request_refuse(invocation, error);
	request = tc_dbus_request_new(invocation, NULL);
	request->name = g_strdup(name);
	request->authorized = describe_find;
	request->work = describe_work;
	request->done = describe_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

void
tc_dbus_describe_connect(gpointer manager)
{
	g_signal_connect(manager, "handle-describe-session", G_CALLBACK(handle_describe_session),
			 NULL);
}
