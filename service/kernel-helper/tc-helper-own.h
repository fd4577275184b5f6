/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The own-process tier: eBPF programs recording a user's own tasks. */
#ifndef TC_HELPER_OWN_H
#define TC_HELPER_OWN_H

#include <stdint.h>

/* What a session's programs record: the TC_KERNEL_OWN_* classes, and
 * the system calls of the entry and exit bitmaps
 * (TC_KERNEL_OWN_SYSCALL_WORDS words each, as the request gave them). */
struct tc_helper_own_events {
	uint32_t classes;
	const uint64_t *syscall_entry;
	const uint64_t *syscall_exit;
};

/* The own-process tier's programs of a session, owned
 * by the connection owner_fd, recording the tasks that the owner (uid, and
 * gid the primary group of their account) could trace. */
int tc_helper_own_start(int owner_fd, uint64_t session_id, uint32_t uid, uint32_t gid,
			const struct tc_helper_own_events *events, uint32_t quiet_tgid,
			int *ring_fd);
/* The same for the tasks of the control group cgroup (a path of the
 * unified hierarchy, /proc/PID/cgroup's) and its descendants. */
int tc_helper_own_unit_start(int owner_fd, uint64_t session_id, const char *cgroup,
			     const struct tc_helper_own_events *events, uint32_t quiet_tgid,
			     int *ring_fd);
int tc_helper_own_remove(uint64_t session_id);
void tc_helper_own_remove_owned_by(int fd);

#endif /* TC_HELPER_OWN_H */
