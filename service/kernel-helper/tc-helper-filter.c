/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters in a session's instance: the filter file of every event
 * matching the globs gets the same filter. All or none: when the kernel
 * refuses it for one event (a field that event lacks), every matching
 * event is left without filter and the service does not enable them, so
 * no event ever records unfiltered because of a filter it was given.
 */
#include "tc-helper-filter.h"
#include "tc-helper-log.h"
#include "tc-helper-tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-kernel-abi.h"
#include "tc-kernel-names.h"

/* Writes text to events_dir/system/event/filter. Returns 0 or -errno (the
 * kernel's -EINVAL for a filter it cannot parse for that event). */
static int
write_filter(const char *events_dir, const char *system, const char *event, const char *text)
{
	char path[4096];
	ssize_t written;
	int fd, ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s/%s/filter", events_dir, system, event) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	written = write(fd, text, strlen(text));
	if (written < 0)
		ret = -errno;
	else if ((size_t)written != strlen(text))
		ret = -EIO;
	close(fd);
	return ret;
}

static bool
is_directory(const struct dirent *entry)
{
	return entry->d_type == DT_DIR && entry->d_name[0] != '.';
}

/* Writes text into the filter of every event matching the globs; the
 * first error is returned, the others are written all the same, so that
 * "0" clears every one of them. *count: how many matched. */
static int
write_matching(const char *events_dir, const char *system_glob, const char *event_glob,
	       const char *text, int *count)
{
	char path[4096];
	struct dirent *system, *event;
	DIR *systems = opendir(events_dir), *events;
	int ret = 0, one;

	*count = 0;
	if (!systems)
		return -errno;
	while ((system = readdir(systems))) {
		if (!is_directory(system) || fnmatch(system_glob, system->d_name, 0) != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", events_dir, system->d_name) >=
		    (int)sizeof(path))
			continue;
		events = opendir(path);
		if (!events)
			continue;
		while ((event = readdir(events))) {
			if (!is_directory(event) || fnmatch(event_glob, event->d_name, 0) != 0)
				continue;
			(*count)++;
			one = write_filter(events_dir, system->d_name, event->d_name, text);
			if (one < 0 && ret == 0)
				ret = one;
		}
		closedir(events);
	}
	closedir(systems);
	return ret;
}

int
tc_helper_filter_event(const struct tc_kernel_filter_msg *msg)
{
	char events_dir[4096];
	int count, ret;

	snprintf(events_dir, sizeof(events_dir), "%s/instances/%s%" PRIu64 "/events",
		 tc_helper_tracefs_root(), TC_KERNEL_INSTANCE_PREFIX, msg->header.session_id);
	ret = write_matching(events_dir, msg->system, msg->event, msg->filter, &count);
	if (ret == 0 && count == 0)
		return -ENOENT;
	if (ret < 0 && strcmp(msg->filter, "0") != 0) {
		write_matching(events_dir, msg->system, msg->event, "0", &count);
		tc_helper_log("warning", "session %" PRIu64 ": filter refused on %s:%s: %s",
			      msg->header.session_id, msg->system, msg->event, strerror(-ret));
	}
	return ret;
}
