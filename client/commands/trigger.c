/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl add-trigger --name NAME --condition CONDITION [-s SESSION]
 *     [--channel CHANNEL] [--threshold-ratio R | --threshold-size SIZE]
 *     --action ACTION[:SESSION] [--action ...]
 * tracectl list-triggers
 * tracectl remove-trigger NAME
 */
#include <stdlib.h>

#include "tc-client.h"

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
	g_autofree char *name = NULL, *condition = NULL, *session_name = NULL, *channel = NULL;
	g_autofree char *ratio = NULL, *size = NULL, *session = NULL;
	g_auto(GStrv) actions = NULL;
	const GOptionEntry entries[] = {
		{"name", 0, 0, G_OPTION_ARG_STRING, &name, "The trigger's name", "NAME"},
		{"condition", 0, 0, G_OPTION_ARG_STRING, &condition,
		 "channel-buffer-usage-ge, channel-buffer-usage-le, session-consumed-size-ge or "
		 "session-rotation-completed",
		 "CONDITION"},
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
	g_autoptr(TcDbusManager) manager = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder options;
	int status;

	g_option_context_set_summary(context,
				     "Add a trigger: when the condition becomes true, the service "
				     "takes the actions, with nobody watching.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc != 1 || name == NULL || condition == NULL || actions == NULL) {
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
	if (!add_threshold(&options, ratio, size)) {
		g_variant_builder_clear(&options);
		return TC_EXIT_USAGE;
	}
	manager = tc_client_manager(&error);
	if (manager)
		reply = tc_client_call(manager, "AddTrigger",
				       g_variant_new("(ssa{sv}^as)", name, condition, &options,
						     actions),
				       &error);
	else
		g_variant_builder_clear(&options);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Trigger %s added\n", name);
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
	g_autoptr(TcDbusManager) manager = NULL;
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
	g_autoptr(TcDbusManager) manager = NULL;
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
