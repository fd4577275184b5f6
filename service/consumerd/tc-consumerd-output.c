/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "tc-consumerd-log.h"

#define DIR_MODE 0700
#define FILE_MODE 0600

bool
tc_consumerd_output_path_is_safe(const char *path)
{
	const char *component = path;

	if (path[0] != '/')
		return false;
	while (*component) {
		const char *end = strchrnul(component, '/');

		if (end - component == 2 && component[0] == '.' && component[1] == '.')
			return false;
		component = *end ? end + 1 : end;
	}
	return true;
}

bool
tc_consumerd_output_relative_path_is_safe(const char *path)
{
	const char *component = path;

	if (path[0] == '\0' || path[0] == '/')
		return false;
	for (const char *c = path; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	}
	for (;;) {
		const char *end = strchrnul(component, '/');
		size_t len = (size_t)(end - component);

		if (len == 0 || (len == 1 && component[0] == '.') ||
		    (len == 2 && component[0] == '.' && component[1] == '.'))
			return false;
		if (*end == '\0')
			return true;
		component = end + 1;
	}
}

/* mkdir() that accepts an existing directory. Returns 0 or -errno. */
static int
make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, DIR_MODE) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* Creates every missing parent of path. path must be safe. Returns 0 or -errno. */
static int
make_parents(const char *path)
{
	char *copy = strdup(path);
	char *slash;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* Start after the root's slash; each further slash ends a parent. */
	for (slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (slash[-1] == '/')
			continue; /* "//": an empty component */
		*slash = '\0';
		ret = make_dir(copy);
		*slash = '/';
		if (ret < 0)
			break;
	}
	free(copy);
	return ret;
}

/* Returns 0 when the directory open at dir_fd has no entries, -ENOTEMPTY
 * when it has, or -errno. dir_fd stays open and owned by the caller. */
static int
check_empty(int dir_fd)
{
	struct dirent *entry;
	DIR *dir;
	int fd, ret = 0;

	fd = dup(dir_fd);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	errno = 0;
	while ((entry = readdir(dir)) != NULL) {
		if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
			ret = -ENOTEMPTY;
			break;
		}
	}
	if (!entry && errno != 0)
		ret = -errno;
	closedir(dir);
	return ret;
}

/* O_NOFOLLOW | O_DIRECTORY on a symbolic link fails with ENOTDIR: tell the
 * two cases apart for the caller. */
static int
open_dir_error(const char *path, int error)
{
	struct stat st;

	if (error == -ENOTDIR && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return -ELOOP;
	return error;
}

int
tc_consumerd_output_open_dir(const char *path)
{
	int fd, ret;

	if (!tc_consumerd_output_path_is_safe(path))
		return -EINVAL;
	ret = make_parents(path);
	if (ret < 0)
		return ret;
	if (mkdir(path, DIR_MODE) < 0 && errno != EEXIST)
		return -errno;
	/* Opened after mkdir, checked through the descriptor: what is checked is
	 * what the session uses, whatever happens to the path meanwhile. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_dir_error(path, -errno);
	ret = check_empty(fd);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

int
tc_consumerd_output_make_parents(const char *path)
{
	if (!tc_consumerd_output_path_is_safe(path))
		return -EINVAL;
	return make_parents(path);
}

#define COPY_CHUNK 65536

int
tc_consumerd_output_copy(int from_fd, uint64_t size, int to_fd, uint64_t *to_size)
{
	uint64_t offset = 0;
	char *chunk = malloc(COPY_CHUNK);
	int ret = 0;

	if (!chunk)
		return -ENOMEM;
	while (offset < size) {
		size_t want = size - offset < COPY_CHUNK ? (size_t)(size - offset) : COPY_CHUNK;
		ssize_t n = pread(from_fd, chunk, want, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = tc_consumerd_output_append(to_fd, to_size, chunk, (size_t)n);
		if (ret < 0)
			break;
		offset += (uint64_t)n;
	}
	free(chunk);
	return ret;
}

int
tc_consumerd_output_create_file(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			FILE_MODE);

	return fd < 0 ? -errno : fd;
}

int
tc_consumerd_output_append(int fd, uint64_t *size, const void *buf, size_t len)
{
	const uint8_t *bytes = buf;
	size_t done = 0;
	ssize_t n;
	int ret;

	while (done < len) {
		n = pwrite(fd, bytes + done, len - done, (off_t)(*size + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* pwrite() returning 0 for a non-empty write is a full device. */
			ret = n < 0 ? -errno : -ENOSPC;
			goto rollback;
		}
		done += (size_t)n;
	}
	*size += len;
	return 0;

rollback:
	/* Keep the file a sequence of whole packets. Should this fail too, the
	 * next append starts at *size anyway and overwrites the partial tail. */
	if (done > 0 && ftruncate(fd, (off_t)*size) < 0)
		tc_consumerd_warning("Failed to cut a partial write off, ignoring: %m");
	return ret;
}

void
tc_consumerd_output_write_behind(int fd, struct tc_consumerd_write_behind *behind, uint64_t size)
{
	const unsigned int wait_all = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER;

	if (size < behind->started || size - behind->started < CONSUMERD_WRITE_BEHIND_CHUNK)
		return;
	(void)sync_file_range(fd, (off64_t)behind->started, (off64_t)(size - behind->started),
			      SYNC_FILE_RANGE_WRITE);
	if (behind->started > behind->dropped &&
	    sync_file_range(fd, (off64_t)behind->dropped,
			    (off64_t)(behind->started - behind->dropped), wait_all) == 0)
		(void)posix_fadvise(fd, (off_t)behind->dropped,
				    (off_t)(behind->started - behind->dropped), POSIX_FADV_DONTNEED);
	behind->dropped = behind->started;
	behind->started = size;
}

#define EXT4_MAGIC 0xef53
#define XFS_MAGIC 0x58465342
#define BTRFS_MAGIC 0x9123683e

static bool
has_plain_direct_io(int fd)
{
	struct statfs fs;

	if (fstatfs(fd, &fs) < 0)
		return false;
	return fs.f_type == EXT4_MAGIC || fs.f_type == XFS_MAGIC || fs.f_type == BTRFS_MAGIC;
}

bool
tc_consumerd_output_try_direct(int fd, uint32_t packet_size)
{
	int flags;

	if (packet_size < CONSUMERD_DIRECT_MIN || packet_size % CONSUMERD_DIRECT_ALIGN != 0 ||
	    !has_plain_direct_io(fd))
		return false;
	flags = fcntl(fd, F_GETFL);
	return flags >= 0 && fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
}

void
tc_consumerd_output_stop_direct(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_DIRECT);
}

int
tc_consumerd_output_sync(int fd)
{
	while (fdatasync(fd) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}
