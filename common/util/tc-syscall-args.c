/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of decoded system calls (tc-syscall-args.h), from
 * lttng-modules' instrumentation/syscalls headers: each field has
 * lttng-modules' name, in its order, entry fields being its sc_in and
 * sc_inout ones, exit fields its sc_out and sc_inout ones after ret. A
 * field is written "NAME:KIND ARG [ARG2]" with no spaces, KIND one of
 * enum tc_syscall_args_kind and ARG the argument register (0 to 5).
 * Integers have lttng-modules' signedness and, but for unsigned short
 * and enumerations (written as 32-bit integers), its width.
 */
#include "tc-syscall-args.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name; /* <sys/syscall.h>'s */
	const char *entry;
	const char *exit;
} calls[] = {
	/* Sorted by name, for bsearch(). */
	{"accept", "fd:d0 upeer_sockaddr:x1 upeer_addrlen:i2", "sport:A12"},
	{"accept4", "fd:d0 upeer_sockaddr:x1 upeer_addrlen:i2 flags:x3", "sport:A12"},
	{"access", "filename:s0 mode:d1", ""},
	{"bind", "fd:d0 umyaddr:x1 addrlen:d2", ""},
	{"chdir", "filename:s0", ""},
	{"clone", "flags:x0 newsp:x1 parent_tid:x2 child_tid:x3", ""},
	{"close", "fd:u0", ""},
	{"connect", "fd:d0 uservaddr:x1 addrlen:x2 dport:a12", ""},
	{"creat", "pathname:s0 mode:u1", ""},
	{"dup", "fildes:u0", ""},
	{"dup2", "oldfd:u0 newfd:u1", ""},
	{"dup3", "oldfd:u0 newfd:u1 flags:d2", ""},
	{"execve", "filename:s0 argv:x1 envp:x2", ""},
	{"exit_group", "error_code:d0", ""},
	{"faccessat", "dfd:d0 filename:s1 mode:d2", ""},
	{"fstat", "fd:u0", "statbuf:x1"},
	{"lseek", "fd:u0 offset:D1 whence:u2", ""},
	{"lstat", "filename:s0", "statbuf:x1"},
	{"mkdir", "pathname:s0 mode:u1", ""},
	{"mkdirat", "dfd:d0 pathname:s1 mode:u2", ""},
	{"newfstatat", "dfd:d0 filename:s1 flag:d3", "statbuf:x2"},
	{"open", "filename:s0 flags:d1 mode:u2", ""},
	{"openat", "dfd:d0 filename:s1 flags:d2 mode:u3", ""},
	{"pipe", "", "fildes:x0"},
	{"pipe2", "flags:d1", "fildes:p0"},
	{"pread64", "fd:u0 count:U2 pos:D3", "buf:x1"},
	{"pwrite64", "fd:u0 buf:x1 count:U2 pos:D3", ""},
	{"read", "fd:u0 count:U2", "buf:x1"},
	{"socket", "family:d0 type:d1 protocol:d2", ""},
	{"socketpair", "family:d0 type:d1 protocol:d2", "socket:p3"},
	{"stat", "filename:s0", "statbuf:x1"},
	{"statx", "dfd:d0 filename:s1 flags:u2 mask:u3 buffer:x4",
	 "dfd:d0 flags:u2 mask:u3 buffer:x4"},
	{"unlink", "pathname:s0", ""},
	{"unlinkat", "dfd:d0 pathname:s1 flag:d2", ""},
	{"write", "fd:u0 buf:x1 count:U2", ""},
};

/* lttng-modules names x86-64's stat family after the kernel's functions. */
static const struct {
	const char *name, *lttng;
} lttng_names[] = {
	{"fstat", "newfstat"},
	{"lstat", "newlstat"},
	{"stat", "newstat"},
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

bool
tc_syscall_args_layout(const char *name, bool is_exit, struct tc_syscall_args_layout *layout)
{
	const __typeof__(calls[0]) *call =
	    bsearch(name, calls, N_ELEMENTS(calls), sizeof(calls[0]), compare_name);
	const char *spec;

	memset(layout, 0, sizeof(*layout));
	layout->copy = -1;
	if (!call)
		return false;
	spec = is_exit ? call->exit : call->entry;
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
