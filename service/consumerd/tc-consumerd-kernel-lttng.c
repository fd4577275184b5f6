/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs names to LTTng's, by table: the events' names are
 * tc-kernel-lttng-name.c's, which the service shares. lttng-modules' sched
 * events name a thread's id "tid" where tracefs says "pid" (the kernel's
 * task->pid).
 */
#include "tc-consumerd-kernel-lttng.h"

#include <stdio.h>
#include <string.h>

#include "tc-kernel-lttng-name.h"

/* The sched fields that hold a task->pid, a thread id to LTTng. */
static const struct {
	const char *system;
	const char *tracefs;
	const char *lttng;
} field_rules[] = {
	{"sched", "pid", "tid"},
	{"sched", "prev_pid", "prev_tid"},
	{"sched", "next_pid", "next_tid"},
	{"sched", "parent_pid", "parent_tid"},
	{"sched", "child_pid", "child_tid"},
	{"sched", "old_pid", "old_tid"},
	{"sched", "src_pid", "src_tid"},
	{"sched", "dst_pid", "dst_tid"},
};

/* Fields written twice, once under each name. tracefs has no process id
 * in sched_process_fork: LTTng's parent_pid and child_pid get the thread
 * ids, which are the process ids but for a thread's creation. */
static const struct {
	const char *system;
	const char *event;
	const char *field;
} repeated_fields[] = {
	{"sched", "sched_process_fork", "parent_pid"},
	{"sched", "sched_process_fork", "child_pid"},
};

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

void
tc_consumerd_kernel_lttng_event_name(const char *system, const char *event, char *name)
{
	if (!tc_kernel_lttng_name_of(system, event, name, CONSUMERD_KERNEL_EVENT_NAME_MAX))
		snprintf(name, CONSUMERD_KERNEL_EVENT_NAME_MAX, "%s:%s", system, event);
}

const char *
tc_consumerd_kernel_lttng_field_name(const char *system, const char *field)
{
	for (size_t i = 0; i < N_ELEMENTS(field_rules); i++)
		if (strcmp(system, field_rules[i].system) == 0 &&
		    strcmp(field, field_rules[i].tracefs) == 0)
			return field_rules[i].lttng;
	return field;
}

bool
tc_consumerd_kernel_lttng_field_repeated(const char *system, const char *event, const char *field)
{
	for (size_t i = 0; i < N_ELEMENTS(repeated_fields); i++)
		if (strcmp(system, repeated_fields[i].system) == 0 &&
		    strcmp(event, repeated_fields[i].event) == 0 &&
		    strcmp(field, repeated_fields[i].field) == 0)
			return true;
	return false;
}

bool
tc_consumerd_kernel_lttng_user_text(const char *system, const char *type)
{
	static const char suffix[] = "char *";
	size_t len = strlen(type);

	return strcmp(system, "syscalls") == 0 && len >= sizeof(suffix) - 1 &&
	       strcmp(type + len - (sizeof(suffix) - 1), suffix) == 0;
}
