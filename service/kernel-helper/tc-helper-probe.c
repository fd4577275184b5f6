/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dynamic probes of a session, with libtracefs: kprobes and kretprobes on
 * a kernel symbol or address, uprobes on a function or an SDT probe of an
 * ELF file, all
 * in the group "tracectl_<session id>" so that they are found and removed
 * with the session's instance, or as leftovers of a crashed run.
 */
#include "tc-helper-probe.h"
#include "tc-helper-log.h"
#include "tc-helper-request.h"
#include "tc-helper-target.h"
#include "tc-helper-tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

#define ALL_PROBES                                                                         \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE |  \
	 TRACEFS_DYNEVENT_URETPROBE)

static bool
kernel_has_file(const char *name)
{
	char path[4096];

	return snprintf(path, sizeof(path), "%s/%s", tc_helper_tracefs_root(), name) <
		       (int)sizeof(path) &&
	       access(path, F_OK) == 0;
}

static int
refused(const struct tc_kernel_probe_msg *msg, const char *group, int ret)
{
	/* The location may be what was refused: not logged. */
	tc_helper_log("info", "session %" PRIu64 ": probe %s:%s refused: %s",
		      msg->header.session_id, group, msg->name, strerror(-ret));
	return ret;
}

/* Writes the probe, enabled unless asked otherwise; frees it. */
static int
create(const struct tc_kernel_probe_msg *msg, const char *group, struct tracefs_dynevent *probe)
{
	int ret = tracefs_dynevent_create(probe) < 0 ? -EINVAL : 0;

	if (ret == 0 && !(msg->flags & TC_KERNEL_PROBE_DISABLED)) {
		ret =
		    tc_helper_tracefs_event_enable(msg->header.session_id, group, msg->name, true);
		/* No probe outlives its refusal. */
		if (ret < 0)
			tracefs_dynevent_destroy(probe, true);
	}
	tracefs_dynevent_free(probe);
	tc_helper_log("info", "session %" PRIu64 ": probe %s:%s on %s: %s", msg->header.session_id,
		      group, msg->name, msg->location, ret == 0 ? "added" : strerror(-ret));
	return ret;
}

int
tc_helper_probe_add(const struct tc_kernel_probe_msg *msg)
{
	char group[TC_HELPER_REQUEST_NAME_MAX];
	struct tracefs_dynevent *probe = NULL;

	tc_helper_request_probe_group(msg->header.session_id, group, sizeof(group));
	if (msg->kind != TC_KERNEL_PROBE_KPROBE && msg->kind != TC_KERNEL_PROBE_KRETPROBE)
		return refused(msg, group, -EINVAL);
	if (!kernel_has_file("kprobe_events"))
		return -EOPNOTSUPP; /* a kernel built without kprobe events */
	if (tc_helper_request_kprobe_check(msg) < 0)
		return refused(msg, group, -EINVAL);
	if (msg->kind == TC_KERNEL_PROBE_KPROBE)
		probe = tracefs_kprobe_alloc(group, msg->name, msg->location, NULL);
	else
		probe = tracefs_kretprobe_alloc(group, msg->name, msg->location, NULL, 0);
	return probe ? create(msg, group, probe) : refused(msg, group, -EINVAL);
}

/*
 * The uprobe goes on the file that was checked, not on whatever its path
 * names when the kernel reads it: the path is opened once, as the owner,
 * the descriptor must be a regular file, the function's offset is read
 * from it (in a child with a deadline, tc-helper-target.c), and the kernel
 * is given "/proc/self/fd/N", the helper's own descriptor. The kernel
 * resolves a uprobe's path once, when the probe is written (kern_path() in
 * the uprobe parser, which keeps the path it found and never looks the
 * name up again), and the magic link resolves to the open file itself, so
 * swapping a symlink or renaming files in the meantime changes nothing.
 * uprobe_events then shows that /proc/self/fd/N name; the log names the
 * path. Checking device and inode after creating the probe from the path
 * was not chosen: a second lookup can be swapped back between the
 * kernel's and ours, so it proves nothing.
 */
int
tc_helper_probe_uprobe_begin(const struct tc_kernel_probe_msg *msg, struct tc_target_child *child)
{
	char group[TC_HELPER_REQUEST_NAME_MAX];
	struct tc_helper_uprobe_target target;
	int ret;

	tc_helper_request_probe_group(msg->header.session_id, group, sizeof(group));
	if (tc_helper_request_uprobe_split(msg, &target) < 0)
		return refused(msg, group, -EINVAL);
	if (!kernel_has_file("uprobe_events"))
		return -EOPNOTSUPP;
	ret = tc_helper_target_start(&target, msg->uid, msg->gid, child);
	return ret < 0 ? refused(msg, group, ret) : 0;
}

