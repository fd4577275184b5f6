/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trigger methods of org.tracectl.Tracing1.Manager. */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-triggers.h"

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-idle.h"
#include "tc-triggers.h"

/* Adding, listing and removing touch only the trigger table: done on the
 * main loop once authorized, with the arguments of the call. Each trigger
 * keeps the service from exiting when idle: it acts with nobody
 * watching. */
static void
add_trigger_done(TcRequest *request)
{
	GVariant *parameters = g_dbus_method_invocation_get_parameters(request->invocation);
	g_autoptr(GVariant) options = NULL;
	g_autofree const char **actions = NULL;
	g_autoptr(GError) error = NULL;
	const char *name, *condition;

	g_variant_get(parameters, "(&s&s@a{sv}^a&s)", &name, &condition, &options, &actions);
	if (!tc_triggers_add(request->caller.uid, name, condition, options, actions, &error)) {
		g_dbus_method_invocation_return_gerror(request->invocation, error);
		return;
	}
	tc_idle_hold();
	g_dbus_method_invocation_return_value(request->invocation, NULL);
}

static gboolean
handle_add_trigger(TcDbusManager *manager, GDBusMethodInvocation *invocation, const char *name,
		   const char *condition, GVariant *options, const char *const *actions)
{
	TcRequest *request = tc_request_new(invocation, NULL);

	request->done = add_trigger_done;
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static void
list_triggers_done(TcRequest *request)
{
	GVariant *triggers = tc_triggers_list(request->caller.uid, request->caller.is_admin);

	g_dbus_method_invocation_return_value(request->invocation,
					      g_variant_new_tuple(&triggers, 1));
}

static gboolean
handle_list_triggers(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_request_new(invocation, NULL);

	request->done = list_triggers_done;
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			  TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

static void
remove_trigger_done(TcRequest *request)
{
	g_autoptr(GError) error = NULL;
	const char *name;

	g_variant_get(g_dbus_method_invocation_get_parameters(request->invocation), "(&s)", &name);
	if (!tc_triggers_remove(request->caller.uid, name, &error)) {
		g_dbus_method_invocation_return_gerror(request->invocation, error);
		return;
	}
	tc_idle_release();
	g_dbus_method_invocation_return_value(request->invocation, NULL);
}

static gboolean
handle_remove_trigger(TcDbusManager *manager, GDBusMethodInvocation *invocation,
		      const char *name)
{
	TcRequest *request = tc_request_new(invocation, NULL);

	request->done = remove_trigger_done;
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

void
tc_dbus_triggers_connect(gpointer manager)
{
	g_signal_connect(manager, "handle-add-trigger", G_CALLBACK(handle_add_trigger), NULL);
	g_signal_connect(manager, "handle-list-triggers", G_CALLBACK(handle_list_triggers), NULL);
	g_signal_connect(manager, "handle-remove-trigger", G_CALLBACK(handle_remove_trigger),
			 NULL);
}
