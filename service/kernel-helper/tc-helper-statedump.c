/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The state dump, in lttng-modules' order: start, the block devices
 * (/proc/partitions), the network interfaces with their IPv4 addresses
 * (one event per address, one with address 0 for an interface without),
 * the interrupts and their actions (/sys/kernel/irq), the CPUs on x86
 * (/proc/cpuinfo), then every process (tc-helper-statedump-process.c),
 * then end. It runs in the helper's request thread, bounded by
 * TC_HELPER_STATEDUMP_MS, the writer's byte bound and the per-process
 * ones: a machine of thousands of processes gets the processes the dump
 * reached, and the end event all the same.
 */
#include "tc-helper-statedump.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-helper-log.h"
#include "tc-helper-statedump-process.h"
#include "tc-helper-statedump-writer.h"
#include "tc-kernel-statedump.h"

#define PROCESSES_MAX 65536u
#define IRQS_MAX 4096u
#define LINE_MAX_BYTES 512

static bool
put_empty(struct tc_helper_statedump_writer *writer, unsigned int kind)
{
	struct tc_kernel_statedump_record record;

	tc_kernel_statedump_record_begin(&record, kind);
	return tc_helper_statedump_writer_put(writer, &record);
}

/* "major minor #blocks name": dev_t as the kernel's MKDEV(). */
static void
put_block_devices(struct tc_helper_statedump_writer *writer)
{
	FILE *in = fopen("/proc/partitions", "re");
	char line[LINE_MAX_BYTES], name[64];
	unsigned int major, minor;
	unsigned long long blocks;

	while (in && fgets(line, sizeof(line), in)) {
		struct tc_kernel_statedump_record record;

		if (sscanf(line, " %u %u %llu %63s", &major, &minor, &blocks, name) != 4 ||
		    major >= 4096 || minor >= (1u << 20))
			continue;
		tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_BLOCK_DEVICE);
		tc_kernel_statedump_record_int(&record, (uint64_t)major << 20 | minor, 4, false);
		tc_kernel_statedump_record_string(&record, name, 0);
		if (!tc_helper_statedump_writer_put(writer, &record))
			break;
	}
	if (in)
		fclose(in);
}

static bool
put_interface(struct tc_helper_statedump_writer *writer, const char *name, uint32_t address)
{
	struct tc_kernel_statedump_record record;

	tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_NETWORK_INTERFACE);
	tc_kernel_statedump_record_string(&record, name, 4);
	tc_kernel_statedump_record_int(&record, address, 4, true);
	return tc_helper_statedump_writer_put(writer, &record);
}

static bool
has_ipv4(const struct ifaddrs *all, const char *name)
{
	for (const struct ifaddrs *a = all; a; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && strcmp(a->ifa_name, name) == 0)
			return true;
	return false;
}

/* Each IPv4 address of each interface; the interfaces without one (their
 * AF_PACKET entry, one per interface) with address 0, as lttng-modules. */
static void
put_network_interfaces(struct tc_helper_statedump_writer *writer)
{
	struct ifaddrs *all = NULL;

	if (getifaddrs(&all) < 0)
		return;
	for (const struct ifaddrs *a = all; a; a = a->ifa_next) {
		bool ok = true;

		if (!a->ifa_addr)
			continue;
		if (a->ifa_addr->sa_family == AF_INET)
			ok = put_interface(
			    writer, a->ifa_name,
			    ntohl(((const struct sockaddr_in *)(const void *)a->ifa_addr)->sin_addr.s_addr));
		else if (a->ifa_addr->sa_family == AF_PACKET && !has_ipv4(all, a->ifa_name))
			ok = put_interface(writer, a->ifa_name, 0);
		if (!ok)
			break;
	}
	freeifaddrs(all);
}

/* A small sysfs file's first line, without its newline; "" if none. */
static void
read_line(int dir_fd, const char *name, char *buf, size_t size)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[len > 0 ? len : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* One event per action of the interrupt ("actions" is a comma-separated
 * list); the threaded handler's tid is not in sysfs: 0. */
static bool
put_interrupt(struct tc_helper_statedump_writer *writer, int irq_fd, uint32_t irq)
{
	char chip[128], actions[LINE_MAX_BYTES], *action, *save = NULL;
	bool ok = true;

	read_line(irq_fd, "chip_name", chip, sizeof(chip));
	read_line(irq_fd, "actions", actions, sizeof(actions));
	for (action = strtok_r(actions, ",", &save); ok && action;
	     action = strtok_r(NULL, ",", &save)) {
		struct tc_kernel_statedump_record record;

		tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_INTERRUPT);
		tc_kernel_statedump_record_int(&record, irq, 4, false);
		tc_kernel_statedump_record_string(&record, chip, 256);
		tc_kernel_statedump_record_string(&record, action, 4);
		tc_kernel_statedump_record_int(&record, 0, 4, false);
		ok = tc_helper_statedump_writer_put(writer, &record);
	}
	return ok;
}

static void
put_interrupts(struct tc_helper_statedump_writer *writer)
{
	DIR *irqs = opendir("/sys/kernel/irq");
	struct dirent *entry;
	uint32_t n = 0;

	while (irqs && (entry = readdir(irqs)) && n < IRQS_MAX) {
		char *end;
		unsigned long irq = strtoul(entry->d_name, &end, 10);
		int irq_fd;
		bool ok;

		if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || *end || irq > UINT32_MAX)
			continue;
		irq_fd = openat(dirfd(irqs), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (irq_fd < 0)
			continue;
		n++;
		ok = put_interrupt(writer, irq_fd, (uint32_t)irq);
		close(irq_fd);
		if (!ok)
			break;
	}
	if (irqs)
		closedir(irqs);
}

