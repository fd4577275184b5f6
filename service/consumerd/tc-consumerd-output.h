/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The consumer's files: the session's trace directory, its metadata file
 * and one stream file per buffer. The consumer runs as the session owner,
 * so everything here is done with that user's rights. Directories the
 * consumer creates are 0700 and files 0600 (the process umask is 077).
 */
#ifndef TC_CONSUMERD_OUTPUT_H
#define TC_CONSUMERD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * True when path is absolute and none of its components is "..". Other
 * checks (length, NUL termination) are the caller's.
 */
bool tc_consumerd_output_path_is_safe(const char *path);

/* True when path is relative, not empty, made of components other than
 * "", "." and "..", without control characters: a path that a relay
 * files under a session's directory. */
bool tc_consumerd_output_relative_path_is_safe(const char *path);

/*
 * Creates the directory path and its missing parents (mode 0700), or
 * accepts it when it already exists as an empty directory, and opens it.
 * A final component that is a symbolic link is refused.
 *
 * Returns a directory file descriptor (O_CLOEXEC), or:
 *   -EINVAL     path is not safe (see tc_consumerd_output_path_is_safe())
 *   -ENOTEMPTY  path exists and holds entries
 *   -ENOTDIR    path or a parent exists and is not a directory
 *   -ELOOP      the final component is a symbolic link
 *   other       -errno of mkdir(), open() or reading the directory
 */
int tc_consumerd_output_open_dir(const char *path);

/*
 * Creates the missing parents of path (mode 0700), not path itself.
 * Returns 0, -EINVAL when path is not safe, or -errno of mkdir().
 */
int tc_consumerd_output_make_parents(const char *path);

/*
 * Appends the first size bytes of from_fd to to_fd at *to_size, as
 * tc_consumerd_output_append() does. Returns 0, -EIO when from_fd is
 * shorter, or -errno.
 */
int tc_consumerd_output_copy(int from_fd, uint64_t size, int to_fd, uint64_t *to_size);

/*
 * Creates a new file name in dir_fd, mode 0600, for writing (and reading:
 * a rotation copies the metadata file into the next chunk). Never opens an
 * existing file nor follows a symbolic link.
 * Returns the descriptor (O_CLOEXEC), or -errno of openat(), e.g. -EEXIST.
 */
int tc_consumerd_output_create_file(int dir_fd, const char *name);

/*
 * Appends len bytes at offset *size of fd and advances *size. Short writes
 * and EINTR are retried. On failure the file is truncated back to *size, so
 * that it never holds a partial packet or a partial metadata chunk.
 * Returns 0, or -errno of pwrite() (-ENOSPC, -EDQUOT, -EIO, -EFBIG, ...).
 */
int tc_consumerd_output_append(int fd, uint64_t *size, const void *buf, size_t len);

/*
 * Streaming writes. A trace is written at up to hundreds of MB/s and read
 * back much later: left to the page cache, every packet would go to freshly
 * allocated memory and push other users' data out of the cache. So, once a
 * file has grown by CONSUMERD_WRITE_BEHIND_CHUNK bytes, their write-back is
 * started, and the chunk before them (whose write-back started a chunk ago)
 * is waited for and dropped from the page cache. A stream file then holds
 * at most two chunks in the cache and the consumer writes into pages it
 * has just released. Errors only cost caching and are ignored.
 */
#define CONSUMERD_WRITE_BEHIND_CHUNK (1u << 20)

struct tc_consumerd_write_behind {
	uint64_t started; /* write-back started below this offset */
	uint64_t dropped; /* dropped from the cache below this offset */
};

/* Called after each append; size is the file's size now. */
void tc_consumerd_output_write_behind(int fd, struct tc_consumerd_write_behind *behind,
				      uint64_t size);

/*
 * Direct I/O for stream files whose packets are whole sub-buffers: written
 * from a buffer aligned to CONSUMERD_DIRECT_ALIGN, in sizes and at offsets
 * that are multiples of it, they go from the consumer's copy to the device
 * without a copy into the page cache and without write-behind (several
 * times faster than the page cache's write-back on a fast disk). Each
 * write waits for the device, so only
 * packets of CONSUMERD_DIRECT_MIN bytes or more go direct (4 KiB packets
 * would wait for the disk 128 times as often), and only on the local disk
 * file systems whose direct I/O behaves the same (ext4, XFS, Btrfs: tmpfs,
 * overlayfs, NFS and FUSE differ from one kernel to the next).
 * Returns true when fd now bypasses the cache; false when the file stays
 * buffered.
 */
#define CONSUMERD_DIRECT_ALIGN 4096u
#define CONSUMERD_DIRECT_MIN (256u * 1024u)
bool tc_consumerd_output_try_direct(int fd, uint32_t packet_size);
/* Back to buffered writes (a write that direct I/O refused). */
void tc_consumerd_output_stop_direct(int fd);

/* fdatasync() retried on EINTR. Returns 0 or -errno. */
int tc_consumerd_output_sync(int fd);

#endif /* TC_CONSUMERD_OUTPUT_H */
