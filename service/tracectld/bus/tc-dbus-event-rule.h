/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-event-rule.h"

/*
 * EnableEventWithOptions' option dictionary ("loglevel" i, "loglevel-only"
 * b, "exclude" as, "filter" s) read into a TcEventRuleSpec, which the
 * layers below check: an unknown option, or a known one of another type,
 * is refused here, naming it.
 */

/* The user-space rule of pattern (checked by the caller) with options. */
TcEventRule *tc_dbus_event_rule_new(const char *pattern, GVariant *options, GError **error);

/* The agent's rule (tc-agent-rule.h) of domain for logger with options
 * (NULL: none). */
TcEventRule *tc_dbus_event_rule_new_agent(int domain, const char *logger, GVariant *options,
					  GError **error);

/* tc_kernel_event_rule_check() of pattern with options: TRUE with
 * *tracefs_filter the filter in tracefs syntax, or NULL when none. */
gboolean tc_dbus_event_rule_check_kernel(const char *pattern, GVariant *options,
					 char **tracefs_filter, GError **error);
