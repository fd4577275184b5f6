/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-list.h"

#include <lttng/ust-ctl.h>
#include <lttng/ust-error.h>
#include <string.h>

#include "tc-error.h"
#include "tc-user-limits.h"

/* A name of the answer, cut at its fixed size (it need not end in a
 * NUL); NULL when it is empty or not printable. */
static char *
checked_name(const char *raw, gsize size)
{
	gsize length = strnlen(raw, size);

	if (length == 0)
		return NULL;
	for (gsize i = 0; i < length; i++)
		if (!g_ascii_isprint(raw[i]) || raw[i] == ' ' || raw[i] == ',')
			return NULL;
	return g_strndup(raw, length);
}

static const char *
field_type_name(gint32 type)
{
	switch (type) {
	case LTTNG_UST_ABI_FIELD_INTEGER:
		return "integer";
	case LTTNG_UST_ABI_FIELD_ENUM:
		return "enum";
	case LTTNG_UST_ABI_FIELD_FLOAT:
		return "float";
	case LTTNG_UST_ABI_FIELD_STRING:
		return "string";
	default:
		return "other";
	}
}

static gboolean
failed(const char *what, int ret, GError **error)
{
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "%s failed (%d)", what, ret);
	return FALSE;
}

/* The tracepoints, by name (TcLttngEvent *, in events too). */
static gboolean
list_tracepoints(TcLttngApp *app, TcUserCharge *charge, GPtrArray *events, GHashTable *by_name,
		 GError **error)
{
	struct lttng_ust_abi_tracepoint_iter iter;
	int handle = lttng_ust_ctl_tracepoint_list(app->cmd_fd);
	gboolean is_refused = FALSE;
	int ret;

	if (handle < 0)
		return failed("tracepoint_list", handle, error);
	while ((ret = lttng_ust_ctl_tracepoint_list_get(app->cmd_fd, handle, &iter)) >= 0) {
		g_autofree char *name = checked_name(iter.name, sizeof(iter.name));
		TcLttngEvent *event;

		if (name == NULL || g_hash_table_contains(by_name, name))
			continue; /* nothing to show, or shown already */
		is_refused = !tc_user_limits_charge_event(charge, events->len,
							  sizeof(*event) + strlen(name) + 1, error);
		if (is_refused)
			break;
		event = g_new0(TcLttngEvent, 1);
		event->name = g_steal_pointer(&name);
		event->loglevel = iter.loglevel;
		g_ptr_array_add(events, event);
		g_hash_table_insert(by_name, event->name, event);
	}
	lttng_ust_ctl_release_handle(app->cmd_fd, handle);
	if (is_refused)
		return FALSE;
	return ret == -LTTNG_UST_ERR_NOENT ? TRUE : failed("tracepoint_list_get", ret, error);
}

static void
append_field(TcLttngEvent *event, const struct lttng_ust_abi_field_iter *iter)
{
	g_autofree char *name = checked_name(iter->field_name, sizeof(iter->field_name));
	char *fields;

	if (name == NULL)
		return;
	fields = g_strdup_printf("%s%s%s %s", event->fields ? event->fields : "",
				 event->fields ? ", " : "", field_type_name(iter->type), name);
	g_free(event->fields);
	event->fields = fields;
}

/* The fields, appended to the events they name. Their bytes are charged
 * as the events' were. */
static gboolean
list_fields(TcLttngApp *app, TcUserCharge *charge, GHashTable *by_name, GError **error)
{
	struct lttng_ust_abi_field_iter iter;
	int handle = lttng_ust_ctl_tracepoint_field_list(app->cmd_fd);
	gboolean is_refused = FALSE;
	int ret;

	if (handle < 0)
		return failed("tracepoint_field_list", handle, error);
	while ((ret = lttng_ust_ctl_tracepoint_field_list_get(app->cmd_fd, handle, &iter)) >= 0) {
		g_autofree char *event_name = checked_name(iter.event_name, sizeof(iter.event_name));
		TcLttngEvent *event = event_name ? g_hash_table_lookup(by_name, event_name) : NULL;

		if (event == NULL)
			continue;
		is_refused = !tc_user_limits_charge(
			charge, TC_LIMIT_METADATA_BYTES,
			strnlen(iter.field_name, sizeof(iter.field_name)) + 16, error);
		if (is_refused)
			break;
		append_field(event, &iter);
	}
	lttng_ust_ctl_release_handle(app->cmd_fd, handle);
	if (is_refused)
		return FALSE;
	return ret == -LTTNG_UST_ERR_NOENT ? TRUE : failed("tracepoint_field_list_get", ret, error);
}

gboolean
tc_lttng_list_events(TcLttngApp *app, GError **error)
{
	g_autoptr(GPtrArray) events =
		g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_app_event_free);
	g_autoptr(GHashTable) by_name = g_hash_table_new(g_str_hash, g_str_equal);

	/* The new listing replaces the old one: give its charge back first,
	 * so that listing again at the limit is no refusal. */
	tc_user_limits_release(&app->events_charge);
	if (!list_tracepoints(app, &app->events_charge, events, by_name, error) ||
	    !list_fields(app, &app->events_charge, by_name, error)) {
		tc_user_limits_release(&app->events_charge);
		tc_lttng_app_set_events(app, g_ptr_array_new_with_free_func(
						     (GDestroyNotify)tc_lttng_app_event_free));
		return FALSE;
	}
	for (guint i = 0; i < events->len; i++) {
		TcLttngEvent *event = g_ptr_array_index(events, i);

		if (event->fields == NULL)
			event->fields = g_strdup("");
	}
	tc_lttng_app_set_events(app, g_steal_pointer(&events));
	return TRUE;
}
