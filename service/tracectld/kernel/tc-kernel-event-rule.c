/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-kernel-event-rule.h"

#include "tc-error.h"
#include "tc-filter.h"
#include "tc-session-kernel.h"

gboolean
tc_kernel_event_rule_check(const TcEventRuleSpec *spec, char **tracefs_filter, GError **error)
{
	g_autoptr(TcEventRule) rule = NULL;

	*tracefs_filter = NULL;
	if (!tc_session_kernel_validate_event(spec->pattern, error))
		return FALSE;
	rule = tc_event_rule_new_from_spec(spec, error);
	if (rule == NULL)
		return FALSE;
	if (rule->loglevel >= 0 || rule->exclusions[0] != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Kernel event '%s': kernel events have no log levels nor exclusions",
			    spec->pattern);
		return FALSE;
	}
	if (rule->filter == NULL)
		return TRUE;
	*tracefs_filter = tc_filter_to_tracefs(rule->filter, error);
	return *tracefs_filter != NULL;
}
