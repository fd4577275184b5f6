/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rotation and clear methods of org.tracectl.Tracing1.Session
 * (Rotate, SetRotationSchedule, UnsetRotationSchedule, Clear): parse,
 * submit under manage-sessions like the other session methods, and let
 * tc-session-rotation.c do the work.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-rotation.h"

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-session-rotation.h"
#include "tc-session.h"

static gboolean
rotate_work(TcRequest *request, GError **error)
{
	g_autofree char *archive = NULL;

	if (!tc_session_rotation_rotate(request->session, &archive, error))
		return FALSE;
	request->result = g_variant_new("(s)", archive);
	return TRUE;
}

static gboolean
handle_rotate(TcDbusSession *object, GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = rotate_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
clear_work(TcRequest *request, GError **error)
{
	return tc_session_rotation_clear(request->session, error);
}

static gboolean
handle_clear(TcDbusSession *object, GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = clear_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
parse_schedule(GVariant *options, guint64 *timer_us, guint64 *size_bytes, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	*timer_us = *size_bytes = 0;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		guint64 *target = g_str_equal(key, "timer-us")     ? timer_us
				  : g_str_equal(key, "size-bytes") ? size_bytes
								   : NULL;

		if (target == NULL || !g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    target ? "Rotation schedule '%.32s' is a uint64 (t)"
					   : "Unknown rotation schedule '%.32s': timer-us or "
					     "size-bytes",
				    key);
			g_variant_unref(value);
			return FALSE;
		}
		if (g_variant_get_uint64(value) == 0) {
			if (target == timer_us)
				g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "Rotation timer of 0 us: it must be %" G_GUINT64_FORMAT
					    " to %" G_GUINT64_FORMAT " us (UnsetRotationSchedule "
					    "turns it off)",
					    (guint64)TC_ROTATION_TIMER_MIN_US,
					    (guint64)TC_ROTATION_TIMER_MAX_US);
			else
				g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "Rotation size of 0 bytes: it must be at least %"
					    G_GUINT64_FORMAT " bytes (UnsetRotationSchedule turns "
					    "it off)",
					    TC_ROTATION_SIZE_MIN_BYTES);
			g_variant_unref(value);
			return FALSE;
		}
		*target = g_variant_get_uint64(value);
	}
	if (*timer_us == 0 && *size_bytes == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "An empty rotation schedule: give timer-us and/or size-bytes");
		return FALSE;
	}
	return tc_session_rotation_validate_schedule(*timer_us, *size_bytes, error);
}

static gboolean
set_schedule_work(TcRequest *request, GError **error)
{
	return tc_session_rotation_set_schedule(request->session, request->rotation_timer_us,
						request->rotation_size_bytes, error);
}

static gboolean
handle_set_rotation_schedule(TcDbusSession *object, GDBusMethodInvocation *invocation,
			     GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	guint64 timer_us, size_bytes;
	TcRequest *request;

	if (!parse_schedule(options, &timer_us, &size_bytes, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->rotation_timer_us = timer_us;
	request->rotation_size_bytes = size_bytes;
	request->work = set_schedule_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
unset_schedule_work(TcRequest *request, GError **error)
{
	return tc_session_rotation_unset_schedule(request->session, request->rotation_timer_us != 0,
						  request->rotation_size_bytes != 0, error);
}

static gboolean
handle_unset_rotation_schedule(TcDbusSession *object, GDBusMethodInvocation *invocation,
			       const char *const *schedules, TcSession *session)
{
	gboolean timer = schedules[0] == NULL, size = schedules[0] == NULL;
	TcRequest *request;

	for (guint i = 0; schedules[i]; i++) {
		if (g_str_equal(schedules[i], "timer")) {
			timer = TRUE;
		} else if (g_str_equal(schedules[i], "size")) {
			size = TRUE;
		} else {
			g_dbus_method_invocation_return_error(
				invocation, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				"Unknown rotation schedule '%.32s': timer or size", schedules[i]);
			return TRUE;
		}
	}
	request = tc_dbus_request_new(invocation, session);
	request->rotation_timer_us = timer;
	request->rotation_size_bytes = size;
	request->work = unset_schedule_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

GVariant *
tc_dbus_rotation_property_locked(TcSession *session, const char *name)
{
	TcRotationState state;

	tc_session_rotation_state_locked(session, &state);
	if (g_str_equal(name, "RotationTimer"))
		return g_variant_new_uint64(state.timer_us);
	if (g_str_equal(name, "RotationSize"))
		return g_variant_new_uint64(state.size_bytes);
	if (g_str_equal(name, "LastArchive"))
		return g_variant_new_string(state.last_archive ? state.last_archive : "");
	return NULL;
}

void
tc_dbus_rotation_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-rotate", G_CALLBACK(handle_rotate), session);
	g_signal_connect(skeleton, "handle-clear", G_CALLBACK(handle_clear), session);
	g_signal_connect(skeleton, "handle-set-rotation-schedule",
			 G_CALLBACK(handle_set_rotation_schedule), session);
	g_signal_connect(skeleton, "handle-unset-rotation-schedule",
			 G_CALLBACK(handle_unset_rotation_schedule), session);
}
