/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process tier's system call events as lttng-modules lays them
 * out: for each call it decodes, the fields of syscall_entry_NAME and
 * syscall_exit_NAME (exits start with ret), with lttng-modules' names and
 * order, and which of them the programs copy from the task's memory. The
 * root helper loads the programs with the copies (at most one a record);
 * the consumer declares and writes the fields. Plain C, constant data.
 */
#ifndef TC_SYSCALL_ARGS_H
#define TC_SYSCALL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* Fields of one event, ret not counted. */
#define TC_SYSCALL_ARGS_FIELDS_MAX 8u
#define TC_SYSCALL_ARGS_NAME_MAX 24u

/*
 * How a field is made. The integer kinds read an argument register; the
 * others read what the program copied, which a record holds one of:
 */
enum tc_syscall_args_kind {
	/* C's int and unsigned int are the register's low 32 bits: a
	 * 32-bit value's upper half is whatever the caller left there. */
	TC_SYSCALL_ARGS_INT = 'd',     /* int32_t from args[arg] */
	TC_SYSCALL_ARGS_UINT = 'u',    /* uint32_t from args[arg] */
	TC_SYSCALL_ARGS_LONG = 'D',    /* int64_t from args[arg] (long, loff_t) */
	TC_SYSCALL_ARGS_ULONG = 'U',   /* uint64_t from args[arg] (size_t) */
	TC_SYSCALL_ARGS_HEX = 'x',     /* hexadecimal uint64_t from args[arg] (pointers) */
	/* Copied at entry: the NUL-terminated text at args[arg]. */
	TC_SYSCALL_ARGS_STRING = 's',
	/* Copied at entry: the 32-bit integer at args[arg]. */
	TC_SYSCALL_ARGS_USER_INT = 'i',
	/* Copied at entry: the socket address at args[arg], args[arg2]
	 * bytes long; fields family, NAME (the port), v4addr, v6addr. */
	TC_SYSCALL_ARGS_SOCKADDR = 'a',
	/* Copied at exit: the length at args[arg2], then the address at
	 * args[arg] that many bytes long; fields upeer_addrlen, family, NAME
	 * (the port), v4addr, v6addr. */
	TC_SYSCALL_ARGS_SOCKADDR_OUT = 'A',
	/* Copied at exit: the two 32-bit integers at args[arg]. */
	TC_SYSCALL_ARGS_INT_PAIR = 'p',
};

struct tc_syscall_args_field {
	char kind; /* enum tc_syscall_args_kind */
	uint8_t arg, arg2;
	char name[TC_SYSCALL_ARGS_NAME_MAX];
};

struct tc_syscall_args_layout {
	unsigned int count;
	/* Of fields, the one the program copies, or -1. */
	int copy;
	struct tc_syscall_args_field fields[TC_SYSCALL_ARGS_FIELDS_MAX];
};

/* The entry's (is_exit false) or exit's fields of the system call name
 * (<sys/syscall.h>'s, "openat"), into *layout: false when the call is not
 * one tracectl decodes (its entry is then its six registers, its exit
 * ret). */
bool tc_syscall_args_layout(const char *name, bool is_exit, struct tc_syscall_args_layout *layout);

/* Whether kind is read from the task's memory rather than a register. */
bool tc_syscall_args_kind_is_copied(char kind);

/* lttng-modules' name of the call name where it differs from
 * <sys/syscall.h>'s ("newstat" for "stat"), else name. */
const char *tc_syscall_args_lttng_name(const char *name);

#endif /* TC_SYSCALL_ARGS_H */
