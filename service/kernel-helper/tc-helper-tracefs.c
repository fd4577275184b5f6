/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracefs work of a session, in its own instance
 * (instances/tracectl-<session id>), with libtracefs: buffer size, trace
 * clock, events, recording on and off, the per-CPU raw buffers and the
 * event formats the consumer needs to decode them.
 */
#include "tc-helper-tracefs.h"
#include "tc-helper-request.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tracefs.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

const char *
tc_helper_tracefs_root(void)
{
	const char *env = getenv("TRACECTL_TRACEFS");

	return env && *env ? env : "/sys/kernel/tracing";
}

#define FORMAT_MAX (1u << 20)

/* The instance of a session; the name is ours, only the number varies. */
static struct tracefs_instance *
session_instance(uint64_t session_id)
{
	char name[TC_HELPER_REQUEST_NAME_MAX];

	tc_helper_request_instance_name(session_id, name, sizeof(name));
	return tracefs_instance_alloc(tc_helper_tracefs_root(), name);
}

static int
write_file(struct tracefs_instance *instance, const char *file, const char *text)
{
	return tracefs_instance_file_write(instance, file, text) < 0 ? -EIO : 0;
}

#define BUFFER_PERCENT_WAKE "25"

int
tc_helper_tracefs_instance_setup(uint64_t session_id, uint32_t value)
{
	struct tracefs_instance *instance;
	const char *clock;
	char size[32];
	int ret = tc_helper_request_instance_setup(value, &clock, size, sizeof(size));

	if (ret < 0)
		return ret;
	instance = session_instance(session_id);
	if (!instance)
		return -ENOMEM;
	ret = write_file(instance, "trace_clock", clock);
	if (ret == 0)
		ret = write_file(instance, "tracing_on", "0");
	if (ret == 0 && size[0])
		ret = write_file(instance, "buffer_size_kb", size);
	if (ret == 0 && tc_helper_request_instance_overwrites(value))
		ret = write_file(instance, "options/overwrite", "1");
	/* The consumer polls trace_pipe_raw between its timed drains: a CPU
	 * buffer a quarter full wakes it, three quarters are left for its
	 * latency. Kernels without the file wake it at the first page. */
	if (ret == 0 && tracefs_file_exists(instance, "buffer_percent"))
		ret = write_file(instance, "buffer_percent", BUFFER_PERCENT_WAKE);
	tracefs_instance_free(instance);
	return ret;
}

int
tc_helper_tracefs_event_enable(uint64_t session_id, const char *system, const char *event,
			       bool enable)
{
	struct tracefs_instance *instance = session_instance(session_id);
	char system_re[2 * TC_KERNEL_NAME_MAX + 4], event_re[2 * TC_KERNEL_NAME_MAX + 4];
	int ret;

	if (!instance)
		return -ENOMEM;
	tc_helper_request_glob_regex(system, system_re, sizeof(system_re));
	tc_helper_request_glob_regex(event, event_re, sizeof(event_re));
	errno = 0;
	ret = enable ? tracefs_event_enable(instance, system_re, event_re)
		     : tracefs_event_disable(instance, system_re, event_re);
	tracefs_instance_free(instance);
	/* libtracefs: -1 with errno ENOENT when nothing matched. */
	return ret < 0 ? (errno ? -errno : -ENOENT) : 0;
}

int
tc_helper_tracefs_tracing_on(uint64_t session_id, bool on)
{
	struct tracefs_instance *instance = session_instance(session_id);
	int ret;

	if (!instance)
		return -ENOMEM;
	ret = write_file(instance, "tracing_on", on ? "1" : "0");
	tracefs_instance_free(instance);
	return ret;
}

int
tc_helper_tracefs_record_tgids(uint64_t session_id)
{
	struct tracefs_instance *instance = session_instance(session_id);
	int ret;

	if (!instance)
		return -ENOMEM;
	ret = write_file(instance, "options/record-tgid", "1");
	tracefs_instance_free(instance);
	return ret;
}

