/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the helper makes of a request's bytes before it touches anything:
 * every check of tc-kernel-abi.h's messages, and the names and text the
 * request turns into (instance and probe group names, the clock and
 * buffer size of an instance, event globs as regular expressions, a
 * probe's location). Kept apart from tracefs so that the fuzzer reaches
 * all of it; the helper's other files use these, never their own copies.
 */
#include "tc-helper-request.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tc-kernel-abi.h"
#include "tc-kernel-names.h"
#include "tc-kernel-own.h"

/* A NUL-terminated event or system name (glob) within size bytes. */
static bool
event_name_is_valid(const char *name, size_t size)
{
	size_t position;

	return memchr(name, '\0', size) && !tc_kernel_check_event_name(name, &position);
}

bool
tc_helper_request_probe_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_probe_msg *msg = buf;
	size_t position;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       memchr(msg->name, '\0', sizeof(msg->name)) &&
	       !tc_kernel_check_probe_name(msg->name, &position) &&
	       memchr(msg->location, '\0', sizeof(msg->location)) &&
	       !(msg->flags & ~TC_KERNEL_PROBE_DISABLED);
}

static bool
event_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_event_msg *msg = buf;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       event_name_is_valid(msg->system, sizeof(msg->system)) &&
	       event_name_is_valid(msg->event, sizeof(msg->event));
}

/* EVENT_FILTER: names as EVENT_ENABLE's, the filter of the filter
 * alphabet (tc-kernel-names.h), NUL-terminated in its array. */
static bool
filter_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_filter_msg *msg = buf;
	size_t position;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       event_name_is_valid(msg->system, sizeof(msg->system)) &&
	       event_name_is_valid(msg->event, sizeof(msg->event)) &&
	       memchr(msg->filter, '\0', sizeof(msg->filter)) &&
	       tc_kernel_check_filter(msg->filter, &position) == NULL;
}

/* PRUNE: every kept session in the sender's scope. */
static bool
prune_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_prune_msg *msg = buf;

	if (len != sizeof(*msg) || msg->header.size != sizeof(*msg) ||
	    msg->count > TC_KERNEL_PRUNE_MAX)
		return false;
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->keep[i] >> 32 != msg->scope)
			return false;
	return true;
}

/* PIDS: the count and flags within bounds, every pid listed positive. */
static bool
pids_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_pids_msg *msg = buf;

	if (len != sizeof(*msg) || msg->header.size != sizeof(*msg) ||
	    msg->count > TC_KERNEL_PIDS_MAX || (msg->flags & ~TC_KERNEL_PIDS_ALL) ||
	    ((msg->flags & TC_KERNEL_PIDS_ALL) && msg->count != 0))
		return false;
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->pids[i] <= 0)
			return false;
	return true;
}

/* The message checked: sizes, counts within the bound and 0 for a set
 * holding every value, some set of ids other than pids. */
bool
tc_helper_request_track_is_valid(const struct tc_kernel_track_msg *msg)
{
	uint64_t total = 0;

	if (msg->reserved != 0 || (msg->all & ~((1u << TC_KERNEL_TRACK_KINDS) - 1)) ||
	    (msg->all | 1u << TC_KERNEL_TRACK_PID) == (1u << TC_KERNEL_TRACK_KINDS) - 1)
		return false;
	for (int k = 0; k < TC_KERNEL_TRACK_KINDS; k++) {
		if ((msg->all & 1u << k) && msg->counts[k] != 0)
			return false;
		total += msg->counts[k];
	}
	return total <= TC_KERNEL_TRACK_VALUES_MAX;
}

static bool
track_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_track_msg *msg = buf;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       tc_helper_request_track_is_valid(msg);
}

/* A system call bitmap is given with its class only, and never empty:
 * the programs' bitmaps are what the service resolved, not a default. */
static bool
own_bitmap_is_valid(const uint64_t *bitmap, bool asked)
{
	uint64_t any = 0;

	for (uint32_t i = 0; i < TC_KERNEL_OWN_SYSCALL_WORDS; i++)
		any |= bitmap[i];
	return asked == (any != 0);
}

bool
tc_helper_request_own_syscalls_are_valid(uint32_t events, const uint64_t *entry,
					 const uint64_t *exit)
{
	return !(events & ~(TC_KERNEL_OWN_ALL | TC_KERNEL_OWN_SYSCALLS)) &&
	       own_bitmap_is_valid(entry, events & TC_KERNEL_OWN_SYSCALL_ENTRY) &&
	       own_bitmap_is_valid(exit, events & TC_KERNEL_OWN_SYSCALL_EXIT);
}

static bool
own_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_own_msg *msg = buf;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       msg->quiet_tgid <= INT32_MAX &&
	       tc_helper_request_own_syscalls_are_valid(msg->events, msg->syscall_entry,
							msg->syscall_exit);
}

/* The group's path itself is checked by the own tier, which opens it. */
static bool
own_unit_msg_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_own_unit_msg *msg = buf;

	return len == sizeof(*msg) && msg->header.size == sizeof(*msg) &&
	       msg->quiet_tgid <= INT32_MAX && memchr(msg->cgroup, '\0', sizeof(msg->cgroup)) &&
	       tc_helper_request_own_syscalls_are_valid(msg->events, msg->syscall_entry,
							msg->syscall_exit);
}

