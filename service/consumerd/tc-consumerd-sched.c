/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-sched.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr, its first version, under a name of our
 * own: <linux/sched/types.h> clashes with glibc's struct sched_param, and
 * glibc 2.41 declares struct sched_attr itself. */
struct tc_consumerd_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime; /* the normal policy's slice, since Linux 6.12 */
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* glibc 2.36 has no wrappers for these two. */
static int
sched_getattr_self(struct tc_consumerd_sched_attr *attr)
{
	return syscall(SYS_sched_getattr, 0, attr, (unsigned int)sizeof(*attr), 0U) < 0 ? -errno
											: 0;
}

static int
sched_setattr_self(const struct tc_consumerd_sched_attr *attr)
{
	return syscall(SYS_sched_setattr, 0, attr, 0U) < 0 ? -errno : 0;
}

int
tc_consumerd_sched_short_slice(void)
{
	struct tc_consumerd_sched_attr attr = {.size = sizeof(attr)};
	int ret = sched_getattr_self(&attr);

	if (ret < 0)
		return ret;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		return 1;
	/* The policy and nice value read above are set again as they are. */
	attr.size = sizeof(attr);
	attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	attr.sched_runtime = CONSUMERD_SCHED_SLICE_NS;
	ret = sched_setattr_self(&attr);
	if (ret < 0)
		return ret;
	/* Kernels before 6.12 accept the value and ignore it; those after
	 * report the slice in effect. */
	ret = sched_getattr_self(&attr);
	if (ret < 0)
		return ret;
	return attr.sched_runtime == CONSUMERD_SCHED_SLICE_NS ? 0 : -EOPNOTSUPP;
}

int
tc_consumerd_sched_take_realtime(pthread_t from)
{
	struct sched_param param;
	int policy, ret;

	ret = pthread_getschedparam(from, &policy, &param);
	if (ret != 0)
		return -ret;
	policy &= ~SCHED_RESET_ON_FORK;
	if (policy != SCHED_FIFO && policy != SCHED_RR)
		return 1;
	/* Reset on fork, as the main thread's: the writer thread and
	 * whatever else this thread starts keep the normal policy. */
	ret = pthread_setschedparam(pthread_self(), policy | SCHED_RESET_ON_FORK, &param);
	return -ret;
}
