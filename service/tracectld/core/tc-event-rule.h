/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-filter.h"

/*
 * What one EnableEvent or EnableEventWithOptions call asks a channel to
 * record: a pattern, and optionally a log level (that level and more
 * severe ones, or that level only), patterns excluded from it and a filter.
 * Log levels and exclusions are decided here, when the service chooses
 * which events of an application to enable, so that they cost the
 * tracepoint nothing; only filters reach the application.
 */

#define TC_EVENT_RULE_EXCLUSIONS_MAX 32
/* Rules per channel: every application sync weighs each rule against each
 * event, and compiles the filters of those that select it, in a worker
 * thread that other users' requests share. */
#define TC_EVENT_RULES_PER_CHANNEL_MAX 1024

/* LTTng's lttng_loglevel_type, as the agent protocol carries it. */
typedef enum {
	TC_AGENT_LOGLEVEL_ALL = 0,
	TC_AGENT_LOGLEVEL_RANGE = 1,
	TC_AGENT_LOGLEVEL_SINGLE = 2,
} TcAgentLoglevelType;

/* What an agent's rule was asked for (tc-agent-rule.h). */
typedef struct {
	int domain;		   /* TcAgentDomain */
	const char *domain_name;   /* static */
	char *logger;		   /* the name or pattern ("*": every logger) */
	char *filter_text;	   /* the caller's filter, or NULL */
	int loglevel;		   /* the agent's own numbering (Python: 10..50) */
	TcAgentLoglevelType loglevel_type;
	char *key;		   /* tc_event_rule_key() */
} TcAgentRule;

typedef struct {
	char *pattern;
	int loglevel; /* -1: any level */
	gboolean loglevel_only;
	char **exclusions; /* NULL-terminated, never NULL */
	char *filter_text; /* NULL: no filter */
	TcFilterExpr *filter;
	/* The filter in LTTng-UST's bytecode (tc_filter_lttng_compile()),
	 * relocations from lttng_reloc_offset; or, for a filter LTTng-UST
	 * cannot evaluate, NULL and why in lttng_refusal (the rule still
	 * serves tracectl's own applications). Both NULL: no filter. */
	GBytes *lttng_filter;
	guint32 lttng_reloc_offset;
	char *lttng_refusal;
	/* An agent's rule (tc-agent-rule.h): NULL for any other. */
	TcAgentRule *agent;
} TcEventRule;

/*
 * What a rule is asked for, as a front end read it: EnableEventWithOptions'
 * options (bus/tc-dbus-event-rule.c) or a session file's event (the
 * auto-loading). The strings are borrowed; nothing in it is checked yet.
 */
typedef struct {
	const char *pattern;
	gboolean has_loglevel;
	int loglevel; /* when has_loglevel, not yet checked to be a level */
	gboolean loglevel_only;
	const char *const *exclusions; /* NULL-terminated, or NULL: none */
	const char *filter;	       /* NULL: no filter */
} TcEventRuleSpec;

/* A rule that records every event matching pattern. */
TcEventRule *tc_event_rule_new(const char *pattern);
/*
 * The rule of spec. Refuses log levels outside 0..14, 'loglevel-only'
 * without a log level, more than TC_EVENT_RULE_EXCLUSIONS_MAX exclusions,
 * exclusions that are not patterns or come with a pattern without '*',
 * and filters that do not parse (the message names the column). The
 * pattern itself is the caller's to check (user space and kernel differ).
 */
TcEventRule *tc_event_rule_new_from_spec(const TcEventRuleSpec *spec, GError **error);
void tc_event_rule_free(TcEventRule *rule);
void tc_event_rule_free_agent(TcAgentRule *agent);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcEventRule, tc_event_rule_free)

/* Same pattern, log level, exclusions and filter text. */
gboolean tc_event_rule_equal(const TcEventRule *a, const TcEventRule *b);
/* Whether the rule selects an event of this name and log level (its
 * filter aside). */
gboolean tc_event_rule_selects(const TcEventRule *rule, const char *name, int loglevel);
/* What disable-event names the rule by: its pattern, or for an agent's
 * rule its domain and logger (tc_agent_rule_key()). */
const char *tc_event_rule_key(const TcEventRule *rule);
/* "pattern [loglevel <= N] [exclude a,b] [filter 'text']", for logs. */
char *tc_event_rule_describe(const TcEventRule *rule);
