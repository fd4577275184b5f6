/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-agent-domain.h"
#include "tc-event-rule.h"

/*
 * A rule of an LTTng agent's domain: Python's logging (python3-lttngust),
 * Java's java.util.logging and log4j (liblttng-ust-agent-java). An agent
 * turns each log record into one LTTng-UST event, "lttng_python:event"
 * and the like, whose fields carry the logger's name and the record's
 * level; which loggers a session records is thus a filter on that event,
 * as lttng-tools builds it: logger_name == "NAME" (unless NAME is "*"),
 * int_loglevel >= LEVEL (or == for one level only), and the caller's
 * filter, all joined by &&. The rule is recorded like any other user-space
 * rule of the default channel; the agent is only told, through LTTng's
 * agent protocol, which loggers are enabled (tc-agents.h).
 */

/* The agent protocol's names are at most this long, NUL included. */
#define TC_AGENT_NAME_MAX 256

/*
 * The rule recording domain's loggers named spec->pattern (a name or a
 * pattern with '*', at most TC_AGENT_NAME_MAX - 1 bytes of UTF-8 without
 * control characters), with spec's log level in the agent's numbering
 * (any int) and filter. Exclusions are refused, as lttng does for
 * agents.
 */
TcEventRule *tc_agent_rule_new(TcAgentDomain domain, const TcEventRuleSpec *spec,
			       GError **error);
/* The key disable-event finds domain's rules of logger by. */
char *tc_agent_rule_key(TcAgentDomain domain, const char *logger);
