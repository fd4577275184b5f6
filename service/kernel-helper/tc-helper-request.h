/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checking and translating of tracectld's requests, apart from what
 * they make the helper do: plain C on the request's bytes, with no
 * tracefs, socket nor /proc, so that a fuzzer runs it without root
 * (tests/fuzz/fuzz-kernel-request.c).
 */
#ifndef TC_HELPER_REQUEST_H
#define TC_HELPER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tc_kernel_probe_msg;
struct tc_kernel_track_msg;

/* "tracectl-<id>" and "tracectl_<id>": a session's instance and probe
 * group, never more than this with the terminating NUL. */
#define TC_HELPER_REQUEST_NAME_MAX 32u

/* Whether the request of len bytes, whose header says its type, is well
 * formed: its exact size, NUL-terminated names of their alphabets (those
 * whose use depends on the kernel are checked where they are used),
 * counts and flags within bounds. The others get -EINVAL, before the
 * helper does anything for them. */
bool tc_helper_request_is_valid(const void *buf, size_t len);
bool tc_helper_request_probe_is_valid(const void *buf, size_t len);
bool tc_helper_request_track_is_valid(const struct tc_kernel_track_msg *msg);
/* OWN_START's and OWN_UNIT_START's event classes and system call bitmaps
 * (TC_KERNEL_OWN_SYSCALL_WORDS words each): known classes only, and a
 * bitmap non-empty exactly when its class is asked for. */
bool tc_helper_request_own_syscalls_are_valid(uint32_t events, const uint64_t *entry,
					      const uint64_t *exit);

/* The session's instance name, and its probe group. */
void tc_helper_request_instance_name(uint64_t session_id, char *name, size_t size);
void tc_helper_request_probe_group(uint64_t session_id, char *group, size_t size);

/* INSTANCE_CREATE's value: the trace_clock to write, and the
 * buffer_size_kb text ("" for the kernel's default); -EINVAL for the TSC
 * on a machine that has none. */
int tc_helper_request_instance_setup(uint32_t value, const char **clock, char *size_kb,
				     size_t size);
/* Whether INSTANCE_CREATE's value asks for a flight recorder
 * (TC_KERNEL_OVERWRITE): the instance's options/overwrite set to 1. */
bool tc_helper_request_instance_overwrites(uint32_t value);

/* An event or system glob of [A-Za-z0-9_*] as the regular expression
 * libtracefs matches names with: "sched_*" -> "^sched_.*$". size is at
 * least 2 * TC_KERNEL_NAME_MAX + 4, so that no checked glob is cut. */
void tc_helper_request_glob_regex(const char *glob, char *regex, size_t size);

/* A kprobe or kretprobe of a checked PROBE_ADD: 0, or -EINVAL for another
 * kind or a location of another form. */
int tc_helper_request_kprobe_check(const struct tc_kernel_probe_msg *msg);
/* A uprobe's target: the file, and the function or the SDT probe in it. */
struct tc_helper_uprobe_target {
	char path[256];	    /* TC_KERNEL_LOCATION_MAX */
	char provider[256]; /* an SDT probe's provider, "" for a function */
	char name[256];	    /* the function, or the SDT probe's name */
};

/* A uprobe of a checked PROBE_ADD: its location split into *target;
 * -EINVAL for another kind or a location of another form. */
int tc_helper_request_uprobe_split(const struct tc_kernel_probe_msg *msg,
				   struct tc_helper_uprobe_target *target);

#endif /* TC_HELPER_REQUEST_H */
