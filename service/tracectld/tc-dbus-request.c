/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-request.h"

#include "tc-error.h"

TcRequest *
tc_request_new(GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = g_new0(TcRequest, 1);

	request->invocation = g_object_ref(invocation);
	request->session = session ? tc_session_ref(session) : NULL;
	return request;
}

void
tc_request_free(TcRequest *request)
{
	if (request == NULL)
		return;
	g_object_unref(request->invocation);
	tc_session_unref(request->session);
	g_free(request->name);
	g_free(request->channel);
	g_free(request->pattern);
	g_free(request->directory);
	g_free(request);
}

void
tc_request_fail(TcRequest *request, GError *error)
{
	g_debug("%s from %s failed: %s",
		g_dbus_method_invocation_get_method_name(request->invocation),
		g_dbus_method_invocation_get_sender(request->invocation), error->message);
	g_dbus_method_invocation_return_gerror(request->invocation, error);
	tc_request_free(request);
}

static void
finish(TcRequest *request)
{
	if (request->done)
		request->done(request);
	else
		g_dbus_method_invocation_return_value(request->invocation, NULL);
	tc_request_free(request);
}

static void
work_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	TcRequest *request = task_data;
	GError *error = NULL;

	if (request->work(request, &error))
		g_task_return_boolean(task, TRUE);
	else
		g_task_return_error(task, error);
}

static void
work_done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	TcRequest *request = user_data;
	GError *error = NULL;

	if (!g_task_propagate_boolean(G_TASK(result), &error)) {
		tc_request_fail(request, error);
		g_error_free(error);
		return;
	}
	finish(request);
}

static void
authorized_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	TcRequest *request = user_data;
	g_autoptr(GTask) task = NULL;
	g_autoptr(GError) error = NULL;

	if (!tc_authority_check_finish(result, &request->caller, &error)) {
		g_message("Refused %s to %s: %s",
			  g_dbus_method_invocation_get_method_name(request->invocation),
			  g_dbus_method_invocation_get_sender(request->invocation), error->message);
		tc_request_fail(request, error);
		return;
	}
	if (request->authorized && !request->authorized(request, &error)) {
		tc_request_fail(request, error);
		return;
	}
	if (request->work == NULL) {
		finish(request);
		return;
	}
	/* The request is freed by work_done_cb, on the main loop. */
	task = g_task_new(NULL, NULL, work_done_cb, request);
	g_task_set_task_data(task, request, NULL);
	g_task_run_in_thread(task, work_thread);
}

void
tc_request_submit(TcRequest *request, const char *action_id, uid_t target_uid,
		  TcAuthorityFlags flags)
{
	g_autoptr(PolkitDetails) details = polkit_details_new();

	if (request->session) {
		g_autofree char *owner = g_strdup_printf("%u", (unsigned)request->session->owner_uid);

		polkit_details_insert(details, "session", request->session->name);
		polkit_details_insert(details, "owner_uid", owner);
	}
	if (target_uid != TC_NO_TARGET_UID) {
		g_autofree char *target = g_strdup_printf("%u", (unsigned)target_uid);

		polkit_details_insert(details, "target_uid", target);
	}
	tc_authority_check(request->invocation, action_id, details, target_uid, flags,
			   authorized_cb, request);
}
