/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracking methods of org.tracectl.Tracing1.Session: parse, then
 * submit to the session's owner check and polkit (the kernel action for
 * the kernel domain), then tc_session_op_track() in a worker; units
 * (tc-unit.h) the same way, with their own action.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-track.h"

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-kernel-abi.h"
#include "tc-session-ops.h"
#include "tc-session-op-track.h"
#include "tc-session-track.h"
#include "tc-session.h"
#include "tc-tracker.h"
#include "tc-unit.h"

typedef struct {
	gboolean kernel;
	TcTrackKind kind;
	gboolean all;
	gboolean track;
	GArray *values; /* guint32 */
} TcTrackArgs;

static void
track_args_free(gpointer data)
{
	TcTrackArgs *args = data;

	g_array_unref(args->values);
	g_free(args);
}

static gboolean
track_work(TcRequest *request, GError **error)
{
	TcTrackArgs *args = request->data;

	return tc_session_op_track(request->session, args->kernel, args->kind,
				   (const guint32 *)(gpointer)args->values->data, args->values->len,
				   args->all, args->track, error);
}

static gboolean
parse_domain_kind(const char *domain, const char *kind, TcTrackArgs *args, GError **error)
{
	if (g_str_equal(domain, "kernel"))
		args->kernel = TRUE;
	else if (!g_str_equal(domain, "ust")) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown domain '%.32s', use \"ust\" or \"kernel\"", domain);
		return FALSE;
	}
	if (!tc_tracker_kind_parse(kind, &args->kind)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown process attribute '%.32s': pid, vpid, uid, vuid, gid or vgid",
			    kind);
		return FALSE;
	}
	return TRUE;
}

/* At most the kernel helper's bound per call: the limits then apply to
 * what the session would hold. */
static gboolean
parse_values(GVariant *values, TcTrackArgs *args, GError **error)
{
	gsize count = 0;
	const guint32 *data = values ? g_variant_get_fixed_array(values, &count, sizeof(guint32))
				     : NULL;

	if (values && count == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "No value given (TrackAll or UntrackAll name every value)");
		return FALSE;
	}
	if (!tc_tracker_check_values(args->kind, data, count, error))
		return FALSE;
	args->values = g_array_sized_new(FALSE, FALSE, sizeof(guint32), count);
	if (count > 0)
		g_array_append_vals(args->values, data, count);
	return TRUE;
}

/* values NULL: every value (all). */
static gboolean
submit_track(TcSession *session, GDBusMethodInvocation *invocation, const char *domain,
	     const char *kind, GVariant *values, gboolean track)
{
	g_autoptr(GError) error = NULL;
	TcTrackArgs *args = g_new0(TcTrackArgs, 1);
	TcRequest *request;

	args->track = track;
	args->all = values == NULL;
	if (!parse_domain_kind(domain, kind, args, &error) ||
	    !parse_values(values, args, &error)) {
		if (args->values)
			g_array_unref(args->values);
		g_free(args);
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->data = args;
	request->data_free = track_args_free;
	request->work = track_work;
	tc_dbus_request_submit(request,
			       args->kernel ? TC_ACTION_TRACE_KERNEL : TC_ACTION_MANAGE_SESSIONS,
			       session->owner_uid, TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_track(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
	     const char *kind, GVariant *values, gpointer session)
{
	return submit_track(session, invocation, domain, kind, values, TRUE);
}

static gboolean
handle_untrack(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
	       const char *kind, GVariant *values, gpointer session)
{
	return submit_track(session, invocation, domain, kind, values, FALSE);
}

static gboolean
handle_track_all(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		 const char *kind, gpointer session)
{
	return submit_track(session, invocation, domain, kind, NULL, TRUE);
}

static gboolean
handle_untrack_all(TcDbusSession *object, GDBusMethodInvocation *invocation,
		   const char *domain, const char *kind, gpointer session)
{
	return submit_track(session, invocation, domain, kind, NULL, FALSE);
}

static gboolean
track_unit_work(TcRequest *request, GError **error)
{
	return tc_session_op_track_unit(request->session, request->unit, TRUE, error);
}

static gboolean
untrack_unit_work(TcRequest *request, GError **error)
{
	return tc_session_op_track_unit(request->session, request->unit, FALSE, error);
}

/* Tracking a unit reaches other users' applications: it needs the unit's
 * delegation (polkit detail "unit"); untracking only narrows the session. */
static gboolean
submit_unit(TcSession *session, GDBusMethodInvocation *invocation, const char *unit,
	    gboolean track)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!tc_unit_name_check(unit, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->unit = g_strdup(unit);
	request->work = track ? track_unit_work : untrack_unit_work;
	if (track)
		tc_dbus_request_submit_detailed(request, TC_ACTION_TRACE_UNIT, session->owner_uid,
						TC_AUTHORITY_FLAGS_NONE, "unit", unit);
	else
		tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, session->owner_uid,
				       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_track_unit(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *unit,
		  gpointer session)
{
	return submit_unit(session, invocation, unit, TRUE);
}

static gboolean
handle_untrack_unit(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *unit,
		    gpointer session)
{
	return submit_unit(session, invocation, unit, FALSE);
}

/* a(sbau) of one domain's sets, in TcTrackKind order, as builder's
 * (domain, kind, every value, values) entries. */
static void
add_tracker(GVariantBuilder *builder, const char *domain, const TcTracker *tracker)
{
	for (guint i = 0; i < TC_TRACK_KINDS; i++) {
		gboolean all = tc_tracker_holds_all(tracker, (TcTrackKind)i);
		const GArray *values = tc_tracker_values(tracker, (TcTrackKind)i);
		GVariantBuilder array;

		g_variant_builder_init(&array, G_VARIANT_TYPE("au"));
		for (guint j = 0; !all && j < values->len; j++)
			g_variant_builder_add(&array, "u", g_array_index(values, guint32, j));
		g_variant_builder_add(builder, "(ssbau)", domain,
				      tc_tracker_kind_name((TcTrackKind)i), all, &array);
	}
}

GVariant *
tc_dbus_track_tracking_variant_locked(TcSession *session)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(ssbau)"));
	add_tracker(&builder, "ust", tc_session_track_tracker_locked(session, FALSE));
	add_tracker(&builder, "kernel", tc_session_track_tracker_locked(session, TRUE));
	return g_variant_builder_end(&builder);
}

GVariant *
tc_dbus_track_units_variant_locked(TcSession *session)
{
	g_auto(GStrv) names = tc_session_track_unit_names_locked(session);

	return g_variant_new_strv((const char *const *)names, -1);
}

void
tc_dbus_track_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-track", G_CALLBACK(handle_track), session);
	g_signal_connect(skeleton, "handle-untrack", G_CALLBACK(handle_untrack), session);
	g_signal_connect(skeleton, "handle-track-all", G_CALLBACK(handle_track_all), session);
	g_signal_connect(skeleton, "handle-untrack-all", G_CALLBACK(handle_untrack_all), session);
	g_signal_connect(skeleton, "handle-track-unit", G_CALLBACK(handle_track_unit), session);
	g_signal_connect(skeleton, "handle-untrack-unit", G_CALLBACK(handle_untrack_unit),
			 session);
}
