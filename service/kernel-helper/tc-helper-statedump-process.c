/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One process of the state dump, from /proc/PID, as lttng-modules'
 * lttng-statedump-impl.c writes it from the kernel's structures:
 *
 * - per thread (task/TID): lttng_statedump_process_state from its stat
 *   (name, state, parent, CPU, kernel thread or not), then one event per
 *   namespace, its inode from ns/NAME, the pid namespace's ids from the
 *   thread's NSpid and NStgid status lines, the user namespace's from its
 *   Uid and Gid mapped through the process' uid_map and gid_map;
 * - lttng_statedump_file_descriptor per descriptor: its path as the
 *   kernel prints it (fd/N, "socket:[INODE]" for a socket), the flags of
 *   fdinfo/N, its mode read and written from those flags;
 * - lttng_statedump_vm_map per line of maps.
 *
 * What /proc does not give is as lttng-modules gives it when it does not
 * know: mode LTTNG_MODE_UNKNOWN, submode LTTNG_UNKNOWN. The file table's
 * address is the process id (tc-kernel-statedump.c). A user namespace's
 * ns_level is 0 for the helper's own and 1 for any other (its depth is
 * not in /proc); the parent's id in a pid namespace below the first is 0.
 *
 * Everything read is another process' doing (its name, its files' names)
 * and is bounded: lines and paths are cut, numbers that do not parse
 * leave the line out.
 */
#include "tc-helper-statedump-process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-helper-statedump-writer.h"
#include "tc-kernel-statedump.h"

#define STAT_MAX 2048
#define STATUS_MAX 8192
#define ID_MAP_MAX 16384
#define MAPS_LINE_MAX (PATH_MAX + 256)

/* lttng-modules' values (lttng-statedump-impl.c). */
enum {
	LTTNG_USER_THREAD = 0,
	LTTNG_KERNEL_THREAD = 1,
	LTTNG_MODE_UNKNOWN = 5,
	LTTNG_SUBMODE_UNKNOWN = 1,
	LTTNG_UNNAMED = 0,
	LTTNG_ZOMBIE = 4,
	LTTNG_WAIT = 5,
	LTTNG_RUN = 6,
	LTTNG_DEAD = 7,
};

#define PF_KTHREAD 0x00200000u
#define FMODE_READ 0x1u
#define FMODE_WRITE 0x2u
#define VM_READ 0x1u
#define VM_WRITE 0x2u
#define VM_EXEC 0x4u
#define VM_SHARED 0x8u

/* The whole of a small file of dir_fd, NUL-terminated; its length or
 * -errno. */
