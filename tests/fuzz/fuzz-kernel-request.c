/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the kernel helper's reading of tracectld's requests
 * (service/kernel-helper/tc-helper-request.c, which tc-helper-main.c's
 * handle_request() and the modules it calls use): the helper runs as
 * root, tracectld as a less privileged account that may be compromised.
 * The checks of each request and what they turn it into run here without
 * root or tracefs. Built with AddressSanitizer and UBSan; the request is
 * copied into an allocation of exactly its length, so that a check that
 * reads past it is caught.
 *
 * Input: byte 0 frames the request, the rest is its bytes (the type is the
 * header's). Bit 0 set: the request is cut or padded with zeros to the
 * size of its type's message, otherwise it is the rest of the input as
 * it is; bit 1 set: the header's size says that length (serve() lets
 * through no other), otherwise it is the input's.
 *
 * What must hold, beside no error under the sanitizers:
 * - a request taken has its type's exact size, in its header too;
 * - the session's instance and probe group are "tracectl-<id>" and
 *   "tracectl_<id>", the id in decimal, whole, within
 *   TC_HELPER_REQUEST_NAME_MAX;
 * - INSTANCE_CREATE's trace_clock is "mono" or (the TSC bit) "x86-tsc",
 *   its buffer_size_kb the decimal of its size, or none for 0;
 * - event and system globs are 1 to 127 of [A-Za-z0-9_*] (so they name
 *   no path but their own component), and their regular expressions are
 *   ^...$ of the glob, '*' made ".*", never cut;
 * - a filter taken is 1 to 255 of the filter alphabet: one line, none of
 *   '\', '#', '%', '$';
 * - a probe's name is 1 to 63 of [A-Za-z0-9_], not starting with a
 *   digit, its flags known; a kprobe taken has a location of
 *   [A-Za-z0-9_.+], so that its definition "p:GROUP/NAME LOCATION" is one
 *   line of three tokens; a uprobe taken splits into an absolute path
 *   without empty, '.' or '..' component, of its alphabet, and a
 *   function of [A-Za-z0-9_.@$], or (sdt:) a provider and a name of
 *   [A-Za-z0-9_], which together are the location; no location is taken
 *   as both;
 * - PRUNE keeps only ids of its scope, at most TC_KERNEL_PRUNE_MAX; PIDS
 *   lists positive pids, at most TC_KERNEL_PIDS_MAX, none with
 *   PIDS_ALL; TRACK's sets hold at most TC_KERNEL_TRACK_VALUES_MAX values,
 *   none in a set that holds every value, and some set is of ids other
 *   than pids; an own-tier request's quiet tgid is a pid and its group's
 *   path NUL-terminated, its event classes known, and its system call
 *   bitmaps not empty exactly when their class is asked for.
 *
 * Built with libFuzzer, from the top of the source tree (Debian's clang):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Icommon/abi -Iservice/kernel-helper \
 *     tests/fuzz/fuzz-kernel-request.c service/kernel-helper/tc-helper-request.c \
 *     -o fuzz-kernel-request
 *   ./fuzz-kernel-request -max_len=2048 tests/fuzz/corpus/fuzz-kernel-request
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds built below:
 * `fuzz-kernel-request --seed N --runs M`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-helper-request.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-names.h"
#include "tc-kernel-own.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-kernel-request: " __VA_ARGS__);                              \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define FRAME_PAD 0x1u
#define FRAME_SIZE 0x2u

enum outcome {
	REFUSED,
	FIXED,
	INSTANCE_CREATE,
	EVENT,
	FILTER,
	KPROBE,
	UPROBE,
	PROBE_REFUSED,
	PRUNE,
	PIDS,
	TRACK,
	OWN,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "refused", "fixed size",	"instance create", "event", "filter", "kprobe",
    "uprobe",  "probe refused", "prune",	   "pids",  "track",  "own"};
static unsigned long long outcomes[OUTCOMES];

/* A taken own-tier request's event classes and system call bitmaps: known
 * classes only, and a bitmap not empty exactly when its class is asked for,
 * so that the programs never get a default set of system calls. */
static void
check_own_syscalls(uint32_t events, const uint64_t *entry, const uint64_t *exit)
{
	bool has_entry = false, has_exit = false;

	for (uint32_t i = 0; i < TC_KERNEL_OWN_SYSCALL_WORDS; i++) {
		has_entry |= entry[i] != 0;
		has_exit |= exit[i] != 0;
	}
	if ((events & ~(TC_KERNEL_OWN_ALL | TC_KERNEL_OWN_SYSCALLS)) ||
	    has_entry != ((events & TC_KERNEL_OWN_SYSCALL_ENTRY) != 0) ||
	    has_exit != ((events & TC_KERNEL_OWN_SYSCALL_EXIT) != 0))
		FAIL("an own-tier request with events 0x%" PRIx32 " and %s entry and %s exit "
		     "bitmaps taken",
		     events, has_entry ? "a" : "no", has_exit ? "a" : "no");
}

/* The size of a type's message, 0 for a type no request has. */
static size_t
type_size(uint32_t type)
{
	switch (type) {
	case TC_KERNEL_PING:
	case TC_KERNEL_INSTANCE_CREATE:
	case TC_KERNEL_INSTANCE_REMOVE:
	case TC_KERNEL_START:
	case TC_KERNEL_STOP:
	case TC_KERNEL_STATEDUMP:
	case TC_KERNEL_TGIDS:
	case TC_KERNEL_LIST:
	case TC_KERNEL_OWN_REMOVE:
		return sizeof(struct tc_kernel_msg);
	case TC_KERNEL_EVENT_ENABLE:
	case TC_KERNEL_EVENT_DISABLE:
	case TC_KERNEL_FORMATS_GET:
		return sizeof(struct tc_kernel_event_msg);
	case TC_KERNEL_EVENT_FILTER:
		return sizeof(struct tc_kernel_filter_msg);
	case TC_KERNEL_PROBE_ADD:
		return sizeof(struct tc_kernel_probe_msg);
	case TC_KERNEL_PRUNE:
		return sizeof(struct tc_kernel_prune_msg);
	case TC_KERNEL_PIDS:
		return sizeof(struct tc_kernel_pids_msg);
	case TC_KERNEL_TRACK:
		return sizeof(struct tc_kernel_track_msg);
	case TC_KERNEL_OWN_START:
		return sizeof(struct tc_kernel_own_msg);
	case TC_KERNEL_OWN_UNIT_START:
		return sizeof(struct tc_kernel_own_unit_msg);
	default:
		return 0;
	}
}

/* Every character of text[0..len) is a letter, a digit or one of extra. */
static bool
is_made_of(const char *text, size_t len, const char *extra)
{
	for (size_t i = 0; i < len; i++)
		if (!tc_kernel_is_alnum(text[i]) && (text[i] == '\0' || !strchr(extra, text[i])))
			return false;
	return true;
}

/* prefix followed by the id in decimal, whole. */
static void
check_session_name(const char *what, const char *name, const char *prefix, uint64_t id)
{
	char expected[64];
	size_t len = strnlen(name, TC_HELPER_REQUEST_NAME_MAX);

	if (len >= TC_HELPER_REQUEST_NAME_MAX)
		FAIL("the %s of session %" PRIu64 " is not terminated in %u bytes", what, id,
		     TC_HELPER_REQUEST_NAME_MAX);
	snprintf(expected, sizeof(expected), "%s%" PRIu64, prefix, id);
	if (strcmp(name, expected) != 0)
		FAIL("the %s of session %" PRIu64 " is '%s', not '%s'", what, id, name, expected);
	if (!is_made_of(name, len, "_-"))
		FAIL("the %s '%s' has a character of no name", what, name);
}

static void
check_session(uint64_t id)
{
	char name[TC_HELPER_REQUEST_NAME_MAX], group[TC_HELPER_REQUEST_NAME_MAX];

	tc_helper_request_instance_name(id, name, sizeof(name));
	check_session_name("instance", name, TC_KERNEL_INSTANCE_PREFIX, id);
	tc_helper_request_probe_group(id, group, sizeof(group));
	check_session_name("probe group", group, "tracectl_", id);
}

static void
check_instance_setup(uint32_t value)
{
	const char *clock = NULL;
	char size_kb[32];
	uint32_t kb = value & ~(TC_KERNEL_CLOCK_TSC | TC_KERNEL_OVERWRITE);
	int ret;

	memset(size_kb, 'x', sizeof(size_kb));
	ret = tc_helper_request_instance_setup(value, &clock, size_kb, sizeof(size_kb));
	if (ret == -EINVAL) {
#ifdef __x86_64__
		FAIL("INSTANCE_CREATE's value 0x%" PRIx32 " refused on x86-64", value);
#else
		if (!(value & TC_KERNEL_CLOCK_TSC))
			FAIL("INSTANCE_CREATE's value 0x%" PRIx32 " refused", value);
		return;
#endif
	}
	if (ret != 0 || clock == NULL)
		FAIL("INSTANCE_CREATE's value 0x%" PRIx32 ": %d", value, ret);
	if (strcmp(clock, (value & TC_KERNEL_CLOCK_TSC) ? "x86-tsc" : "mono") != 0)
		FAIL("INSTANCE_CREATE's value 0x%" PRIx32 " gives the clock '%s'", value, clock);
	if (!memchr(size_kb, '\0', sizeof(size_kb)))
		FAIL("buffer_size_kb of 0x%" PRIx32 " not terminated", value);
	if (kb == 0 ? size_kb[0] != '\0'
		    : !is_made_of(size_kb, strlen(size_kb), "") || size_kb[0] == '0' ||
			  strtoull(size_kb, NULL, 10) != kb)
		FAIL("buffer_size_kb of 0x%" PRIx32 " is '%s'", value, size_kb);
	if (tc_helper_request_instance_overwrites(value) != !!(value & TC_KERNEL_OVERWRITE))
		FAIL("INSTANCE_CREATE's value 0x%" PRIx32 ": overwrite mode misread", value);
}

/* A checked event or system glob, and the regular expression made of it. */
static void
check_glob(const char *what, const char *glob, size_t size)
{
	char regex[2 * TC_KERNEL_NAME_MAX + 4], back[TC_KERNEL_NAME_MAX];
	size_t len = strnlen(glob, size), n = 0, regex_len;

	if (len == 0 || len >= size || len > TC_KERNEL_NAME_MAX - 1)
		FAIL("a %s glob of %zu characters taken", what, len);
	if (!is_made_of(glob, len, "_*"))
		FAIL("the %s glob '%s' has a character out of [A-Za-z0-9_*]", what, glob);
	tc_helper_request_glob_regex(glob, regex, sizeof(regex));
	regex_len = strnlen(regex, sizeof(regex));
	if (regex_len >= sizeof(regex) || regex_len > 2 * len + 2 || regex[0] != '^' ||
	    regex[regex_len - 1] != '$' || !is_made_of(regex, regex_len, "_*.^$"))
		FAIL("the %s glob '%s' gives the regex '%s'", what, glob, regex);
	/* Undone, the regex is the glob: nothing cut, nothing added. */
	for (size_t i = 1; i + 1 < regex_len; i++) {
		if (regex[i] == '.' && regex[i + 1] == '*')
			continue;
		if (regex[i] == '^' || regex[i] == '$' || regex[i] == '.' || n >= len)
			FAIL("the %s glob '%s' gives the regex '%s'", what, glob, regex);
		back[n++] = regex[i];
	}
	if (n != len || memcmp(back, glob, len) != 0)
		FAIL("the %s glob '%s' gives the regex '%s', of another glob", what, glob, regex);
}

static void
check_filter(const char *filter)
{
	size_t len = strnlen(filter, TC_KERNEL_FILTER_MAX + 1);

	if (len == 0 || len > TC_KERNEL_FILTER_MAX)
		FAIL("a filter of %zu characters taken", len);
	if (!is_made_of(filter, len, TC_KERNEL_FILTER_PUNCTUATION) ||
	    strpbrk(filter, "\n\\#%$\t\r"))
		FAIL("the filter '%s' has a character out of its alphabet", filter);
}


/* A uprobe location taken and its split: "/path:function", or
 * "sdt:/path:provider:name" with a provider and name of [A-Za-z0-9_], each
 * part whole and in bounds, the path absolute with no empty, "." or ".."
 * component, so that the file opened is the one named and the definition
 * written to uprobe_events holds no token of the user's but the path. */
static void
check_uprobe_target(const struct tc_kernel_probe_msg *msg, size_t location_len,
		    const struct tc_helper_uprobe_target *target)
{
	bool is_sdt = strncmp(msg->location, "sdt:", 4) == 0;
	size_t path_len = strnlen(target->path, sizeof(target->path));
	size_t provider_len = strnlen(target->provider, sizeof(target->provider));
	size_t name_len = strnlen(target->name, sizeof(target->name));
	const char *path = target->path;
	char joined[3 * TC_KERNEL_LOCATION_MAX + 8];

	if (msg->kind != TC_KERNEL_PROBE_UPROBE)
		FAIL("a uprobe of kind %" PRIu32 " taken", msg->kind);
	if (path_len >= sizeof(target->path) || provider_len >= sizeof(target->provider) ||
	    name_len >= sizeof(target->name))
		FAIL("the uprobe location '%s' split out of bounds", msg->location);
	if (is_sdt)
		snprintf(joined, sizeof(joined), "sdt:%s:%s:%s", path, target->provider,
			 target->name);
	else
		snprintf(joined, sizeof(joined), "%s:%s", path, target->name);
	if (strlen(joined) != location_len || strcmp(joined, msg->location) != 0 ||
	    path_len == 0 || name_len == 0 || (is_sdt != (provider_len != 0)))
		FAIL("the uprobe location '%s' split into '%s', '%s' and '%s'", msg->location, path,
		     target->provider, target->name);
	if (path[0] != '/' || !is_made_of(path, path_len, "/._+@-") || strstr(path, "//") ||
	    strstr(path, "/./") || strstr(path, "/../") ||
	    (path_len >= 2 && strcmp(path + path_len - 2, "/.") == 0) ||
	    (path_len >= 3 && strcmp(path + path_len - 3, "/..") == 0) || path[path_len - 1] == '/')
		FAIL("the uprobe path '%s' taken", path);
	if (is_sdt ? !is_made_of(target->provider, provider_len, "_") ||
			     !is_made_of(target->name, name_len, "_")
		   : !is_made_of(target->name, name_len, "_.@$"))
		FAIL("the uprobe function or SDT probe '%s:%s' taken", target->provider,
		     target->name);
}

static void
check_probe(const struct tc_kernel_probe_msg *msg)
{
	char group[TC_HELPER_REQUEST_NAME_MAX];
	struct tc_helper_uprobe_target target;
	char line[8 + TC_HELPER_REQUEST_NAME_MAX + sizeof(msg->name) + TC_KERNEL_LOCATION_MAX];
	size_t name_len = strnlen(msg->name, sizeof(msg->name));
	size_t location_len = strnlen(msg->location, sizeof(msg->location));
	int kprobe, uprobe, n;

	if (name_len == 0 || name_len > TC_KERNEL_PROBE_NAME_MAX ||
	    !is_made_of(msg->name, name_len, "_") || (msg->name[0] >= '0' && msg->name[0] <= '9'))
		FAIL("the probe name '%.*s' taken", (int)name_len, msg->name);
	if (location_len >= sizeof(msg->location))
		FAIL("a probe location not terminated taken");
	if (msg->flags & ~TC_KERNEL_PROBE_DISABLED)
		FAIL("probe flags 0x%" PRIx32 " taken", msg->flags);
	kprobe = tc_helper_request_kprobe_check(msg);
	memset(&target, 'x', sizeof(target));
	uprobe = tc_helper_request_uprobe_split(msg, &target);
	if (kprobe == 0 && uprobe == 0)
		FAIL("the location '%s' taken as a kprobe's and a uprobe's", msg->location);
	if ((kprobe != 0 && kprobe != -EINVAL) || (uprobe != 0 && uprobe != -EINVAL))
		FAIL("a probe refused with %d, %d", kprobe, uprobe);
	tc_helper_request_probe_group(msg->header.session_id, group, sizeof(group));
	if (kprobe == 0) {
		if (msg->kind != TC_KERNEL_PROBE_KPROBE && msg->kind != TC_KERNEL_PROBE_KRETPROBE)
			FAIL("a kprobe of kind %" PRIu32 " taken", msg->kind);
		if (location_len == 0 || !is_made_of(msg->location, location_len, "_.+"))
			FAIL("the kprobe location '%s' taken", msg->location);
		/* The definition libtracefs writes to dynamic_events. */
		n = snprintf(line, sizeof(line), "%c:%s/%s %s",
			     msg->kind == TC_KERNEL_PROBE_KPROBE ? 'p' : 'r', group, msg->name,
			     msg->location);
		if (n < 0 || (size_t)n >= sizeof(line) || (size_t)n != strlen(line) ||
		    strchr(line, '\n') || !strchr(line, ' ') ||
		    strchr(strchr(line, ' ') + 1, ' ') || strchr(line, '\t') || strchr(line, '#'))
			FAIL("the kprobe definition '%s' is not one line of three tokens", line);
		outcomes[KPROBE]++;
	} else if (uprobe == 0) {
		check_uprobe_target(msg, location_len, &target);
		outcomes[UPROBE]++;
	} else {
		outcomes[PROBE_REFUSED]++;
	}
}

static void
check_prune(const struct tc_kernel_prune_msg *msg)
{
	if (msg->count > TC_KERNEL_PRUNE_MAX)
		FAIL("PRUNE of %" PRIu32 " sessions taken", msg->count);
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->keep[i] >> 32 != msg->scope)
			FAIL("PRUNE of scope %" PRIu32 " keeps session %" PRIu64, msg->scope,
			     msg->keep[i]);
}

