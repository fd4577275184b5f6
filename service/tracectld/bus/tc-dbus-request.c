/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-request.h"

#include <urcu.h>

#include "tc-audit.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-fair-queue.h"
#include "tc-idle.h"
#include "tc-memory-trim.h"
#include "tc-session.h"

/*
 * Operations run in a pool of our own threads, registered with liburcu,
 * because they read the registry; GLib's GTask threads are not ours and
 * never enter an RCU read-side section.
 *
 * An operation mostly waits on its user's processes (the consumer, up to
 * its reply timeout; applications, up to their acknowledgement deadline),
 * so the pool is sized for waiting, not for CPUs. The queue is fair per
 * caller uid (tc-fair-queue.h): one user's stalled work holds at most
 * TC_OPERATION_THREADS_PER_USER threads, so that four users can be stalled
 * at once and a fifth user's call is still taken at once. Two per user let
 * one user's calls on two sessions run side by side (the calls on one
 * session serialize on its op_lock anyway). Idle threads cost a stack of
 * virtual memory and nothing else.
 */
#define TC_OPERATION_THREADS 10
#define TC_OPERATION_THREADS_PER_USER 2

/* A call that takes longer is logged with where its time went: waiting
 * for polkit, for a worker, in the work, or for the main loop. */
#define TC_SLOW_CALL_US (100 * G_TIME_SPAN_MILLISECOND)

static TcFairQueue *operations; /* TcRequest *, keyed by the caller's uid */
static GPtrArray *operation_threads;

/* What the caller asked for, as it named it: never anything recorded. */
static char *
audit_detail(TcRequest *request, const char *reason)
{
	GString *detail = g_string_new(NULL);

	if (request->channel)
		g_string_append_printf(detail, "channel=%s ", request->channel);
	if (request->pattern)
		g_string_append_printf(detail, "pattern=%s ", request->pattern);
	if (request->location)
		g_string_append_printf(detail, "probe=%s ", request->location);
	if (request->output)
		g_string_append_printf(detail, "output=%s ", request->output);
	if (request->unit)
		g_string_append_printf(detail, "unit=%s ", request->unit);
	if (reason)
		g_string_append(detail, reason);
	if (detail->len > 0 && detail->str[detail->len - 1] == ' ')
		g_string_truncate(detail, detail->len - 1);
	return g_string_free(detail, FALSE);
}

/* Every state-changing call passes here once when authorized or refused,
 * and once more if its work fails. */
static void
audit(TcRequest *request, TcAuditResult result, const char *reason)
{
	const char *method = g_dbus_method_invocation_get_method_name(request->invocation);
	g_autofree char *detail = NULL;
	TcAuditEntry entry = {
		.method = method,
		.caller_uid = request->caller.uid,
		.caller_pid = request->caller.pid,
		.session = request->session ? request->session->name : request->name,
		.owner_uid = request->session ? request->session->owner_uid : TC_AUDIT_NO_UID,
	};

	if (!tc_audit_method_changes_state(method))
		return;
	/* A session being created belongs to its creator. */
	if (request->session == NULL && request->name && result != TC_AUDIT_REFUSED)
		entry.owner_uid = request->caller.uid;
	detail = audit_detail(request, reason);
	entry.detail = detail;
	tc_audit_log(&entry, result);
}

TcRequest *
tc_dbus_request_new(GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = g_new0(TcRequest, 1);

	request->invocation = g_object_ref(invocation);
	request->session = session ? tc_session_ref(session) : NULL;
	request->arrived_us = g_get_monotonic_time();
	tc_idle_hold();
	return request;
}

/* Milliseconds from one step to the next, or -1 when either was not
 * reached. */
static double
step_ms(gint64 from_us, gint64 to_us)
{
	return from_us && to_us ? (double)(to_us - from_us) / G_TIME_SPAN_MILLISECOND : -1.0;
}

