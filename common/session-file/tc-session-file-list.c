/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session files of a directory, by name (tc-session-file-list.h).
 */
#include "tc-session-file-list.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX ".lttng"

static bool
is_session_file_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > strlen(SUFFIX) && len < TC_SESSION_FILE_NAME_MAX &&
	       strcmp(name + len - strlen(SUFFIX), SUFFIX) == 0;
}

/* Keeps name if it is among the list's max smallest. Invariant: names[0]
 * to names[count - 1] are sorted, so the largest is the last. */
static void
offer(struct tc_session_file_list *list, const char *name)
{
	size_t at = list->count;

	if (list->count == list->max && strcmp(name, list->names[list->max - 1]) >= 0)
		return;
	if (list->count < list->max)
		list->count++;
	else
		at = list->max - 1;
	/* The last slot is free or dropped: shift the larger names up. */
	while (at > 0 && strcmp(list->names[at - 1], name) > 0) {
		memcpy(list->names[at], list->names[at - 1], TC_SESSION_FILE_NAME_MAX);
		at--;
	}
	snprintf(list->names[at], TC_SESSION_FILE_NAME_MAX, "%s", name);
}

int
tc_session_file_list(int dir_fd, size_t max, struct tc_session_file_list *list)
{
	int list_fd;
	DIR *dir;
	struct dirent *entry;

	*list = (struct tc_session_file_list){.max = max};
	if (max == 0)
		return -EINVAL;
	list->names = calloc(max, TC_SESSION_FILE_NAME_MAX);
	if (list->names == NULL)
		return -ENOMEM;
	list_fd = dup(dir_fd);
	dir = list_fd >= 0 ? fdopendir(list_fd) : NULL;
	if (dir == NULL) {
		int ret = -errno;

		if (list_fd >= 0)
			close(list_fd);
		tc_session_file_list_clear(list);
		return ret;
	}
	/* The duplicate shares dir_fd's offset: list from the start even if
	 * dir_fd was read before. */
	rewinddir(dir);
	while ((entry = readdir(dir)) != NULL)
		if (is_session_file_name(entry->d_name)) {
			offer(list, entry->d_name);
			list->seen++;
		}
	closedir(dir);
	return 0;
}

void
tc_session_file_list_clear(struct tc_session_file_list *list)
{
	free(list->names);
	*list = (struct tc_session_file_list){.max = list->max};
}