static ssize_t
read_small(int dir_fd, const char *name, char *buf, size_t size)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0;
	ssize_t got = 0;

	if (fd < 0)
		return -errno;
	while (len < size - 1 && (got = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	return got < 0 ? -errno : (ssize_t)len;
}

/* Digits only, within max. */
static bool
parse_u64(const char *text, int base, uint64_t max, uint64_t *value, const char **end)
{
	char *stop;
	unsigned long long v;

	if (!((*text >= '0' && *text <= '9') || (base == 16 && ((*text >= 'a' && *text <= 'f')))))
		return false;
	errno = 0;
	v = strtoull(text, &stop, base);
	if (errno || v > max)
		return false;
	*value = v;
	if (end)
		*end = stop;
	return true;
}

struct task_stat {
	char comm[16];
	char state;
	int32_t ppid;
	uint32_t flags, cpu;
};

/* "tid (comm) state ppid ...": the name may hold anything but is at most
 * 15 bytes and followed by the last ") " of the line. */
static bool
parse_stat(char *text, struct task_stat *stat)
{
	char *open = strchr(text, '('), *close = strrchr(text, ')');
	char *field, *save = NULL;
	uint64_t value;
	int index = 3; /* the state is stat's third field */

	if (!open || !close || close < open || (size_t)(close - open - 1) >= sizeof(stat->comm))
		return false;
	memset(stat->comm, 0, sizeof(stat->comm));
	memcpy(stat->comm, open + 1, (size_t)(close - open - 1));
	for (field = strtok_r(close + 1, " \n", &save); field;
	     field = strtok_r(NULL, " \n", &save), index++) {
		if (index == 3)
			stat->state = field[0];
		else if (index == 4 || index == 9 || index == 39) {
			if (!parse_u64(field, 10, UINT32_MAX, &value, NULL))
				return false;
			if (index == 4)
				stat->ppid = (int32_t)value;
			else if (index == 9)
				stat->flags = (uint32_t)value;
			else
				return stat->cpu = (uint32_t)value, true;
		}
	}
	return false;
}

static int32_t
status_of(char state)
{
	switch (state) {
	case 'R':
		return LTTNG_RUN;
	case 'S':
	case 'D':
	case 'I':
		return LTTNG_WAIT;
	case 'Z':
		return LTTNG_ZOMBIE;
	case 'X':
		return LTTNG_DEAD;
	default:
		return LTTNG_UNNAMED;
	}
}

/* The values of a status line ("NSpid:\t12\t1"): the last one and how
 * many there are; false when the line is missing or does not parse. */
static bool
status_values(const char *status, const char *name, uint64_t *last, uint32_t *count)
{
	size_t len = strlen(name);
	const char *line = status;

	while (line && strncmp(line, name, len) != 0)
		line = (line = strchr(line, '\n')) ? line + 1 : NULL;
	if (!line)
		return false;
	line += len;
	*count = 0;
	while (*line == '\t' || *line == ' ') {
		while (*line == '\t' || *line == ' ')
			line++;
		if (*line == '\n' || *line == '\0')
			break;
		if (!parse_u64(line, 10, UINT32_MAX, last, &line))
			return false;
		(*count)++;
	}
	return *count > 0;
}

/* The first value of a status line (the real uid or gid). */
static bool
status_first(const char *status, const char *name, uint32_t *value)
{
	const char *line = strstr(status, name);
	uint64_t v;

	if (!line)
		return false;
	line += strlen(name);
	while (*line == '\t' || *line == ' ')
		line++;
	if (!parse_u64(line, 10, UINT32_MAX, &v, NULL))
		return false;
	*value = (uint32_t)v;
	return true;
}

/* id as the namespace of map_name ("uid_map") sees it, or the overflow
 * id 65534 when it does not map it, as the kernel's from_kuid_munged. */
static uint32_t
map_id(int proc_dir_fd, const char *map_name, uint32_t id)
{
	char map[ID_MAP_MAX];
	const char *line = map;

	if (read_small(proc_dir_fd, map_name, map, sizeof(map)) <= 0)
		return 65534;
	while (*line) {
		uint64_t inside, outside, count;

		while (*line == ' ')
			line++;
		if (parse_u64(line, 10, UINT32_MAX, &inside, &line) && (line += strspn(line, " ")) &&
		    parse_u64(line, 10, UINT32_MAX, &outside, &line) && (line += strspn(line, " ")) &&
		    parse_u64(line, 10, UINT32_MAX, &count, &line) && id >= outside &&
		    id - outside < count)
			return (uint32_t)(inside + (id - outside));
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
	return 65534;
}

static bool
put_ns_inum(struct tc_helper_statedump_writer *writer, unsigned int kind, int task_fd,
	    const char *ns, int32_t tid)
{
	struct tc_kernel_statedump_record record;
	struct stat st;
	char path[32];

	snprintf(path, sizeof(path), "ns/%s", ns);
	if (fstatat(task_fd, path, &st, 0) < 0)
		return true; /* a kernel without that namespace, or the task is gone */
	tc_kernel_statedump_record_begin(&record, kind);
	tc_kernel_statedump_record_int(&record, (uint32_t)tid, 4, false);
	tc_kernel_statedump_record_int(&record, (uint32_t)st.st_ino, 4, false);
	return tc_helper_statedump_writer_put(writer, &record);
}

static bool
put_pid_ns(struct tc_helper_statedump_writer *writer, int task_fd, const char *status,
	   int32_t tid, const struct task_stat *stat)
{
	struct tc_kernel_statedump_record record;
	uint64_t vtid, vpid;
	uint32_t levels, tgid_levels;
	struct stat st;

	if (!status_values(status, "NSpid:", &vtid, &levels) ||
	    !status_values(status, "NStgid:", &vpid, &tgid_levels) ||
	    fstatat(task_fd, "ns/pid", &st, 0) < 0)
		return true;
	tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_PROCESS_PID_NS);
	tc_kernel_statedump_record_int(&record, (uint32_t)tid, 4, false);
	tc_kernel_statedump_record_int(&record, vtid, 4, false);
	tc_kernel_statedump_record_int(&record, vpid, 4, false);
	tc_kernel_statedump_record_int(&record, levels == 1 ? (uint32_t)stat->ppid : 0, 4, false);
	tc_kernel_statedump_record_int(&record, levels - 1, 4, false);
	tc_kernel_statedump_record_int(&record, (uint32_t)st.st_ino, 4, false);
	return tc_helper_statedump_writer_put(writer, &record);
}

static bool
put_user_ns(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int task_fd,
	    const char *status, int32_t tid, uint64_t own_user_ns)
{
	struct tc_kernel_statedump_record record;
	uint32_t uid, gid;
	bool is_own;
	struct stat st;

	if (!status_first(status, "\nUid:", &uid) || !status_first(status, "\nGid:", &gid) ||
	    fstatat(task_fd, "ns/user", &st, 0) < 0)
		return true;
	is_own = (uint64_t)st.st_ino == own_user_ns;
	tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_PROCESS_USER_NS);
	tc_kernel_statedump_record_int(&record, (uint32_t)tid, 4, false);
	tc_kernel_statedump_record_int(&record, is_own ? uid : map_id(proc_dir_fd, "uid_map", uid),
				       4, false);
	tc_kernel_statedump_record_int(&record, is_own ? gid : map_id(proc_dir_fd, "gid_map", gid),
				       4, false);
	tc_kernel_statedump_record_int(&record, is_own ? 0 : 1, 4, false);
	tc_kernel_statedump_record_int(&record, (uint32_t)st.st_ino, 4, false);
	return tc_helper_statedump_writer_put(writer, &record);
}

