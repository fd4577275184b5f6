/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-rule"

#include "tc-agent-domain.h"

static const struct {
	TcAgentDomain domain;
	const char *name;
	const char *event;
} domains[] = {
	{TC_AGENT_DOMAIN_JUL, "jul", "lttng_jul:event"},
	{TC_AGENT_DOMAIN_LOG4J, "log4j", "lttng_log4j:event"},
	{TC_AGENT_DOMAIN_PYTHON, "python", "lttng_python:event"},
};

const char *
tc_agent_domain_name(TcAgentDomain domain)
{
	for (guint i = 0; i < G_N_ELEMENTS(domains); i++)
		if (domains[i].domain == domain)
			return domains[i].name;
	return NULL;
}

gboolean
tc_agent_domain_from_name(const char *name, TcAgentDomain *domain)
{
	for (guint i = 0; i < G_N_ELEMENTS(domains); i++)
		if (g_str_equal(domains[i].name, name)) {
			*domain = domains[i].domain;
			return TRUE;
		}
	return FALSE;
}

const char *
tc_agent_domain_event(TcAgentDomain domain)
{
	for (guint i = 0; i < G_N_ELEMENTS(domains); i++)
		if (domains[i].domain == domain)
			return domains[i].event;
	return NULL;
}
