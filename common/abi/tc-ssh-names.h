/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The alphabets of the login and host of a net+ssh:// relay URL, in one
 * place so that tracectld (which names the fault to the caller) and the
 * consumer (which puts them on ssh's command line) check the same thing.
 *
 * Both are the owner's to choose, since the owner's consumer runs ssh
 * with the owner's rights: what is checked is only that neither can
 * become something else on ssh's command line. Neither may start with
 * '-' (an option), and neither holds a character ssh would read as a
 * separator or an escape ('@' ':' '/' '%' '\' whitespace, control
 * bytes):
 *
 *   login   [A-Za-z0-9._-], 1 to 32 characters, as POSIX's portable
 *           user names and useradd's limit
 *   host    [A-Za-z0-9.:-], 1 to 253 characters: a host name, a name
 *           the owner's ssh configuration aliases, an IPv4 address, or
 *           an IPv6 address (without its URL brackets)
 *
 * The service checks a host name further (RFC 1123 labels, the IPv6
 * address through inet_pton()); the consumer, which trusts nobody, checks
 * these alphabets again before running ssh. Each check returns NULL when
 * text is acceptable, or the rule it breaks, with *position the index of
 * the first character at fault. Plain C: the consumer has no GLib.
 */
#ifndef TC_SSH_NAMES_H
#define TC_SSH_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define TC_SSH_NAMES_USER_MAX 32u
#define TC_SSH_NAMES_HOST_MAX 253u

static inline bool
tc_ssh_names_is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The first character of text[0..len) not in the alphabet, or len. */
static inline size_t
tc_ssh_names_span(const char *text, size_t len, const char *extra)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!tc_ssh_names_is_alnum(text[i]) && (text[i] == '\0' || !strchr(extra, text[i])))
			break;
	return i;
}

/* text[0..len): one string of alphabet extra, 1 to max characters, not
 * starting with '-'; what is wrong is described as "a" what. */
static inline const char *
tc_ssh_names_check(const char *text, size_t len, size_t max, const char *extra,
		   const char *bad_length, const char *bad_char, const char *bad_start,
		   size_t *position)
{
	*position = 0;
	if (len == 0)
		return bad_length;
	if (len > max) {
		*position = max;
		return bad_length;
	}
	if (text[0] == '-')
		return bad_start;
	*position = tc_ssh_names_span(text, len, extra);
	return *position < len ? bad_char : NULL;
}

/* The login, text[0..len). */
static inline const char *
tc_ssh_names_check_user(const char *text, size_t len, size_t *position)
{
	return tc_ssh_names_check(text, len, TC_SSH_NAMES_USER_MAX, "._-",
				  "an SSH login is 1 to 32 characters",
				  "an SSH login is made of [A-Za-z0-9._-]",
				  "an SSH login cannot start with '-'", position);
}

/* The host, text[0..len). */
static inline const char *
tc_ssh_names_check_host(const char *text, size_t len, size_t *position)
{
	return tc_ssh_names_check(text, len, TC_SSH_NAMES_HOST_MAX, ".:-",
				  "an SSH host is 1 to 253 characters",
				  "an SSH host is made of [A-Za-z0-9.:-]",
				  "an SSH host cannot start with '-'", position);
}

#endif /* TC_SSH_NAMES_H */