bool
tc_helper_request_is_valid(const void *buf, size_t len)
{
	const struct tc_kernel_msg *request = buf;

	if (len < sizeof(*request))
		return false;
	switch (request->type) {
	case TC_KERNEL_PING:
	case TC_KERNEL_INSTANCE_CREATE:
	case TC_KERNEL_INSTANCE_REMOVE:
	case TC_KERNEL_START:
	case TC_KERNEL_STOP:
	case TC_KERNEL_STATEDUMP:
	case TC_KERNEL_TGIDS:
	case TC_KERNEL_LIST:
	case TC_KERNEL_OWN_REMOVE:
		return len == sizeof(*request) && request->size == sizeof(*request);
	case TC_KERNEL_EVENT_ENABLE:
	case TC_KERNEL_EVENT_DISABLE:
	case TC_KERNEL_FORMATS_GET:
		return event_msg_is_valid(buf, len);
	case TC_KERNEL_EVENT_FILTER:
		return filter_msg_is_valid(buf, len);
	case TC_KERNEL_PROBE_ADD:
		return tc_helper_request_probe_is_valid(buf, len);
	case TC_KERNEL_PRUNE:
		return prune_msg_is_valid(buf, len);
	case TC_KERNEL_PIDS:
		return pids_msg_is_valid(buf, len);
	case TC_KERNEL_TRACK:
		return track_msg_is_valid(buf, len);
	case TC_KERNEL_OWN_START:
		return own_msg_is_valid(buf, len);
	case TC_KERNEL_OWN_UNIT_START:
		return own_unit_msg_is_valid(buf, len);
	default:
		return false; /* replies, and what the helper only sends */
	}
}

void
tc_helper_request_instance_name(uint64_t session_id, char *name, size_t size)
{
	snprintf(name, size, "%s%" PRIu64, TC_KERNEL_INSTANCE_PREFIX, session_id);
}

void
tc_helper_request_probe_group(uint64_t session_id, char *group, size_t size)
{
	snprintf(group, size, "tracectl_%" PRIu64, session_id);
}

int
tc_helper_request_instance_setup(uint32_t value, const char **clock, char *size_kb, size_t size)
{
	uint32_t buffer_size_kb = value & ~(TC_KERNEL_CLOCK_TSC | TC_KERNEL_OVERWRITE);

#ifndef __x86_64__
	if (value & TC_KERNEL_CLOCK_TSC)
		return -EINVAL;
#endif
	/* Kernel and application timestamps on one clock, the session's. */
	*clock = (value & TC_KERNEL_CLOCK_TSC) ? "x86-tsc" : "mono";
	size_kb[0] = '\0';
	if (buffer_size_kb)
		snprintf(size_kb, size, "%" PRIu32, buffer_size_kb);
	return 0;
}

bool
tc_helper_request_instance_overwrites(uint32_t value)
{
	return (value & TC_KERNEL_OVERWRITE) != 0;
}

/* Names are [A-Za-z0-9_*] only (checked): '*' is the one character that
 * means something else in a regular expression. */
void
tc_helper_request_glob_regex(const char *glob, char *regex, size_t size)
{
	size_t n = 0;

	regex[n++] = '^';
	for (; *glob && n + 4 < size; glob++) {
		if (*glob == '*')
			regex[n++] = '.';
		regex[n++] = *glob;
	}
	regex[n++] = '$';
	regex[n] = '\0';
}

int
tc_helper_request_kprobe_check(const struct tc_kernel_probe_msg *msg)
{
	size_t position;

	if (msg->kind != TC_KERNEL_PROBE_KPROBE && msg->kind != TC_KERNEL_PROBE_KRETPROBE)
		return -EINVAL;
	return tc_kernel_check_kprobe_location(msg->location, &position) ? -EINVAL : 0;
}

/* Copies text[0..len) into out of size bytes, NUL-terminated. */
static void
copy_part(char *out, size_t size, const char *text, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(out, text, len);
	out[len] = '\0';
}

int
tc_helper_request_uprobe_split(const struct tc_kernel_probe_msg *msg,
			       struct tc_helper_uprobe_target *target)
{
	bool is_sdt = strncmp(msg->location, "sdt:", 4) == 0;
	const char *path = is_sdt ? msg->location + 4 : msg->location;
	const char *colon = strchr(path, ':');
	const char *second = colon && is_sdt ? strchr(colon + 1, ':') : NULL;
	size_t position;

	_Static_assert(sizeof(target->path) == TC_KERNEL_LOCATION_MAX, "a location fits");
	if (msg->kind != TC_KERNEL_PROBE_UPROBE ||
	    tc_kernel_check_uprobe_location(msg->location, &position) || !colon ||
	    (is_sdt && !second))
		return -EINVAL;
	copy_part(target->path, sizeof(target->path), path, (size_t)(colon - path));
	if (is_sdt) {
		copy_part(target->provider, sizeof(target->provider), colon + 1,
			  (size_t)(second - colon - 1));
		copy_part(target->name, sizeof(target->name), second + 1, strlen(second + 1));
	} else {
		target->provider[0] = '\0';
		copy_part(target->name, sizeof(target->name), colon + 1, strlen(colon + 1));
	}
	return 0;
}
