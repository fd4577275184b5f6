/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kprobes, kretprobes and uprobes of a session. */
#ifndef TC_HELPER_PROBE_H
#define TC_HELPER_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "tc-helper-target.h"

struct tc_kernel_probe_msg;
/* A kprobe or kretprobe. */
int tc_helper_probe_add(const struct tc_kernel_probe_msg *msg);
/* A uprobe, in two steps: begin starts the child that opens its target
 * (0, or the refusal), end adds the probe once the child answered or its
 * deadline passed (the reply's status). */
int tc_helper_probe_uprobe_begin(const struct tc_kernel_probe_msg *msg,
				 struct tc_target_child *child);
int tc_helper_probe_uprobe_end(const struct tc_kernel_probe_msg *msg,
			       struct tc_target_child *child);
void tc_helper_probe_remove_group(const char *group);
/* Removes the probe groups of sessions keep() says are gone; how many. */
int tc_helper_probe_prune(bool (*keep)(uint64_t session_id, const void *data), const void *data);

#endif /* TC_HELPER_PROBE_H */
