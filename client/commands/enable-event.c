/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl enable-event -u PATTERN[,PATTERN...] [-a] [-c CHANNEL] [-s SESSION]
 * tracectl disable-event -u PATTERN[,PATTERN...] [-a] [-c CHANNEL] [-s SESSION]
 * tracectl enable-event -k --own [--syscall] PATTERN[,PATTERN...] [-a] [-s SESSION]
 * tracectl enable-event -p|-j|-l LOGGER[,LOGGER...] [-a] [-s SESSION]
 *
 * -p (--python), -j (--jul) and -l (--log4j) select loggers of LTTng's
 * agents: Python's logging, java.util.logging and log4j, with their own
 * level names.
 *
 * enable-event also takes LTTng's selection options: --loglevel LEVEL,
 * --loglevel-only LEVEL, --exclude NAME[,NAME...] and --filter EXPR, sent
 * with EnableEventWithOptions.
 */
#include <stdlib.h>

#include "tc-client.h"

/* LTTng's level names, by value; "TRACE_" may be left out, any case. */
static const char *const loglevel_names[] = {
	"EMERG",	 "ALERT",	  "CRIT",	     "ERR",		"WARNING",
	"NOTICE",	 "INFO",	  "DEBUG_SYSTEM",    "DEBUG_PROGRAM",	"DEBUG_PROCESS",
	"DEBUG_MODULE", "DEBUG_UNIT", "DEBUG_FUNCTION", "DEBUG_LINE",	"DEBUG",
};

int
tc_client_parse_loglevel(const char *text)
{
	const char *name = g_ascii_strncasecmp(text, "TRACE_", 6) == 0 ? text + 6 : text;
	char *end = NULL;
	long value;

	for (guint i = 0; i < G_N_ELEMENTS(loglevel_names); i++)
		if (g_ascii_strcasecmp(name, loglevel_names[i]) == 0)
			return (int)i;
	value = strtol(text, &end, 10);
	if (*text && end && *end == '\0' && value >= 0 && value < (long)G_N_ELEMENTS(loglevel_names))
		return (int)value;
	return -1;
}

/* The level text of domain as a number; FALSE with a usage error
 * printed. */
static gboolean
parse_level(const char *domain, const char *text, int *level)
{
	/* The agents' own levels; LTTng's otherwise, which the service
	 * refuses for the kernel. */
	if (g_str_equal(domain, "python") || g_str_equal(domain, "jul") ||
	    g_str_equal(domain, "log4j")) {
		if (tc_client_agent_level_parse(domain, text, level))
			return TRUE;
		g_printerr("Error: unknown %s log level '%s' (a name such as %s, or a number)\n",
			   domain, text,
			   g_str_equal(domain, "python") ? "WARNING"
			   : g_str_equal(domain, "jul")	 ? "SEVERE"
							 : "WARN");
		return FALSE;
	}
	*level = tc_client_parse_loglevel(text);
	if (*level >= 0)
		return TRUE;
	g_printerr("Error: unknown log level '%s' (TRACE_EMERG .. TRACE_DEBUG, or 0..14)\n", text);
	return FALSE;
}

/* The a{sv} of EnableEventWithOptions, or NULL with a usage error
 * printed. *has_options tells whether any option was given. */
static GVariant *
selection_options(const char *domain, const char *loglevel, const char *loglevel_only,
		  const char *exclude, const char *filter, gboolean *has_options)
{
	g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_VARDICT);
	const char *level_text = loglevel_only ? loglevel_only : loglevel;

	*has_options = loglevel || loglevel_only || exclude || filter;
	if (loglevel && loglevel_only) {
		g_printerr("Error: give --loglevel or --loglevel-only, not both\n");
		return NULL;
	}
	if (level_text) {
		int level;

		if (!parse_level(domain, level_text, &level))
			return NULL;
		g_variant_builder_add(&builder, "{sv}", "loglevel", g_variant_new_int32(level));
		if (loglevel_only)
			g_variant_builder_add(&builder, "{sv}", "loglevel-only",
					      g_variant_new_boolean(TRUE));
	}
	if (exclude) {
		g_auto(GStrv) names = tc_client_split_patterns(exclude);

		g_variant_builder_add(&builder, "{sv}", "exclude",
				      g_variant_new_strv((const char *const *)names, -1));
	}
	if (filter)
		g_variant_builder_add(&builder, "{sv}", "filter", g_variant_new_string(filter));
	return g_variant_builder_end(&builder);
}

/* --probe, --function, --userspace-probe: one dynamic probe named name.
 * With --json, the probe is added to probes, an open array. */
static gboolean
add_probe(TcClientSession *session, const char *kind, const char *location, const char *name,
	  JsonBuilder *probes, GError **error)
{
	g_autoptr(GVariant) reply = tc_client_call(
		session, "AddKernelProbe", g_variant_new("(sss)", kind, name, location), error);

	if (reply == NULL)
		return FALSE;
	if (tc_client_output_is_json()) {
		json_builder_begin_object(probes);
		tc_client_output_member_string(probes, "kind", kind);
		tc_client_output_member_string(probes, "name", name);
		tc_client_output_member_string(probes, "location", location);
		json_builder_end_object(probes);
	} else {
		g_print("Kernel %s %s on %s added to session %s (events tracectl_<id>:%s)\n", kind,
			name, location, tc_client_session_get_name(session), name);
	}
	return TRUE;
}