/* per_cpu/cpu<cpu>/<file> of the session's instance. */
static int
open_cpu_file(uint64_t session_id, int cpu, const char *file, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/instances/%s%" PRIu64 "/per_cpu/cpu%d/%s",
		 tc_helper_tracefs_root(), TC_KERNEL_INSTANCE_PREFIX, session_id, cpu, file);
	return open(path, flags | O_CLOEXEC);
}

int
tc_helper_tracefs_open_cpu_buffers(uint64_t session_id, int *fds, int *stats_fds, int max,
				   int *count)
{
	int cpu, ret = 0;

	*count = 0;
	for (cpu = 0; cpu < max; cpu++) {
		fds[cpu] = open_cpu_file(session_id, cpu, "trace_pipe_raw", O_RDONLY | O_NONBLOCK);
		if (fds[cpu] < 0 && errno == ENOENT && cpu > 0)
			break; /* no such CPU: done */
		stats_fds[cpu] = fds[cpu] < 0 ? -1 : open_cpu_file(session_id, cpu, "stats", O_RDONLY);
		if (fds[cpu] < 0 || stats_fds[cpu] < 0) {
			ret = -errno;
			if (fds[cpu] >= 0)
				close(fds[cpu]);
			break;
		}
	}
	if (ret < 0) {
		while (cpu-- > 0) {
			close(fds[cpu]);
			close(stats_fds[cpu]);
		}
		return ret;
	}
	*count = cpu;
	return 0;
}

/* Appends "== <system> <event>\n" and the file at path to fd. */
static int
append_record(int fd, const char *system, const char *event, const char *path)
{
	char line[2 * TC_KERNEL_NAME_MAX + 8];
	char *text = NULL;
	size_t len = 0;
	FILE *in = fopen(path, "re");
	int ret = 0;

	if (!in)
		return -errno;
	text = malloc(FORMAT_MAX);
	if (!text) {
		fclose(in);
		return -ENOMEM;
	}
	len = fread(text, 1, FORMAT_MAX, in);
	fclose(in);
	snprintf(line, sizeof(line), "== %s %s\n", system, event);
	if (write(fd, line, strlen(line)) < 0 || write(fd, text, len) != (ssize_t)len)
		ret = -errno;
	free(text);
	return ret;
}

static bool
event_is_enabled(const char *events_dir, const char *system, const char *event)
{
	char path[4096], value[4] = "";
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s/%s/enable", events_dir, system, event) >=
	    (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, value, sizeof(value) - 1) < 0)
		value[0] = '0';
	close(fd);
	return value[0] == '1';
}

/* The events whose formats go to the consumer: the enabled ones (globs
 * NULL), or those matching the globs. */
struct format_filter {
	const char *system_glob, *event_glob;
	int count;
};

static bool
filter_matches(const struct format_filter *filter, const char *events_dir, const char *system,
	       const char *event)
{
	if (!filter->system_glob)
		return event_is_enabled(events_dir, system, event);
	return fnmatch(filter->system_glob, system, 0) == 0 &&
	       fnmatch(filter->event_glob, event, 0) == 0;
}

static bool
is_directory(const struct dirent *entry)
{
	return entry->d_name[0] != '.' && (entry->d_type == DT_DIR || entry->d_type == DT_UNKNOWN);
}

static int
append_system_formats(int fd, const char *events_dir, const char *system,
		      struct format_filter *filter)
{
	char path[4096];
	struct dirent *event;
	DIR *events;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", events_dir, system) >= (int)sizeof(path))
		return 0;
	events = opendir(path);
	while (ret == 0 && events && (event = readdir(events))) {
		if (!is_directory(event) ||
		    !filter_matches(filter, events_dir, system, event->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/%s/format", events_dir, system,
			     event->d_name) >= (int)sizeof(path))
			continue;
		ret = append_record(fd, system, event->d_name, path);
		/* Directories without a format (a system's own) are not events. */
		if (ret == -ENOENT)
			ret = 0;
		else if (ret == 0)
			filter->count++;
	}
	if (events)
		closedir(events);
	return ret;
}

