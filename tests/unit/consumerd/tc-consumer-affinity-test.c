/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tc-consumerd-affinity.c on the test's own thread: following a CPU holds
 * the thread there, asking again costs nothing, another CPU takes it only
 * after CONSUMERD_AFFINITY_HOLD_MIN_NS, releasing gives back exactly the
 * CPUs it had, CPUs it was not given are not followed, a thread given one
 * CPU is never moved, a hold expires CONSUMERD_AFFINITY_IDLE_NS after
 * the last request; avoiding a CPU holds the thread on all its others,
 * and a late wake-up avoids the writer's CPU when the thread ran there,
 * follows it otherwise.
 */
#include <glib.h>
#include <sched.h>
#include <unistd.h>

#include "tc-consumerd-affinity.h"

/* The thread's CPUs, or the test is skipped when it has fewer than two. */
static gboolean
two_cpus(cpu_set_t *set, int *first, int *second)
{
	CPU_ZERO(set);
	g_assert_cmpint(sched_getaffinity(0, sizeof(*set), set), ==, 0);
	*first = *second = -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, set))
			continue;
		if (*first < 0)
			*first = cpu;
		else if (*second < 0)
			*second = cpu;
	}
	if (*second < 0) {
		g_test_skip("needs two CPUs");
		return FALSE;
	}
	return TRUE;
}

/* Two CPUs found and affinity read from the thread, or the test skipped. */
static gboolean
start_on_two_cpus(struct tc_consumerd_affinity *affinity, cpu_set_t *original, int *first,
		  int *second)
{
	if (!two_cpus(original, first, second))
		return FALSE;
	g_assert_cmpint(tc_consumerd_affinity_init(affinity), ==, 0);
	return TRUE;
}

static void
assert_only_cpu(int cpu)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	g_assert_cmpint(sched_getaffinity(0, sizeof(now), &now), ==, 0);
	g_assert_cmpint(CPU_COUNT(&now), ==, 1);
	g_assert_true(CPU_ISSET(cpu, &now));
	g_assert_cmpint(sched_getcpu(), ==, cpu);
}

static void
assert_cpus(const cpu_set_t *expected)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	g_assert_cmpint(sched_getaffinity(0, sizeof(now), &now), ==, 0);
	g_assert_true(CPU_EQUAL(&now, expected));
}

static void
test_follow_and_release(void)
{
	struct tc_consumerd_affinity affinity;
	int first, second;
	cpu_set_t original;

	if (!start_on_two_cpus(&affinity, &original, &first, &second))
		return;
	g_assert_cmpint(affinity.cpu, ==, -1);

	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, 1);
	g_assert_cmpint(affinity.cpu, ==, second);
	g_assert_cmpuint(affinity.moved_at, ==, 1);
	assert_only_cpu(second);
	/* Asked again: no move, the request is only dated. */
	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, 2);
	g_assert_cmpuint(affinity.moved_at, ==, 1);
	g_assert_cmpuint(affinity.last_asked, ==, 2);

	/* Another CPU, too soon: the request only keeps the hold alive. */
	tc_consumerd_affinity_follow(&affinity, (uint32_t)first, 3);
	g_assert_cmpint(affinity.cpu, ==, second);
	g_assert_cmpuint(affinity.moved_at, ==, 1);
	g_assert_cmpuint(affinity.last_asked, ==, 3);
	assert_only_cpu(second);
	tc_consumerd_affinity_follow(&affinity, (uint32_t)first,
				     1 + CONSUMERD_AFFINITY_HOLD_MIN_NS);
	g_assert_cmpint(affinity.cpu, ==, first);
	g_assert_cmpuint(affinity.moved_at, ==, 1 + CONSUMERD_AFFINITY_HOLD_MIN_NS);
	assert_only_cpu(first);

	tc_consumerd_affinity_release(&affinity);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);
	/* Released twice: nothing happens. */
	tc_consumerd_affinity_release(&affinity);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);
	tc_consumerd_affinity_fini(&affinity);
}