/* One probe of kind, or for --function (kind NULL), as LTTng's:
 * NAME_entry at the function's entry and NAME_return at its return.
 * Prints {"session", "probes": [{"kind", "name", "location"}]} with --json. */
static int
add_probes(const char *session_name, const char *kind, const char *location, const char *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = tc_client_session(session_name, &error);
	g_autoptr(JsonBuilder) probes = json_builder_new();
	g_autofree char *entry = g_strconcat(name, "_entry", NULL);
	g_autofree char *ret = g_strconcat(name, "_return", NULL);
	guint n_added = 0;
	int failed_status = TC_EXIT_OK;

	if (session == NULL)
		return tc_client_fail(error);
	json_builder_begin_object(probes);
	tc_client_output_member_string(probes, "session", tc_client_session_get_name(session));
	json_builder_set_member_name(probes, "probes");
	json_builder_begin_array(probes);
	if (kind) {
		n_added += add_probe(session, kind, location, name, probes, &error);
	} else if (add_probe(session, "kprobe", location, entry, probes, &error)) {
		n_added++;
		n_added += add_probe(session, "kretprobe", location, ret, probes, &error);
	}
	if (error)
		failed_status = tc_client_fail(error);
	json_builder_end_array(probes);
	json_builder_end_object(probes);
	if (tc_client_output_is_json() && n_added > 0)
		tc_client_output_print_builder(probes);
	return tc_client_output_combine(n_added, failed_status);
}

/* {"session", "domain", "channel", "enabled", "events": [pattern],
 * "failed": [pattern]}: what changed and what the service refused. */
static JsonNode *
events_json(TcClientSession *session, const char *domain, const char *channel, gboolean enable,
	    GPtrArray *changed, GPtrArray *failed)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	g_ptr_array_add(changed, NULL);
	g_ptr_array_add(failed, NULL);
	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "session", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "domain", domain);
	tc_client_output_member_string(builder, "channel", channel);
	tc_client_output_member_bool(builder, "enabled", enable);
	tc_client_output_member_strv(builder, "events", (const char *const *)changed->pdata);
	tc_client_output_member_strv(builder, "failed", (const char *const *)failed->pdata);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