static void
check_pids(const struct tc_kernel_pids_msg *msg)
{
	if (msg->count > TC_KERNEL_PIDS_MAX || (msg->flags & ~TC_KERNEL_PIDS_ALL) ||
	    ((msg->flags & TC_KERNEL_PIDS_ALL) && msg->count))
		FAIL("PIDS of %" PRIu32 " pids, flags 0x%" PRIx32 " taken", msg->count, msg->flags);
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->pids[i] <= 0)
			FAIL("PIDS lists pid %" PRId32, msg->pids[i]);
}

static void
check_track(const struct tc_kernel_track_msg *msg)
{
	const uint32_t every = (1u << TC_KERNEL_TRACK_KINDS) - 1;
	uint64_t total = 0;

	if (msg->reserved || (msg->all & ~every) || (msg->all | 1u << TC_KERNEL_TRACK_PID) == every)
		FAIL("TRACK of sets 0x%" PRIx32 " taken", msg->all);
	for (int k = 0; k < TC_KERNEL_TRACK_KINDS; k++) {
		if ((msg->all & 1u << k) && msg->counts[k])
			FAIL("TRACK with values in a set holding every value");
		total += msg->counts[k];
	}
	if (total > TC_KERNEL_TRACK_VALUES_MAX)
		FAIL("TRACK of %" PRIu64 " values taken", total);
}