/* The namespaces, in lttng-modules' order. */
static bool
put_namespaces(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int task_fd,
	       int32_t tid, const struct task_stat *stat, uint64_t own_user_ns)
{
	char status[STATUS_MAX];
	bool ok;

	if (read_small(task_fd, "status", status, sizeof(status)) <= 0)
		return true; /* gone */
	ok = put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_CGROUP_NS, task_fd, "cgroup", tid) &&
	     put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_IPC_NS, task_fd, "ipc", tid) &&
	     put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_MNT_NS, task_fd, "mnt", tid) &&
	     put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_NET_NS, task_fd, "net", tid) &&
	     put_pid_ns(writer, task_fd, status, tid, stat) &&
	     put_user_ns(writer, proc_dir_fd, task_fd, status, tid, own_user_ns) &&
	     put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_UTS_NS, task_fd, "uts", tid);
	return ok && put_ns_inum(writer, TC_KERNEL_STATEDUMP_PROCESS_TIME_NS, task_fd, "time", tid);
}

/* One thread; true to go on (a thread that is gone is skipped). */
static bool
put_thread(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int task_dir_fd,
	   const char *name, int32_t pid, uint64_t own_user_ns)
{
	struct tc_kernel_statedump_record record;
	struct task_stat stat = {0};
	char text[STAT_MAX];
	uint64_t tid;
	int task_fd;
	bool ok = true;

	if (!parse_u64(name, 10, INT32_MAX, &tid, NULL))
		return true;
	task_fd = openat(task_dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (task_fd < 0)
		return true;
	if (read_small(task_fd, "stat", text, sizeof(text)) > 0 && parse_stat(text, &stat)) {
		tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_PROCESS_STATE);
		tc_kernel_statedump_record_int(&record, tid, 4, false);
		tc_kernel_statedump_record_int(&record, (uint32_t)pid, 4, false);
		tc_kernel_statedump_record_int(&record, (uint32_t)stat.ppid, 4, false);
		tc_kernel_statedump_record_text(&record, stat.comm, 16);
		tc_kernel_statedump_record_int(
		    &record, stat.flags & PF_KTHREAD ? LTTNG_KERNEL_THREAD : LTTNG_USER_THREAD, 4,
		    false);
		tc_kernel_statedump_record_int(&record, LTTNG_MODE_UNKNOWN, 4, false);
		tc_kernel_statedump_record_int(&record, LTTNG_SUBMODE_UNKNOWN, 4, false);
		tc_kernel_statedump_record_int(&record, (uint32_t)status_of(stat.state), 4, false);
		tc_kernel_statedump_record_int(&record, stat.cpu, 4, false);
		tc_kernel_statedump_record_int(&record, (uint32_t)pid, 8, false);
		ok = tc_helper_statedump_writer_put(writer, &record) &&
		     put_namespaces(writer, proc_dir_fd, task_fd, (int32_t)tid, &stat, own_user_ns);
	}
	close(task_fd);
	return ok;
}