change_events(int argc, char **argv, gboolean enable)
{
	gboolean userspace = FALSE, kernel = FALSE, all = FALSE, syscall = FALSE, own = FALSE;
	gboolean python = FALSE, jul = FALSE, log4j = FALSE;
	g_autofree char *session_name = NULL, *channel = NULL;
	g_autofree char *probe = NULL, *function = NULL, *uprobe = NULL;
	g_autofree char *loglevel = NULL, *loglevel_only = NULL, *exclude = NULL, *filter = NULL;
	const GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "Kernel domain", NULL},
		{"python", 'p', 0, G_OPTION_ARG_NONE, &python,
		 "Python's logging (LTTng's agent): PATTERN names loggers", NULL},
		{"jul", 'j', 0, G_OPTION_ARG_NONE, &jul,
		 "java.util.logging (LTTng's agent): PATTERN names loggers", NULL},
		{"log4j", 'l', 0, G_OPTION_ARG_NONE, &log4j,
		 "log4j (LTTng's agent): PATTERN names loggers", NULL},
		{"all", 'a', 0, G_OPTION_ARG_NONE, &all, "All events (the pattern '*')", NULL},
		{"own", 0, 0, G_OPTION_ARG_NONE, &own,
		 "With -k: only your own processes' events (system calls, by name with "
		 "--syscall, their scheduling, page faults, signals), without the tracing group",
		 NULL},
		{"syscall", 0, 0, G_OPTION_ARG_NONE, &syscall,
		 "With -k: system calls by name (entry and exit events)", NULL},
		{"probe", 0, 0, G_OPTION_ARG_STRING, &probe,
		 "With -k: a kprobe named NAME on SYMBOL[+OFFSET] or 0xADDRESS", "PLACE"},
		{"function", 0, 0, G_OPTION_ARG_STRING, &function,
		 "With -k: probes on the entry (NAME_entry) and return (NAME_return) of SYMBOL",
		 "PLACE"},
		{"userspace-probe", 0, 0, G_OPTION_ARG_STRING, &uprobe,
		 "With -k: a uprobe named NAME on [elf:]/path/to/ELF:FUNCTION, or on the SDT probe "
		 "sdt:/path/to/ELF:PROVIDER:NAME",
		 "PLACE"},
		{"channel", 'c', 0, G_OPTION_ARG_STRING, &channel,
		 "The channel (default: channel0)", "CHANNEL"},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"loglevel", 0, 0, G_OPTION_ARG_STRING, &loglevel,
		 "With -u: events of LEVEL and more severe (TRACE_EMERG .. TRACE_DEBUG)", "LEVEL"},
		{"loglevel-only", 0, 0, G_OPTION_ARG_STRING, &loglevel_only,
		 "With -u: events of exactly LEVEL", "LEVEL"},
		{"exclude", 'x', 0, G_OPTION_ARG_STRING, &exclude,
		 "With -u: leave out the events matching these patterns", "NAME[,NAME...]"},
		{"filter", 'f', 0, G_OPTION_ARG_STRING, &filter,
		 "Record only the events for which EXPR is true (LTTng's filter language)", "EXPR"},
		{NULL},
	};
	g_autoptr(GVariant) options = NULL;
	gboolean has_options = FALSE;
	g_autoptr(GOptionContext) context = g_option_context_new("-u PATTERN[,PATTERN...]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_auto(GStrv) patterns = NULL;
	g_autoptr(GPtrArray) changed = g_ptr_array_new();
	g_autoptr(GPtrArray) failed = g_ptr_array_new();
	guint n_changed;
	const char *domain;
	int status = TC_EXIT_OK;

	g_option_context_set_summary(
		context, enable ? "Record the events matching the patterns ('provider:event', "
				  "'*' matches anything), in every application of yours."
				: "Stop recording events enabled with these patterns.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (userspace + kernel + python + jul + log4j != 1 || (argc != 2 && !(all && argc == 1))) {
		g_printerr("Error: give one of -u, -k, -p, -j, -l, and PATTERN[,PATTERN...] or -a "
			   "(try 'tracectl %s --help')\n",
			   enable ? "enable-event" : "disable-event");
		return TC_EXIT_USAGE;
	}
	if ((syscall || probe || function || uprobe) && !kernel) {
		g_printerr("Error: --syscall, --probe, --function and --userspace-probe go with -k\n");
		return TC_EXIT_USAGE;
	}
	if (own && (!kernel || probe || function || uprobe)) {
		g_printerr("Error: --own goes with -k, and with no probe\n");
		return TC_EXIT_USAGE;
	}
	if (probe || function || uprobe) {
		if (!enable || argc != 2 || !!probe + !!function + !!uprobe != 1) {
			g_printerr("Error: give one of --probe, --function, --userspace-probe and "
				   "one event NAME\n");
			return TC_EXIT_USAGE;
		}
		if (function)
			return add_probes(session_name, NULL, function, argv[1]);
		return add_probes(session_name, probe ? "kprobe" : "uprobe", probe ? probe : uprobe,
				  argv[1]);
	}
	/* The own-process tier takes system calls as tracefs names them too:
	 * the service turns the names into this architecture's numbers. */
	if (own && !syscall)
		patterns = all ? g_strsplit("*:*", ",", -1) : tc_client_kernel_patterns(argv[1], FALSE);
	else if (kernel)
		patterns = all ? g_strsplit(syscall ? "syscalls:sys_*" : "*:*", ",", -1)
			       : tc_client_kernel_patterns(argv[1], syscall);
	else
		patterns = all ? g_strsplit("*", ",", -1) : tc_client_split_patterns(argv[1]);
	if (patterns[0] == NULL) {
		g_printerr("Error: the event pattern is empty\n");
		return TC_EXIT_USAGE;
	}
	domain = own ? "kernel-own" : kernel ? "kernel" : python ? "python" : jul ? "jul"
		 : log4j ? "log4j" : "ust";
	options = selection_options(domain, loglevel, loglevel_only, exclude, filter, &has_options);
	if (options == NULL)
		return TC_EXIT_USAGE;
	g_variant_ref_sink(options);
	if (has_options && !enable) {
		g_printerr("Error: --loglevel, --loglevel-only, --exclude and --filter go with "
			   "enable-event\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session == NULL)
		return tc_client_fail(error);
	for (guint i = 0; patterns[i]; i++) {
		g_autoptr(GVariant) reply = tc_client_call(
			session,
			has_options ? "EnableEventWithOptions" : enable ? "EnableEvent" : "DisableEvent",
			has_options ? g_variant_new("(sss@a{sv})", domain, channel ? channel : "",
						    patterns[i], options)
				    : g_variant_new("(sss)", domain, channel ? channel : "",
						    patterns[i]),
			&error);

		if (reply == NULL) {
			status = tc_client_fail(error);
			g_clear_error(&error);
			g_ptr_array_add(failed, patterns[i]);
			continue;
		}
		g_ptr_array_add(changed, patterns[i]);
		if (!tc_client_output_is_json())
			g_print("Event %s %s in channel %s of session %s\n", patterns[i],
				enable ? "enabled" : "disabled", channel ? channel : "channel0",
				tc_client_session_get_name(session));
	}
	n_changed = changed->len;
	/* With every pattern refused, there is no result: stdout stays empty. */
	if (tc_client_output_is_json() && n_changed > 0) {
		g_autoptr(JsonNode) node =
			events_json(session, domain, channel ? channel : "channel0", enable, changed,
				    failed);

		tc_client_output_print_json(node);
	}
	return tc_client_output_combine(n_changed, status);
}

int
tc_cmd_enable_event(int argc, char **argv)
{
	return change_events(argc, argv, TRUE);
}

int
tc_cmd_disable_event(int argc, char **argv)
{
	return change_events(argc, argv, FALSE);
}
