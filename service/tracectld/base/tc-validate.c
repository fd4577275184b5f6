/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-validate.h"

#include <string.h>

#include "tc-error.h"
#include "tc-kernel-names.h"
#include "tracectl-abi.h"

static gboolean
is_name_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

gboolean
tc_validate_name(const char *what, const char *name, GError **error)
{
	size_t len = strlen(name);

	if (len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "The %s name is empty",
			    what);
		return FALSE;
	}
	if (len > TC_NAME_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The %s name is %zu characters long, the limit is %d", what, len,
			    TC_NAME_MAX);
		return FALSE;
	}
	if (name[0] == '.') {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The %s name '%s' starts with a dot", what, name);
		return FALSE;
	}
	for (const char *p = name; *p; p++) {
		if (!is_name_char(*p)) {
			g_autofree char *shown = g_strescape(name, NULL);

			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The %s name '%s' contains '%c'; use letters, digits, "
				    "'_', '.' and '-'",
				    what, shown, g_ascii_isprint(*p) ? *p : '?');
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
tc_validate_pattern(const char *pattern, GError **error)
{
	size_t len = strlen(pattern);

	if (len == 0 || len > TC_PATTERN_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The event pattern must be 1 to %d characters long", TC_PATTERN_MAX);
		return FALSE;
	}
	for (const char *p = pattern; *p; p++) {
		if (!is_name_char(*p) && *p != ':' && *p != '*') {
			g_autofree char *shown = g_strescape(pattern, NULL);

			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The event pattern '%s' contains '%c'; use "
				    "'provider:event' with letters, digits, '_', '.', '-' and '*'",
				    shown, g_ascii_isprint(*p) ? *p : '?');
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
tc_validate_output_directory(const char *path, GError **error)
{
	g_auto(GStrv) parts = NULL;

	if (!g_path_is_absolute(path)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The output directory '%s' is not an absolute path", path);
		return FALSE;
	}
	if (strlen(path) > 3000 || !g_utf8_validate(path, -1, NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The output directory is too long or not valid UTF-8");
		return FALSE;
	}
	parts = g_strsplit(path, "/", -1);
	for (guint i = 0; parts[i]; i++) {
		if (g_str_equal(parts[i], "..") || g_str_equal(parts[i], ".")) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "The output directory '%s' contains '%s'", path, parts[i]);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
is_event_part(const char *start, size_t len)
{
	if (len == 0)
		return FALSE;
	for (size_t i = 0; i < len; i++)
		if (!is_name_char(start[i]))
			return FALSE;
	return TRUE;
}

gboolean
tc_validate_event_name(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t len = strnlen(name, TRACECTL_ABI_EVENT_NAME_MAX);

	if (len == 0 || len >= TRACECTL_ABI_EVENT_NAME_MAX || colon == NULL)
		return FALSE;
	return is_event_part(name, colon - name) &&
	       is_event_part(colon + 1, len - (colon - name) - 1);
}

gboolean
tc_validate_field_name(const char *name)
{
	size_t len = strnlen(name, TRACECTL_ABI_FIELD_NAME_MAX);

	if (len == 0 || len >= TRACECTL_ABI_FIELD_NAME_MAX || !g_ascii_isalpha(name[0]))
		return FALSE;
	for (size_t i = 1; i < len; i++)
		if (!g_ascii_isalnum(name[i]) && name[i] != '_')
			return FALSE;
	return TRUE;
}

/* "'\n' (0x0a) at position 12": the character as C would escape it. */
static char *
describe_position(const char *text, size_t position)
{
	unsigned char c = (unsigned char)text[position];
	char one[2] = {(char)c, '\0'};
	g_autofree char *shown = NULL;

	if (c == '\0')
		return g_strdup_printf("the end at position %zu", position);
	shown = g_strescape(one, NULL);
	if (c >= 0x80 || !g_ascii_isprint(c))
		return g_strdup_printf("'%s' (0x%02x) at position %zu", shown, c, position);
	return g_strdup_printf("'%s' at position %zu", shown, position);
}

/* The error of a check of tc-kernel-names.h that failed. */
static gboolean
kernel_string_refused(const char *what, const char *text, const char *why, size_t position,
		      GError **error)
{
	g_autofree char *shown = g_strescape(text, NULL);
	g_autofree char *where = describe_position(text, position);

	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "The %s '%.300s' is refused at %s: %s", what, shown, where, why);
	return FALSE;
}

gboolean
tc_validate_kernel_probe(guint32 kind, const char *name, const char *location, GError **error)
{
	size_t position;
	const char *why = tc_kernel_check_probe_name(name, &position);

	if (why)
		return kernel_string_refused("probe name", name, why, position, error);
	switch (kind) {
	case TC_KERNEL_PROBE_KPROBE:
	case TC_KERNEL_PROBE_KRETPROBE:
		why = tc_kernel_check_kprobe_location(location, &position);
		return !why || kernel_string_refused("kprobe location", location, why, position,
						     error);
	case TC_KERNEL_PROBE_UPROBE:
		why = tc_kernel_check_uprobe_location(location, &position);
		return !why || kernel_string_refused("uprobe location", location, why, position,
						     error);
	default:
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Unknown probe kind %u",
			    kind);
		return FALSE;
	}
}

gboolean
tc_validate_kernel_event(const char *pattern, GError **error)
{
	const char *colon = strchr(pattern, ':');
	g_autofree char *system = NULL;
	size_t position;
	const char *why;

	/* LTTng's bare name, which the session operation looks up among the
	 * machine's events (tc-kernel-event-name.h). */
	if (!colon) {
		why = tc_kernel_check_event_name(pattern, &position);
		return !why || kernel_string_refused("kernel event name", pattern, why, position,
						     error);
	}
	system = g_strndup(pattern, colon - pattern);
	why = tc_kernel_check_event_name(system, &position);
	if (!why) {
		why = tc_kernel_check_event_name(colon + 1, &position);
		position += colon + 1 - pattern;
	}
	return !why || kernel_string_refused("kernel event pattern 'system:event'", pattern, why,
					     position, error);
}