static int
append_formats(int fd, const char *events_dir, struct format_filter *filter)
{
	struct dirent *system;
	DIR *systems = opendir(events_dir);
	int ret = 0;

	if (!systems)
		return -errno;
	while (ret == 0 && (system = readdir(systems)))
		if (is_directory(system))
			ret = append_system_formats(fd, events_dir, system->d_name, filter);
	closedir(systems);
	return ret;
}

int
tc_helper_tracefs_formats_memfd(uint64_t session_id, const char *system_glob,
				const char *event_glob, int *count)
{
	struct format_filter filter = {.system_glob = system_glob, .event_glob = event_glob};
	char events_dir[4096], path[4096];
	int fd = memfd_create("tracectl-formats", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int ret;

	if (fd < 0)
		return -errno;
	snprintf(events_dir, sizeof(events_dir), "%s/instances/%s%" PRIu64 "/events",
		 tc_helper_tracefs_root(), TC_KERNEL_INSTANCE_PREFIX, session_id);
	if (snprintf(path, sizeof(path), "%s/header_page", events_dir) >= (int)sizeof(path)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	ret = append_record(fd, "header_page", "header_page", path);
	if (ret == 0)
		ret = append_formats(fd, events_dir, &filter);
	/* The state dump's records (TC_KERNEL_STATEDUMP): an ftrace event,
	 * recorded whatever is enabled. */
	if (ret == 0 && !system_glob &&
	    snprintf(path, sizeof(path), "%s/ftrace/raw_data/format", events_dir) < (int)sizeof(path))
		ret = append_record(fd, "ftrace", "raw_data", path);
	if (ret == -ENOENT)
		ret = 0; /* a kernel without it: no state dump, the rest as before */
	/* The consumer reads it as it is: nobody may change it. */
	if (ret == 0 && fcntl(fd, F_ADD_SEALS,
			      F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		ret = -errno;
	if (ret < 0) {
		close(fd);
		return ret;
	}
	if (count)
		*count = filter.count;
	return fd;
}

/* One line per event of the system directory at path (syscalls: names
 * without their sys_enter_ prefix, exits left out). */
static void
list_system(FILE *out, const char *path, const char *system, bool syscalls)
{
	struct dirent *entry;
	DIR *dir = opendir(path);

	if (!dir)
		return;
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.' ||
		    (entry->d_type != DT_DIR && entry->d_type != DT_UNKNOWN))
			continue;
		if (!syscalls)
			fprintf(out, "%s:%s\n", system, entry->d_name);
		else if (strncmp(entry->d_name, "sys_enter_", 10) == 0)
			fprintf(out, "%s\n", entry->d_name + 10);
	}
	closedir(dir);
}

int
tc_helper_tracefs_list_memfd(bool syscalls)
{
	char events_dir[4096], path[4096];
	int fd = memfd_create("tracectl-events", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct dirent *system;
	FILE *out;
	DIR *dir;

	if (fd < 0)
		return -errno;
	snprintf(events_dir, sizeof(events_dir), "%s/events", tc_helper_tracefs_root());
	out = fdopen(dup(fd), "w");
	dir = opendir(events_dir);
	while (out && dir && (system = readdir(dir))) {
		if (system->d_name[0] == '.' ||
		    (system->d_type != DT_DIR && system->d_type != DT_UNKNOWN) ||
		    (syscalls && strcmp(system->d_name, "syscalls") != 0))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", events_dir, system->d_name) <
		    (int)sizeof(path))
			list_system(out, path, system->d_name, syscalls);
	}
	if (dir)
		closedir(dir);
	if (!out || fclose(out) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}
