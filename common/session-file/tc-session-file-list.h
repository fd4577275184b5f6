/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session files of a directory, by name: what `tracectl load`,
 * the service's auto-loading and the consumer (which reads a user's own
 * directory for the service) all list. Plain C and libc, no GLib, so the
 * consumer links it too.
 */
#ifndef TC_SESSION_FILE_LIST_H
#define TC_SESSION_FILE_LIST_H

#include <stddef.h>

/* A listed name's room, its NUL included: every name Linux allows. */
#define TC_SESSION_FILE_NAME_MAX 256

/*
 * The max smallest names of a directory's session files, sorted by
 * strcmp(): names that end in ".lttng", have more before it, do not
 * start with '.' (hidden files and editors' leftovers are no sessions)
 * and fit TC_SESSION_FILE_NAME_MAX. The memory is bounded by max whatever
 * the directory holds; seen counts every such name, so a caller can say
 * that some were left out.
 */
struct tc_session_file_list {
	char (*names)[TC_SESSION_FILE_NAME_MAX];
	size_t count; /* names held, at most max */
	size_t max;
	size_t seen; /* session file names in the directory, held or not */
};

/*
 * Fills list with the names of the directory dir_fd, listed from its
 * start through a duplicate (dir_fd stays the caller's, open). max must
 * be at least 1 (-EINVAL otherwise). Returns 0, or -errno (-ENOMEM, or what dup() and
 * fdopendir() fail with) with list empty. Free the names with
 * tc_session_file_list_clear().
 */
int tc_session_file_list(int dir_fd, size_t max, struct tc_session_file_list *list);
void tc_session_file_list_clear(struct tc_session_file_list *list);

#endif /* TC_SESSION_FILE_LIST_H */
