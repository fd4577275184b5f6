/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The child that opens a uprobe's target file as its owner. */
#ifndef TC_HELPER_TARGET_H
#define TC_HELPER_TARGET_H

#include <stdint.h>

struct tc_helper_uprobe_target;

/* The child that opens a uprobe target's file as uid/gid
 * and finds its function or SDT probe in it; its reply is due on sock by
 * deadline_ms. */
struct tc_target_child {
	int pid;
	int sock;
	int64_t deadline_ms; /* tc_helper_log_now_ms() */
};
int tc_helper_target_start(const struct tc_helper_uprobe_target *target, uint32_t uid,
			   uint32_t gid, struct tc_target_child *child);
/* Once sock is readable or the deadline passed: 0 with *fd (a regular
 * file), *offset and, for an SDT probe with a semaphore, its file offset
 * in *ref_ctr_offset (0 otherwise); the codes of tc-kernel-abi.h
 * (PROBE_ADD), or -ETIMEDOUT. Ends the child either way. */
int tc_helper_target_end(struct tc_target_child *child, int *fd, uint64_t *offset,
			 uint64_t *ref_ctr_offset);
/* Kills the child whose reply is no longer wanted. */
void tc_helper_target_abort(struct tc_target_child *child);

#endif /* TC_HELPER_TARGET_H */
