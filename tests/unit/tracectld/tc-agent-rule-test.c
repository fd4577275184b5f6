/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An agent's rule (Python logging, JUL, log4j) as the filter lttng-tools
 * builds on the agent's event: the text, that it compiles for LTTng-UST,
 * the key disable-event finds it by, and each refusal. */
#include "tc-agent-rule.h"

#include <string.h>

#include "tc-error.h"

static TcEventRule *
agent_rule(TcAgentDomain domain, const char *logger, int loglevel, gboolean only,
	   const char *filter)
{
	TcEventRuleSpec spec = {.pattern = logger, .has_loglevel = loglevel != -1,
				.loglevel = loglevel, .loglevel_only = only, .filter = filter};
	g_autoptr(GError) error = NULL;
	TcEventRule *rule = tc_agent_rule_new(domain, &spec, &error);

	g_assert_no_error(error);
	return rule;
}

static void
assert_filter(TcEventRule *rule, const char *event, const char *text)
{
	g_assert_cmpstr(rule->pattern, ==, event);
	g_assert_cmpstr(rule->filter_text, ==, text);
	/* Every filter the agents' rules make is one LTTng-UST evaluates. */
	if (text) {
		g_assert_nonnull(rule->lttng_filter);
		g_assert_null(rule->lttng_refusal);
	}
}

static void
test_filters(void)
{
	g_autoptr(TcEventRule) range = agent_rule(TC_AGENT_DOMAIN_PYTHON, "app.*", 30, FALSE, NULL);
	g_autoptr(TcEventRule) every = agent_rule(TC_AGENT_DOMAIN_JUL, "*", -1, FALSE, NULL);
	g_autoptr(TcEventRule) only =
	    agent_rule(TC_AGENT_DOMAIN_LOG4J, "a.b", 40000, TRUE, "msg == \"x\"");
	g_autoptr(TcEventRule) quoted =
	    agent_rule(TC_AGENT_DOMAIN_PYTHON, "say \"hi\"\\now", -1, FALSE, NULL);
	g_autoptr(TcEventRule) lowest =
	    agent_rule(TC_AGENT_DOMAIN_JUL, "*", G_MININT32, FALSE, NULL);

	assert_filter(range, "lttng_python:event",
		      "logger_name == \"app.*\" && int_loglevel >= 30");
	assert_filter(every, "lttng_jul:event", NULL);
	assert_filter(only, "lttng_log4j:event",
		      "(msg == \"x\") && logger_name == \"a.b\" && int_loglevel == 40000");
	assert_filter(quoted, "lttng_python:event",
		      "logger_name == \"say \\\"hi\\\"\\\\now\"");
	assert_filter(lowest, "lttng_jul:event", "int_loglevel >= -2147483648");
	g_assert_cmpint(range->agent->loglevel_type, ==, TC_AGENT_LOGLEVEL_RANGE);
	g_assert_cmpint(every->agent->loglevel_type, ==, TC_AGENT_LOGLEVEL_ALL);
	g_assert_cmpint(only->agent->loglevel_type, ==, TC_AGENT_LOGLEVEL_SINGLE);
	g_assert_cmpstr(only->agent->filter_text, ==, "msg == \"x\"");
	g_assert_cmpstr(quoted->agent->logger, ==, "say \"hi\"\\now");
}

static void
test_keys(void)
{
	g_autoptr(TcEventRule) python = agent_rule(TC_AGENT_DOMAIN_PYTHON, "x", -1, FALSE, NULL);
	g_autoptr(TcEventRule) python_level =
	    agent_rule(TC_AGENT_DOMAIN_PYTHON, "x", 20, FALSE, NULL);
	g_autoptr(TcEventRule) jul = agent_rule(TC_AGENT_DOMAIN_JUL, "x", -1, FALSE, NULL);
	g_autoptr(TcEventRule) ust = tc_event_rule_new("lttng_python:event");
	g_autofree char *key = tc_agent_rule_key(TC_AGENT_DOMAIN_PYTHON, "x");
	g_autofree char *described = tc_event_rule_describe(python_level);

	/* disable-event --python x removes both python rules of x, and
	 * nothing of the other domains nor the event enabled in user space. */
	g_assert_cmpstr(tc_event_rule_key(python), ==, key);
	g_assert_cmpstr(tc_event_rule_key(python_level), ==, key);
	g_assert_cmpstr(tc_event_rule_key(jul), !=, key);
	g_assert_cmpstr(tc_event_rule_key(ust), ==, "lttng_python:event");
	g_assert_false(tc_event_rule_equal(python, python_level));
	g_assert_false(tc_event_rule_equal(python, jul));
	g_assert_cmpstr(described, ==, "python logger x loglevel >= 20");
}

static void
assert_refused(TcAgentDomain domain, const char *logger, const TcEventRuleSpec *extra,
	       const char *message)
{
	TcEventRuleSpec spec = extra ? *extra : (TcEventRuleSpec){.loglevel = -1};
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = NULL;

	spec.pattern = logger;
	rule = tc_agent_rule_new(domain, &spec, &error);
	g_assert_null(rule);
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_cmpstr(error->message, ==, message);
}

static void
test_refused(void)
{
	g_autofree char *long_name = g_strnfill(TC_AGENT_NAME_MAX, 'a');
	const char *const exclusions[] = {"x*", NULL};
	TcEventRuleSpec excluding = {.loglevel = -1, .exclusions = exclusions};
	TcEventRuleSpec only = {.loglevel = -1, .loglevel_only = TRUE};
	TcEventRuleSpec bad_filter = {.loglevel = -1, .filter = "msg =="};
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = NULL;

	assert_refused(TC_AGENT_DOMAIN_PYTHON, "", NULL, "A logger name is 1 to 255 bytes of UTF-8");
	assert_refused(TC_AGENT_DOMAIN_PYTHON, long_name, NULL,
		       "A logger name is 1 to 255 bytes of UTF-8");
	assert_refused(TC_AGENT_DOMAIN_PYTHON, "\xff", NULL,
		       "A logger name is 1 to 255 bytes of UTF-8");
	assert_refused(TC_AGENT_DOMAIN_JUL, "a\nb", NULL,
		       "A logger name holds no control character");
	assert_refused(TC_AGENT_DOMAIN_JUL, "a\xc2\x9b" "b", NULL,
		       "A logger name holds no control character");
	assert_refused(TC_AGENT_DOMAIN_LOG4J, "a*", &excluding,
		       "Exclusions are for the user-space domain, not for log4j loggers");
	assert_refused(TC_AGENT_DOMAIN_PYTHON, "a", &only, "'loglevel-only' needs a 'loglevel'");
	/* The caller's filter is parsed alone: the error is about its text. */
	rule = tc_agent_rule_new(TC_AGENT_DOMAIN_PYTHON, &(TcEventRuleSpec){.pattern = "a",
					     .loglevel = -1, .filter = bad_filter.filter},
				 &error);
	g_assert_null(rule);
	g_assert_nonnull(error);
	g_assert_null(strstr(error->message, "logger_name"));
	g_clear_error(&error);
	rule = tc_agent_rule_new(2 /* user space */, &(TcEventRuleSpec){.pattern = "a",
								       .loglevel = -1},
				 &error);
	g_assert_null(rule);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/agent-rule/filters", test_filters);
	g_test_add_func("/agent-rule/keys", test_keys);
	g_test_add_func("/agent-rule/refused", test_refused);
	return g_test_run();
}
