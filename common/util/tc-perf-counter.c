/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-thread performance counters' names, types and configs. */
#include "tc-perf-counter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* <linux/perf_event.h>'s types and the hardware cache config's parts
 * (cache | operation << 8 | result << 16). */
enum { HARDWARE = 0, SOFTWARE = 1, HW_CACHE = 3 };
enum { L1D = 0, L1I = 1, LL = 2, DTLB = 3, ITLB = 4, BPU = 5 };
enum { READ = 0, WRITE = 1, PREFETCH = 2 };
enum { ACCESS = 0, MISS = 1 };
#define CACHE(cache, op, result)                                                                   \
	((uint64_t)(cache) | (uint64_t)(op) << 8 | (uint64_t)(result) << 16)

#define RAW_NAME_MAX 64u
#define RAW_HEX_MAX 16u

/* lttng-tools 2.13's perf:thread: names (src/bin/lttng/commands/
 * add_context.cpp), in its order: aliases have their own field names. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} known[] = {
    {"cpu-cycles", HARDWARE, 0},
    {"cycles", HARDWARE, 0},
    {"stalled-cycles-frontend", HARDWARE, 7},
    {"idle-cycles-frontend", HARDWARE, 7},
    {"stalled-cycles-backend", HARDWARE, 8},
    {"idle-cycles-backend", HARDWARE, 8},
    {"instructions", HARDWARE, 1},
    {"cache-references", HARDWARE, 2},
    {"cache-misses", HARDWARE, 3},
    {"branch-instructions", HARDWARE, 4},
    {"branches", HARDWARE, 4},
    {"branch-misses", HARDWARE, 5},
    {"bus-cycles", HARDWARE, 6},
    {"L1-dcache-loads", HW_CACHE, CACHE(L1D, READ, ACCESS)},
    {"L1-dcache-load-misses", HW_CACHE, CACHE(L1D, READ, MISS)},
    {"L1-dcache-stores", HW_CACHE, CACHE(L1D, WRITE, ACCESS)},
    {"L1-dcache-store-misses", HW_CACHE, CACHE(L1D, WRITE, MISS)},
    {"L1-dcache-prefetches", HW_CACHE, CACHE(L1D, PREFETCH, ACCESS)},
    {"L1-dcache-prefetch-misses", HW_CACHE, CACHE(L1D, PREFETCH, MISS)},
    {"L1-icache-loads", HW_CACHE, CACHE(L1I, READ, ACCESS)},
    {"L1-icache-load-misses", HW_CACHE, CACHE(L1I, READ, MISS)},
    {"L1-icache-stores", HW_CACHE, CACHE(L1I, WRITE, ACCESS)},
    {"L1-icache-store-misses", HW_CACHE, CACHE(L1I, WRITE, MISS)},
    {"L1-icache-prefetches", HW_CACHE, CACHE(L1I, PREFETCH, ACCESS)},
    {"L1-icache-prefetch-misses", HW_CACHE, CACHE(L1I, PREFETCH, MISS)},
    {"LLC-loads", HW_CACHE, CACHE(LL, READ, ACCESS)},
    {"LLC-load-misses", HW_CACHE, CACHE(LL, READ, MISS)},
    {"LLC-stores", HW_CACHE, CACHE(LL, WRITE, ACCESS)},
    {"LLC-store-misses", HW_CACHE, CACHE(LL, WRITE, MISS)},
    {"LLC-prefetches", HW_CACHE, CACHE(LL, PREFETCH, ACCESS)},
    {"LLC-prefetch-misses", HW_CACHE, CACHE(LL, PREFETCH, MISS)},
    {"dTLB-loads", HW_CACHE, CACHE(DTLB, READ, ACCESS)},
    {"dTLB-load-misses", HW_CACHE, CACHE(DTLB, READ, MISS)},
    {"dTLB-stores", HW_CACHE, CACHE(DTLB, WRITE, ACCESS)},
    {"dTLB-store-misses", HW_CACHE, CACHE(DTLB, WRITE, MISS)},
    {"dTLB-prefetches", HW_CACHE, CACHE(DTLB, PREFETCH, ACCESS)},
    {"dTLB-prefetch-misses", HW_CACHE, CACHE(DTLB, PREFETCH, MISS)},
    {"iTLB-loads", HW_CACHE, CACHE(ITLB, READ, ACCESS)},
    {"iTLB-load-misses", HW_CACHE, CACHE(ITLB, READ, MISS)},
    {"branch-loads", HW_CACHE, CACHE(BPU, READ, ACCESS)},
    {"branch-load-misses", HW_CACHE, CACHE(BPU, READ, MISS)},
    {"cpu-clock", SOFTWARE, 0},
    {"task-clock", SOFTWARE, 1},
    {"page-fault", SOFTWARE, 2},
    {"faults", SOFTWARE, 2},
    {"major-faults", SOFTWARE, 6},
    {"minor-faults", SOFTWARE, 5},
    {"context-switches", SOFTWARE, 3},
    {"cs", SOFTWARE, 3},
    {"cpu-migrations", SOFTWARE, 4},
    {"migrations", SOFTWARE, 4},
    {"alignment-faults", SOFTWARE, 7},
    {"emulation-faults", SOFTWARE, 8},
};

/* spec's field name: ':' and '-' become '_'. spec fits. */
static void
field_name(const char *spec, char *name)
{
	size_t i;

	for (i = 0; spec[i]; i++)
		name[i] = spec[i] == ':' || spec[i] == '-' ? '_' : spec[i];
	name[i] = '\0';
}

