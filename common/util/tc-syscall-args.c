/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of decoded system calls (tc-syscall-args.h), from
 * lttng-modules' instrumentation/syscalls headers: each field has
 * lttng-modules' name, in its order, entry fields being its sc_in and
 * sc_inout ones, exit fields its sc_out and sc_inout ones after ret. A
 * field is written "NAME:KIND ARG [ARG2]" with no spaces, KIND one of
 * enum tc_syscall_args_kind and ARG the argument register (0 to 5).
 * Integers have lttng-modules' signedness and, but for unsigned short
 * (written as a 32-bit integer), its width.
 *
 * Two tables: the calls lttng-modules overrides (its
 * syscalls_pointers_override.h and x86-64-syscalls_pointers_override.h:
 * socket addresses, descriptor pairs, clone's names), written here, then
 * every other call as its generated headers have it
 * (tc-syscall-args-lttng.h, tools/gen-syscall-args-lttng).
 */
#include "tc-syscall-args.h"

#include <stdlib.h>
#include <string.h>

#include "tc-syscall-args-lttng.h"

static const struct {
	const char *name; /* lttng-modules' */
	const char *entry;
	const char *exit;
} calls[] = {
	/* Sorted by name, for bsearch(). */
	{"accept", "fd:d0 upeer_sockaddr:x1 upeer_addrlen:i2", "sport:A12"},
	{"accept4", "fd:d0 upeer_sockaddr:x1 upeer_addrlen:i2 flags:x3", "sport:A12"},
	{"clone", "flags:x0 newsp:x1 parent_tid:x2 child_tid:x3", ""},
	{"connect", "fd:d0 uservaddr:x1 addrlen:x2 dport:a12", ""},
	{"execve", "filename:s0 argv:x1 envp:x2", ""},
	{"pipe2", "flags:d1", "fildes:p0"},
	{"socketpair", "family:d0 type:d1 protocol:d2", "socket:p3"},
};

/* lttng-modules names some of x86-64's calls after the kernel's
 * functions rather than <sys/syscall.h>'s names. */
static const struct {
	const char *name, *lttng;
} lttng_names[] = {
	{"fstat", "newfstat"},
	{"lstat", "newlstat"},
	{"sendfile", "sendfile64"},
	{"stat", "newstat"},
	{"umount2", "umount"},
	{"uname", "newuname"},
};

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static int
compare_name(const void *key, const void *entry)
{
	return strcmp(key, ((const __typeof__(calls[0]) *)entry)->name);
}

bool
tc_syscall_args_kind_is_copied(char kind)
{
	return kind == TC_SYSCALL_ARGS_STRING || kind == TC_SYSCALL_ARGS_USER_INT ||
	       kind == TC_SYSCALL_ARGS_SOCKADDR || kind == TC_SYSCALL_ARGS_SOCKADDR_OUT ||
	       kind == TC_SYSCALL_ARGS_INT_PAIR;
}

/* One "NAME:KIND ARG [ARG2]" token of length len into *field. */
static bool
parse_field(const char *token, size_t len, struct tc_syscall_args_field *field)
{
	const char *colon = memchr(token, ':', len);
	size_t name_len = colon ? (size_t)(colon - token) : 0;
	size_t rest = colon ? len - name_len - 1 : 0;

	if (!colon || name_len == 0 || name_len >= sizeof(field->name) || rest < 2 || rest > 3)
		return false;
	memcpy(field->name, token, name_len);
	field->name[name_len] = '\0';
	field->kind = colon[1];
	field->arg = (uint8_t)(colon[2] - '0');
	field->arg2 = rest == 3 ? (uint8_t)(colon[3] - '0') : 0;
	return field->arg < 6 && field->arg2 < 6;
}

static int
compare_lttng_name(const void *key, const void *entry)
{
	return strcmp(key, ((const __typeof__(lttng_calls[0]) *)entry)->name);
}

/* The entry's or exit's fields of the call lttng-modules names name, or
 * NULL. */
static const char *
spec_of(const char *name, bool is_exit)
{
	const __typeof__(calls[0]) *call =
	    bsearch(name, calls, N_ELEMENTS(calls), sizeof(calls[0]), compare_name);
	const __typeof__(lttng_calls[0]) *generated;

	if (call)
		return is_exit ? call->exit : call->entry;
	generated = bsearch(name, lttng_calls, N_ELEMENTS(lttng_calls), sizeof(lttng_calls[0]),
			    compare_lttng_name);
	if (generated)
		return is_exit ? generated->exit : generated->entry;
	return NULL;
}

bool
tc_syscall_args_layout(const char *name, bool is_exit, struct tc_syscall_args_layout *layout)
{
	const char *spec = spec_of(tc_syscall_args_lttng_name(name), is_exit);

	memset(layout, 0, sizeof(*layout));
	layout->copy = -1;
	if (!spec)
		return false;
	while (*spec) {
		size_t len = strcspn(spec, " ");
		struct tc_syscall_args_field *field = &layout->fields[layout->count];

		/* The table is constant: a token that does not parse is a
		 * bug of this file, which the unit test catches. */
		if (layout->count == TC_SYSCALL_ARGS_FIELDS_MAX || !parse_field(spec, len, field))
			return false;
		if (tc_syscall_args_kind_is_copied(field->kind)) {
			if (layout->copy >= 0)
				return false;
			layout->copy = (int)layout->count;
		}
		layout->count++;
		spec += len;
		spec += strspn(spec, " ");
	}
	return true;
}

const char *
tc_syscall_args_lttng_name(const char *name)
{
	for (size_t i = 0; i < N_ELEMENTS(lttng_names); i++)
		if (strcmp(name, lttng_names[i].name) == 0)
			return lttng_names[i].lttng;
	return name;
}
