/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-event-rule.h"

/*
 * What EnableEventWithOptions in domain "kernel" and a loaded session
 * file's kernel events are both checked against, before polkit or the
 * helper is asked anything: a valid tracepoint pattern, no log level
 * nor exclusion (kernel events have neither), and a filter tracefs can
 * express.
 */

/* TRUE with *tracefs_filter spec's filter in tracefs syntax, or NULL
 * when it has none. */
gboolean tc_kernel_event_rule_check(const TcEventRuleSpec *spec, char **tracefs_filter,
				    GError **error);
