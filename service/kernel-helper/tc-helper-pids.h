/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The processes a session's instance records, by pid. */
#ifndef TC_HELPER_PIDS_H
#define TC_HELPER_PIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The path of a file of the session's instance, and
 * len bytes of text written to it, replacing (truncate) or adding to what
 * it holds (a pid list keeps its pids on O_APPEND). */
void tc_helper_pids_instance_path(uint64_t session_id, const char *file, char *path, size_t size);
int tc_helper_pids_instance_write(uint64_t session_id, const char *file, const char *text,
				  size_t len, bool truncate);
/* The processes the instance records (see TC_KERNEL_PIDS). */
int tc_helper_pids_set(uint64_t session_id, const int32_t *pids, uint32_t count, bool all);

#endif /* TC_HELPER_PIDS_H */