/* Where a slow call's time went; the steps not reached read -1. */
static void
log_if_slow(TcRequest *request)
{
	gint64 now = g_get_monotonic_time();
	const char *method = g_dbus_method_invocation_get_method_name(request->invocation);
	const char *session = request->session ? request->session->name : request->name;
	gint64 worker_end = request->worked_us ? request->worked_us : request->authorized_us;

	if (now - request->arrived_us < TC_SLOW_CALL_US)
		return;
	g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "TRACECTL_METHOD", method,
			 "TRACECTL_SESSION", session ? session : "", "TRACECTL_PEER",
			 g_dbus_method_invocation_get_sender(request->invocation), "MESSAGE",
			 "Slow call: %s from %s (uid %u) on '%s' took %.1f ms: authorization "
			 "%.1f ms, waiting for a worker %.1f ms, work %.1f ms, reply %.1f ms",
			 method, g_dbus_method_invocation_get_sender(request->invocation),
			 (unsigned)request->caller.uid, session ? session : "",
			 step_ms(request->arrived_us, now),
			 step_ms(request->arrived_us, request->authorized_us),
			 step_ms(request->authorized_us, request->started_us),
			 step_ms(request->started_us, request->worked_us), step_ms(worker_end, now));
}

void
tc_dbus_request_free(TcRequest *request)
{
	if (request == NULL)
		return;
	log_if_slow(request);
	g_object_unref(request->invocation);
	tc_session_unref(request->session);
	g_free(request->name);
	g_free(request->channel);
	g_free(request->pattern);
	g_free(request->directory);
	g_free(request->location);
	g_free(request->output);
	tc_event_rule_free(request->rule);
	g_free(request->kernel_filter);
	g_free(request->unit);
	g_free(request->relay);
	if (request->result)
		g_variant_unref(request->result);
	g_clear_error(&request->work_error);
	if (request->data_free)
		request->data_free(request->data);
	g_free(request);
	tc_idle_release();
}

void
tc_dbus_request_fail(TcRequest *request, GError *error)
{
	g_debug("%s from %s failed: %s",
		g_dbus_method_invocation_get_method_name(request->invocation),
		g_dbus_method_invocation_get_sender(request->invocation), error->message);
	g_dbus_method_invocation_return_gerror(request->invocation, error);
	tc_dbus_request_free(request);
}

/* Answers larger than this have their memory given back: a listing of a
 * hundred applications with LTTng-UST's own tracepoints, or of the
 * kernel's events; a session's description stays below it. */
#define LARGE_REPLY_BYTES (256 * 1024)

void
tc_dbus_request_return(TcRequest *request, GVariant *value)
{
	g_autoptr(GVariant) reply = value ? g_variant_take_ref(value) : NULL;

	g_dbus_method_invocation_return_value(request->invocation, reply);
	if (reply != NULL && g_variant_get_size(reply) > LARGE_REPLY_BYTES)
		tc_memory_trim_soon();
}

static void
finish(TcRequest *request)
{
	if (request->done)
		request->done(request);
	else if (!request->no_wait) /* answered already otherwise */
		tc_dbus_request_return(request, g_steal_pointer(&request->result));
	tc_dbus_request_free(request);
}

/* Main loop: the work of an operation thread is done. */
static gboolean
work_done_cb(gpointer user_data)
{
	TcRequest *request = user_data;

	if (request->work_error)
		audit(request, TC_AUDIT_FAILED, request->work_error->message);
	if (request->work_error && request->no_wait) {
		g_warning("%s from %s, answered already, failed: %s",
			  g_dbus_method_invocation_get_method_name(request->invocation),
			  g_dbus_method_invocation_get_sender(request->invocation),
			  request->work_error->message);
		tc_dbus_request_free(request);
		return G_SOURCE_REMOVE;
	}
	if (request->work_error) {
		GError *error = g_steal_pointer(&request->work_error);

		tc_dbus_request_fail(request, error);
		g_error_free(error);
		return G_SOURCE_REMOVE;
	}
	finish(request);
	return G_SOURCE_REMOVE;
}

