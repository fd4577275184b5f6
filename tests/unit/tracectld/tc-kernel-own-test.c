/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the own-process kernel tier's allow-list
 * (tc-session-kernel-own.c): what a pattern selects, and what is refused. */
#include <glib.h>

#include "tc-error.h"
#include "tc-kernel-own.h"
#include "tc-session-kernel-own.h"

static guint32
parse_ok(const char *pattern)
{
	g_autoptr(GError) error = NULL;
	guint32 events = 0;

	g_assert_true(tc_session_kernel_own_parse(pattern, &events, &error));
	g_assert_no_error(error);
	return events;
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
		"sched:sched_process_exec", "syscalls:sys_enter_getppid", "block:block_rq_issue",
		"block:block_rq_complete", "exceptions:page_fault_kernel", "signal:signal_generate",
		"net:netif_receive_skb", "net:net_dev_xmit", "skb:kfree_skb",
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree char *expected =
			g_strdup_printf("%s: not available in the own-process tier", refused[i]);
		guint32 events = 0;

		g_assert_false(tc_session_kernel_own_parse(refused[i], &events, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED);
		g_assert_true(g_str_has_prefix(error->message, expected));
	}
	/* Characters that could end a tracefs token never reach the allow-list. */
	{
		g_autoptr(GError) error = NULL;
		guint32 events = 0;

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
	return g_test_run();
}
