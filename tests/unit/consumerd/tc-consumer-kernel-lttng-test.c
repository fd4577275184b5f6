/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs names to LTTng's (tc-consumerd-kernel-lttng.c): the events and
 * fields LTTng's analyses read, the systems that keep tracefs' names, the
 * longest names tracefs allows, and which system call arguments are
 * user-space text.
 */
#include <glib.h>
#include <string.h>

#include "tc-consumerd-kernel-lttng.h"

static void
assert_event(const char *system, const char *event, const char *expected)
{
	char name[CONSUMERD_KERNEL_EVENT_NAME_MAX];

	tc_consumerd_kernel_lttng_event_name(system, event, name);
	g_assert_cmpstr(name, ==, expected);
}

static void
test_events(void)
{
	assert_event("sched", "sched_switch", "sched_switch");
	assert_event("sched", "sched_process_fork", "sched_process_fork");
	assert_event("syscalls", "sys_enter_read", "syscall_entry_read");
	assert_event("syscalls", "sys_exit_read", "syscall_exit_read");
	assert_event("irq", "softirq_entry", "softirq_entry");
	assert_event("block", "block_rq_issue", "block_rq_issue");
	assert_event("kmem", "mm_page_alloc", "kmem_mm_page_alloc");
	assert_event("timer", "hrtimer_start", "timer_hrtimer_start");
	assert_event("timer", "timer_start", "timer_start");
	/* No counterpart: tracefs' name, system and all. */
	assert_event("raw_syscalls", "sys_enter", "raw_syscalls:sys_enter");
	assert_event("syscalls", "other", "syscalls:other");
	assert_event("tracectl_1", "ppid", "tracectl_1:ppid");
}

static void
test_longest(void)
{
	char system[128], event[128], name[CONSUMERD_KERNEL_EVENT_NAME_MAX];
	char expected[CONSUMERD_KERNEL_EVENT_NAME_MAX];

	memset(system, 's', sizeof(system) - 1);
	system[sizeof(system) - 1] = '\0';
	memset(event, 'e', sizeof(event) - 1);
	event[sizeof(event) - 1] = '\0';
	tc_consumerd_kernel_lttng_event_name(system, event, name);
	g_snprintf(expected, sizeof(expected), "%s:%s", system, event);
	g_assert_cmpstr(name, ==, expected);
	memcpy(event, "sys_exit_", strlen("sys_exit_"));
	tc_consumerd_kernel_lttng_event_name("syscalls", event, name);
	g_assert_true(g_str_has_prefix(name, "syscall_exit_"));
	g_assert_cmpuint(strlen(name), ==, strlen("syscall_exit_") + 127 - strlen("sys_exit_"));
}

static void
test_fields(void)
{
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "prev_pid"), ==, "prev_tid");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "next_pid"), ==, "next_tid");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "pid"), ==, "tid");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "child_pid"), ==,
			"child_tid");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "prev_comm"), ==,
			"prev_comm");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("sched", "common_pid"), ==,
			"common_pid");
	g_assert_cmpstr(tc_consumerd_kernel_lttng_field_name("signal", "pid"), ==, "pid");
	g_assert_true(
	    tc_consumerd_kernel_lttng_field_repeated("sched", "sched_process_fork", "child_pid"));
	g_assert_true(
	    tc_consumerd_kernel_lttng_field_repeated("sched", "sched_process_fork", "parent_pid"));
	g_assert_false(
	    tc_consumerd_kernel_lttng_field_repeated("sched", "sched_process_fork", "child_comm"));
	g_assert_false(
	    tc_consumerd_kernel_lttng_field_repeated("sched", "sched_switch", "prev_pid"));
}

static void
test_user_text(void)
{
	g_assert_true(tc_consumerd_kernel_lttng_user_text("syscalls", "const char *"));
	g_assert_true(tc_consumerd_kernel_lttng_user_text("syscalls", "char *"));
	/* execve's argv is an address of addresses: LTTng writes it as such. */
	g_assert_false(tc_consumerd_kernel_lttng_user_text("syscalls", "const char *const *"));
	g_assert_false(tc_consumerd_kernel_lttng_user_text("syscalls", "char"));
	g_assert_false(tc_consumerd_kernel_lttng_user_text("syscalls", "void *"));
	g_assert_false(tc_consumerd_kernel_lttng_user_text("sched", "const char *"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd/kernel-lttng/events", test_events);
	g_test_add_func("/tracectl/consumerd/kernel-lttng/longest", test_longest);
	g_test_add_func("/tracectl/consumerd/kernel-lttng/fields", test_fields);
	g_test_add_func("/tracectl/consumerd/kernel-lttng/user-text", test_user_text);
	return g_test_run();
}
