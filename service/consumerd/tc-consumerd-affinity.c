/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-affinity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc-consumerd-log.h"

/* Kernels are built for up to 8192 CPUs; sched_getaffinity() wants a set
 * at least that wide, and says EINVAL otherwise. */
#define SET_CPUS_FIRST 1024
#define SET_CPUS_MAX (1 << 16)

/* The steal of all CPUs so far, in USER_HZ ticks: the eighth number of
 * the "cpu" line of /proc/stat; 0 when it cannot be read. */
static uint64_t
read_steal(const char *stat_path)
{
	unsigned long long fields[8] = {0};
	FILE *stat = fopen(stat_path, "re");
	int found = 0;

	if (!stat)
		return 0;
	found = fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &fields[0], &fields[1],
		       &fields[2], &fields[3], &fields[4], &fields[5], &fields[6], &fields[7]);
	fclose(stat);
	return found == 8 ? fields[7] : 0;
}

/* Did the hypervisor take time from the machine since the last call? */
static bool
steal_grew(struct tc_consumerd_affinity *affinity)
{
	uint64_t steal = read_steal(affinity->stat_path);
	bool grew = steal > affinity->steal;

	affinity->steal = steal;
	return grew;
}

static int
read_allowed(struct tc_consumerd_affinity *affinity)
{
	return sched_getaffinity(0, affinity->set_size, affinity->allowed) < 0 ? -errno : 0;
}

int
tc_consumerd_affinity_init(struct tc_consumerd_affinity *affinity)
{
	int ret = -EINVAL;

	memset(affinity, 0, sizeof(*affinity));
	affinity->cpu = -1;
	affinity->stat_path = "/proc/stat";
	affinity->steal = read_steal(affinity->stat_path);
	for (int cpus = SET_CPUS_FIRST; cpus <= SET_CPUS_MAX; cpus *= 2) {
		affinity->allowed = CPU_ALLOC(cpus);
		affinity->scratch = CPU_ALLOC(cpus);
		affinity->set_size = CPU_ALLOC_SIZE(cpus);
		if (!affinity->allowed || !affinity->scratch) {
			ret = -ENOMEM;
			break;
		}
		ret = read_allowed(affinity);
		if (ret != -EINVAL)
			break;
		CPU_FREE(affinity->allowed);
		CPU_FREE(affinity->scratch);
		affinity->allowed = affinity->scratch = NULL;
	}
	if (ret < 0)
		tc_consumerd_affinity_fini(affinity);
	/* One CPU: nowhere to move, no system call to make. */
	else if (CPU_COUNT_S(affinity->set_size, affinity->allowed) < 2)
		tc_consumerd_affinity_fini(affinity);
	return ret;
}

void
tc_consumerd_affinity_fini(struct tc_consumerd_affinity *affinity)
{
	if (affinity->allowed)
		CPU_FREE(affinity->allowed);
	if (affinity->scratch)
		CPU_FREE(affinity->scratch);
	affinity->allowed = affinity->scratch = NULL;
	affinity->cpu = -1;
}

/* Whether the thread may be placed about cpu now: one of its CPUs, and
 * the current placement, if another, held long enough. */
static bool
may_place(const struct tc_consumerd_affinity *affinity, uint32_t cpu, bool away, uint64_t now)
{
	if (!affinity->allowed || cpu >= affinity->set_size * 8 ||
	    !CPU_ISSET_S(cpu, affinity->set_size, affinity->allowed))
		return false;
	if (affinity->cpu < 0 || (affinity->cpu == (int)cpu && affinity->away == away))
		return true;
	return now - affinity->moved_at >= CONSUMERD_AFFINITY_HOLD_MIN_NS;
}

static void
place(struct tc_consumerd_affinity *affinity, uint32_t cpu, bool away, uint64_t now)
{
	/* Refused, a request still says the placement is wanted. */
	tc_consumerd_affinity_keep(affinity, now);
	if (!may_place(affinity, cpu, away, now))
		return;
	affinity->last_asked = now;
	if (affinity->cpu == (int)cpu && affinity->away == away)
		return;
	CPU_ZERO_S(affinity->set_size, affinity->scratch);
	if (away) {
		CPU_OR_S(affinity->set_size, affinity->scratch, affinity->scratch,
			 affinity->allowed);
		CPU_CLR_S(cpu, affinity->set_size, affinity->scratch);
	} else
		CPU_SET_S(cpu, affinity->set_size, affinity->scratch);
	if (sched_setaffinity(0, affinity->set_size, affinity->scratch) == 0) {
		affinity->cpu = (int)cpu;
		affinity->away = away;
		affinity->moved_at = now;
		tc_consumerd_debug("Waiting for wake-ups %s CPU %u", away ? "off" : "on", cpu);
		return;
	}
	tc_consumerd_debug("Cannot wait %s CPU %u, staying where it is: %m", away ? "off" : "on",
			   cpu);
	if (read_allowed(affinity) < 0)
		tc_consumerd_affinity_fini(affinity);
}

void
tc_consumerd_affinity_follow(struct tc_consumerd_affinity *affinity, uint32_t cpu, uint64_t now)
{
	place(affinity, cpu, false, now);
}

void
tc_consumerd_affinity_avoid(struct tc_consumerd_affinity *affinity, uint32_t cpu, uint64_t now)
{
	place(affinity, cpu, true, now);
}

void
tc_consumerd_affinity_late_wake(struct tc_consumerd_affinity *affinity, uint32_t writer_cpu,
				int ran_on, uint64_t now)
{
	if (ran_on < 0)
		return;
	if ((uint32_t)ran_on == writer_cpu)
		tc_consumerd_affinity_avoid(affinity, writer_cpu, now);
	else if (steal_grew(affinity))
		tc_consumerd_affinity_follow(affinity, writer_cpu, now);
	else
		tc_consumerd_debug("Late wake-up on CPU %d without steal: not following CPU %u",
				   ran_on, writer_cpu);
}

void
tc_consumerd_affinity_keep(struct tc_consumerd_affinity *affinity, uint64_t now)
{
	if (affinity->cpu >= 0)
		affinity->last_asked = now;
}

void
tc_consumerd_affinity_release(struct tc_consumerd_affinity *affinity)
{
	if (affinity->cpu < 0)
		return;
	/* What the thread was given may have changed meanwhile (a cpuset):
	 * the kernel keeps what is still allowed of it. */
	if (sched_setaffinity(0, affinity->set_size, affinity->allowed) < 0)
		tc_consumerd_warning("Failed to give the consumer back its CPUs: %m");
	affinity->cpu = -1;
	tc_consumerd_debug("Waiting for wake-ups on any CPU");
}

uint64_t
tc_consumerd_affinity_expire(struct tc_consumerd_affinity *affinity, uint64_t now)
{
	if (affinity->cpu < 0)
		return 0;
	if (now - affinity->last_asked >= CONSUMERD_AFFINITY_IDLE_NS) {
		tc_consumerd_affinity_release(affinity);
		return 0;
	}
	return affinity->last_asked + CONSUMERD_AFFINITY_IDLE_NS;
}
