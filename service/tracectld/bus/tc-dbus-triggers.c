/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trigger methods of org.tracectl.Tracing1.Manager: AddTrigger's
 * options parsed into a TcTriggerSpec, ListTriggers built from the
 * table's C listing. */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-triggers.h"

#include "tc-dbus-generated.h"
#include "tc-dbus-event-rule.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-idle.h"
#include "tc-triggers.h"
#include "tc-validate.h"

/* One option of AddTrigger into spec; the event rule's go to rule_dict,
 * checked with the rule. */
static gboolean
parse_option(TcTriggerSpec *spec, GVariantDict **rule_dict, const char *key, GVariant *value,
	     GError **error)
{
	if (g_str_equal(key, "session") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		g_free(spec->session);
		spec->session = g_variant_dup_string(value, NULL);
		return tc_validate_name("session", spec->session, error);
	}
	if (g_str_equal(key, "channel") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		g_free(spec->channel);
		spec->channel = g_variant_dup_string(value, NULL);
		return tc_validate_name("channel", spec->channel, error);
	}
	if (g_str_equal(key, "name") || g_str_equal(key, "filter") ||
	    g_str_equal(key, "loglevel") || g_str_equal(key, "loglevel-only")) {
		/* Checked with the rule, by tc_dbus_event_rule_new(). */
		if (*rule_dict == NULL)
			*rule_dict = g_variant_dict_new(NULL);
		g_variant_dict_insert_value(*rule_dict, key, value);
		return TRUE;
	}
	if (g_str_equal(key, "threshold-ratio") &&
	    g_variant_is_of_type(value, G_VARIANT_TYPE_DOUBLE)) {
		spec->threshold_ratio = g_variant_get_double(value);
		spec->is_ratio = TRUE;
		spec->has_threshold = TRUE;
		return tc_triggers_check_ratio(spec->threshold_ratio, error);
	}
	if (g_str_equal(key, "threshold-size") &&
	    g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
		spec->threshold_size = g_variant_get_uint64(value);
		spec->is_ratio = FALSE;
		spec->has_threshold = TRUE;
		return TRUE;
	}
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown trigger option '%.64s' of type %s", key,
		    g_variant_get_type_string(value));
	return FALSE;
}

static gboolean
parse_options(TcTriggerSpec *spec, GVariant *options, GVariantDict **rule_dict, GError **error)
{
	/* A repeated option would be listed, and read by others, as its first
	 * value while the trigger used its last: refused. */
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	GVariantIter iter;
	const char *key;
	GVariant *value;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (!g_hash_table_add(seen, (gpointer)key)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The trigger option '%.64s' is given twice", key);
			g_variant_unref(value);
			return FALSE;
		}
		if (!parse_option(spec, rule_dict, key, value, error)) {
			g_variant_unref(value);
			return FALSE;
		}
	}
	spec->has_rule_options = *rule_dict != NULL;
	spec->has_rule_name = *rule_dict && g_variant_dict_contains(*rule_dict, "name");
	return TRUE;
}

/* The event rule of an event-rule-matches condition, from its options,
 * which are kept as given for the listing. */
static gboolean
make_rule(TcTriggerSpec *spec, GVariantDict *rule_dict, GError **error)
{
	g_autoptr(GVariant) given = g_variant_ref_sink(g_variant_dict_end(rule_dict));
	g_autoptr(GVariantDict) rest = g_variant_dict_new(given);
	g_autoptr(GVariant) rule_options = NULL;
	g_autofree char *pattern = NULL;

	spec->rule_listing = g_variant_get_data_as_bytes(given);
	g_variant_dict_lookup(rest, "name", "s", &pattern);
	g_variant_dict_remove(rest, "name");
	if (pattern == NULL || !tc_validate_pattern(pattern, error)) {
		if (pattern == NULL)
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The event name pattern ('name') is a string");
		return FALSE;
	}
	rule_options = g_variant_ref_sink(g_variant_dict_end(rest));
	spec->rule = tc_dbus_event_rule_new(pattern, rule_options, error);
	return spec->rule != NULL;
}

gboolean
tc_dbus_triggers_add(uid_t owner, const char *name, const char *condition, GVariant *options,
		     const char *const *actions, GError **error)
{
	g_autoptr(TcTriggerSpec) spec = tc_triggers_spec_new(name, condition, error);
	g_autoptr(GVariantDict) rule_dict = NULL;

	if (spec == NULL || !parse_options(spec, options, &rule_dict, error) ||
	    !tc_triggers_spec_check(spec, actions, error))
		return FALSE;
	if (spec->condition == TC_CONDITION_EVENT_RULE_MATCHES &&
	    !make_rule(spec, rule_dict, error))
		return FALSE;
	return tc_triggers_add(owner, spec, error);
}

static GVariant *
options_variant(const TcTriggerInfo *trigger)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", "session", g_variant_new_string(trigger->session));
	if (trigger->channel)
		g_variant_builder_add(&builder, "{sv}", "channel",
				      g_variant_new_string(trigger->channel));
	if (trigger->condition == TC_CONDITION_EVENT_RULE_MATCHES) {
		g_autoptr(GVariant) given = g_variant_ref_sink(
		    g_variant_new_from_bytes(G_VARIANT_TYPE_VARDICT, trigger->rule_listing, TRUE));
		GVariantIter iter;
		const char *key;
		GVariant *value;

		g_variant_iter_init(&iter, given);
		while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
			g_variant_builder_add(&builder, "{sv}", key, value);
			g_variant_unref(value);
		}
		return g_variant_builder_end(&builder);
	}
	if (trigger->condition == TC_CONDITION_ROTATION_COMPLETED)
		return g_variant_builder_end(&builder);
	if (trigger->is_ratio)
		g_variant_builder_add(&builder, "{sv}", "threshold-ratio",
				      g_variant_new_double(trigger->threshold_ratio));
	else
		g_variant_builder_add(&builder, "{sv}", "threshold-size",
				      g_variant_new_uint64(trigger->threshold_size));
	return g_variant_builder_end(&builder);
}

GVariant *
tc_dbus_triggers_list(uid_t owner, gboolean all)
{
	g_autoptr(GPtrArray) triggers = tc_triggers_list(owner, all);
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(susa{sv}ast)"));
	for (guint i = 0; i < triggers->len; i++) {
		const TcTriggerInfo *trigger = g_ptr_array_index(triggers, i);

		g_variant_builder_add(&builder, "(sus@a{sv}^ast)", trigger->name,
				      (guint32)trigger->owner_uid, trigger->condition_name,
				      options_variant(trigger), trigger->actions,
				      trigger->fire_count);
	}
	return g_variant_builder_end(&builder);
}

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
	if (!tc_dbus_triggers_add(request->caller.uid, name, condition, options, actions, &error)) {
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
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = add_trigger_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static void
list_triggers_done(TcRequest *request)
{
	GVariant *triggers = tc_dbus_triggers_list(request->caller.uid, request->caller.is_admin);

	tc_dbus_request_return(request, g_variant_new_tuple(&triggers, 1));
}

static gboolean
handle_list_triggers(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = list_triggers_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
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
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = remove_trigger_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
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