/*
 * An SDT probe with a semaphore: libtracefs writes no reference counter,
 * so the definition is written as the kernel's uprobe tracer reads it,
 * "p:GROUP/NAME PATH:0xOFFSET(0xREF_CTR_OFFSET)" (Documentation/trace/
 * uprobetracer.rst): while the probe is enabled, the kernel raises the
 * 16-bit counter at that file offset in every process that maps the file,
 * as a tool attached to the probe does, so the program evaluates the
 * probe's arguments. Every part is the helper's own (the checked group
 * and name, its descriptor's path, numbers). The probe is enabled as
 * create()'s are, and removed again if that fails.
 */
static int
create_with_semaphore(const struct tc_kernel_probe_msg *msg, const char *group,
		      const char *fd_path, uint64_t offset, uint64_t ref_ctr_offset)
{
	char definition[256], removal[128];
	int ret;

	snprintf(definition, sizeof(definition), "p:%s/%s %s:0x%" PRIx64 "(0x%" PRIx64 ")\n",
		 group, msg->name, fd_path, offset, ref_ctr_offset);
	snprintf(removal, sizeof(removal), "-:%s/%s\n", group, msg->name);
	ret = tracefs_instance_file_append(NULL, "uprobe_events", definition) < 0 ? -EINVAL : 0;
	if (ret == 0 && !(msg->flags & TC_KERNEL_PROBE_DISABLED)) {
		ret =
		    tc_helper_tracefs_event_enable(msg->header.session_id, group, msg->name, true);
		if (ret < 0)
			tracefs_instance_file_append(NULL, "uprobe_events", removal);
	}
	tc_helper_log("info", "session %" PRIu64 ": probe %s:%s on %s (semaphore at 0x%" PRIx64
		      "): %s",
		      msg->header.session_id, group, msg->name, msg->location, ref_ctr_offset,
		      ret == 0 ? "added" : strerror(-ret));
	return ret;
}

int
tc_helper_probe_uprobe_end(const struct tc_kernel_probe_msg *msg, struct tc_target_child *child)
{
	char group[TC_HELPER_REQUEST_NAME_MAX], fd_path[64];
	struct tracefs_dynevent *probe;
	uint64_t offset = 0, ref_ctr_offset = 0;
	int fd, ret = tc_helper_target_end(child, &fd, &offset, &ref_ctr_offset);

	tc_helper_request_probe_group(msg->header.session_id, group, sizeof(group));
	if (ret == -ETIMEDOUT)
		tc_helper_log("warning", "session %" PRIu64 ": the target of probe %s:%s, %s, "
			      "did not open within %d ms", msg->header.session_id, group,
			      msg->name, msg->location, TC_KERNEL_UPROBE_FILE_MS);
	if (ret < 0)
		return refused(msg, group, ret);
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	/* fd stays open until the kernel has resolved fd_path. */
	if (ref_ctr_offset) {
		ret = create_with_semaphore(msg, group, fd_path, offset, ref_ctr_offset);
	} else {
		probe = tracefs_uprobe_alloc(group, msg->name, fd_path, offset, NULL);
		ret = probe ? create(msg, group, probe) : refused(msg, group, -ENOMEM);
	}
	close(fd);
	return ret;
}

void
tc_helper_probe_remove_group(const char *group)
{
	struct tracefs_dynevent **probes = tracefs_dynevent_get_all(ALL_PROBES, group);

	for (int i = 0; probes && probes[i]; i++)
		tracefs_dynevent_destroy(probes[i], true);
	tracefs_dynevent_list_free(probes);
}

/* The session id of a group "tracectl_<id>", or false for other groups. */
static bool
group_session(const char *group, uint64_t *session_id)
{
	char *end;

	if (strncmp(group, "tracectl_", 9) != 0 || group[9] < '0' || group[9] > '9')
		return false;
	errno = 0;
	*session_id = strtoull(group + 9, &end, 10);
	return errno == 0 && *end == '\0';
}

/* Probe groups of sessions that are gone: those keep() refuses. */
int
tc_helper_probe_prune(bool (*keep)(uint64_t session_id, const void *data), const void *data)
{
	struct tracefs_dynevent **probes = tracefs_dynevent_get_all(ALL_PROBES, NULL);
	int removed = 0;

	for (int i = 0; probes && probes[i]; i++) {
		char *system = NULL;
		uint64_t session_id;

		tracefs_dynevent_info(probes[i], &system, NULL, NULL, NULL, NULL);
		if (system && group_session(system, &session_id) && !keep(session_id, data) &&
		    tracefs_dynevent_destroy(probes[i], true) == 0) {
			tc_helper_log("info", "removed a probe of group %s, whose session is gone",
				      system);
			removed++;
		}
		free(system);
	}
	tracefs_dynevent_list_free(probes);
	return removed;
}
