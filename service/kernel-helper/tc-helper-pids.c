/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which processes a session's instance records: tracefs' set_event_pid,
 * which filters on the pid of each task (a thread's own id), so a
 * process is listed with every thread it has, and event-fork adds the
 * threads and children created later (and drops the tasks that exit).
 * "Nothing" is not a state of set_event_pid (an empty list records
 * everyone): it is pid 0 (the idle tasks) listed in both set_event_pid
 * and set_event_notrace_pid, which records no task at all.
 */
#include "tc-helper-pids.h"
#include "tc-helper-log.h"
#include "tc-helper-tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

/* The pid list as text: at most TC_KERNEL_PID_THREADS_MAX numbers of at
 * most 10 digits, each followed by a space. */
struct pid_text {
	char *buf;
	size_t len;
	unsigned count;
};

static int
append_pid(struct pid_text *text, long pid)
{
	int n;

	if (text->count >= TC_KERNEL_PID_THREADS_MAX)
		return -E2BIG;
	n = snprintf(text->buf + text->len, 12, "%ld ", pid);
	if (n <= 0 || n >= 12)
		return -EINVAL;
	text->len += (size_t)n;
	text->count++;
	return 0;
}

/* pid and the threads of /proc/<pid>/task; a process that does not
 * exist (yet, or any more) is listed by its pid alone. */
static int
append_process(struct pid_text *text, int32_t pid)
{
	char path[64];
	struct dirent *entry;
	int ret = append_pid(text, pid);
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/task", pid);
	dir = opendir(path);
	while (ret == 0 && dir && (entry = readdir(dir)) != NULL) {
		char *end;
		long tid;

		if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
			continue;
		errno = 0;
		tid = strtol(entry->d_name, &end, 10);
		if (*end || errno || tid == pid || tid <= 0 || tid > INT32_MAX)
			continue;
		ret = append_pid(text, tid);
	}
	if (dir)
		closedir(dir);
	return ret;
}

void
tc_helper_pids_instance_path(uint64_t session_id, const char *file, char *path, size_t size)
{
	snprintf(path, size, "%s/instances/%s%" PRIu64 "/%s", tc_helper_tracefs_root(),
		 TC_KERNEL_INSTANCE_PREFIX, session_id, file);
}

int
tc_helper_pids_instance_write(uint64_t session_id, const char *file, const char *text, size_t len,
			      bool truncate)
{
	char path[4096];
	int fd, ret = 0;

	tc_helper_pids_instance_path(session_id, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (truncate ? O_TRUNC : O_APPEND));
	if (fd < 0)
		return -errno;
	while (ret == 0 && len > 0) {
		ssize_t written = write(fd, text, len);

		if (written < 0 && errno == EINTR)
			continue;
		if (written <= 0)
			ret = written < 0 ? -errno : -EIO;
		else {
			text += written;
			len -= (size_t)written;
		}
	}
	close(fd);
	return ret;
}

/* Replaces the contents of the instance's file (O_TRUNC empties a pid
 * list) by len bytes of text. */
static int
rewrite(uint64_t session_id, const char *file, const char *text, size_t len)
{
	return tc_helper_pids_instance_write(session_id, file, text, len, true);
}

int
tc_helper_pids_set(uint64_t session_id, const int32_t *pids, uint32_t count, bool all)
{
	struct pid_text text = {0};
	bool nothing = !all && count == 0;
	int ret = 0;

	if (count > TC_KERNEL_PIDS_MAX || (all && count > 0))
		return -EINVAL;
	for (uint32_t i = 0; i < count; i++)
		if (pids[i] <= 0)
			return -EINVAL;
	text.buf = malloc((size_t)TC_KERNEL_PID_THREADS_MAX * 12 + 1);
	if (text.buf == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; ret == 0 && i < count; i++)
		ret = append_process(&text, pids[i]);
	if (ret == 0 && nothing)
		ret = append_pid(&text, 0);
	/* Truncating set_event_pid lets every task record until the write
	 * that follows: for "nothing", idle-only is excluded first. */
	if (ret == 0 && nothing)
		ret = rewrite(session_id, "set_event_notrace_pid", "0 ", 2);
	if (ret == 0)
		ret = rewrite(session_id, "set_event_pid", text.buf, text.len);
	if (ret == 0 && !nothing)
		ret = rewrite(session_id, "set_event_notrace_pid", "", 0);
	if (ret == 0)
		ret = rewrite(session_id, "options/event-fork", all || nothing ? "0" : "1", 1);
	free(text.buf);
	tc_helper_log("info", "session %" PRIu64 ": %s (%s)", session_id,
		      all ? "every process recorded"
			  : count == 0 ? "no process recorded" : "only some processes recorded",
		      ret == 0 ? "ok" : strerror(-ret));
	return ret;
}
