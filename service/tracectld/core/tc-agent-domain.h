/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * The domains of LTTng's agents: Python's logging (python3-lttngust),
 * java.util.logging and log4j (liblttng-ust-agent-java), each with the
 * LTTng-UST event its agent records.
 */

/* LTTng's numbers for the domains (lttng_domain_type), which the agents
 * send in their registration. */
typedef enum {
	TC_AGENT_DOMAIN_JUL = 3,
	TC_AGENT_DOMAIN_LOG4J = 4,
	TC_AGENT_DOMAIN_PYTHON = 5,
} TcAgentDomain;

/* "jul", "log4j", "python"; NULL for another number. */
const char *tc_agent_domain_name(TcAgentDomain domain);
/* The domain of a name given on the bus; FALSE for another name. */
gboolean tc_agent_domain_from_name(const char *name, TcAgentDomain *domain);
/* The event the domain's agent records: "lttng_python:event"... */
const char *tc_agent_domain_event(TcAgentDomain domain);