static void
put_threads(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int32_t pid,
	    uint64_t own_user_ns)
{
	int task_dir_fd = openat(proc_dir_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *tasks = task_dir_fd >= 0 ? fdopendir(task_dir_fd) : NULL;
	struct dirent *entry;
	uint32_t n = 0;

	if (!tasks) {
		if (task_dir_fd >= 0)
			close(task_dir_fd);
		return;
	}
	while ((entry = readdir(tasks)) && n < TC_HELPER_STATEDUMP_THREADS_MAX)
		if (entry->d_name[0] != '.' &&
		    (n++, !put_thread(writer, proc_dir_fd, dirfd(tasks), entry->d_name, pid,
				      own_user_ns)))
			break;
	closedir(tasks);
}

/* The flags of fdinfo/N ("flags:\t0100002", octal), or 0. */
static uint32_t
fd_flags(int proc_dir_fd, const char *name)
{
	char path[64], info[1024];
	const char *line;
	uint64_t flags;

	snprintf(path, sizeof(path), "fdinfo/%s", name);
	if (read_small(proc_dir_fd, path, info, sizeof(info)) <= 0 ||
	    !(line = strstr(info, "flags:")))
		return 0;
	line += strlen("flags:");
	line += strspn(line, " \t");
	return parse_u64(line, 8, UINT32_MAX, &flags, NULL) ? (uint32_t)flags : 0;
}

static bool
put_fd(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int fd_dir_fd,
       const char *name, int32_t pid)
{
	struct tc_kernel_statedump_record record;
	char path[PATH_MAX];
	uint64_t fd;
	uint32_t flags, fmode;
	ssize_t len;

	if (!parse_u64(name, 10, INT32_MAX, &fd, NULL))
		return true;
	len = readlinkat(fd_dir_fd, name, path, sizeof(path) - 1);
	if (len < 0)
		return true; /* closed meanwhile */
	path[len] = '\0';
	flags = fd_flags(proc_dir_fd, name);
	fmode = (flags & O_ACCMODE) == O_RDONLY   ? FMODE_READ
		: (flags & O_ACCMODE) == O_WRONLY ? FMODE_WRITE
						  : FMODE_READ | FMODE_WRITE;
	tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_FILE_DESCRIPTOR);
	tc_kernel_statedump_record_int(&record, (uint32_t)pid, 8, false);
	tc_kernel_statedump_record_int(&record, fd, 4, false);
	tc_kernel_statedump_record_int(&record, flags, 4, false);
	tc_kernel_statedump_record_int(&record, fmode, 4, false);
	tc_kernel_statedump_record_string(&record, path, 4);
	tc_kernel_statedump_record_int(&record, (uint32_t)pid, 4, false);
	return tc_helper_statedump_writer_put(writer, &record);
}

