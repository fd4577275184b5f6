/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The child that opens a uprobe's target file as its owner. */
#ifndef TC_HELPER_TARGET_H
#define TC_HELPER_TARGET_H

#include <stdint.h>

/* The child that opens a uprobe target as uid/gid
 * and finds function in it; its reply is due on sock by deadline_ms. */
struct tc_target_child {
	int pid;
	int sock;
	int64_t deadline_ms; /* tc_helper_log_now_ms() */
};
int tc_helper_target_start(const char *path, const char *function, uint32_t uid, uint32_t gid,
			   struct tc_target_child *child);
/* Once sock is readable or the deadline passed: 0 with *fd (a regular
 * file) and *offset, the codes of tc-kernel-abi.h (PROBE_ADD), or
 * -ETIMEDOUT. Ends the child either way. */
int tc_helper_target_end(struct tc_target_child *child, int *fd, uint64_t *offset);
/* Kills the child whose reply is no longer wanted. */
void tc_helper_target_abort(struct tc_target_child *child);

#endif /* TC_HELPER_TARGET_H */
