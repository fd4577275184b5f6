/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interfaces of tracectl-kernel-helper. */
#ifndef TC_KERNEL_HELPER_H
#define TC_KERNEL_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* tc-helper-main.c: tells systemd's watchdog the helper is not stuck
 * (no-op without it). */
void tc_helper_main_watchdog_ping(void);
/* tc-helper-log.c: CLOCK_MONOTONIC in milliseconds, and a line on stderr. */
int64_t tc_helper_log_now_ms(void);
void tc_helper_log(const char *level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* tc-helper-tracefs.c: the tracefs mount point ($TRACECTL_TRACEFS for
 * tests). */
const char *tc_helper_tracefs_root(void);

/* tc-helper-tracefs.c: the session instances. Each returns 0 or -errno. */
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
/* tc-helper-pids.c: the path of a file of the session's instance, and
 * len bytes of text written to it, replacing (truncate) or adding to what
 * it holds (a pid list keeps its pids on O_APPEND). */
void tc_helper_pids_instance_path(uint64_t session_id, const char *file, char *path, size_t size);
int tc_helper_pids_instance_write(uint64_t session_id, const char *file, const char *text,
				  size_t len, bool truncate);
/* The processes the instance records (see TC_KERNEL_PIDS). */
int tc_helper_pids_set(uint64_t session_id, const int32_t *pids, uint32_t count, bool all);
struct tc_kernel_track_msg;
/* tc-helper-track.c: TRACK (the processes recorded by their ids, rescanned
 * in rounds), its message checked here; forget ends a session's rescans
 * (a PIDS request, the instance removed). */
int tc_helper_track(const struct tc_kernel_track_msg *msg);
void tc_helper_track_forget(uint64_t session_id);
/* When tc_helper_track_tick() has work next (tc_helper_log_now_ms()), -1 for
 * never; the tick does nothing before. */
int64_t tc_helper_track_deadline_ms(void);
void tc_helper_track_tick(void);
struct tc_kernel_filter_msg;
/* tc-helper-filter.c: EVENT_FILTER, its message checked. */
int tc_helper_filter_event(const struct tc_kernel_filter_msg *msg);
/* A NUL-terminated event or system name (glob) within size bytes. */
bool tc_helper_tracefs_name_is_valid(const char *name, unsigned long size);
struct tc_kernel_probe_msg;
/* tc-helper-probe.c */
void tc_helper_probe_group(uint64_t session_id, char *group, unsigned long size);
struct tc_target_child;
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
/* tc-helper-elf.c: the file offset of function in the ELF64 file fd, read
 * with bounded pread()s; the codes of tc-kernel-abi.h (PROBE_ADD). */
int tc_helper_elf_function_offset(int fd, const char *function, uint64_t *offset);
/* tc-helper-target.c: the child that opens a uprobe target as uid/gid
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
/* A sealed memfd listing the machine's events, or its system calls. */
int tc_helper_tracefs_list_memfd(bool syscalls);

/* tc-helper-own.c: the own-process tier's programs of a session, owned
 * by the connection owner_fd, recording the tasks that the owner (uid, and
 * gid the primary group of their account) could trace. */
int tc_helper_own_start(int owner_fd, uint64_t session_id, uint32_t uid, uint32_t gid,
			uint32_t events, uint32_t quiet_tgid, int *ring_fd);
/* The same for the tasks of the control group cgroup (a path of the
 * unified hierarchy, /proc/PID/cgroup's) and its descendants. */
int tc_helper_own_unit_start(int owner_fd, uint64_t session_id, const char *cgroup,
			     uint32_t events, uint32_t quiet_tgid, int *ring_fd);
int tc_helper_own_remove(uint64_t session_id);
void tc_helper_own_remove_owned_by(int fd);

#endif /* TC_KERNEL_HELPER_H */
