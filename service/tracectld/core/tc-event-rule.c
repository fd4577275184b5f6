/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-rule"

#include "tc-event-rule.h"

#include "tc-error.h"
#include "tc-validate.h"
#include "tracectl-abi.h"

TcEventRule *
tc_event_rule_new(const char *pattern)
{
	TcEventRule *rule = g_new0(TcEventRule, 1);

	rule->pattern = g_strdup(pattern);
	rule->loglevel = -1;
	rule->exclusions = g_new0(char *, 1);
	return rule;
}

void
tc_event_rule_free_agent(TcAgentRule *agent)
{
	if (agent == NULL)
		return;
	g_free(agent->logger);
	g_free(agent->filter_text);
	g_free(agent->key);
	g_free(agent);
}

void
tc_event_rule_free(TcEventRule *rule)
{
	if (rule == NULL)
		return;
	tc_event_rule_free_agent(rule->agent);
	g_free(rule->pattern);
	g_strfreev(rule->exclusions);
	g_free(rule->filter_text);
	tc_filter_expr_free(rule->filter);
	g_clear_pointer(&rule->lttng_filter, g_bytes_unref);
	g_free(rule->lttng_refusal);
	g_free(rule);
}

static gboolean
set_exclusions(TcEventRule *rule, const char *const *names, GError **error)
{
	guint n = names ? g_strv_length((char **)names) : 0;

	if (n > TC_EVENT_RULE_EXCLUSIONS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "At most %d exclusions, not %u", TC_EVENT_RULE_EXCLUSIONS_MAX, n);
		return FALSE;
	}
	if (n > 0 && strchr(rule->pattern, '*') == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Exclusions need a pattern with '*', not '%s'", rule->pattern);
		return FALSE;
	}
	for (guint i = 0; i < n; i++) {
		if (!tc_validate_pattern(names[i], error)) {
			g_prefix_error(error, "Exclusion: ");
			return FALSE;
		}
	}
	g_strfreev(rule->exclusions);
	rule->exclusions = names ? g_strdupv((char **)names) : g_new0(char *, 1);
	return TRUE;
}

static gboolean
set_loglevel(TcEventRule *rule, const TcEventRuleSpec *spec, GError **error)
{
	if (spec->has_loglevel &&
	    (spec->loglevel < 0 || spec->loglevel > TRACECTL_ABI_LOGLEVEL_MAX)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Log level %d is not in 0..%d", spec->loglevel,
			    TRACECTL_ABI_LOGLEVEL_MAX);
		return FALSE;
	}
	if (spec->has_loglevel)
		rule->loglevel = spec->loglevel;
	rule->loglevel_only = spec->loglevel_only;
	return TRUE;
}

/* The filter, compiled once for every LTTng-UST application; one it
 * cannot be given is kept for tracectl's own applications. */
static gboolean
set_filter(TcEventRule *rule, const char *text, GError **error)
{
	g_autoptr(GError) refusal = NULL;

	if (text == NULL)
		return TRUE;
	rule->filter = tc_filter_parse(text, error);
	if (rule->filter == NULL)
		return FALSE;
	rule->filter_text = g_strdup(text);
	rule->lttng_filter = tc_filter_lttng_compile(rule->filter, TC_FILTER_LTTNG_MAX_LEN,
						     &rule->lttng_reloc_offset, &refusal);
	if (rule->lttng_filter == NULL)
		rule->lttng_refusal = g_strdup(refusal->message);
	return TRUE;
}

TcEventRule *
tc_event_rule_new_from_spec(const TcEventRuleSpec *spec, GError **error)
{
	g_autoptr(TcEventRule) rule = tc_event_rule_new(spec->pattern);

	if (!set_loglevel(rule, spec, error) || !set_exclusions(rule, spec->exclusions, error) ||
	    !set_filter(rule, spec->filter, error))
		return NULL;
	if (rule->loglevel_only && rule->loglevel < 0) {
		g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "'loglevel-only' needs a 'loglevel'");
		return NULL;
	}
	return g_steal_pointer(&rule);
}

gboolean
tc_event_rule_equal(const TcEventRule *a, const TcEventRule *b)
{
	return g_str_equal(tc_event_rule_key(a), tc_event_rule_key(b)) &&
	       g_str_equal(a->pattern, b->pattern) && a->loglevel == b->loglevel &&
	       a->loglevel_only == b->loglevel_only &&
	       g_strv_equal((const char *const *)a->exclusions,
			    (const char *const *)b->exclusions) &&
	       g_strcmp0(a->filter_text, b->filter_text) == 0;
}

gboolean
tc_event_rule_selects(const TcEventRule *rule, const char *name, int loglevel)
{
	if (!g_pattern_match_simple(rule->pattern, name))
		return FALSE;
	/* LTTng's levels: 0 is the most severe, so "LEVEL and more severe"
	 * is every level up to LEVEL. */
	if (rule->loglevel >= 0 &&
	    (rule->loglevel_only ? loglevel != rule->loglevel : loglevel > rule->loglevel))
		return FALSE;
	for (guint i = 0; rule->exclusions[i]; i++)
		if (g_pattern_match_simple(rule->exclusions[i], name))
			return FALSE;
	return TRUE;
}

const char *
tc_event_rule_key(const TcEventRule *rule)
{
	return rule->agent ? rule->agent->key : rule->pattern;
}

static char *
describe_agent(const TcAgentRule *agent)
{
	GString *text = g_string_new(NULL);

	g_string_append_printf(text, "%s logger %s", agent->domain_name, agent->logger);
	if (agent->loglevel_type != TC_AGENT_LOGLEVEL_ALL)
		g_string_append_printf(text, " loglevel %s %d",
				       agent->loglevel_type == TC_AGENT_LOGLEVEL_SINGLE ? "==" : ">=",
				       agent->loglevel);
	if (agent->filter_text)
		g_string_append_printf(text, " filter '%s'", agent->filter_text);
	return g_string_free(text, FALSE);
}

char *
tc_event_rule_describe(const TcEventRule *rule)
{
	GString *text;

	if (rule->agent)
		return describe_agent(rule->agent);
	text = g_string_new(rule->pattern);

	if (rule->loglevel >= 0)
		g_string_append_printf(text, rule->loglevel_only ? " loglevel == %d"
								 : " loglevel <= %d",
				       rule->loglevel);
	if (rule->exclusions[0]) {
		g_autofree char *list = g_strjoinv(",", rule->exclusions);

		g_string_append_printf(text, " exclude %s", list);
	}
	if (rule->filter_text)
		g_string_append_printf(text, " filter '%s'", rule->filter_text);
	return g_string_free(text, FALSE);
}
