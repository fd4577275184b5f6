/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-thread perf counters of libtracectl-ust (tc-ust-perf.c), with
 * counters any machine has: task-clock, a software counter whose page
 * gives no index, so that it is read with read(2), the documented
 * fallback; a hardware counter, read with rdpmc where the machine lets
 * user space, or refused (this project's VMs have no PMU for guests).
 */
#include <glib.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tc-ust-perf.h"

#define TASK_CLOCK PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK

/* Spins on the CPU for ms of the thread's own CPU time. */
static void
spin_ms(long ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

/* task-clock counts the thread's own CPU time in ns, in user space
 * (exclude_kernel, as LTTng-UST opens it): 20 ms of spinning add most of
 * 20 ms (what the kernel ran for the thread is left out), and not more
 * than the wall-clock time. */
static void
test_task_clock(void)
{
	gint64 wall = g_get_monotonic_time();
	guint64 before, after;

	g_assert_cmpint(tc_ust_perf_path(TASK_CLOCK), ==, TC_UST_PERF_UNOPENED);
	before = tc_ust_perf_read(TASK_CLOCK);
	g_assert_cmpint(tc_ust_perf_path(TASK_CLOCK), ==, TC_UST_PERF_READ);
	spin_ms(20);
	after = tc_ust_perf_read(TASK_CLOCK);
	wall = g_get_monotonic_time() - wall;
	g_assert_cmpuint(after - before, >=, 16 * 1000 * 1000);
	g_assert_cmpuint(after - before, <=, (guint64)wall * 1000 + 1000 * 1000);
	/* A software counter's page never gives an index: read(2) again. */
	g_assert_cmpint(tc_ust_perf_path(TASK_CLOCK), ==, TC_UST_PERF_READ);
}

static void *
thread_count(void *data)
{
	guint64 *count = data;

	count[0] = tc_ust_perf_read(TASK_CLOCK);
	spin_ms(5);
	count[1] = tc_ust_perf_read(TASK_CLOCK);
	return NULL;
}

/* Each thread counts its own time: a new thread starts near 0 while this
 * one has spun for more than 20 ms. */
static void
test_per_thread(void)
{
	guint64 mine, theirs[2];
	pthread_t thread;

	spin_ms(25);
	mine = tc_ust_perf_read(TASK_CLOCK);
	g_assert_cmpint(pthread_create(&thread, NULL, thread_count, theirs), ==, 0);
	g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
	g_assert_cmpuint(theirs[0], <, mine);
	g_assert_cmpuint(theirs[1] - theirs[0], >=, 4 * 1000 * 1000);
	g_assert_cmpuint(theirs[1], <, 20 * 1000 * 1000);
}

/* A fork child counts its own thread from 0, not its parent's. */
static void
test_fork(void)
{
	guint64 parent;
	int status;
	pid_t child;

	spin_ms(25);
	parent = tc_ust_perf_read(TASK_CLOCK);
	g_assert_cmpuint(parent, >=, 20 * 1000 * 1000);
	child = fork();
	if (child == 0) {
		tc_ust_perf_forget();
		_exit(tc_ust_perf_read(TASK_CLOCK) < 20 * 1000 * 1000 &&
			      tc_ust_perf_path(TASK_CLOCK) == TC_UST_PERF_READ
			  ? 0
			  : 1);
	}
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* cpu-cycles: where the machine has the counter and lets user space read
 * it, rdpmc and a count that grows; where it has none, FAILED and 0,
 * remembered (no second perf_event_open(2)). */
static void
test_hardware(void)
{
	guint64 before = tc_ust_perf_read(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), after;
	enum tc_ust_perf_path path = tc_ust_perf_path(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);

	spin_ms(5);
	after = tc_ust_perf_read(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (path == TC_UST_PERF_FAILED) {
		g_assert_cmpuint(before, ==, 0);
		g_assert_cmpuint(after, ==, 0);
		g_assert_cmpint(tc_ust_perf_path(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), ==,
				TC_UST_PERF_FAILED);
		g_test_message("no cpu-cycles counter here: refused and remembered");
		return;
	}
	g_assert_cmpuint(after, >, before);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/ust-perf/task-clock", test_task_clock);
	g_test_add_func("/tracectl/ust-perf/per-thread", test_per_thread);
	g_test_add_func("/tracectl/ust-perf/fork", test_fork);
	g_test_add_func("/tracectl/ust-perf/hardware", test_hardware);
	return g_test_run();
}
