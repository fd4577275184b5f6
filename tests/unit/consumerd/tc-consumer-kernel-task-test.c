/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The task and thread group caches of tc-consumerd-kernel-task.c: a
 * thread's context comes from /proc once, and stays cached while other
 * threads whose ids fall in the same set of both tables (ids 2^18 apart)
 * are looked up, up to a set's four entries; a fifth one evicts the least
 * recently used. The colliding ids are of no task (checked), so their
 * lookups read /proc and find nothing, as for a task that exited.
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-consumerd-kernel-task.h"

#define SAME_SETS (1 << 18) /* a multiple of both tables' number of sets */
#define COLLIDING 4

/* Thread ids of no task that share the sets of tid, or FALSE. */
static gboolean
colliding_ids(int32_t tid, int32_t ids[COLLIDING])
{
	char path[64];
	struct stat st;

	for (int i = 0; i < COLLIDING; i++) {
		ids[i] = tid + (i + 1) * SAME_SETS;
		snprintf(path, sizeof(path), "/proc/%d", (int)ids[i]);
		if (stat(path, &st) == 0)
			return FALSE;
	}
	return TRUE;
}

static void
lookup(struct tc_consumerd_kernel_tasks *tasks, int32_t tid, struct tc_consumerd_kernel_task *task)
{
	/* CPU 1: the test's thread is not its running task, so the caches
	 * answer, not what sched_switch said last. */
	tc_consumerd_kernel_task_lookup(tasks, 1, tid, task);
}

static void
test_colliding_ids(void)
{
	struct tc_consumerd_kernel_tasks *tasks = tc_consumerd_kernel_task_new(2, -1);
	struct tc_consumerd_kernel_task task;
	int32_t self = (int32_t)gettid(), ids[COLLIDING];
	char comm[16] = "";
	uint64_t reads;
	FILE *f;

	if (!colliding_ids(self, ids)) {
		g_test_skip("a task holds one of the colliding thread ids");
		tc_consumerd_kernel_task_free(tasks);
		return;
	}
	f = fopen("/proc/thread-self/comm", "r");
	g_assert_nonnull(f);
	g_assert_nonnull(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';

	lookup(tasks, self, &task);
	g_assert_cmpint(task.tgid, ==, getpid());
	g_assert_true(task.has_comm);
	g_assert_cmpstr(task.comm, ==, comm);
	reads = tc_consumerd_kernel_task_proc_reads(tasks);
	g_assert_cmpuint(reads, ==, 2); /* stat and status */

	/* Three more ids in the same sets, taking turns with ours. */
	for (int i = 0; i < COLLIDING - 1; i++) {
		lookup(tasks, ids[i], &task);
		g_assert_false(task.has_comm);
		g_assert_cmpint(task.tgid, ==, -1);
		lookup(tasks, self, &task);
		g_assert_cmpint(task.tgid, ==, getpid());
		g_assert_cmpstr(task.comm, ==, comm);
	}
	/* Each missing task was read for once, ours not again. */
	g_assert_cmpuint(tc_consumerd_kernel_task_proc_reads(tasks), ==,
			 reads + 2 * (COLLIDING - 1));
	for (int i = 0; i < COLLIDING - 1; i++)
		lookup(tasks, ids[i], &task);
	reads = tc_consumerd_kernel_task_proc_reads(tasks);
	g_assert_cmpuint(reads, ==, 2 + 2 * (COLLIDING - 1));

	/* A fifth id: ours, the least recently used, makes room. */
	lookup(tasks, ids[COLLIDING - 1], &task);
	lookup(tasks, self, &task);
	g_assert_cmpint(task.tgid, ==, getpid());
	g_assert_cmpuint(tc_consumerd_kernel_task_proc_reads(tasks), ==, reads + 2 + 2);
	tc_consumerd_kernel_task_free(tasks);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd-kernel-task/colliding-ids", test_colliding_ids);
	return g_test_run();
}
