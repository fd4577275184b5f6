/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld"

#include "tc-perf-probe.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-perf-counter.h"

/* Where the kernel lists its PMUs: a hardware counter needs "cpu". */
#define PMU_DIRECTORY "/sys/bus/event_source/devices"
#define PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"
/* The highest perf_event_paranoid that lets a user count its own
 * threads in user space (exclude_kernel), as applications open them;
 * Debian's kernels take 3 as "no user may". */
#define PARANOID_USER_MAX 2

/* The counter opened on the calling thread as applications open it on
 * theirs (user space only), or -errno. */
static int
try_open(const struct tc_perf_counter *counter)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = counter->type,
		.config = counter->config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The counter as AddContext takes it, for messages. */
static void
spell(const struct tc_perf_counter *counter, char *out, gsize size)
{
	if (tc_perf_counter_spell(counter, out, size) < 0)
		g_strlcpy(out, counter->name, size);
}

static gboolean
check_paranoid(const char *spelling, uid_t owner, GError **error)
{
	g_autofree char *text = NULL;
	gint64 paranoid;

	if (owner == 0 || !g_file_get_contents(PARANOID_FILE, &text, NULL, NULL))
		return TRUE;
	paranoid = g_ascii_strtoll(text, NULL, 10);
	if (paranoid <= PARANOID_USER_MAX)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "Perf counter '%s' cannot be counted by uid %u's applications: "
		    "kernel.perf_event_paranoid is %" G_GINT64_FORMAT " (%s), which lets no "
		    "user but root count; at most %d lets them count their own threads",
		    spelling, (unsigned)owner, paranoid, PARANOID_FILE, PARANOID_USER_MAX);
	return FALSE;
}

gboolean
tc_perf_probe_check(const struct tc_perf_counter *counter, uid_t owner, GError **error)
{
	g_autofree char *cpu_pmu = g_build_filename(PMU_DIRECTORY, "cpu", NULL);
	char spelling[TC_PERF_COUNTER_NAME_MAX];
	int ret = try_open(counter);

	spell(counter, spelling, sizeof(spelling));
	if (ret == 0)
		return check_paranoid(spelling, owner, error);
	if (ret == -EACCES || ret == -EPERM) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Perf counter '%s' cannot be counted on this machine: %s "
			    "(perf_event_open; see %s)",
			    spelling, g_strerror(-ret), PARANOID_FILE);
		return FALSE;
	}
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "Perf counter '%s' cannot be counted on this machine: the kernel has no such "
		    "counter (perf_event_open: %s)%s",
		    spelling, g_strerror(-ret),
		    counter->type == PERF_TYPE_SOFTWARE || g_file_test(cpu_pmu, G_FILE_TEST_EXISTS)
			? ""
			: "; it has no hardware counters at all (no 'cpu' in " PMU_DIRECTORY
			  "), as most virtual machines");
	return FALSE;
}

gboolean
tc_perf_probe_check_all(const GArray *counters, uid_t owner, GError **error)
{
	for (guint i = 0; i < counters->len; i++)
		if (!tc_perf_probe_check(&g_array_index(counters, struct tc_perf_counter, i), owner,
					 error))
			return FALSE;
	return TRUE;
}