#if defined(__x86_64__) || defined(__i386__)
struct cpu_info {
	long cpu_id, family, model, physical_id, core_id, cores;
	char vendor[64], model_name[128];
};

static bool
put_cpu(struct tc_helper_statedump_writer *writer, const struct cpu_info *cpu)
{
	struct tc_kernel_statedump_record record;

	tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_CPU_TOPOLOGY);
	tc_kernel_statedump_record_string(&record, "x86", 512);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->cpu_id, 2, false);
	tc_kernel_statedump_record_string(&record, cpu->vendor[0] ? cpu->vendor : "unknown", 512);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->family, 1, false);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->model, 1, false);
	tc_kernel_statedump_record_string(&record,
					  cpu->model_name[0] ? cpu->model_name : "unknown", 6);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->physical_id, 2, false);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->core_id, 2, false);
	tc_kernel_statedump_record_int(&record, (uint64_t)cpu->cores, 2, false);
	return tc_helper_statedump_writer_put(writer, &record);
}

/* "key\t: value" lines, a blank line after each processor. */
static void
put_cpu_topology(struct tc_helper_statedump_writer *writer)
{
	FILE *in = fopen("/proc/cpuinfo", "re");
	char line[LINE_MAX_BYTES];
	struct cpu_info cpu = {.cpu_id = -1};

	while (in && fgets(line, sizeof(line), in)) {
		char *colon = strchr(line, ':'), *value;

		if (line[0] == '\n') {
			if (cpu.cpu_id >= 0 && !put_cpu(writer, &cpu))
				break;
			memset(&cpu, 0, sizeof(cpu));
			cpu.cpu_id = -1;
			continue;
		}
		if (!colon)
			continue;
		value = colon + 1 + strspn(colon + 1, " \t");
		value[strcspn(value, "\n")] = '\0';
		if (strncmp(line, "processor", 9) == 0)
			cpu.cpu_id = strtol(value, NULL, 10);
		else if (strncmp(line, "vendor_id", 9) == 0)
			snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", value);
		else if (strncmp(line, "cpu family", 10) == 0)
			cpu.family = strtol(value, NULL, 10);
		else if (strncmp(line, "model name", 10) == 0)
			snprintf(cpu.model_name, sizeof(cpu.model_name), "%s", value);
		else if (strncmp(line, "model\t", 6) == 0)
			cpu.model = strtol(value, NULL, 10);
		else if (strncmp(line, "physical id", 11) == 0)
			cpu.physical_id = strtol(value, NULL, 10);
		else if (strncmp(line, "core id", 7) == 0)
			cpu.core_id = strtol(value, NULL, 10);
		else if (strncmp(line, "cpu cores", 9) == 0)
			cpu.cores = strtol(value, NULL, 10);
	}
	if (in)
		fclose(in);
}
#else
static void
put_cpu_topology(struct tc_helper_statedump_writer *writer)
{
	(void)writer; /* lttng-modules has the event on x86 only */
}
#endif

static uint64_t
own_user_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void
put_processes(struct tc_helper_statedump_writer *writer)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	uint64_t user_ns = own_user_ns();
	uint32_t n = 0;

	while (proc && !tc_helper_statedump_writer_is_done(writer) && (entry = readdir(proc))) {
		char *end;
		long pid = strtol(entry->d_name, &end, 10);
		int dir_fd;

		if (entry->d_name[0] < '1' || entry->d_name[0] > '9' || *end || pid > INT32_MAX)
			continue;
		if (n++ == PROCESSES_MAX) {
			writer->is_cut = true;
			break;
		}
		dir_fd = openat(dirfd(proc), entry->d_name,
				O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (dir_fd < 0)
			continue; /* gone */
		tc_helper_statedump_process(writer, dir_fd, (int32_t)pid, user_ns);
		close(dir_fd);
	}
	if (proc)
		closedir(proc);
}

int
tc_helper_statedump(uint64_t session_id, uint32_t *records)
{
	struct tc_helper_statedump_writer writer;
	int64_t started = tc_helper_log_now_ms();
	int ret = tc_helper_statedump_writer_open(&writer, session_id,
						  started + TC_HELPER_STATEDUMP_MS);

	if (ret < 0)
		return ret;
	if (put_empty(&writer, TC_KERNEL_STATEDUMP_START)) {
		put_block_devices(&writer);
		put_network_interfaces(&writer);
		put_interrupts(&writer);
		put_cpu_topology(&writer);
		put_processes(&writer);
	}
	put_empty(&writer, TC_KERNEL_STATEDUMP_END);
	tc_helper_statedump_writer_close(&writer);
	*records = writer.records;
	tc_helper_log(writer.is_cut ? "warning" : "info",
		      "session %" PRIu64 ": state dump of %" PRIu32 " events, %" PRIu64
		      " bytes in %" PRId64 " ms%s",
		      session_id, writer.records, writer.bytes, tc_helper_log_now_ms() - started,
		      writer.is_cut ? ", cut at its bounds" : "");
	return writer.error;
}
