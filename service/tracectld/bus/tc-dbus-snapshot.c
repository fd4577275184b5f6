/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The snapshot methods of org.tracectl.Tracing1.Session: RecordSnapshot,
 * RecordSnapshotWithOptions and the snapshot outputs (AddSnapshotOutput,
 * ListSnapshotOutputs, DelSnapshotOutput). Each parses, submits under
 * manage-sessions and lets tc-session-op-snapshot.c do the work in a worker.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-snapshot.h"

#include <string.h>

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-session-op-snapshot.h"
#include "tc-snapshot-output.h"
#include "tc-session.h"
#include "tc-validate.h"

static gboolean
record_snapshot_work(TcRequest *request, GError **error)
{
	g_autofree char *directory = NULL;

	if (!tc_session_op_snapshot_record(request->session, &directory, error))
		return FALSE;
	request->result = g_variant_new("(s)", directory);
	return TRUE;
}

static gboolean
handle_record_snapshot(TcDbusSession *object, GDBusMethodInvocation *invocation, TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = record_snapshot_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

/* Snapshot outputs. */

static gboolean
add_output_work(TcRequest *request, GError **error)
{
	guint32 id = 0;

	if (!tc_session_op_snapshot_add_output(request->session, request->name, request->output,
					       request->max_bytes, &id, error))
		return FALSE;
	request->result = g_variant_new("(u)", id);
	return TRUE;
}

/* "max-size" (t, more than 0), the one option of AddSnapshotOutput and
 * RecordSnapshotWithOptions that both take. */
static gboolean
parse_max_size(GVariant *value, guint64 *max_bytes, GError **error)
{
	*max_bytes = g_variant_get_uint64(value);
	if (*max_bytes > 0)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "The snapshot's max-size must be more than 0 bytes");
	return FALSE;
}

static gboolean
parse_output_options(GVariant *options, guint64 *max_bytes, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	*max_bytes = 0;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;

		if (!g_str_equal(key, "max-size") ||
		    !g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
			tc_dbus_request_set_unknown_option("AddSnapshotOutput", key, value, error);
			return FALSE;
		}
		if (!parse_max_size(value, max_bytes, error))
			return FALSE;
	}
	return TRUE;
}

static gboolean
handle_add_snapshot_output(TcDbusSession *object, GDBusMethodInvocation *invocation,
			   const char *name, const char *url, GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint64 max_bytes;

	/* The URL is checked again under the session's lock, with the rest. */
	if ((*name && !tc_validate_name("snapshot output", name, &error)) ||
	    !g_utf8_validate(url, -1, NULL) || strlen(url) > 4096) {
		if (error == NULL)
			g_set_error(&error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The snapshot output URL is too long or not valid UTF-8");
		return tc_dbus_request_refuse(invocation, error);
	}
	if (!parse_output_options(options, &max_bytes, &error))
		return tc_dbus_request_refuse(invocation, error);
	request = tc_dbus_request_new(invocation, session);
	request->max_bytes = max_bytes;
	request->name = g_strdup(name);
	request->output = g_strdup(url);
	request->work = add_output_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
list_outputs_work(TcRequest *request, GError **error)
{
	g_autoptr(GPtrArray) outputs = tc_session_op_snapshot_list_outputs(request->session, error);
	GVariantBuilder builder;

	if (outputs == NULL)
		return FALSE;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(usst)"));
	for (guint i = 0; i < outputs->len; i++) {
		const TcSnapshotOutputEntry *output = g_ptr_array_index(outputs, i);

		g_variant_builder_add(&builder, "(usst)", output->id, output->name, output->url,
				      output->max_bytes);
	}
	request->result = g_variant_new("(a(usst))", &builder);
	return TRUE;
}

static gboolean
handle_list_snapshot_outputs(TcDbusSession *object, GDBusMethodInvocation *invocation,
			     TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = list_outputs_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
del_output_work(TcRequest *request, GError **error)
{
	return tc_session_op_snapshot_del_output(request->session, request->output, error);
}

static gboolean
handle_del_snapshot_output(TcDbusSession *object, GDBusMethodInvocation *invocation,
			   const char *output, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!*output || strlen(output) > 4096 || !g_utf8_validate(output, -1, NULL)) {
		g_set_error(&error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Give a snapshot output's id or name");
		return tc_dbus_request_refuse(invocation, error);
	}
	request = tc_dbus_request_new(invocation, session);
	request->output = g_strdup(output);
	request->work = del_output_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

/* RecordSnapshotWithOptions. */

static gboolean
record_work(TcRequest *request, GError **error)
{
	TcSnapshotOptions options = {
	    .name = request->name,
	    .output = request->output,
	    .max_bytes = request->max_bytes,
	};
	g_autofree char *directory = NULL;

	if (!tc_session_op_snapshot_record_with(request->session, &options, &directory, error))
		return FALSE;
	request->result = g_variant_new("(s)", directory);
	return TRUE;
}

static gboolean
parse_record_option(TcRequest *request, const char *key, GVariant *value, GError **error)
{
	if (g_str_equal(key, "name") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		if (!tc_validate_name("snapshot", g_variant_get_string(value, NULL), error))
			return FALSE;
		g_free(request->name);
		request->name = g_variant_dup_string(value, NULL);
	} else if (g_str_equal(key, "output") &&
		   g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		const char *output = g_variant_get_string(value, NULL);

		if (!*output || strlen(output) > 4096 || !g_utf8_validate(output, -1, NULL)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The snapshot output is empty, too long or not UTF-8");
			return FALSE;
		}
		g_free(request->output);
		request->output = g_strdup(output);
	} else if (g_str_equal(key, "max-size") &&
		   g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
		return parse_max_size(value, &request->max_bytes, error);
	} else {
		tc_dbus_request_set_unknown_option("RecordSnapshotWithOptions", key, value, error);
		return FALSE;
	}
	return TRUE;
}

static gboolean
handle_record_snapshot_with_options(TcDbusSession *object, GDBusMethodInvocation *invocation,
				    GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcRequest) request = tc_dbus_request_new(invocation, session);
	GVariantIter iter;
	const char *key;
	GVariant *value;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;

		if (!parse_record_option(request, key, value, &error))
			return tc_dbus_request_refuse(invocation, error);
	}
	request->work = record_work;
	tc_dbus_request_submit_manage(g_steal_pointer(&request), session);
	return TRUE;
}

void
tc_dbus_snapshot_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-record-snapshot", G_CALLBACK(handle_record_snapshot),
			 session);
	g_signal_connect(skeleton, "handle-record-snapshot-with-options",
			 G_CALLBACK(handle_record_snapshot_with_options), session);
	g_signal_connect(skeleton, "handle-add-snapshot-output",
			 G_CALLBACK(handle_add_snapshot_output), session);
	g_signal_connect(skeleton, "handle-list-snapshot-outputs",
			 G_CALLBACK(handle_list_snapshot_outputs), session);
	g_signal_connect(skeleton, "handle-del-snapshot-output",
			 G_CALLBACK(handle_del_snapshot_output), session);
}
