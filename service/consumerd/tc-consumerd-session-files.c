/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user's own session files, read for the service
 * (tc-consumerd-session-files.h).
 *
 * The consumer runs as the user, so the kernel's permission checks are
 * the user's: nothing here can read what the user could not. The checks
 * below keep anyone else out of the user's sessions: every directory from
 * the home down and every file must be the user's and writable by no one
 * else, checked through the descriptor opened (fstat), each step opened
 * with O_NOFOLLOW relative to the one checked before, so that no link or
 * rename can swap another file in.
 */
#include "tc-consumerd-session-files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-session-file-list.h"

/* A listed name fits the answer's name field. */
_Static_assert(TC_SESSION_FILE_NAME_MAX <= TC_CONSUMER_NAME_MAX,
	       "a session file name must fit tc_consumer_session_file.name");

#define DIRECTORY_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* O_NONBLOCK: a FIFO or device there must not block the open; fstat then
 * refuses it. */
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* A reason for a person, truncated to its buffer (it is for logs). */
static void __attribute__((format(printf, 3, 4)))
set_reason(char *reason, size_t reason_size, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(reason, reason_size, format, args);
	va_end(args);
}

/* Returns 0 when fd is of type, owned by the consumer's uid and writable
 * by no one else; -errno with reason naming path otherwise. */
