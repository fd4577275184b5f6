/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dynamic probes of a session, with libtracefs: kprobes and kretprobes on
 * a kernel symbol or address, uprobes on a function of an ELF file, all
 * in the group "tracectl_<session id>" so that they are found and removed
 * with the session's instance, or as leftovers of a crashed run.
 */
#include "tc-kernel-helper.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <tracefs.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

#define ALL_PROBES                                                                         \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE |  \
	 TRACEFS_DYNEVENT_URETPROBE)

void
tc_helper_probe_group(uint64_t session_id, char *group, unsigned long size)
{
	snprintf(group, size, "tracectl_%" PRIu64, session_id);
}

static bool
kernel_has_file(const char *name)
{
	char path[4096];

	return snprintf(path, sizeof(path), "%s/%s", tc_helper_tracefs_root(), name) <
		       (int)sizeof(path) &&
	       access(path, F_OK) == 0;
}

/* symbol[+offset] or 0xADDRESS: [A-Za-z0-9_.+]. */
static bool
kernel_location_is_valid(const char *location)
{
	if (!*location)
		return false;
	for (const char *c = location; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '+'))
			return false;
	return true;
}

/* Opens path with the rights of uid: nobody probes a file they cannot read. */
static int
open_as(const char *path, uint32_t uid, uint32_t gid)
{
	int fd, saved;

	setfsgid(gid);
	setfsuid(uid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	saved = errno;
	setfsuid(0);
	setfsgid(0);
	errno = saved;
	return fd < 0 ? -errno : fd;
}

static struct tracefs_dynevent *
alloc_uprobe(const char *group, const char *name, const char *location, uint32_t uid,
	     uint32_t gid, int *error)
{
	char path[TC_KERNEL_LOCATION_MAX];
	const char *colon = strrchr(location, ':');
	uint64_t offset = 0;
	int fd;

	if (!colon || location[0] != '/' || strstr(location, "/../") ||
	    (size_t)(colon - location) >= sizeof(path) || !colon[1]) {
		*error = -EINVAL;
		return NULL;
	}
	memcpy(path, location, (size_t)(colon - location));
	path[colon - location] = '\0';
	fd = open_as(path, uid, gid);
	if (fd < 0) {
		*error = fd;
		return NULL;
	}
	*error = tc_helper_elf_function_offset(fd, colon + 1, &offset);
	close(fd);
	if (*error < 0)
		return NULL;
	return tracefs_uprobe_alloc(group, name, path, offset, NULL);
}

int
tc_helper_probe_add(const struct tc_kernel_probe_msg *msg)
{
	char group[64];
	struct tracefs_dynevent *probe = NULL;
	int ret = -EINVAL;

	tc_helper_probe_group(msg->header.session_id, group, sizeof(group));
	if ((msg->kind == TC_KERNEL_PROBE_KPROBE || msg->kind == TC_KERNEL_PROBE_KRETPROBE) &&
	    !kernel_has_file("kprobe_events"))
		return -EOPNOTSUPP; /* a kernel built without kprobe events */
	if (msg->kind == TC_KERNEL_PROBE_UPROBE && !kernel_has_file("uprobe_events"))
		return -EOPNOTSUPP;
	switch (msg->kind) {
	case TC_KERNEL_PROBE_KPROBE:
		if (kernel_location_is_valid(msg->location))
			probe = tracefs_kprobe_alloc(group, msg->name, msg->location, NULL);
		break;
	case TC_KERNEL_PROBE_KRETPROBE:
		if (kernel_location_is_valid(msg->location))
			probe = tracefs_kretprobe_alloc(group, msg->name, msg->location, NULL, 0);
		break;
	case TC_KERNEL_PROBE_UPROBE:
		probe = alloc_uprobe(group, msg->name, msg->location, msg->uid, msg->gid, &ret);
		break;
	default:
		break;
	}
	if (!probe)
		return ret;
	ret = tracefs_dynevent_create(probe) < 0 ? -EINVAL : 0;
	tracefs_dynevent_free(probe);
	if (ret == 0)
		ret = (msg->flags & TC_KERNEL_PROBE_DISABLED)
			      ? 0
			      : tc_helper_event_enable(msg->header.session_id, group, msg->name,
						       true);
	tc_helper_log("info", "session %" PRIu64 ": probe %s:%s on %s: %s", msg->header.session_id,
		      group, msg->name, msg->location, ret == 0 ? "added" : strerror(-ret));
	return ret;
}

void
tc_helper_probes_remove(const char *group)
{
	struct tracefs_dynevent **probes = tracefs_dynevent_get_all(ALL_PROBES, group);

	for (int i = 0; probes && probes[i]; i++)
		tracefs_dynevent_destroy(probes[i], true);
	tracefs_dynevent_list_free(probes);
}

/* Probe groups of a run that crashed: nobody else names theirs so. */
void
tc_helper_probes_remove_leftovers(void)
{
	struct tracefs_dynevent **probes = tracefs_dynevent_get_all(ALL_PROBES, NULL);

	for (int i = 0; probes && probes[i]; i++) {
		char *system = NULL;

		tracefs_dynevent_info(probes[i], &system, NULL, NULL, NULL, NULL);
		if (system && strncmp(system, "tracectl_", 9) == 0) {
			tracefs_dynevent_destroy(probes[i], true);
			tc_helper_log("info", "removed a leftover probe of group %s", system);
		}
		free(system);
	}
	tracefs_dynevent_list_free(probes);
}
