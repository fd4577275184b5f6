/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LTTng's bare kernel event names and globs, found among a machine's
 * tracefs events: the patterns each becomes, and the refusals. */
#include "tc-kernel-event-name.h"

#include <string.h>

#include "tc-error.h"

static const char *const events[] = {
	"sched:sched_switch",	    "sched:sched_wakeup",	"sched:sched_process_exec",
	"syscalls:sys_enter_read",  "syscalls:sys_exit_read",	"syscalls:sys_enter_getppid",
	"syscalls:sys_exit_getppid", "kmem:kmalloc",		"kmem:kfree",
	"timer:hrtimer_start",	    "timer:timer_start",	"raw_syscalls:sys_enter",
	"irq:softirq_entry",	    "tracectl_7:sched_switch",	"tracectl_8:my_probe",
	"tracectl_8:softirq_entry", NULL,
};

/* The patterns, joined with ' ', or the error's message. */
static char *
resolve(const char *pattern, const char *own_group, GError **error)
{
	g_autoptr(GPtrArray) patterns =
	    tc_kernel_event_name_resolve(pattern, events, own_group, error);

	if (patterns == NULL)
		return NULL;
	g_ptr_array_add(patterns, NULL);
	return g_strjoinv(" ", (char **)patterns->pdata);
}

static void
check(const char *pattern, const char *expected)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *got = resolve(pattern, "tracectl_8", &error);

	g_assert_no_error(error);
	g_assert_cmpstr(got, ==, expected);
}

static void
test_names(void)
{
	check("sched_switch", "sched:sched_switch");
	check("syscall_entry_getppid", "syscalls:sys_enter_getppid");
	check("sys_exit_read", "syscalls:sys_exit_read");
	check("kmem_kmalloc", "kmem:kmalloc");
	check("timer_hrtimer_start", "timer:hrtimer_start");
	check("sys_enter", "raw_syscalls:sys_enter");
	/* The session's own probes, not another session's. */
	check("my_probe", "tracectl_8:my_probe");
}

static void
test_globs(void)
{
	check("sched_*", "sched:sched_*");
	check("syscall_entry_*", "syscalls:sys_enter_*");
	check("kmem_*", "kmem:*");
	check("*getppid", "syscalls:*getppid");
	check("*_start", "timer:*_start");
	check("*", "*:*");
}

static void
test_refused(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *got = resolve("softirq_entry", "tracectl_8", &error);

	g_assert_null(got);
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_cmpstr(error->message, ==,
			"Kernel event name 'softirq_entry' is ambiguous: 2 events have it "
			"(irq:softirq_entry, tracectl_8:softirq_entry); name one as "
			"'system:event'");
	g_clear_error(&error);
	got = resolve("no_such_event", NULL, &error);
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_assert_nonnull(strstr(error->message, "No kernel event named 'no_such_event'"));
	g_clear_error(&error);
	got = resolve("nothing_*", NULL, &error);
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	/* Another session's probe is not a candidate. */
	g_assert_null(resolve("my_probe", "tracectl_7", &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
}

/* A glob that would take too many patterns is refused. */
static void
test_limit(void)
{
	g_autoptr(GPtrArray) many = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) patterns = NULL;
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i <= TC_KERNEL_EVENT_NAME_PATTERNS_MAX; i++) {
		g_ptr_array_add(many, g_strdup_printf("s%u:x_a", i));
		g_ptr_array_add(many, g_strdup_printf("s%u:y_b", i));
	}
	g_ptr_array_add(many, NULL);
	patterns = tc_kernel_event_name_resolve("x_*", (const char *const *)many->pdata, NULL,
						&error);
	g_assert_null(patterns);
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/kernel-event-name/names", test_names);
	g_test_add_func("/tracectl/kernel-event-name/globs", test_globs);
	g_test_add_func("/tracectl/kernel-event-name/refused", test_refused);
	g_test_add_func("/tracectl/kernel-event-name/limit", test_limit);
	return g_test_run();
}
