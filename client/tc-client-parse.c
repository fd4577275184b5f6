/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "tc-client.h"

gboolean
tc_client_parse_size(const char *text, guint64 *size)
{
	guint64 value, multiplier = 1;
	char *end;

	if (text == NULL || !g_ascii_isdigit(*text))
		return FALSE;
	value = g_ascii_strtoull(text, &end, 10);
	if (end == text)
		return FALSE;
	switch (g_ascii_tolower(*end)) {
	case '\0':
		break;
	case 'k':
		multiplier = 1024;
		end++;
		break;
	case 'm':
		multiplier = 1024 * 1024;
		end++;
		break;
	case 'g':
		multiplier = 1024 * 1024 * 1024;
		end++;
		break;
	default:
		return FALSE;
	}
	if (*end != '\0' || value > G_MAXUINT64 / multiplier)
		return FALSE;
	*size = value * multiplier;
	return TRUE;
}

gboolean
tc_client_is_power_of_two(guint64 value)
{
	return value != 0 && (value & (value - 1)) == 0;
}

/* "a,b,,c" -> {"a", "b", "c"}; empty items are dropped. */
char **
tc_client_split_patterns(const char *list)
{
	g_auto(GStrv) parts = g_strsplit(list, ",", -1);
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; parts[i]; i++)
		if (*parts[i])
			g_ptr_array_add(out, g_strdup(parts[i]));
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

char *
tc_client_read_session_from_rc(const char *contents)
{
	g_auto(GStrv) lines = g_strsplit(contents ? contents : "", "\n", -1);

	for (guint i = 0; lines[i]; i++) {
		const char *line = g_strstrip(lines[i]);

		if (g_str_has_prefix(line, "session=") && line[8] != '\0')
			return g_strdup(line + 8);
	}
	return NULL;
}

/* The rc file with its session line replaced (removed when name is NULL),
 * keeping every other line. */
char *
tc_client_rc_with_session(const char *contents, const char *name)
{
	g_auto(GStrv) lines = g_strsplit(contents ? contents : "", "\n", -1);
	GString *out = g_string_new(NULL);

	for (guint i = 0; lines[i]; i++) {
		if (*lines[i] == '\0' || g_str_has_prefix(g_strstrip(lines[i]), "session="))
			continue;
		g_string_append_printf(out, "%s\n", lines[i]);
	}
	if (name)
		g_string_append_printf(out, "session=%s\n", name);
	return g_string_free(out, FALSE);
}

/*
 * Kernel patterns: "system:event" as given, or with syscall, NAME becomes
 * its entry and exit events, "syscalls:sys_enter_NAME" and
 * "syscalls:sys_exit_NAME".
 */
char **
tc_client_kernel_patterns(const char *list, gboolean syscall)
{
	g_auto(GStrv) names = tc_client_split_patterns(list);
	GPtrArray *patterns = g_ptr_array_new();

	for (guint i = 0; names[i]; i++) {
		if (!syscall) {
			g_ptr_array_add(patterns, g_strdup(names[i]));
			continue;
		}
		g_ptr_array_add(patterns, g_strdup_printf("syscalls:sys_enter_%s", names[i]));
		g_ptr_array_add(patterns, g_strdup_printf("syscalls:sys_exit_%s", names[i]));
	}
	g_ptr_array_add(patterns, NULL);
	return (char **)g_ptr_array_free(patterns, FALSE);
}