static gpointer
operation_thread(gpointer data)
{
	rcu_register_thread();
	for (;;) {
		guint32 uid;
		TcRequest *request = tc_fair_queue_pop(operations, -1, &uid);

		if (request == NULL)
			break;
		request->started_us = g_get_monotonic_time();
		request->work(request, &request->work_error);
		request->worked_us = g_get_monotonic_time();
		tc_fair_queue_done(operations, uid);
		g_main_context_invoke(NULL, work_done_cb, request);
	}
	rcu_unregister_thread();
	return NULL;
}

void
tc_dbus_request_pool_start(void)
{
	operations = tc_fair_queue_new(TC_OPERATION_THREADS_PER_USER);
	operation_threads = g_ptr_array_new();
	for (guint i = 0; i < TC_OPERATION_THREADS; i++)
		g_ptr_array_add(operation_threads,
				g_thread_new("tc-operation", operation_thread, NULL));
}

void
tc_dbus_request_pool_stop(void)
{
	if (operations == NULL)
		return;
	/* The threads finish the operation in progress, then see the close. */
	tc_fair_queue_close(operations);
	for (guint i = 0; i < operation_threads->len; i++)
		g_thread_join(g_ptr_array_index(operation_threads, i));
	g_ptr_array_unref(operation_threads);
	g_clear_pointer(&operations, tc_fair_queue_free);
}

static void
authorized_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	TcRequest *request = user_data;
	g_autoptr(GError) error = NULL;

	request->authorized_us = g_get_monotonic_time();
	if (!tc_authority_check_finish(result, &request->caller, &error)) {
		g_message("Refused %s to %s: %s",
			  g_dbus_method_invocation_get_method_name(request->invocation),
			  g_dbus_method_invocation_get_sender(request->invocation), error->message);
		audit(request, TC_AUDIT_REFUSED, error->message);
		tc_dbus_request_fail(request, error);
		return;
	}
	if (request->authorized && !request->authorized(request, &error)) {
		/* Past polkit: a limit, a missing object or a bad state. */
		audit(request, TC_AUDIT_REFUSED, error->message);
		tc_dbus_request_fail(request, error);
		return;
	}
	audit(request, TC_AUDIT_ALLOWED, NULL);
	/* The reply takes the reference GDBus gave the handler; the request
	 * keeps its own, for the log lines. */
	if (request->no_wait)
		g_dbus_method_invocation_return_value(request->invocation, NULL);
	if (request->work == NULL) {
		finish(request);
		return;
	}
	/* The request comes back to work_done_cb, on the main loop. Keyed on
	 * the uid the bus gave for the caller, never on the session's owner:
	 * an administrator acting on a user's session uses the
	 * administrator's share. */
	tc_fair_queue_push(operations, request->caller.uid, request);
}

void
tc_dbus_request_submit(TcRequest *request, const char *action_id, uid_t target_uid,
		       TcAuthorityFlags flags)
{
	tc_dbus_request_submit_detailed(request, action_id, target_uid, flags, NULL, NULL);
}

void
tc_dbus_request_submit_detailed(TcRequest *request, const char *action_id, uid_t target_uid,
				TcAuthorityFlags flags, const char *key, const char *value)
{
	g_autoptr(PolkitDetails) details = polkit_details_new();

	if (key)
		polkit_details_insert(details, key, value);

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

void
tc_dbus_request_submit_manage(TcRequest *request, TcSession *session)
{
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
}

gboolean
tc_dbus_request_refuse(GDBusMethodInvocation *invocation, GError *error)
{
	g_dbus_method_invocation_return_gerror(invocation, error);
	return TRUE;
}

void
tc_dbus_request_set_unknown_option(const char *method, const char *key, GVariant *value,
				   GError **error)
{
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown %s option '%.64s' of type %s", method, key,
		    g_variant_get_type_string(value));
}