static void
put_fds(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int32_t pid)
{
	int fd_dir_fd = openat(proc_dir_fd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *fds = fd_dir_fd >= 0 ? fdopendir(fd_dir_fd) : NULL;
	struct dirent *entry;
	uint32_t n = 0;

	if (!fds) {
		if (fd_dir_fd >= 0)
			close(fd_dir_fd);
		return;
	}
	while ((entry = readdir(fds)) && n < TC_HELPER_STATEDUMP_FDS_MAX)
		if (entry->d_name[0] != '.' &&
		    (n++, !put_fd(writer, proc_dir_fd, dirfd(fds), entry->d_name, pid)))
			break;
	closedir(fds);
}

/* "start-end perms offset major:minor inode [path]", all hexadecimal but
 * the inode. */
static bool
parse_map(const char *line, uint64_t *start, uint64_t *end, uint32_t *flags, uint64_t *offset,
	  uint64_t *inode)
{
	const char *p = line;

	if (!parse_u64(p, 16, UINT64_MAX, start, &p) || *p++ != '-' ||
	    !parse_u64(p, 16, UINT64_MAX, end, &p) || *p++ != ' ' || strlen(p) < 5)
		return false;
	*flags = (p[0] == 'r' ? VM_READ : 0) | (p[1] == 'w' ? VM_WRITE : 0) |
		 (p[2] == 'x' ? VM_EXEC : 0) | (p[3] == 's' ? VM_SHARED : 0);
	p += 4;
	if (*p++ != ' ' || !parse_u64(p, 16, UINT64_MAX, offset, &p) || *p++ != ' ')
		return false;
	p += strcspn(p, " "); /* the device */
	if (*p++ != ' ')
		return false;
	return parse_u64(p, 10, UINT64_MAX, inode, NULL);
}

static void
put_maps(struct tc_helper_statedump_writer *writer, int proc_dir_fd, int32_t pid)
{
	int fd = openat(proc_dir_fd, "maps", O_RDONLY | O_CLOEXEC);
	FILE *maps = fd >= 0 ? fdopen(fd, "re") : NULL;
	char line[MAPS_LINE_MAX];
	uint32_t n = 0;

	if (!maps) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (n < TC_HELPER_STATEDUMP_MAPS_MAX && fgets(line, sizeof(line), maps)) {
		struct tc_kernel_statedump_record record;
		uint64_t start, end, offset, inode;
		uint32_t flags;

		if (!strchr(line, '\n')) {
			/* A path longer than the line: the rest of it skipped. */
			int c;

			while ((c = fgetc(maps)) != EOF && c != '\n')
				;
		}
		if (!parse_map(line, &start, &end, &flags, &offset, &inode))
			continue;
		n++;
		tc_kernel_statedump_record_begin(&record, TC_KERNEL_STATEDUMP_VM_MAP);
		tc_kernel_statedump_record_int(&record, (uint32_t)pid, 4, false);
		tc_kernel_statedump_record_int(&record, start, 8, false);
		tc_kernel_statedump_record_int(&record, end, 8, false);
		tc_kernel_statedump_record_int(&record, flags, 8, false);
		tc_kernel_statedump_record_int(&record, inode, 8, false);
		tc_kernel_statedump_record_int(&record, offset, 8, false);
		if (!tc_helper_statedump_writer_put(writer, &record))
			break;
	}
	fclose(maps);
}

void
tc_helper_statedump_process(struct tc_helper_statedump_writer *writer, int proc_dir_fd,
			    int32_t pid, uint64_t own_user_ns)
{
	put_threads(writer, proc_dir_fd, pid, own_user_ns);
	put_fds(writer, proc_dir_fd, pid);
	put_maps(writer, proc_dir_fd, pid);
}