static int
check_owned(int fd, const char *path, mode_t type, char *reason, size_t reason_size)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int ret = -errno;

		set_reason(reason, reason_size, "Cannot stat '%s': %s", path, strerror(-ret));
		return ret;
	}
	if ((st.st_mode & S_IFMT) != type) {
		set_reason(reason, reason_size, "Refusing '%s': not a %s", path,
			 type == S_IFREG ? "regular file" : "directory");
		return type == S_IFREG ? -EPERM : -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		set_reason(reason, reason_size, "Refusing '%s': owned by uid %u, not uid %u", path,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		set_reason(reason, reason_size,
			 "Refusing '%s': writable by its group or others (mode %04o)", path,
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* openat(dir_fd, name) as a directory, checked; -errno with reason. */
static int
open_step(int dir_fd, const char *name, const char *path, char *reason, size_t reason_size)
{
	int fd = openat(dir_fd, name, DIRECTORY_FLAGS);
	int ret;

	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			set_reason(reason, reason_size, "No directory '%s'", path);
		else
			set_reason(reason, reason_size, "Refusing '%s': %s", path,
				 ret == -ELOOP || ret == -ENOTDIR
					 ? "a symbolic link or not a directory"
					 : strerror(-ret));
		return ret;
	}
	ret = check_owned(fd, path, S_IFDIR, reason, reason_size);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* The sessions directory under home, each step checked; path receives
 * its path for messages. Returns its descriptor or -errno with reason. */
static int
open_sessions_dir(const char *home, char *path, size_t path_size, char *reason,
		  size_t reason_size)
{
	char relative[] = TC_CONSUMER_SESSION_FILES_DIR;
	char *save = NULL;
	int fd;

	/* The path to the home is the administrator's; the home is the user's. */
	snprintf(path, path_size, "%s", home);
	fd = open_step(AT_FDCWD, home, path, reason, reason_size);
	for (char *part = strtok_r(relative, "/", &save); fd >= 0 && part;
	     part = strtok_r(NULL, "/", &save)) {
		size_t used = strlen(path);
		int next;

		snprintf(path + used, path_size - used, "%s%s",
			 used > 0 && path[used - 1] == '/' ? "" : "/", part);
		next = open_step(fd, part, path, reason, reason_size);
		close(fd);
		fd = next;
	}
	return fd;
}

/* Fills list with the names to send, the max smallest (the ABI's
 * order), from the directory dir_fd (not taken). Returns 0 or -errno. */
static int
list_names(int dir_fd, size_t max, struct tc_session_file_list *list)
{
	int ret = tc_session_file_list(dir_fd, max, list);

	if (ret == 0 && list->seen > list->max)
		tc_consumerd_warning("Session files: %zu in the directory; sending the first %zu",
				  list->seen, list->max);
	return ret;
}

/* Sends one TC_CONSUMER_SESSION_FILE; payload of length bytes follows
 * the struct. Returns 0 or -EPIPE. */
static int
send_answer(int fd, uint32_t request_id, struct tc_consumer_session_file *msg, const void *payload,
	    size_t length)
{
	/* Static: only the consumer's main thread serves SESSION_FILES
	 * (it names no session, tc-consumerd-main.c). */
	static union {
		struct tc_consumer_session_file msg;
		uint8_t bytes[TC_CONSUMER_MSG_MAX];
	} buffer;
	size_t size = sizeof(*msg) + length;
	ssize_t n;

	msg->header.magic = TC_CONSUMER_MAGIC;
	msg->header.type = TC_CONSUMER_SESSION_FILE;
	msg->header.size = (uint32_t)size;
	msg->header.request_id = request_id;
	buffer.msg = *msg;
	if (length)
		memcpy(buffer.bytes + sizeof(*msg), payload, length);
	do
		n = send(fd, buffer.bytes, size, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)size ? 0 : -EPIPE;
}

static int
send_refusal(int fd, uint32_t request_id, uint32_t index, const char *name, int status,
	     const char *reason)
{
	struct tc_consumer_session_file msg = {.index = index, .status = status};

	snprintf(msg.name, sizeof(msg.name), "%s", name);
	tc_consumerd_warning("Session file: %s", reason);
	return send_answer(fd, request_id, &msg, reason, strlen(reason) + 1);
}

/* Reads the checked file fd (taken) of at most max bytes into *contents
 * (malloc'd). Returns its length or -errno with reason. */
static ssize_t
read_file(int fd, const char *path, uint32_t max, char **contents, char *reason,
	  size_t reason_size)
{
	char *buf = malloc((size_t)max + 1);
	size_t used = 0;

	if (buf == NULL) {
		close(fd);
		set_reason(reason, reason_size, "Cannot read '%s': out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got = read(fd, buf + used, (size_t)max + 1 - used);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int ret = -errno;

			set_reason(reason, reason_size, "Cannot read '%s': %s", path, strerror(-ret));
			close(fd);
			free(buf);
			return ret;
		}
		used += (size_t)got;
		if (got == 0 || used > max)
			break;
	}
	close(fd);
	if (used > max) {
		set_reason(reason, reason_size, "Refusing '%s': larger than %u bytes", path, max);
		free(buf);
		return -EFBIG;
	}
	*contents = buf;
	return (ssize_t)used;
}

/* Sends bytes in chunks, offsets from 0 to length. Returns 0 or -EPIPE. */
static int
send_contents(int fd, uint32_t request_id, uint32_t index, const char *name, const char *bytes,
	      size_t length)
{
	struct tc_consumer_session_file msg = {.index = index, .size = length};
	size_t offset = 0;

	snprintf(msg.name, sizeof(msg.name), "%s", name);
	do {
		size_t chunk = length - offset;

		if (chunk > TC_CONSUMER_SESSION_FILE_CHUNK_MAX)
			chunk = TC_CONSUMER_SESSION_FILE_CHUNK_MAX;
		msg.offset = offset;
		if (send_answer(fd, request_id, &msg, bytes + offset, chunk) < 0)
			return -EPIPE;
		offset += chunk;
	} while (offset < length);
	return 0;
}

/* One listed file: its bytes or its refusal. Returns 0 or -EPIPE. */
static int
send_file(int fd, uint32_t request_id, int dir_fd, const char *dir_path, uint32_t index,
	  const char *name, uint32_t max_bytes)
{
	char path[TC_CONSUMER_PATH_MAX + TC_CONSUMER_NAME_MAX + 2];
	char reason[TC_CONSUMER_ERROR_MAX];
	char *contents = NULL;
	int file_fd = openat(dir_fd, name, FILE_FLAGS);
	ssize_t length;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir_path, name);
	if (file_fd < 0) {
		ret = -errno;
		set_reason(reason, sizeof(reason), "Refusing '%s': %s", path,
			 ret == -ELOOP ? "a symbolic link" : strerror(-ret));
		return send_refusal(fd, request_id, index, name, ret, reason);
	}
	ret = check_owned(file_fd, path, S_IFREG, reason, sizeof(reason));
	if (ret < 0) {
		close(file_fd);
		return send_refusal(fd, request_id, index, name, ret, reason);
	}
	length = read_file(file_fd, path, max_bytes, &contents, reason, sizeof(reason));
	if (length < 0)
		return send_refusal(fd, request_id, index, name, (int)length, reason);
	ret = send_contents(fd, request_id, index, name, contents, (size_t)length);
	free(contents);
	return ret;
}

static int
check_request(const struct tc_consumer_session_files *msg, char *reason, size_t reason_size)
{
	if (msg->max_files < 1 || msg->max_files > TC_CONSUMER_SESSION_FILES_MAX ||
	    msg->max_file_bytes < 1 || msg->max_file_bytes > TC_CONSUMER_SESSION_FILE_BYTES_MAX) {
		set_reason(reason, reason_size,
			 "Bad session file bounds: %u files (1 to %u), %u bytes (1 to %u)",
			 msg->max_files, TC_CONSUMER_SESSION_FILES_MAX, msg->max_file_bytes,
			 TC_CONSUMER_SESSION_FILE_BYTES_MAX);
		return -EINVAL;
	}
	if (memchr(msg->home, '\0', sizeof(msg->home)) == NULL || msg->home[0] != '/') {
		set_reason(reason, reason_size, "Bad home directory");
		return -EINVAL;
	}
	return 0;
}

int
tc_consumerd_session_files_send(int fd, const struct tc_consumer_session_files *msg, char *reason,
				size_t reason_size, bool *socket_broken)
{
	char dir_path[TC_CONSUMER_PATH_MAX + sizeof(TC_CONSUMER_SESSION_FILES_DIR) + 2];
	struct tc_session_file_list list = {0};
	int dir_fd, ret;

	*socket_broken = false;
	ret = check_request(msg, reason, reason_size);
	if (ret < 0)
		return ret;
	dir_fd = open_sessions_dir(msg->home, dir_path, sizeof(dir_path), reason, reason_size);
	/* Most users have no such directory: nothing to send, nothing wrong. */
	if (dir_fd == -ENOENT) {
		tc_consumerd_debug("Session files: %s", reason);
		reason[0] = '\0';
		return 0;
	}
	if (dir_fd < 0)
		return dir_fd;
	ret = list_names(dir_fd, msg->max_files, &list);
	if (ret < 0) {
		set_reason(reason, reason_size, "Cannot list '%s': %s", dir_path, strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < list.count; i++) {
		if (send_file(fd, msg->header.request_id, dir_fd, dir_path, (uint32_t)i, list.names[i],
			      msg->max_file_bytes) < 0) {
			*socket_broken = true;
			ret = -EPIPE;
			set_reason(reason, reason_size, "Cannot send the session files");
			break;
		}
	}
out:
	tc_session_file_list_clear(&list);
	close(dir_fd);
	return ret;
}
