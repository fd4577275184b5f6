/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-affinity.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc-consumer-log.h"

/* Kernels are built for up to 8192 CPUs; sched_getaffinity() wants a set
 * at least that wide, and says EINVAL otherwise. */
#define SET_CPUS_FIRST 1024
#define SET_CPUS_MAX (1 << 16)

static int
read_allowed(struct consumerd_affinity *affinity)
{
	return sched_getaffinity(0, affinity->set_size, affinity->allowed) < 0 ? -errno : 0;
}

int
consumerd_affinity_init(struct consumerd_affinity *affinity)
{
	int ret = -EINVAL;

	memset(affinity, 0, sizeof(*affinity));
	affinity->cpu = -1;
	for (int cpus = SET_CPUS_FIRST; cpus <= SET_CPUS_MAX; cpus *= 2) {
		affinity->allowed = CPU_ALLOC(cpus);
		affinity->one = CPU_ALLOC(cpus);
		affinity->set_size = CPU_ALLOC_SIZE(cpus);
		if (!affinity->allowed || !affinity->one) {
			ret = -ENOMEM;
			break;
		}
		ret = read_allowed(affinity);
		if (ret != -EINVAL)
			break;
		CPU_FREE(affinity->allowed);
		CPU_FREE(affinity->one);
		affinity->allowed = affinity->one = NULL;
	}
	if (ret < 0)
		consumerd_affinity_fini(affinity);
	/* One CPU: nowhere to move, no system call to make. */
	else if (CPU_COUNT_S(affinity->set_size, affinity->allowed) < 2)
		consumerd_affinity_fini(affinity);
	return ret;
}

void
consumerd_affinity_fini(struct consumerd_affinity *affinity)
{
	if (affinity->allowed)
		CPU_FREE(affinity->allowed);
	if (affinity->one)
		CPU_FREE(affinity->one);
	affinity->allowed = affinity->one = NULL;
	affinity->cpu = -1;
}

void
consumerd_affinity_follow(struct consumerd_affinity *affinity, uint32_t cpu, uint64_t now)
{
	if (!affinity->allowed || cpu >= affinity->set_size * 8 ||
	    !CPU_ISSET_S(cpu, affinity->set_size, affinity->allowed))
		return;
	affinity->last_asked = now;
	if (affinity->cpu == (int)cpu)
		return;
	if (affinity->cpu >= 0 && now - affinity->moved_at < CONSUMERD_AFFINITY_HOLD_MIN_NS)
		return;
	CPU_ZERO_S(affinity->set_size, affinity->one);
	CPU_SET_S(cpu, affinity->set_size, affinity->one);
	if (sched_setaffinity(0, affinity->set_size, affinity->one) == 0) {
		affinity->cpu = (int)cpu;
		affinity->moved_at = now;
		consumerd_debug("Waiting for wake-ups on CPU %u", cpu);
		return;
	}
	consumerd_debug("Cannot run on CPU %u, staying where it is: %m", cpu);
	if (read_allowed(affinity) < 0)
		consumerd_affinity_fini(affinity);
}

bool
consumerd_affinity_held_since(const struct consumerd_affinity *affinity, uint32_t cpu,
			      uint64_t since)
{
	return affinity->cpu >= 0 && (uint32_t)affinity->cpu == cpu && affinity->moved_at <= since;
}

void
consumerd_affinity_release(struct consumerd_affinity *affinity)
{
	if (affinity->cpu < 0)
		return;
	/* What the thread was given may have changed meanwhile (a cpuset):
	 * the kernel keeps what is still allowed of it. */
	if (sched_setaffinity(0, affinity->set_size, affinity->allowed) < 0)
		consumerd_warning("Failed to give the consumer back its CPUs: %m");
	affinity->cpu = -1;
	consumerd_debug("Waiting for wake-ups on any CPU");
}

uint64_t
consumerd_affinity_expire(struct consumerd_affinity *affinity, uint64_t now)
{
	if (affinity->cpu < 0)
		return 0;
	if (now - affinity->last_asked >= CONSUMERD_AFFINITY_IDLE_NS) {
		consumerd_affinity_release(affinity);
		return 0;
	}
	return affinity->last_asked + CONSUMERD_AFFINITY_IDLE_NS;
}