static void
assert_all_but(const cpu_set_t *original, int cpu)
{
	cpu_set_t expected;

	CPU_ZERO(&expected);
	CPU_OR(&expected, &expected, original);
	CPU_CLR(cpu, &expected);
	assert_cpus(&expected);
	g_assert_cmpint(sched_getcpu(), !=, cpu);
}

/* Avoiding: all CPUs but one; the hold applies between following and
 * avoiding the same CPU too. */
static void
test_avoid(void)
{
	const uint64_t hold = CONSUMERD_AFFINITY_HOLD_MIN_NS;
	struct tc_consumerd_affinity affinity;
	int first, second;
	cpu_set_t original;

	if (!start_on_two_cpus(&affinity, &original, &first, &second))
		return;
	tc_consumerd_affinity_avoid(&affinity, (uint32_t)second, hold);
	g_assert_cmpint(affinity.cpu, ==, second);
	g_assert_true(affinity.away);
	assert_all_but(&original, second);

	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, 2 * hold - 1);
	g_assert_true(affinity.away);
	g_assert_cmpuint(affinity.last_asked, ==, 2 * hold - 1);
	assert_all_but(&original, second);
	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, 2 * hold);
	g_assert_false(affinity.away);
	g_assert_cmpuint(affinity.moved_at, ==, 2 * hold);
	assert_only_cpu(second);

	tc_consumerd_affinity_release(&affinity);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);
	tc_consumerd_affinity_fini(&affinity);
}

/* Writes a /proc/stat first line whose steal is steal. */
static void
write_stat(const char *path, unsigned int steal)
{
	g_autofree char *line = g_strdup_printf("cpu  100 0 50 1000 0 0 0 %u 0 0\ncpu0 ...\n",
						 steal);

	g_assert_true(g_file_set_contents(path, line, -1, NULL));
}

/* A late wake-up moves the thread away from where it ran late: off the
 * writer's CPU if it ran there, onto it if it ran elsewhere and the
 * hypervisor stole time since; one in time only keeps the placement
 * alive; an unknown CPU changes nothing. */
static void
test_late_wake(void)
{
	const uint64_t hold = CONSUMERD_AFFINITY_HOLD_MIN_NS;
	g_autofree char *stat_path = g_build_filename(g_get_tmp_dir(), "tc-affinity-stat-XXXXXX",
						      NULL);
	struct tc_consumerd_affinity affinity;
	int first, second, fd;
	cpu_set_t original;

	if (!start_on_two_cpus(&affinity, &original, &first, &second))
		return;
	fd = g_mkstemp(stat_path);
	g_assert_cmpint(fd, >=, 0);
	close(fd);
	write_stat(stat_path, 7);
	affinity.stat_path = stat_path;
	affinity.steal = 7;

	/* Ran elsewhere than the writer, but nothing was stolen: stays. */
	tc_consumerd_affinity_late_wake(&affinity, (uint32_t)second, first, 1);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);
	write_stat(stat_path, 9);
	tc_consumerd_affinity_keep(&affinity, 1);
	g_assert_cmpint(affinity.cpu, ==, -1);
	g_assert_cmpuint(affinity.last_asked, ==, 0);
	tc_consumerd_affinity_late_wake(&affinity, (uint32_t)second, -1, 1);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);

	/* Ran elsewhere than the writer: waits on the writer's CPU. */
	tc_consumerd_affinity_late_wake(&affinity, (uint32_t)second, first, hold);
	g_assert_cmpint(affinity.cpu, ==, second);
	g_assert_false(affinity.away);
	assert_only_cpu(second);
	tc_consumerd_affinity_keep(&affinity, hold + 5);
	g_assert_cmpuint(affinity.last_asked, ==, hold + 5);
	g_assert_cmpuint(affinity.moved_at, ==, hold);

	/* Then late there too: waits off it. */
	tc_consumerd_affinity_late_wake(&affinity, (uint32_t)second, second, 2 * hold);
	g_assert_cmpint(affinity.cpu, ==, second);
	g_assert_true(affinity.away);
	assert_all_but(&original, second);

	/* The writer moved to the CPU the thread now waits on, and was late
	 * there: off that one. */
	tc_consumerd_affinity_late_wake(&affinity, (uint32_t)first, first, 3 * hold);
	g_assert_cmpint(affinity.cpu, ==, first);
	g_assert_true(affinity.away);
	assert_all_but(&original, first);

	tc_consumerd_affinity_release(&affinity);
	assert_cpus(&original);
	tc_consumerd_affinity_fini(&affinity);
	unlink(stat_path);
}

