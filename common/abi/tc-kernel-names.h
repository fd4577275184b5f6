/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The alphabet of every user string that reaches the kernel helper, in one
 * place so that tracectld (which names the fault to the caller) and the
 * helper (which trusts nobody, tracectld included) check the same thing.
 *
 * The helper writes these strings into tracefs files whose syntax is a
 * command language: whitespace separates arguments, a newline starts a new
 * command, '#' a comment, ':' the offset of a location, '(' ')' a
 * reference counter, '%' '$' '@' '+' fetch arguments, '-:' removes an
 * event. Each alphabet below is the smallest one real names need, and
 * holds none of the characters that could end the token they are in:
 *
 *   probe names          [A-Za-z_][A-Za-z0-9_]*, as the kernel's own check
 *   event and system     [A-Za-z0-9_*] (globs), as tracefs names them
 *   kprobe location      symbol[+offset] or 0xADDRESS: [A-Za-z0-9_.+]
 *                        ('.' for the compiler's foo.cold, foo.isra.0)
 *   uprobe path          absolute, [A-Za-z0-9/._+@-], no empty, '.' or '..'
 *                        component (so '//', '/./', '/../' are refused)
 *   event filter         [A-Za-z0-9 _()!<>=&|~*"./:,@+-], 1 to 255 bytes:
 *                        the tracefs filter syntax tracectld translates to
 *                        (tc-filter-kernel.c), string constants included;
 *                        no newline (one file write is one filter), no
 *                        backslash, no '#' nor '%' nor '$'. The kernel
 *                        parses the rest and refuses what it cannot
 *   uprobe function      [A-Za-z0-9_.@$]: C and mangled C++ names, the
 *                        compiler's '.' suffixes, symbol versions ('@')
 *                        and Rust's legacy mangling ('$'); the helper only
 *                        compares it with the file's symbols, the kernel
 *                        never sees it
 *
 * Each check returns NULL when text is acceptable, or the rule it breaks,
 * with *position the index of the first character at fault (the length
 * for a string that ends too early). Plain C: the helper has no GLib.
 */
#ifndef TC_KERNEL_NAMES_H
#define TC_KERNEL_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tc-kernel-abi.h"

#define TC_KERNEL_PROBE_NAME_MAX 63u /* sizeof(tc_kernel_probe_msg.name) - 1 */

static inline bool
tc_kernel_is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The first character of text[0..len) not in the alphabet, or len. */
static inline size_t
tc_kernel_span(const char *text, size_t len, const char *extra)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!tc_kernel_is_alnum(text[i]) && (text[i] == '\0' || !strchr(extra, text[i])))
			break;
	return i;
}

static inline const char *
tc_kernel_check_probe_name(const char *name, size_t *position)
{
	size_t len = strnlen(name, TC_KERNEL_PROBE_NAME_MAX + 1);

	*position = 0;
	if (len == 0)
		return "a probe name is 1 to 63 characters";
	if (len > TC_KERNEL_PROBE_NAME_MAX) {
		*position = TC_KERNEL_PROBE_NAME_MAX;
		return "a probe name is 1 to 63 characters";
	}
	if (name[0] >= '0' && name[0] <= '9')
		return "a probe name starts with a letter or '_'";
	*position = tc_kernel_span(name, len, "_");
	return *position < len ? "a probe name is made of [A-Za-z0-9_]" : NULL;
}

/* A system or event name, or a glob of them. */
static inline const char *
tc_kernel_check_event_name(const char *name, size_t *position)
{
	size_t len = strnlen(name, TC_KERNEL_NAME_MAX);

	*position = 0;
	if (len == 0 || len >= TC_KERNEL_NAME_MAX) {
		*position = len ? TC_KERNEL_NAME_MAX - 1 : 0;
		return "a kernel event or system name is 1 to 127 characters";
	}
	*position = tc_kernel_span(name, len, "_*");
	return *position < len ? "kernel event and system names are made of [A-Za-z0-9_*]"
			       : NULL;
}

static inline const char *
tc_kernel_check_kprobe_location(const char *location, size_t *position)
{
	size_t len = strnlen(location, TC_KERNEL_LOCATION_MAX);
	const char *plus;

	*position = 0;
	if (len == 0 || len >= TC_KERNEL_LOCATION_MAX) {
		*position = len ? TC_KERNEL_LOCATION_MAX - 1 : 0;
		return "a kprobe location is 1 to 255 characters";
	}
	*position = tc_kernel_span(location, len, "_.+");
	if (*position < len)
		return "a kprobe location is symbol[+offset] or 0xADDRESS, of [A-Za-z0-9_.+]";
	plus = strchr(location, '+');
	if (plus && (plus == location || !plus[1] || strchr(plus + 1, '+'))) {
		*position = (size_t)(plus - location);
		return "a kprobe location is symbol[+offset] or 0xADDRESS";
	}
	return NULL;
}

