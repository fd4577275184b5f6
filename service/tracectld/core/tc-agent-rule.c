/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-rule"

#include "tc-agent-rule.h"

#include "tc-error.h"

char *
tc_agent_rule_key(TcAgentDomain domain, const char *logger)
{
	/* A unit separator: no pattern and no logger name holds one. */
	return g_strdup_printf("%s\x1f%s", tc_agent_domain_name(domain), logger);
}

static gboolean
check_logger(const char *logger, GError **error)
{
	gsize length = strlen(logger);

	if (length == 0 || length >= TC_AGENT_NAME_MAX || !g_utf8_validate(logger, -1, NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "A logger name is 1 to %d bytes of UTF-8", TC_AGENT_NAME_MAX - 1);
		return FALSE;
	}
	/* C1 controls too: a logger's name reaches terminals that list it. */
	for (const char *c = logger; *c; c = g_utf8_next_char(c))
		if (g_unichar_iscntrl(g_utf8_get_char(c))) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "A logger name holds no control character");
			return FALSE;
		}
	return TRUE;
}

/* The logger as a string literal of tracectl's filter language, its stars
 * left as globs. */
static void
append_literal(GString *text, const char *logger)
{
	g_string_append_c(text, '"');
	for (const char *c = logger; *c; c++) {
		if (*c == '"' || *c == '\\')
			g_string_append_c(text, '\\');
		g_string_append_c(text, *c);
	}
	g_string_append_c(text, '"');
}

/* The filter lttng-tools builds for an agent's event (liblttng-ctl's
 * set_agent_filter()); NULL when it selects everything. */
static char *
agent_filter_text(const TcAgentRule *agent)
{
	GString *text = g_string_new(NULL);

	if (agent->filter_text)
		g_string_append_printf(text, "(%s)", agent->filter_text);
	if (!g_str_equal(agent->logger, "*")) {
		g_string_append(text, text->len ? " && logger_name == " : "logger_name == ");
		append_literal(text, agent->logger);
	}
	if (agent->loglevel_type != TC_AGENT_LOGLEVEL_ALL)
		g_string_append_printf(text, "%sint_loglevel %s %d", text->len ? " && " : "",
				       agent->loglevel_type == TC_AGENT_LOGLEVEL_SINGLE ? "==" : ">=",
				       agent->loglevel);
	if (text->len == 0) {
		g_string_free(text, TRUE);
		return NULL;
	}
	return g_string_free(text, FALSE);
}

TcEventRule *
tc_agent_rule_new(TcAgentDomain domain, const TcEventRuleSpec *spec, GError **error)
{
	g_autoptr(TcEventRule) rule = NULL;
	g_autoptr(TcFilterExpr) own_filter = NULL;
	g_autofree char *filter = NULL;
	TcAgentRule *agent;
	TcEventRuleSpec recorded = {.pattern = tc_agent_domain_event(domain), .loglevel = -1};

	if (recorded.pattern == NULL || !check_logger(spec->pattern, error))
		return NULL;
	/* The caller's filter alone first, so that an error's column is in
	 * what they wrote. */
	if (spec->filter && (own_filter = tc_filter_parse(spec->filter, error)) == NULL)
		return NULL;
	if (spec->exclusions && spec->exclusions[0]) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Exclusions are for the user-space domain, not for %s loggers",
			    tc_agent_domain_name(domain));
		return NULL;
	}
	if (spec->loglevel_only && !spec->has_loglevel) {
		g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "'loglevel-only' needs a 'loglevel'");
		return NULL;
	}
	agent = g_new0(TcAgentRule, 1);
	agent->domain = domain;
	agent->domain_name = tc_agent_domain_name(domain);
	agent->logger = g_strdup(spec->pattern);
	agent->filter_text = g_strdup(spec->filter);
	agent->loglevel = spec->has_loglevel ? spec->loglevel : 0;
	agent->loglevel_type = !spec->has_loglevel ? TC_AGENT_LOGLEVEL_ALL
			       : spec->loglevel_only ? TC_AGENT_LOGLEVEL_SINGLE
						     : TC_AGENT_LOGLEVEL_RANGE;
	agent->key = tc_agent_rule_key(domain, agent->logger);
	filter = agent_filter_text(agent);
	recorded.filter = filter;
	rule = tc_event_rule_new_from_spec(&recorded, error);
	if (rule == NULL) {
		tc_event_rule_free_agent(agent);
		return NULL;
	}
	rule->agent = agent;
	return g_steal_pointer(&rule);
}