static void
check_taken(const void *buf, size_t len)
{
	const struct tc_kernel_msg *header = buf;

	if (len != type_size(header->type) || header->size != len)
		FAIL("a request of type %" PRIu32 " and %zu bytes (header: %" PRIu32 ") taken",
		     header->type, len, header->size);
	check_session(header->session_id);
	switch (header->type) {
	case TC_KERNEL_INSTANCE_CREATE:
		check_instance_setup(header->value);
		outcomes[INSTANCE_CREATE]++;
		break;
	case TC_KERNEL_EVENT_ENABLE:
	case TC_KERNEL_EVENT_DISABLE:
	case TC_KERNEL_FORMATS_GET: {
		const struct tc_kernel_event_msg *msg = buf;

		check_glob("system", msg->system, sizeof(msg->system));
		check_glob("event", msg->event, sizeof(msg->event));
		outcomes[EVENT]++;
		break;
	}
	case TC_KERNEL_EVENT_FILTER: {
		const struct tc_kernel_filter_msg *msg = buf;

		check_glob("system", msg->system, sizeof(msg->system));
		check_glob("event", msg->event, sizeof(msg->event));
		check_filter(msg->filter);
		outcomes[FILTER]++;
		break;
	}
	case TC_KERNEL_PROBE_ADD:
		if (!tc_helper_request_probe_is_valid(buf, len))
			FAIL("a PROBE_ADD taken whole refused alone");
		check_probe(buf);
		break;
	case TC_KERNEL_PRUNE:
		check_prune(buf);
		outcomes[PRUNE]++;
		break;
	case TC_KERNEL_PIDS:
		check_pids(buf);
		outcomes[PIDS]++;
		break;
	case TC_KERNEL_TRACK:
		check_track(buf);
		if (!tc_helper_request_track_is_valid(buf))
			FAIL("a TRACK taken whole refused alone");
		outcomes[TRACK]++;
		break;
	case TC_KERNEL_OWN_START: {
		const struct tc_kernel_own_msg *msg = buf;

		if (msg->quiet_tgid > INT32_MAX)
			FAIL("OWN_START with quiet tgid %" PRIu32 " taken", msg->quiet_tgid);
		check_own_syscalls(msg->events, msg->syscall_entry, msg->syscall_exit);
		outcomes[OWN]++;
		break;
	}
	case TC_KERNEL_OWN_UNIT_START: {
		const struct tc_kernel_own_unit_msg *msg = buf;

		if (msg->quiet_tgid > INT32_MAX || !memchr(msg->cgroup, '\0', sizeof(msg->cgroup)))
			FAIL("OWN_UNIT_START with quiet tgid %" PRIu32 " or an unterminated path "
			     "taken",
			     msg->quiet_tgid);
		check_own_syscalls(msg->events, msg->syscall_entry, msg->syscall_exit);
		outcomes[OWN]++;
		break;
	}
	default:
		outcomes[FIXED]++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_kernel_msg header = {0};
	size_t len, body;
	uint8_t frame;
	void *buf;

	if (size < 1)
		return 0;
	frame = data[0];
	body = size - 1;
	memcpy(&header, data + 1, body < sizeof(header) ? body : sizeof(header));
	len = body;
	if ((frame & FRAME_PAD) && type_size(header.type))
		len = type_size(header.type);
	/* Exactly len bytes, aligned as the helper's receive buffer is: a
	 * read past the request is the sanitizer's to see. */
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		FAIL("out of memory");
	memset(buf, 0, len);
	memcpy(buf, data + 1, body < len ? body : len);
	if ((frame & FRAME_SIZE) && len >= sizeof(header))
		((struct tc_kernel_msg *)buf)->size = (uint32_t)len;
	if (tc_helper_request_is_valid(buf, len))
		check_taken(buf, len);
	else
		outcomes[REFUSED]++;
	/* The uprobe check serve() makes on every request, taken or not. */
	if (len >= sizeof(header) && ((struct tc_kernel_msg *)buf)->type == TC_KERNEL_PROBE_ADD &&
	    tc_helper_request_probe_is_valid(buf, len) != tc_helper_request_is_valid(buf, len))
		FAIL("PROBE_ADD's two checks disagree");
	free(buf);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Valid requests of each type, padded to their size by the frame. */
#define SEEDS_MAX 31
static uint8_t seed_bytes[SEEDS_MAX][1 + sizeof(struct tc_kernel_own_unit_msg)];
static struct fuzz_seed seeds[SEEDS_MAX];
static size_t nr_seeds;

/* A seed of the first len bytes of msg, the frame padding it. */
static void
add_seed(const void *msg, size_t len)
{
	if (nr_seeds >= SEEDS_MAX || len + 1 > sizeof(seed_bytes[0]))
		abort();
	seed_bytes[nr_seeds][0] = FRAME_PAD;
	memcpy(seed_bytes[nr_seeds] + 1, msg, len);
	seeds[nr_seeds] = (struct fuzz_seed){seed_bytes[nr_seeds], len + 1};
	nr_seeds++;
}

static struct tc_kernel_msg
seed_header(uint32_t type, size_t size, uint64_t session_id, uint32_t value)
{
	return (struct tc_kernel_msg){.magic = TC_KERNEL_MAGIC,
				      .type = type,
				      .size = (uint32_t)size,
				      .seq = 7,
				      .session_id = session_id,
				      .value = value};
}

static void
add_fixed(uint32_t type, uint64_t session_id, uint32_t value)
{
	struct tc_kernel_msg msg = seed_header(type, sizeof(msg), session_id, value);

	add_seed(&msg, sizeof(msg));
}

static void
add_event(uint32_t type, const char *system, const char *event)
{
	struct tc_kernel_event_msg msg = {.header =
					      seed_header(type, sizeof(msg), 1ull << 32 | 3, 0)};

	strcpy(msg.system, system);
	strcpy(msg.event, event);
	add_seed(&msg, sizeof(msg));
}

static void
add_filter(const char *system, const char *event, const char *filter)
{
	struct tc_kernel_filter_msg msg = {
	    .header = seed_header(TC_KERNEL_EVENT_FILTER, sizeof(msg), 1ull << 32 | 4, 0)};

	strcpy(msg.system, system);
	strcpy(msg.event, event);
	strcpy(msg.filter, filter);
	add_seed(&msg, sizeof(msg));
}

static void
add_probe(uint32_t kind, uint32_t flags, const char *name, const char *location)
{
	struct tc_kernel_probe_msg msg = {
	    .header = seed_header(TC_KERNEL_PROBE_ADD, sizeof(msg), 1ull << 32 | 5, 0),
	    .kind = kind,
	    .uid = 1000,
	    .gid = 1000,
	    .flags = flags};

	strcpy(msg.name, name);
	strcpy(msg.location, location);
	add_seed(&msg, sizeof(msg));
}

/* The large messages: their header and first values, the frame pads them. */
static void
add_large(void)
{
	static struct tc_kernel_prune_msg prune;
	static struct tc_kernel_pids_msg pids;
	static struct tc_kernel_track_msg track;
	static struct tc_kernel_own_unit_msg unit;
	struct tc_kernel_own_msg own = {
	    .header = seed_header(TC_KERNEL_OWN_START, sizeof(own), 1ull << 32 | 9, 0),
	    .uid = 1000,
	    .events = 1,
	    .quiet_tgid = 4242,
	    .gid = 1000};

	prune.header = seed_header(TC_KERNEL_PRUNE, sizeof(prune), 0, 0);
	prune.scope = 1;
	prune.count = 2;
	prune.keep[0] = 1ull << 32 | 3;
	prune.keep[1] = 1ull << 32 | 4;
	add_seed(&prune, offsetof(struct tc_kernel_prune_msg, keep) + 2 * sizeof(uint64_t));
	pids.header = seed_header(TC_KERNEL_PIDS, sizeof(pids), 1ull << 32 | 6, 0);
	pids.count = 3;
	pids.pids[0] = 1;
	pids.pids[1] = 4242;
	pids.pids[2] = INT32_MAX;
	add_seed(&pids, offsetof(struct tc_kernel_pids_msg, pids) + 3 * sizeof(int32_t));
	pids.count = 0;
	pids.flags = TC_KERNEL_PIDS_ALL;
	add_seed(&pids, offsetof(struct tc_kernel_pids_msg, pids));
	track.header = seed_header(TC_KERNEL_TRACK, sizeof(track), 1ull << 32 | 7, 0);
	track.all = 1u << TC_KERNEL_TRACK_VPID | 1u << TC_KERNEL_TRACK_VUID |
		    1u << TC_KERNEL_TRACK_GID | 1u << TC_KERNEL_TRACK_VGID;
	track.counts[TC_KERNEL_TRACK_PID] = 1;
	track.counts[TC_KERNEL_TRACK_UID] = 2;
	track.values[0] = 4242;
	track.values[1] = 1000;
	track.values[2] = 0;
	add_seed(&track, offsetof(struct tc_kernel_track_msg, values) + 3 * sizeof(uint32_t));
	add_seed(&own, sizeof(own));
	/* getppid (110 on x86-64) and read (0), by name. */
	own.events = TC_KERNEL_OWN_SYSCALL_ENTRY | TC_KERNEL_OWN_SYSCALL_EXIT;
	own.syscall_entry[110 / 64] = 1ull << (110 % 64);
	own.syscall_exit[0] = 1 | 1ull << (110 % 64);
	add_seed(&own, sizeof(own));
	/* A class without its system calls, refused. */
	own.syscall_exit[0] = 0;
	add_seed(&own, sizeof(own));
	unit.header = seed_header(TC_KERNEL_OWN_UNIT_START, sizeof(unit), 1ull << 32 | 10, 0);
	unit.events = 1;
	strcpy(unit.cgroup, "/system.slice/x.service");
	add_seed(&unit, offsetof(struct tc_kernel_own_unit_msg, cgroup) + 24);
	unit.events = TC_KERNEL_OWN_SYSCALL_ENTRY;
	unit.syscall_entry[7] = 1ull << 63;
	add_seed(&unit, sizeof(unit));
}

__attribute__((constructor)) static void
make_seeds(void)
{
	char glob[TC_KERNEL_NAME_MAX] = "", name[TC_KERNEL_PROBE_NAME_MAX + 1] = "",
	     location[TC_KERNEL_LOCATION_MAX] = "";

	add_fixed(TC_KERNEL_PING, 0, 0);
	add_fixed(TC_KERNEL_INSTANCE_CREATE, 1ull << 32 | 3, 0);
	add_fixed(TC_KERNEL_INSTANCE_CREATE, UINT64_MAX, TC_KERNEL_CLOCK_TSC | 4096);
	add_fixed(TC_KERNEL_INSTANCE_REMOVE, 1ull << 32 | 3, 0);
	add_fixed(TC_KERNEL_START, 1ull << 32 | 3, 0);
	add_fixed(TC_KERNEL_STOP, 1ull << 32 | 3, 0);
	add_fixed(TC_KERNEL_TGIDS, 1ull << 32 | 3, 0);
	add_fixed(TC_KERNEL_LIST, 0, 1);
	add_fixed(TC_KERNEL_OWN_REMOVE, 1ull << 32 | 9, 0);
	add_event(TC_KERNEL_EVENT_ENABLE, "sched", "sched_switch");
	add_event(TC_KERNEL_EVENT_DISABLE, "*", "*");
	add_event(TC_KERNEL_FORMATS_GET, "syscalls", "sys_enter_*");
	add_filter("sched", "sched_switch", "prev_pid == 42 && next_comm ~ \"bash*\"");
	add_filter("*", "*", "0");
	add_probe(TC_KERNEL_PROBE_KPROBE, 0, "do_open", "do_sys_openat2+0x10");
	add_probe(TC_KERNEL_PROBE_KRETPROBE, TC_KERNEL_PROBE_DISABLED, "_ret", "vfs_read.cold");
	add_probe(TC_KERNEL_PROBE_KPROBE, 0, "at", "0xffffffff81000000");
	add_probe(TC_KERNEL_PROBE_UPROBE, 0, "malloc_entry",
		  "/usr/lib/x86_64-linux-gnu/libc.so.6:malloc");
	add_probe(TC_KERNEL_PROBE_UPROBE, TC_KERNEL_PROBE_DISABLED, "cxx",
		  "/opt/app-1.0/bin/app:_ZN3foo3barEv@@V1");
	add_probe(TC_KERNEL_PROBE_UPROBE, 0, "sdt", "sdt:/usr/bin/app:example:all_types");
	add_large();
	/* The longest names and locations. */
	memset(glob, 'a', sizeof(glob) - 1);
	glob[sizeof(glob) - 2] = '*';
	add_event(TC_KERNEL_EVENT_ENABLE, glob, glob + 64);
	memset(name, 'n', sizeof(name) - 1);
	memset(location, 'l', sizeof(location) - 1);
	location[sizeof(location) - 3] = '+';
	add_probe(TC_KERNEL_PROBE_KRETPROBE, 0, name, location);
	if (nr_seeds != SEEDS_MAX)
		abort();
}

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = SEEDS_MAX,
    .input_max = 2048,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