static int
is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int
is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "rHEX:NAME", the rest of a raw spelling, into *config; 0 or -EINVAL. */
static int
parse_raw(const char *rest, uint64_t *config)
{
	const char *colon = strchr(rest, ':');
	size_t hex_len, name_len;

	if (rest[0] != 'r' || colon == NULL)
		return -EINVAL;
	hex_len = (size_t)(colon - rest - 1);
	name_len = strlen(colon + 1);
	if (hex_len == 0 || hex_len > RAW_HEX_MAX || name_len == 0 || name_len > RAW_NAME_MAX)
		return -EINVAL;
	for (size_t i = 1; i <= hex_len; i++)
		if (!is_hex_digit(rest[i]))
			return -EINVAL;
	for (size_t i = 0; i < name_len; i++)
		if (!is_name_char(colon[1 + i]))
			return -EINVAL;
	*config = strtoull(rest + 1, NULL, 16);
	return 0;
}

int
tc_perf_counter_parse(const char *spec, struct tc_perf_counter *counter)
{
	const size_t prefix_len = strlen(TC_PERF_COUNTER_PREFIX);
	const size_t raw_len = strlen(TC_PERF_COUNTER_RAW_PREFIX);
	int ret;

	memset(counter, 0, sizeof(*counter));
	if (strncmp(spec, TC_PERF_COUNTER_PREFIX, prefix_len) != 0)
		return -ENOENT;
	if (strlen(spec) >= TC_PERF_COUNTER_NAME_MAX)
		return -ENAMETOOLONG;
	if (strncmp(spec, TC_PERF_COUNTER_RAW_PREFIX, raw_len) == 0) {
		ret = parse_raw(spec + raw_len, &counter->config);
		if (ret < 0)
			return ret;
		counter->type = TC_PERF_COUNTER_TYPE_RAW;
		field_name(spec, counter->name);
		return 0;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(spec + prefix_len, known[i].name) == 0) {
			counter->type = known[i].type;
			counter->config = known[i].config;
			field_name(spec, counter->name);
			return 0;
		}
	}
	return -ENOENT;
}

int
tc_perf_counter_spell(const struct tc_perf_counter *counter, char *buf, size_t size)
{
	struct tc_perf_counter parsed;
	char spelling[TC_PERF_COUNTER_NAME_MAX];
	const char *raw_name = "perf_thread_raw_r";
	const char *underscore;
	int len;

	if (memchr(counter->name, '\0', sizeof(counter->name)) == NULL)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		len = snprintf(spelling, sizeof(spelling), "%s%s", TC_PERF_COUNTER_PREFIX,
			       known[i].name);
		if (len < 0 || (size_t)len >= sizeof(spelling) ||
		    tc_perf_counter_parse(spelling, &parsed) < 0)
			continue;
		if (parsed.type == counter->type && parsed.config == counter->config &&
		    strcmp(parsed.name, counter->name) == 0)
			goto found;
	}
	/* perf_thread_raw_rHEX_NAME: the NAME's '-' came out as '_', and
	 * spelling it with '_' gives the same field. */
	if (counter->type != TC_PERF_COUNTER_TYPE_RAW ||
	    strncmp(counter->name, raw_name, strlen(raw_name)) != 0)
		return -ENOENT;
	underscore = strchr(counter->name + strlen(raw_name), '_');
	if (underscore == NULL)
		return -ENOENT;
	len = snprintf(spelling, sizeof(spelling), "%s%.*s:%s", TC_PERF_COUNTER_RAW_PREFIX,
		       (int)(underscore - counter->name - strlen(raw_name) + 1),
		       counter->name + strlen(raw_name) - 1, underscore + 1);
	if (len < 0 || (size_t)len >= sizeof(spelling) ||
	    tc_perf_counter_parse(spelling, &parsed) < 0 || parsed.config != counter->config ||
	    strcmp(parsed.name, counter->name) != 0)
		return -ENOENT;
found:
	if (strlen(spelling) >= size)
		return -ENOSPC;
	memcpy(buf, spelling, strlen(spelling) + 1);
	return 0;
}

const char *
tc_perf_counter_known_name(unsigned int i)
{
	return i < sizeof(known) / sizeof(known[0]) ? known[i].name : NULL;
}
