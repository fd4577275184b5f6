/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A channel's enablings as 'list SESSION' shows them: each pattern with
 * the log level, exclusions and filter it was enabled with. User-space
 * channels carry them in their "event-rules" setting (one dictionary per
 * enabling, in the order of the patterns); the kernel channel in its
 * "filters" setting (pattern -> tracefs filter). The rules of LTTng's
 * agents' loggers are in the default channel's "event-rules" too, with
 * their "domain" ("python", "jul", "log4j"), but not among its patterns:
 * they are shown in their domain's own section, as lttng does. */
#include "tc-client.h"

static const char *const loglevel_names[] = {
	"TRACE_EMERG",	      "TRACE_ALERT",	     "TRACE_CRIT",	   "TRACE_ERR",
	"TRACE_WARNING",      "TRACE_NOTICE",	     "TRACE_INFO",	   "TRACE_DEBUG_SYSTEM",
	"TRACE_DEBUG_PROGRAM", "TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",   "TRACE_DEBUG",
};

/* One enabling, whatever its domain; loglevel < 0 when none. */
typedef struct {
	const char *pattern;
	gint32 loglevel;
	gboolean loglevel_set; /* an agent's level may be any int */
	gboolean loglevel_only;
	const char **exclusions; /* NULL-terminated, or NULL */
	const char *filter;	 /* or NULL */
} TcClientEnabling;

static const char *
loglevel_name(gint32 loglevel)
{
	if (loglevel >= 0 && (gsize)loglevel < G_N_ELEMENTS(loglevel_names))
		return loglevel_names[loglevel];
	return "unknown";
}

/* The i-th enabling of the channel; the pointers stay valid as long as
 * rule, settings and pattern. */
static void
enabling_from_rule(TcClientEnabling *enabling, GVariant *rule)
{
	*enabling = (TcClientEnabling){.loglevel = -1};
	g_variant_lookup(rule, "pattern", "&s", &enabling->pattern);
	enabling->loglevel_set = g_variant_lookup(rule, "loglevel", "i", &enabling->loglevel);
	g_variant_lookup(rule, "loglevel-only", "b", &enabling->loglevel_only);
	g_variant_lookup(rule, "exclude", "^a&s", &enabling->exclusions);
	g_variant_lookup(rule, "filter", "&s", &enabling->filter);
}

static void
enabling_clear(TcClientEnabling *enabling)
{
	g_free(enabling->exclusions);
}

static void
print_kernel_pattern(const char *pattern)
{
	if (g_str_has_prefix(pattern, "syscalls:sys_enter_"))
		g_print("      %s (system call entry)", pattern);
	else if (g_str_has_prefix(pattern, "syscalls:sys_exit_"))
		g_print("      %s (system call exit)", pattern);
	else
		g_print("      %s", pattern);
}

static void
print_enabling(const TcClientEnabling *enabling, gboolean kernel)
{
	if (kernel)
		print_kernel_pattern(enabling->pattern);
	else
		g_print("      %s", enabling->pattern);
	if (enabling->loglevel >= 0)
		g_print(" (loglevel %s %s)", enabling->loglevel_only ? "==" : "<=",
			loglevel_name(enabling->loglevel));
	if (enabling->exclusions && enabling->exclusions[0]) {
		g_autofree char *joined = g_strjoinv(", ", (char **)enabling->exclusions);

		g_print(" [exclusions: %s]", joined);
	}
	if (enabling->filter)
		g_print(" [filter: %s]", enabling->filter);
	g_print("\n");
}

/* The channel's rules of its patterns, in their order (GVariant *), the
 * agents' left out; NULL when the service does not list them. */
