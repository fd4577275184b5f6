/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The log levels of LTTng's agents, as their libraries number them and
 * lttng names them ("PYTHON_WARNING", "JUL_SEVERE", "LOG4J_WARN"): read
 * by enable-event, shown by list and list SESSION. */
#include <string.h>

#include "tc-client.h"

typedef struct {
	const char *name;
	int value;
} AgentLevel;

static const AgentLevel python_levels[] = {
	{"CRITICAL", 50}, {"ERROR", 40}, {"WARNING", 30}, {"INFO", 20}, {"DEBUG", 10},
	{"NOTSET", 0},	  {NULL, 0},
};
static const AgentLevel jul_levels[] = {
	{"OFF", G_MAXINT32}, {"SEVERE", 1000}, {"WARNING", 900}, {"INFO", 800},
	{"CONFIG", 700},     {"FINE", 500},    {"FINER", 400},	 {"FINEST", 300},
	{"ALL", G_MININT32}, {NULL, 0},
};
static const AgentLevel log4j_levels[] = {
	{"OFF", G_MAXINT32}, {"FATAL", 50000}, {"ERROR", 40000}, {"WARN", 30000},
	{"INFO", 20000},     {"DEBUG", 10000}, {"TRACE", 5000},	 {"ALL", G_MININT32},
	{NULL, 0},
};

static const AgentLevel *
agent_levels(const char *domain)
{
	return g_str_equal(domain, "python") ? python_levels
	       : g_str_equal(domain, "jul")  ? jul_levels
					     : log4j_levels;
}

gboolean
tc_client_agent_level_parse(const char *domain, const char *text, int *level)
{
	g_autofree char *prefix = g_strdup_printf("%s_", domain);
	const char *name = g_ascii_strncasecmp(text, prefix, strlen(prefix)) == 0
				   ? text + strlen(prefix)
				   : text;
	char *end = NULL;
	gint64 value;

	for (const AgentLevel *known = agent_levels(domain); known->name; known++)
		if (g_ascii_strcasecmp(name, known->name) == 0) {
			*level = known->value;
			return TRUE;
		}
	value = g_ascii_strtoll(text, &end, 10);
	if (!*text || !end || *end || value < G_MININT32 || value > G_MAXINT32)
		return FALSE;
	*level = (int)value;
	return TRUE;
}

char *
tc_client_agent_level_name(const char *domain, int level)
{
	g_autofree char *prefix = g_ascii_strup(domain, -1);

	for (const AgentLevel *known = agent_levels(domain); known->name; known++)
		if (known->value == level)
			return g_strdup_printf("%s_%s", prefix, known->name);
	return g_strdup_printf("%d", level);
}