static void
test_not_given(void)
{
	struct tc_consumerd_affinity affinity;
	cpu_set_t original, one, two;
	int first, second;

	if (!two_cpus(&original, &first, &second))
		return;
	/* Given the first two CPUs only: a third is not followed, nor a CPU
	 * past any set. */
	CPU_ZERO(&two);
	CPU_SET(first, &two);
	CPU_SET(second, &two);
	g_assert_cmpint(sched_setaffinity(0, sizeof(two), &two), ==, 0);
	g_assert_cmpint(tc_consumerd_affinity_init(&affinity), ==, 0);
	tc_consumerd_affinity_follow(&affinity, (uint32_t)second + 1, 1);
	tc_consumerd_affinity_follow(&affinity, 1u << 30, 1);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&two);
	tc_consumerd_affinity_fini(&affinity);

	/* Given one CPU: it is never moved, not even to that CPU. */
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	g_assert_cmpint(sched_setaffinity(0, sizeof(one), &one), ==, 0);
	g_assert_cmpint(tc_consumerd_affinity_init(&affinity), ==, 0);
	g_assert_null(affinity.allowed);
	tc_consumerd_affinity_follow(&affinity, (uint32_t)first, 1);
	g_assert_cmpint(affinity.cpu, ==, -1);
	g_assert_cmpuint(tc_consumerd_affinity_expire(&affinity, 1), ==, 0);
	tc_consumerd_affinity_fini(&affinity);
	g_assert_cmpint(sched_setaffinity(0, sizeof(original), &original), ==, 0);
}

static void
test_expire(void)
{
	const uint64_t start = 5 * CONSUMERD_AFFINITY_IDLE_NS;
	struct tc_consumerd_affinity affinity;
	int first, second;
	cpu_set_t original;

	if (!start_on_two_cpus(&affinity, &original, &first, &second))
		return;
	g_assert_cmpuint(tc_consumerd_affinity_expire(&affinity, start), ==, 0);

	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, start);
	g_assert_cmpuint(tc_consumerd_affinity_expire(&affinity, start + 1), ==,
			 start + CONSUMERD_AFFINITY_IDLE_NS);
	/* A later request pushes the deadline. */
	tc_consumerd_affinity_follow(&affinity, (uint32_t)second, start + 10);
	g_assert_cmpuint(
	    tc_consumerd_affinity_expire(&affinity, start + CONSUMERD_AFFINITY_IDLE_NS), ==,
	    start + 10 + CONSUMERD_AFFINITY_IDLE_NS);
	assert_only_cpu(second);

	g_assert_cmpuint(
	    tc_consumerd_affinity_expire(&affinity, start + 10 + CONSUMERD_AFFINITY_IDLE_NS), ==,
	    0);
	g_assert_cmpint(affinity.cpu, ==, -1);
	assert_cpus(&original);
	tc_consumerd_affinity_fini(&affinity);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd-affinity/follow-and-release", test_follow_and_release);
	g_test_add_func("/tracectl/consumerd-affinity/avoid", test_avoid);
	g_test_add_func("/tracectl/consumerd-affinity/late-wake", test_late_wake);
	g_test_add_func("/tracectl/consumerd-affinity/not-given", test_not_given);
	g_test_add_func("/tracectl/consumerd-affinity/expire", test_expire);
	return g_test_run();
}
