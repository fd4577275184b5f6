/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "tc-client.h"

gboolean
tc_client_parse_period(const char *text, guint64 *microseconds)
{
	static const struct {
		const char *unit;
		guint64 us;
	} units[] = {
		{"", 1}, {"us", 1}, {"ms", 1000}, {"s", G_GUINT64_CONSTANT(1000000)},
		{"m", G_GUINT64_CONSTANT(60000000)}, {"h", G_GUINT64_CONSTANT(3600000000)},
	};
	guint64 value;
	char *end;

	if (text == NULL || !g_ascii_isdigit(*text))
		return FALSE;
	value = g_ascii_strtoull(text, &end, 10);
	for (guint i = 0; i < G_N_ELEMENTS(units); i++) {
		if (g_str_equal(end, units[i].unit)) {
			if (value > G_MAXUINT64 / units[i].us)
				return FALSE;
			*microseconds = value * units[i].us;
			return TRUE;
		}
	}
	return FALSE;
}

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

/* A value of a D-Bus address (the D-Bus specification, "Server Addresses"):
 * the optionally-escaped bytes, or %XX. A NUL, even escaped, is refused. */
static gboolean
is_address_value(const char *value)
{
	if (*value == '\0')
		return FALSE;
	for (const char *c = value; *c; c++) {
		if (*c == '%') {
			if (!g_ascii_isxdigit(c[1]) || !g_ascii_isxdigit(c[2]) ||
			    (c[1] == '0' && c[2] == '0'))
				return FALSE;
			c += 2;
		} else if (!g_ascii_isalnum(*c) && !strchr("-_/.\\*", *c)) {
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
is_guid(const char *value)
{
	if (strlen(value) != 32)
		return FALSE;
	for (const char *c = value; *c; c++)
		if (!g_ascii_isxdigit(*c))
			return FALSE;
	return TRUE;
}

gboolean
tc_client_check_bus_address(const char *address, GError **error)
{
	g_auto(GStrv) pairs = NULL;
	gboolean has_path = FALSE, has_guid = FALSE;

	/* GDBus would also try every other address after a ';', run the program
	 * of a unixexec: one, or connect anywhere a tcp: one says. */
	if (!g_str_has_prefix(address, "unix:")) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "only 'unix:path=' bus addresses are accepted, not '%.64s'", address);
		return FALSE;
	}
	pairs = g_strsplit(address + strlen("unix:"), ",", -1);
	for (guint i = 0; pairs[i]; i++) {
		const char *pair = pairs[i];

		if (g_str_has_prefix(pair, "path=") && !has_path && pair[strlen("path=")] == '/' &&
		    is_address_value(pair + strlen("path="))) {
			has_path = TRUE;
		} else if (g_str_has_prefix(pair, "guid=") && !has_guid &&
			   is_guid(pair + strlen("guid="))) {
			has_guid = TRUE;
		} else {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "only 'unix:path=/…[,guid=…]' bus addresses are accepted; "
				    "refusing '%.64s' in '%.64s'",
				    pair, address);
			return FALSE;
		}
	}
	if (!has_path) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "the bus address '%.64s' has no 'path='", address);
		return FALSE;
	}
	return TRUE;
}

/* A user or host name for ssh: letters, digits and ._- (a host also ':'
 * inside brackets, for IPv6, and '%' for a zone), never starting with
 * '-', which ssh could take for an option. */
static gboolean
is_ssh_name(const char *text, gsize length, const char *extra)
{
	if (length == 0 || text[0] == '-')
		return FALSE;
	for (gsize i = 0; i < length; i++)
		if (!g_ascii_isalnum(text[i]) && !strchr("._-", text[i]) &&
		    !(extra && strchr(extra, text[i])))
			return FALSE;
	return TRUE;
}

gboolean
tc_client_parse_host(const char *text, char **destination, char **port, GError **error)
{
	const char *at = strchr(text, '@');
	const char *host = at ? at + 1 : text;
	const char *end, *colon;
	g_autofree char *user = NULL;
	g_autofree char *name = NULL;
	guint64 number = 0;

	if (at && !is_ssh_name(text, at - text, NULL))
		goto invalid;
	if (*host == '[') {
		end = strchr(host, ']');
		if (end == NULL || !is_ssh_name(host + 1, end - host - 1, ":%"))
			goto invalid;
		name = g_strndup(host + 1, end - host - 1);
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			goto invalid;
	} else {
		colon = strchr(host, ':');
		end = colon ? colon : host + strlen(host);
		if (!is_ssh_name(host, end - host, NULL))
			goto invalid;
		name = g_strndup(host, end - host);
	}
	if (colon && (!g_ascii_string_to_unsigned(colon + 1, 10, 1, G_MAXUINT16, &number, NULL) ||
		      !g_ascii_isdigit(colon[1])))
		goto invalid;
	user = at ? g_strndup(text, at - text) : NULL;
	*destination = user ? g_strdup_printf("%s@%s", user, name) : g_steal_pointer(&name);
	*port = colon ? g_strdup_printf("%u", (unsigned)number) : NULL;
	return TRUE;

invalid:
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "'%s' is not [USER@]HOST[:PORT] (an IPv6 address in brackets: [ADDRESS])",
		    text);
	return FALSE;
}
