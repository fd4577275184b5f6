/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracefs: the session instances, their events, buffers and formats. */
#ifndef TC_HELPER_TRACEFS_H
#define TC_HELPER_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>

/* The tracefs mount point ($TRACECTL_TRACEFS for
 * tests). */
const char *tc_helper_tracefs_root(void);

/* The session instances. Each returns 0 or -errno. */
/* value: INSTANCE_CREATE's (buffer size in KiB | TC_KERNEL_CLOCK_TSC). */
int tc_helper_tracefs_instance_setup(uint64_t session_id, uint32_t value);
int tc_helper_tracefs_event_enable(uint64_t session_id, const char *system, const char *event,
				   bool enable);
int tc_helper_tracefs_tracing_on(uint64_t session_id, bool on);
/* The instance's record-tgid option: the scheduler fills saved_tgids. */
int tc_helper_tracefs_record_tgids(uint64_t session_id);
/* Opens per_cpu/cpuN/trace_pipe_raw and per_cpu/cpuN/stats of every CPU:
 * fds[0..*count-1] and stats_fds[0..*count-1]. */
int tc_helper_tracefs_open_cpu_buffers(uint64_t session_id, int *fds, int *stats_fds, int max,
				       int *count);
/* A sealed memfd with the header page and the formats of the enabled
 * events (globs NULL) or of the events matching the globs; *count of them. */
int tc_helper_tracefs_formats_memfd(uint64_t session_id, const char *system_glob,
				    const char *event_glob, int *count);
/* A sealed memfd listing the machine's events, or its system calls. */
int tc_helper_tracefs_list_memfd(bool syscalls);

#endif /* TC_HELPER_TRACEFS_H */