static GPtrArray *
pattern_rules(GVariant *settings)
{
	g_autoptr(GVariant) rules = g_variant_lookup_value(settings, "event-rules",
							   G_VARIANT_TYPE("aa{sv}"));
	GPtrArray *kept;

	if (rules == NULL)
		return NULL;
	kept = g_ptr_array_new_with_free_func((GDestroyNotify)g_variant_unref);
	for (gsize i = 0; i < g_variant_n_children(rules); i++) {
		GVariant *rule = g_variant_get_child_value(rules, i);

		if (g_variant_lookup(rule, "domain", "&s", NULL))
			g_variant_unref(rule);
		else
			g_ptr_array_add(kept, rule);
	}
	return kept;
}

/* Calls visit for every enabling of the channel, in order. */
static void
foreach_enabling(const char *domain, GVariant *patterns, GVariant *settings,
		 void (*visit)(const TcClientEnabling *enabling, gboolean kernel, gpointer data),
		 gpointer data)
{
	gboolean kernel = g_str_equal(domain, "kernel");
	g_autoptr(GPtrArray) rules = pattern_rules(settings);
	g_autoptr(GVariant) filters =
	    g_variant_lookup_value(settings, "filters", G_VARIANT_TYPE("a{ss}"));
	gsize count = g_variant_n_children(patterns);

	/* An older service lists patterns without their rules. */
	if (rules && rules->len != count)
		g_clear_pointer(&rules, g_ptr_array_unref);
	for (gsize i = 0; i < count; i++) {
		TcClientEnabling enabling = {.loglevel = -1};

		if (rules)
			enabling_from_rule(&enabling, g_ptr_array_index(rules, i));
		g_variant_get_child(patterns, i, "&s", &enabling.pattern);
		if (kernel && filters)
			g_variant_lookup(filters, enabling.pattern, "&s", &enabling.filter);
		visit(&enabling, kernel, data);
		enabling_clear(&enabling);
	}
}

static void
print_visit(const TcClientEnabling *enabling, gboolean kernel, gpointer data)
{
	print_enabling(enabling, kernel);
}

void
tc_client_print_enablings(const char *domain, GVariant *patterns, GVariant *settings)
{
	if (g_variant_n_children(patterns) == 0)
		g_print("      (none)\n");
	foreach_enabling(domain, patterns, settings, print_visit, NULL);
}

static void
json_visit(const TcClientEnabling *enabling, gboolean kernel, gpointer data)
{
	JsonBuilder *builder = data;

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "pattern", enabling->pattern);
	json_builder_set_member_name(builder, "loglevel");
	if (enabling->loglevel >= 0)
		json_builder_add_int_value(builder, enabling->loglevel);
	else
		json_builder_add_null_value(builder);
	tc_client_output_member_string(builder, "loglevel_name",
				       enabling->loglevel >= 0 ? loglevel_name(enabling->loglevel)
							       : NULL);
	tc_client_output_member_bool(builder, "loglevel_only", enabling->loglevel_only);
	json_builder_set_member_name(builder, "exclusions");
	json_builder_begin_array(builder);
	for (guint i = 0; enabling->exclusions && enabling->exclusions[i]; i++)
		json_builder_add_string_value(builder, enabling->exclusions[i]);
	json_builder_end_array(builder);
	tc_client_output_member_string(builder, "filter", enabling->filter);
	json_builder_end_object(builder);
}

void
tc_client_enablings_json(JsonBuilder *builder, const char *domain, GVariant *patterns,
			 GVariant *settings)
{
	json_builder_set_member_name(builder, "enablings");
	json_builder_begin_array(builder);
	foreach_enabling(domain, patterns, settings, json_visit, builder);
	json_builder_end_array(builder);
}

/* The agents' domains. */

const char *const tc_client_agent_domains[] = {"python", "jul", "log4j", NULL};

const char *
tc_client_agent_domain_title(const char *domain)
{
	return g_str_equal(domain, "python") ? "Python logging"
	       : g_str_equal(domain, "jul")  ? "java.util.logging (JUL)"
					     : "log4j";
}

const char *
tc_client_agent_domain_line(const char *domain)
{
	return g_str_equal(domain, "python") ? "Python (logging)"
	       : g_str_equal(domain, "jul")  ? "JUL (Java Util Logging)"
					     : "LOG4j (Logging for Java)";
}

