/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The thread behind each kernel record, for the context fields. */
#ifndef TC_CONSUMERD_KERNEL_TASK_H
#define TC_CONSUMERD_KERNEL_TASK_H

#include <stdbool.h>
#include <stdint.h>

struct tep_handle;

struct tc_consumerd_kernel_task {
	int32_t tid, tgid, prio; /* -1: unknown */
	char comm[16];
	bool has_comm;	/* comm and prio are known */
	bool looked_up; /* /proc was read for it */
};
struct tc_consumerd_kernel_tasks;
/* tgids_fd (saved_tgids, or -1) is taken. */
struct tc_consumerd_kernel_tasks *tc_consumerd_kernel_task_new(uint32_t nr_cpus, int tgids_fd);
void tc_consumerd_kernel_task_free(struct tc_consumerd_kernel_tasks *tasks);
/* Finds sched_switch in tep (again after an update). */
void tc_consumerd_kernel_task_use_formats(struct tc_consumerd_kernel_tasks *tasks,
					  struct tep_handle *tep);
/* Every record of the CPU, in order, before it is looked up. */
void tc_consumerd_kernel_task_follow(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu,
				     int event_id, const uint8_t *data, uint32_t size);
/* A new drain: saved_tgids may be read again. */
void tc_consumerd_kernel_task_new_drain(struct tc_consumerd_kernel_tasks *tasks);
void tc_consumerd_kernel_task_lookup(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu,
				     int32_t tid, struct tc_consumerd_kernel_task *result);
/* The /proc files read so far, found or not (statistics, and the tests). */
uint64_t tc_consumerd_kernel_task_proc_reads(const struct tc_consumerd_kernel_tasks *tasks);

#endif /* TC_CONSUMERD_KERNEL_TASK_H */
