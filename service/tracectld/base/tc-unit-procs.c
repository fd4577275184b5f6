/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-unit"

#include "tc-unit-procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Where the "0::" paths of /proc/PID/cgroup start: the unified hierarchy
 * alone, or beside systemd's hybrid layout's v1 controllers. */
static const char *const unified_roots[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};

/* cgroup.procs of a large group is cut at this size, as the pid bound is. */
#define PROCS_FILE_MAX (64 * 1024)

#define OPEN_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

typedef struct {
	GArray *pids;
	guint groups;
	gboolean truncated;
} ProcsRead;

static int
open_unified_root(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(unified_roots); i++) {
		int fd = open(unified_roots[i], OPEN_DIR_FLAGS);
		struct statfs fs;

		if (fd < 0)
			continue;
		if (fstatfs(fd, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC)
			return fd;
		close(fd);
	}
	return -1;
}

/* The group at path below root, opened one component at a time with no
 * symbolic link followed; "." and ".." are refused though unit groups
 * come from systemd, which never names them. */
static int
open_group(int root_fd, const char *path)
{
	g_auto(GStrv) parts = g_strsplit(path, "/", 0);
	int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);

	for (guint i = 0; fd >= 0 && parts[i]; i++) {
		int next;

		if (parts[i][0] == '\0')
			continue;
		if (g_str_equal(parts[i], ".") || g_str_equal(parts[i], "..")) {
			close(fd);
			return -1;
		}
		next = openat(fd, parts[i], OPEN_DIR_FLAGS);
		close(fd);
		fd = next;
	}
	return fd;
}

static void
add_pids(ProcsRead *read_state, int dir_fd)
{
	g_autofree char *buf = g_malloc(PROCS_FILE_MAX + 1);
	int fd = openat(dir_fd, "cgroup.procs", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t len = 0;
	ssize_t n = 0;
	char *line;

	if (fd < 0)
		return;
	while (len < PROCS_FILE_MAX && (n = read(fd, buf + len, PROCS_FILE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len == PROCS_FILE_MAX)
		read_state->truncated = TRUE;
	buf[len] = '\0';
	for (line = buf; *line;) {
		char *end;
		long pid = strtol(line, &end, 10);

		if (end == line)
			break;
		if (pid > 0 && pid <= G_MAXINT) {
			if (read_state->pids->len >= TC_UNIT_PROCS_PIDS_MAX) {
				read_state->truncated = TRUE;
				return;
			}
			g_array_append_val(read_state->pids, (pid_t){(pid_t)pid});
		}
		line = *end ? end + 1 : end;
	}
}

/* Adds the pids of the group dir_fd (taken) and of those below it. */
static void
walk_group(ProcsRead *read_state, int dir_fd, guint depth)
{
	DIR *dir;
	struct dirent *entry;

	if (read_state->groups >= TC_UNIT_PROCS_GROUPS_MAX) {
		read_state->truncated = TRUE;
		close(dir_fd);
		return;
	}
	read_state->groups++;
	add_pids(read_state, dir_fd);
	dir = fdopendir(dir_fd);
	if (dir == NULL) {
		close(dir_fd);
		return;
	}
	while (!read_state->truncated && (entry = readdir(dir))) {
		int child;

		if (entry->d_type != DT_DIR || g_str_equal(entry->d_name, ".") ||
		    g_str_equal(entry->d_name, ".."))
			continue;
		if (depth >= TC_UNIT_PROCS_DEPTH_MAX) {
			read_state->truncated = TRUE;
			break;
		}
		child = openat(dirfd(dir), entry->d_name, OPEN_DIR_FLAGS);
		if (child >= 0)
			walk_group(read_state, child, depth + 1);
	}
	closedir(dir);
}

GArray *
tc_unit_procs_read(GPtrArray *cgroups, gboolean *truncated)
{
	ProcsRead read_state = {.pids = g_array_new(FALSE, FALSE, sizeof(pid_t))};
	int root_fd = open_unified_root();

	for (guint i = 0; root_fd >= 0 && i < cgroups->len && !read_state.truncated; i++) {
		int fd = open_group(root_fd, g_ptr_array_index(cgroups, i));

		if (fd >= 0)
			walk_group(&read_state, fd, 0);
	}
	if (root_fd >= 0)
		close(root_fd);
	*truncated = read_state.truncated;
	return read_state.pids;
}