/* Calls visit for each rule of domain's loggers (NULL: any agent's) in
 * the channels, in order; returns how many. */
static guint
foreach_agent_rule(GVariant *channels, const char *domain,
		   void (*visit)(const char *domain, const TcClientEnabling *enabling,
				 gpointer data),
		   gpointer data)
{
	GVariantIter iter;
	GVariant *settings;
	guint count = 0;

	g_variant_iter_init(&iter, channels);
	while (g_variant_iter_next(&iter, "(&s&stuas@a{sv})", NULL, NULL, NULL, NULL, NULL,
				   &settings)) {
		g_autoptr(GVariant) rules = g_variant_lookup_value(settings, "event-rules",
								   G_VARIANT_TYPE("aa{sv}"));

		for (gsize i = 0; rules && i < g_variant_n_children(rules); i++) {
			g_autoptr(GVariant) rule = g_variant_get_child_value(rules, i);
			const char *rule_domain = NULL;
			TcClientEnabling enabling;

			if (!g_variant_lookup(rule, "domain", "&s", &rule_domain) ||
			    (domain && !g_str_equal(domain, rule_domain)))
				continue;
			enabling_from_rule(&enabling, rule);
			if (enabling.pattern) {
				visit(rule_domain, &enabling, data);
				count++;
			}
			enabling_clear(&enabling);
		}
		g_variant_unref(settings);
	}
	return count;
}

/* "    - app.* (loglevel <= PYTHON_WARNING) [filter: msg == "x"]", the
 * filter being the caller's: lttng shows the one it built. */
static void
print_agent_visit(const char *domain, const TcClientEnabling *enabling, gpointer data)
{
	g_print("    - %s", enabling->pattern);
	if (enabling->loglevel_set) {
		g_autofree char *level = tc_client_agent_level_name(domain, enabling->loglevel);

		g_print(" (loglevel %s %s)", enabling->loglevel_only ? "==" : "<=", level);
	}
	if (enabling->filter)
		g_print(" [filter: %s]", enabling->filter);
	g_print("\n");
}

static void
count_visit(const char *domain, const TcClientEnabling *enabling, gpointer data)
{
}

guint
tc_client_agent_rule_count(const char *domain, GVariant *channels)
{
	return foreach_agent_rule(channels, domain, count_visit, NULL);
}

gboolean
tc_client_print_agent_rules(const char *domain, GVariant *channels)
{
	if (tc_client_agent_rule_count(domain, channels) == 0)
		return FALSE;
	g_print("\n=== Domain: %s ===\n\nEvents (Logger name):\n---------------------\n",
		tc_client_agent_domain_title(domain));
	foreach_agent_rule(channels, domain, print_agent_visit, NULL);
	return TRUE;
}

static void
agent_json_visit(const char *domain, const TcClientEnabling *enabling, gpointer data)
{
	JsonBuilder *builder = data;
	g_autofree char *level = NULL;

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "domain", domain);
	tc_client_output_member_string(builder, "logger", enabling->pattern);
	json_builder_set_member_name(builder, "loglevel");
	if (enabling->loglevel_set) {
		json_builder_add_int_value(builder, enabling->loglevel);
		level = tc_client_agent_level_name(domain, enabling->loglevel);
	} else {
		json_builder_add_null_value(builder);
	}
	tc_client_output_member_string(builder, "loglevel_name", level);
	tc_client_output_member_bool(builder, "loglevel_only", enabling->loglevel_only);
	tc_client_output_member_string(builder, "filter", enabling->filter);
	json_builder_end_object(builder);
}

void
tc_client_agent_rules_json(JsonBuilder *builder, GVariant *channels)
{
	json_builder_set_member_name(builder, "agent_rules");
	json_builder_begin_array(builder);
	if (channels)
		foreach_agent_rule(channels, NULL, agent_json_visit, builder);
	json_builder_end_array(builder);
}
