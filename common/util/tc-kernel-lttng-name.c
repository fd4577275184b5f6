/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs names to LTTng's, by table. lttng-modules names a tracepoint
 * event after the tracepoint, without its system ("sched_switch"), but
 * for a few systems whose tracepoints do not start with the system's name
 * ("kmem_mm_page_alloc", "timer_hrtimer_start"); system calls are
 * "syscall_entry_NAME" and "syscall_exit_NAME".
 */
#include "tc-kernel-lttng-name.h"

#include <stdio.h>
#include <string.h>

/* An event of system whose name starts with tracefs_prefix is named
 * lttng_prefix followed by the rest of its name. First match wins. */
static const struct {
	const char *system;
	const char *tracefs_prefix;
	const char *lttng_prefix;
} event_rules[] = {
	{"syscalls", "sys_enter_", "syscall_entry_"},
	{"syscalls", "sys_exit_", "syscall_exit_"},
	{"sched", "", ""},
	{"irq", "", ""},
	{"block", "", ""},
	{"net", "", ""},
	{"signal", "", ""},
	{"writeback", "", ""},
	{"vmscan", "", ""},
	{"workqueue", "", ""},
	{"kmem", "", "kmem_"},
	{"power", "", "power_"},
	{"timer", "hrtimer_", "timer_hrtimer_"},
	{"timer", "itimer_", "timer_itimer_"},
	{"timer", "", ""},
};

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

bool
tc_kernel_lttng_name_of(const char *system, const char *event, char *name, size_t size)
{
	for (size_t i = 0; i < N_ELEMENTS(event_rules); i++) {
		size_t prefix = strlen(event_rules[i].tracefs_prefix);

		if (strcmp(system, event_rules[i].system) == 0 &&
		    strncmp(event, event_rules[i].tracefs_prefix, prefix) == 0) {
			snprintf(name, size, "%s%s", event_rules[i].lttng_prefix, event + prefix);
			return true;
		}
	}
	if (size)
		name[0] = '\0';
	return false;
}

bool
tc_kernel_lttng_name_tracefs_glob(const char *system, const char *lttng_glob, char *glob,
				  size_t size)
{
	for (size_t i = 0; i < N_ELEMENTS(event_rules); i++) {
		size_t prefix = strlen(event_rules[i].lttng_prefix);

		if (prefix && strcmp(system, event_rules[i].system) == 0 &&
		    strncmp(lttng_glob, event_rules[i].lttng_prefix, prefix) == 0) {
			snprintf(glob, size, "%s%s", event_rules[i].tracefs_prefix,
				 lttng_glob + prefix);
			return true;
		}
	}
	return false;
}