/* The path part of a uprobe location: location[0..len). */
static inline const char *
tc_kernel_check_uprobe_path(const char *path, size_t len, size_t *position)
{
	*position = 0;
	if (len == 0 || path[0] != '/')
		return "a uprobe location starts with an absolute path";
	*position = tc_kernel_span(path, len, "/._+@-");
	if (*position < len)
		return "a uprobe path is made of [A-Za-z0-9/._+@-]";
	/* Each component: not empty, not '.', not '..'. */
	for (size_t start = 1; start <= len; start++) {
		size_t end = start;

		while (end < len && path[end] != '/')
			end++;
		if (end == start || (end - start == 1 && path[start] == '.') ||
		    (end - start == 2 && path[start] == '.' && path[start + 1] == '.')) {
			*position = start;
			return "a uprobe path has no empty, '.' or '..' component";
		}
		start = end;
	}
	return NULL;
}

/* An SDT probe's location after "sdt:": /absolute/path:provider:name,
 * the provider and the name C identifiers' characters [A-Za-z0-9_]. */
static inline const char *
tc_kernel_check_sdt_location(const char *location, size_t len, size_t *position)
{
	const char *colon = memchr(location, ':', len), *second, *why;
	size_t path_len = colon ? (size_t)(colon - location) : len, start;

	why = tc_kernel_check_uprobe_path(location, path_len, position);
	if (why)
		return why;
	second = colon ? memchr(colon + 1, ':', len - path_len - 1) : NULL;
	if (!second || second == colon + 1 || (size_t)(second - location) + 1 == len) {
		*position = len;
		return "an SDT probe's location is sdt:/absolute/path:provider:name";
	}
	start = path_len + 1;
	*position = start + tc_kernel_span(location + start, len - start, "_:");
	if (*position < len)
		return "an SDT probe's provider and name are made of [A-Za-z0-9_]";
	if (memchr(second + 1, ':', len - (size_t)(second + 1 - location))) {
		*position = (size_t)(second - location);
		return "an SDT probe's location is sdt:/absolute/path:provider:name";
	}
	return NULL;
}

/* /absolute/path:function, ':' only once, as the separator; or an SDT
 * probe, sdt:/absolute/path:provider:name. */
static inline const char *
tc_kernel_check_uprobe_location(const char *location, size_t *position)
{
	size_t len = strnlen(location, TC_KERNEL_LOCATION_MAX);
	const char *colon = memchr(location, ':', len), *why;
	size_t path_len, function_start;

	*position = 0;
	if (len == 0 || len >= TC_KERNEL_LOCATION_MAX) {
		*position = len ? TC_KERNEL_LOCATION_MAX - 1 : 0;
		return "a uprobe location is 1 to 255 characters";
	}
	if (len > 4 && memcmp(location, "sdt:", 4) == 0) {
		why = tc_kernel_check_sdt_location(location + 4, len - 4, position);
		*position += 4;
		return why;
	}
	path_len = colon ? (size_t)(colon - location) : len;
	why = tc_kernel_check_uprobe_path(location, path_len, position);
	if (why)
		return why;
	if (!colon) {
		*position = len;
		return "a uprobe location is /absolute/path:function";
	}
	function_start = path_len + 1;
	if (function_start == len) {
		*position = len;
		return "a uprobe location names a function after its ':'";
	}
	*position = function_start + tc_kernel_span(location + function_start,
						    len - function_start, "_.@$");
	return *position < len ? "a uprobe function name is made of [A-Za-z0-9_.@$]" : NULL;
}

#define TC_KERNEL_FILTER_MAX 255u /* sizeof(tc_kernel_filter_msg.filter) - 1 */
/* What an event filter may hold besides letters and digits. */
#define TC_KERNEL_FILTER_PUNCTUATION " _()!<>=&|~*\"./:,@+-"

/* A tracefs event filter, or "0" (none). */
static inline const char *
tc_kernel_check_filter(const char *filter, size_t *position)
{
	size_t len = strnlen(filter, TC_KERNEL_FILTER_MAX + 1);

	*position = 0;
	if (len == 0 || len > TC_KERNEL_FILTER_MAX) {
		*position = len ? TC_KERNEL_FILTER_MAX : 0;
		return "a kernel event filter is 1 to 255 characters";
	}
	*position = tc_kernel_span(filter, len, TC_KERNEL_FILTER_PUNCTUATION);
	return *position < len ? "a kernel event filter is made of [A-Za-z0-9 _()!<>=&|~*\"./:,@+-]"
			       : NULL;
}

#endif /* TC_KERNEL_NAMES_H */
