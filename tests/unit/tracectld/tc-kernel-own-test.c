/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the own-process kernel tier's allow-list
 * (tc-session-kernel-own.c): what a pattern selects, system calls by
 * name among them, and what is refused. */
#include <glib.h>

#include "tc-error.h"
#include "tc-kernel-own.h"
#include "tc-session-kernel-own.h"
#include "tc-syscall-name.h"

static guint32
parse_ok(const char *pattern)
{
	g_autoptr(GError) error = NULL;
	TcKernelOwnEvents events;

	g_assert_true(tc_session_kernel_own_parse(pattern, &events, &error));
	g_assert_no_error(error);
	return events.events;
}

static gboolean
has_bit(const guint64 *bitmap, unsigned int nr)
{
	return (bitmap[nr / 64] >> (nr % 64)) & 1;
}

/* System calls by name: their numbers in the entry and exit bitmaps. */
static void
test_syscalls(void)
{
	g_autoptr(GError) error = NULL;
	TcKernelOwnEvents events;
	int getppid = tc_syscall_name_number("getppid");
	guint n_entries = 0;

	g_assert_cmpint(getppid, >=, 0);
	g_assert_true(tc_session_kernel_own_parse("syscalls:sys_enter_getppid", &events, &error));
	g_assert_cmphex(events.events, ==, TC_KERNEL_OWN_SYSCALL_ENTRY);
	g_assert_true(has_bit(events.syscall_entry, (unsigned)getppid));
	for (guint i = 0; i < TC_KERNEL_OWN_SYSCALLS_MAX; i++)
		n_entries += has_bit(events.syscall_entry, i) + has_bit(events.syscall_exit, i);
	g_assert_cmpuint(n_entries, ==, 1);
	g_assert_true(tc_session_kernel_own_parse("syscall_exit_getppid", &events, &error));
	g_assert_cmphex(events.events, ==, TC_KERNEL_OWN_SYSCALL_EXIT);
	g_assert_true(has_bit(events.syscall_exit, (unsigned)getppid));
	/* --all --syscall: every system call of the table, both ways. */
	g_assert_cmphex(parse_ok("syscalls:sys_*"), ==, TC_KERNEL_OWN_SYSCALLS);
	/* A glob of no system names none of them. */
	g_assert_cmphex(parse_ok("*:*"), ==, TC_KERNEL_OWN_ALL);
	g_assert_false(tc_session_kernel_own_parse("syscalls:sys_enter_no_such_call", &events,
						   &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
}

static void
test_allowed(void)
{
	g_assert_cmphex(parse_ok("raw_syscalls:sys_enter"), ==, TC_KERNEL_OWN_SYS_ENTER);
	g_assert_cmphex(parse_ok("raw_syscalls:*"), ==,
			TC_KERNEL_OWN_SYS_ENTER | TC_KERNEL_OWN_SYS_EXIT);
	g_assert_cmphex(parse_ok("sched:sched_switch"), ==, TC_KERNEL_OWN_SCHED_SWITCH);
	g_assert_cmphex(parse_ok("exceptions:page_fault_user"), ==, TC_KERNEL_OWN_PAGE_FAULT);
	g_assert_cmphex(parse_ok("block:*"), ==, TC_KERNEL_OWN_BLOCK_BIO_QUEUE);
	g_assert_cmphex(parse_ok("net:*"), ==, TC_KERNEL_OWN_NET_DEV_QUEUE);
	/* A glob picks among the tier's events only. */
	g_assert_cmphex(parse_ok("*:*"), ==, TC_KERNEL_OWN_ALL);
	g_assert_cmphex(parse_ok("sched:*"), ==,
			TC_KERNEL_OWN_SCHED_SWITCH | TC_KERNEL_OWN_SCHED_WAKEUP |
				TC_KERNEL_OWN_SCHED_MIGRATE);
}

static void
test_refused(void)
{
	const char *const refused[] = {
		"sched:sched_process_exec", "syscall:sys_enter_getppid", "block:block_rq_issue",
		"block:block_rq_complete", "exceptions:page_fault_kernel", "signal:signal_generate",
		"net:netif_receive_skb", "net:net_dev_xmit", "skb:kfree_skb",
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree char *expected =
			g_strdup_printf("%s: not available in the own-process tier", refused[i]);
		TcKernelOwnEvents events;

		g_assert_false(tc_session_kernel_own_parse(refused[i], &events, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED);
		g_assert_true(g_str_has_prefix(error->message, expected));
	}
	/* Characters that could end a tracefs token never reach the allow-list. */
	{
		g_autoptr(GError) error = NULL;
		TcKernelOwnEvents events;

		g_assert_false(tc_session_kernel_own_parse("raw_syscalls:sys_enter if common_pid>0",
							   &events, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/kernel-own/allowed", test_allowed);
	g_test_add_func("/tracectl/kernel-own/refused", test_refused);
	g_test_add_func("/tracectl/kernel-own/syscalls", test_syscalls);
	return g_test_run();
}
