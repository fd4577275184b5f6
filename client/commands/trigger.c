/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl add-trigger --name NAME --condition CONDITION [-s SESSION]
 *     [--channel CHANNEL] [--threshold-ratio R | --threshold-size SIZE]
 *     --action ACTION[:SESSION] [--action ...]
 * tracectl add-trigger [--name NAME] --condition event-rule-matches
 *     [--type user] --name PATTERN [--filter EXPR] [--loglevel LEVEL] ...
 *     (as LTTng's: a --name after this condition is its event pattern)
 * tracectl list-triggers
 * tracectl remove-trigger NAME
 */
#include <stdlib.h>

#include "tc-client.h"

/* --name and --condition, in the order given: as in LTTng 2.13, a --name
 * after "--condition event-rule-matches" is the event name pattern. */
static char *trigger_name, *condition_name, *event_pattern;

static gboolean
name_cb(const char *option, const char *value, gpointer data, GError **error)
{
	char **target = g_strcmp0(condition_name, "event-rule-matches") == 0 ? &event_pattern
									       : &trigger_name;

	g_free(*target);
	*target = g_strdup(value);
	return TRUE;
}

static gboolean
condition_cb(const char *option, const char *value, gpointer data, GError **error)
{
	g_free(condition_name);
	condition_name = g_strdup(value);
	return TRUE;
}

/* The options of an event-rule-matches condition; FALSE after a usage
 * error. */
static gboolean
add_event_rule(GVariantBuilder *options, const char *type, const char *filter,
	       const char *loglevel)
{
	int level = loglevel ? tc_client_parse_loglevel(loglevel) : -1;

	if (event_pattern == NULL) {
		g_printerr("Error: --condition event-rule-matches needs --name PATTERN after it\n");
		return FALSE;
	}
	if (type && !g_str_equal(type, "user")) {
		g_printerr("Error: --type is 'user' (application events), not '%s'\n", type);
		return FALSE;
	}
	if (loglevel && level < 0) {
		g_printerr("Error: unknown log level '%s' (TRACE_EMERG .. TRACE_DEBUG, or 0..14)\n",
			   loglevel);
		return FALSE;
	}
	g_variant_builder_add(options, "{sv}", "name", g_variant_new_string(event_pattern));
	if (filter)
		g_variant_builder_add(options, "{sv}", "filter", g_variant_new_string(filter));
	if (level >= 0)
		g_variant_builder_add(options, "{sv}", "loglevel", g_variant_new_int32(level));
	return TRUE;
}

/* The session of the condition: the one given, else the current one. */
static char *
condition_session(const char *given)
{
	return given ? g_strdup(given) : tc_client_current_session();
}

static gboolean
add_threshold(GVariantBuilder *options, const char *ratio_text, const char *size_text)
{
	guint64 size;
	char *end = NULL;
	double ratio;

	if (ratio_text && size_text) {
		g_printerr("Error: give --threshold-ratio or --threshold-size, not both\n");
		return FALSE;
	}
	if (ratio_text) {
		ratio = g_ascii_strtod(ratio_text, &end);
		if (end == ratio_text || *end || !(ratio >= 0 && ratio <= 1)) {
			g_printerr("Error: --threshold-ratio is from 0 to 1, not '%s'\n",
				   ratio_text);
			return FALSE;
		}
		g_variant_builder_add(options, "{sv}", "threshold-ratio",
				      g_variant_new_double(ratio));
	}
	if (size_text) {
		if (!tc_client_parse_size(size_text, &size)) {
			g_printerr("Error: --threshold-size is a size such as 4096, 64k or 2M, "
				   "not '%s'\n",
				   size_text);
			return FALSE;
		}
		g_variant_builder_add(options, "{sv}", "threshold-size",
				      g_variant_new_uint64(size));
	}
	return TRUE;
}

int
tc_cmd_add_trigger(int argc, char **argv)
{
	g_autofree char *session_name = NULL, *channel = NULL;
	g_autofree char *ratio = NULL, *size = NULL, *session = NULL;
	g_autofree char *type = NULL, *filter = NULL, *loglevel = NULL;
	gboolean is_event_rule;
	g_auto(GStrv) actions = NULL;
	const GOptionEntry entries[] = {
		{"name", 0, 0, G_OPTION_ARG_CALLBACK, name_cb,
		 "The trigger's name; after --condition event-rule-matches, the event name "
		 "pattern",
		 "NAME"},
		{"condition", 0, 0, G_OPTION_ARG_CALLBACK, condition_cb,
		 "channel-buffer-usage-ge, channel-buffer-usage-le, session-consumed-size-ge, "
		 "session-rotation-completed or event-rule-matches",
		 "CONDITION"},
		{"type", 0, 0, G_OPTION_ARG_STRING, &type,
		 "The event rule's domain: user (the only one)", "TYPE"},
		{"filter", 'f', 0, G_OPTION_ARG_STRING, &filter,
		 "Match only the events for which EXPR is true (LTTng's filter language)", "EXPR"},
		{"loglevel", 0, 0, G_OPTION_ARG_STRING, &loglevel,
		 "Match events of LEVEL and more severe (TRACE_EMERG .. TRACE_DEBUG)", "LEVEL"},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session of the condition (default: the current one)", "SESSION"},
		{"channel", 'c', 0, G_OPTION_ARG_STRING, &channel,
		 "The channel of a buffer usage condition (default: channel0)", "CHANNEL"},
		{"threshold-ratio", 0, 0, G_OPTION_ARG_STRING, &ratio,
		 "Buffer usage as a ratio of the buffer size, 0 to 1", "RATIO"},
		{"threshold-size", 0, 0, G_OPTION_ARG_STRING, &size,
		 "Buffer usage or consumed size in bytes (k, M, G suffixes)", "SIZE"},
		{"action", 0, 0, G_OPTION_ARG_STRING_ARRAY, &actions,
		 "notify, start-session, stop-session, snapshot-session or rotate-session, on "
		 "the condition's session or on SESSION (repeat for several, taken in order)",
		 "ACTION[:SESSION]"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder options;
	int status;

	g_option_context_set_summary(context,
				     "Add a trigger: when the condition becomes true, the service "
				     "takes the actions, with nobody watching.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	is_event_rule = g_strcmp0(condition_name, "event-rule-matches") == 0;
	if (!is_event_rule && (type || filter || loglevel)) {
		g_printerr("Error: --type, --filter and --loglevel are options of "
			   "--condition event-rule-matches\n");
		return TC_EXIT_USAGE;
	}
	/* As LTTng's, a trigger on an event rule may go unnamed. */
	if (is_event_rule && trigger_name == NULL && event_pattern != NULL)
		trigger_name = g_strcanon(g_strconcat("on-", event_pattern, NULL),
					  G_CSET_a_2_z G_CSET_A_2_Z G_CSET_DIGITS "-_", '-');
	if (argc != 1 || trigger_name == NULL || condition_name == NULL || actions == NULL) {
		g_printerr("Error: add-trigger needs --name, --condition and --action (try "
			   "'tracectl add-trigger --help')\n");
		return TC_EXIT_USAGE;
	}
	session = condition_session(session_name);
	if (session == NULL) {
		g_printerr("Error: no session given and no current session\n");
		return TC_EXIT_USAGE;
	}
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&options, "{sv}", "session", g_variant_new_string(session));
	if (channel)
		g_variant_builder_add(&options, "{sv}", "channel", g_variant_new_string(channel));
	if (!add_threshold(&options, ratio, size) ||
	    (is_event_rule && !add_event_rule(&options, type, filter, loglevel))) {
		g_variant_builder_clear(&options);
		return TC_EXIT_USAGE;
	}
	manager = tc_client_manager(&error);
	if (manager)
		reply = tc_client_call(manager, "AddTrigger",
				       g_variant_new("(ssa{sv}^as)", trigger_name, condition_name,
						     &options, actions),
				       &error);
	else
		g_variant_builder_clear(&options);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Trigger %s added\n", trigger_name);
	return TC_EXIT_OK;
}

static void
print_trigger(GVariant *trigger)
{
	g_autoptr(GVariant) options = NULL;
	g_autofree const char **actions = NULL;
	g_autofree char *actions_text = NULL;
	g_autoptr(GString) settings = g_string_new(NULL);
	const char *name, *condition, *key;
	guint32 owner;
	guint64 fired;
	GVariantIter iter;
	GVariant *value;

	g_variant_get(trigger, "(&su&s@a{sv}^a&st)", &name, &owner, &condition, &options,
		      &actions, &fired);
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		g_autofree char *text = g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)
						? g_variant_dup_string(value, NULL)
						: g_variant_print(value, FALSE);

		g_string_append_printf(settings, " %s=%s", key, text);
	}
	actions_text = g_strjoinv(", ", (char **)actions);
	g_print("- %s (owner uid %u)\n    condition: %s%s\n    actions: %s\n    fired: %" G_GUINT64_FORMAT
		"\n",
		name, owner, condition, settings->str, actions_text, fired);
}

int
tc_cmd_list_triggers(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariant) triggers = NULL;
	int status;

	g_option_context_set_summary(context, "List your triggers (everyone's for "
					      "administrators).");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 1) {
		g_printerr("Error: list-triggers takes no argument\n");
		return TC_EXIT_USAGE;
	}
	manager = tc_client_manager(&error);
	if (manager)
		reply = tc_client_call(manager, "ListTriggers", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	triggers = g_variant_get_child_value(reply, 0);
	if (g_variant_n_children(triggers) == 0) {
		g_print("No trigger\n");
		return TC_EXIT_OK;
	}
	g_print("Triggers:\n");
	for (gsize i = 0; i < g_variant_n_children(triggers); i++) {
		g_autoptr(GVariant) trigger = g_variant_get_child_value(triggers, i);

		print_trigger(trigger);
	}
	return TC_EXIT_OK;
}

int
tc_cmd_remove_trigger(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("NAME");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	int status;

	g_option_context_set_summary(context, "Remove one of your triggers.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 2) {
		g_printerr("Error: remove-trigger takes the trigger's name\n");
		return TC_EXIT_USAGE;
	}
	manager = tc_client_manager(&error);
	if (manager)
		reply = tc_client_call(manager, "RemoveTrigger", g_variant_new("(s)", argv[1]),
				       &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Trigger %s removed\n", argv[1]);
	return TC_EXIT_OK;
}
