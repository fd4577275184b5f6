/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lttng-modules names a kernel event without its system ("sched_switch"),
 * tracefs with it ("sched:sched_switch"). A bare name is looked up in the
 * machine's events under both the tracefs name and LTTng's, so that what
 * LTTng users type names what they expect; a name that two systems share
 * is refused rather than guessed. A glob keeps its meaning, every event
 * whose name matches, written as few tracefs patterns as say exactly
 * that: per system, the glob itself or its LTTng prefix turned into
 * tracefs' when it matches the same events, "system:*" when it matches
 * them all, else the events one by one.
 */
#include "tc-kernel-event-name.h"

#include <string.h>

#include "tc-error.h"
#include "tc-kernel-lttng-name.h"
#include "tc-kernel-abi.h"

/* Candidates listed in a refusal, at most. */
#define SHOWN_MAX 8u

typedef struct {
	char *system;
	GPtrArray *events;  /* char *, the system's events (tracefs names) */
	GPtrArray *matched; /* char *, those pattern matches */
} SystemMatch;

static void
system_match_free(SystemMatch *match)
{
	g_free(match->system);
	g_ptr_array_unref(match->events);
	g_ptr_array_unref(match->matched);
	g_free(match);
}

static gboolean
name_matches(const char *pattern, const char *system, const char *event)
{
	char lttng[2 * TC_KERNEL_NAME_MAX + 32];

	return g_pattern_match_simple(pattern, event) ||
	       (tc_kernel_lttng_name_of(system, event, lttng, sizeof(lttng)) &&
		g_pattern_match_simple(pattern, lttng));
}

/* Whether the tracefs glob matches exactly the system's matched events. */
static gboolean
covers(const char *glob, const SystemMatch *match)
{
	guint n = 0;

	for (guint i = 0; i < match->events->len; i++)
		if (g_pattern_match_simple(glob, g_ptr_array_index(match->events, i)))
			n++;
	if (n != match->matched->len)
		return FALSE;
	for (guint i = 0; i < match->matched->len; i++)
		if (!g_pattern_match_simple(glob, g_ptr_array_index(match->matched, i)))
			return FALSE;
	return TRUE;
}

/* The systems, each with its events and those pattern matches. */
static GPtrArray *
match_systems(const char *pattern, const char *const *events, const char *own_group)
{
	g_autoptr(GHashTable) by_name = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *systems = g_ptr_array_new_with_free_func((GDestroyNotify)system_match_free);

	for (guint i = 0; events[i]; i++) {
		const char *colon = strchr(events[i], ':');
		g_autofree char *system = NULL;
		SystemMatch *match;

		if (!colon || colon == events[i] || !colon[1])
			continue;
		system = g_strndup(events[i], colon - events[i]);
		if (g_str_has_prefix(system, "tracectl_") && g_strcmp0(system, own_group) != 0)
			continue;
		match = g_hash_table_lookup(by_name, system);
		if (!match) {
			match = g_new0(SystemMatch, 1);
			match->system = g_steal_pointer(&system);
			match->events = g_ptr_array_new_with_free_func(g_free);
			match->matched = g_ptr_array_new_with_free_func(g_free);
			g_hash_table_insert(by_name, match->system, match);
			g_ptr_array_add(systems, match);
		}
		g_ptr_array_add(match->events, g_strdup(colon + 1));
		if (name_matches(pattern, match->system, colon + 1))
			g_ptr_array_add(match->matched, g_strdup(colon + 1));
	}
	return systems;
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name without '*': the one event it names. */
static GPtrArray *
resolve_name(const char *pattern, GPtrArray *systems, GError **error)
{
	g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) shown = g_string_new(NULL);

	for (guint i = 0; i < systems->len; i++) {
		const SystemMatch *match = g_ptr_array_index(systems, i);

		for (guint j = 0; j < match->matched->len; j++)
			g_ptr_array_add(found, g_strdup_printf("%s:%s", match->system,
							       (char *)g_ptr_array_index(
								   match->matched, j)));
	}
	if (found->len == 1)
		return g_steal_pointer(&found);
	if (found->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "No kernel event named '%s' on this machine ('tracectl list -k' "
			    "lists them)",
			    pattern);
		return NULL;
	}
	g_ptr_array_sort(found, compare_strings);
	for (guint i = 0; i < found->len && i < SHOWN_MAX; i++)
		g_string_append_printf(shown, "%s%s", i ? ", " : "",
				       (char *)g_ptr_array_index(found, i));
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Kernel event name '%s' is ambiguous: %u events have it (%s%s); name one "
		    "as 'system:event'",
		    pattern, found->len, shown->str, found->len > SHOWN_MAX ? ", ..." : "");
	return NULL;
}

/* A glob: per system, the fewest patterns that match what it matches. */
static GPtrArray *
resolve_glob(const char *pattern, GPtrArray *systems, GError **error)
{
	g_autoptr(GPtrArray) patterns = g_ptr_array_new_with_free_func(g_free);
	guint n_events = 0;

	for (guint i = 0; i < systems->len; i++) {
		const SystemMatch *match = g_ptr_array_index(systems, i);
		char glob[TC_KERNEL_NAME_MAX + 32];

		if (match->matched->len == 0)
			continue;
		n_events += match->matched->len;
		if (covers(pattern, match)) {
			g_ptr_array_add(patterns, g_strdup_printf("%s:%s", match->system, pattern));
		} else if (tc_kernel_lttng_name_tracefs_glob(match->system, pattern, glob,
							     sizeof(glob)) &&
			   covers(glob, match)) {
			g_ptr_array_add(patterns, g_strdup_printf("%s:%s", match->system, glob));
		} else if (match->matched->len == match->events->len) {
			g_ptr_array_add(patterns, g_strdup_printf("%s:*", match->system));
		} else {
			for (guint j = 0; j < match->matched->len; j++)
				g_ptr_array_add(patterns, g_strdup_printf(
								  "%s:%s", match->system,
								  (char *)g_ptr_array_index(
								      match->matched, j)));
		}
	}
	if (patterns->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "No kernel event matches '%s' on this machine ('tracectl list -k' "
			    "lists them)",
			    pattern);
		return NULL;
	}
	if (patterns->len > TC_KERNEL_EVENT_NAME_PATTERNS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Kernel events '%s' match %u events that take %u patterns, more than "
			    "%u: give 'system:event' globs",
			    pattern, n_events, patterns->len, TC_KERNEL_EVENT_NAME_PATTERNS_MAX);
		return NULL;
	}
	return g_steal_pointer(&patterns);
}

GPtrArray *
tc_kernel_event_name_resolve(const char *pattern, const char *const *events,
			     const char *own_group, GError **error)
{
	g_autoptr(GPtrArray) systems = NULL;

	g_return_val_if_fail(strchr(pattern, ':') == NULL, NULL);
	/* Every event: what the client sends for -a. */
	if (g_str_equal(pattern, "*")) {
		GPtrArray *all = g_ptr_array_new_with_free_func(g_free);

		g_ptr_array_add(all, g_strdup("*:*"));
		return all;
	}
	systems = match_systems(pattern, events, own_group);
	return strchr(pattern, '*') ? resolve_glob(pattern, systems, error)
				    : resolve_name(pattern, systems, error);
}
