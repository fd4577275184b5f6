/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the W3C Trace Context text an instrumented application reads
 * from its peers (tc-span-w3c.c): the traceparent and tracestate headers
 * of a request that came over the network, parsed inside the traced
 * process by tracectl_span_extract(). Built with AddressSanitizer and
 * UBSan.
 *
 * Input: byte 0 picks the header (even: traceparent, odd: tracestate),
 * byte 1 the size of the tracestate buffer (1 to 256), the rest is the
 * text, up to its first NUL. What must hold, beside no error under the
 * sanitizers:
 * - a traceparent taken has the ids of its text, read as the
 *   recommendation's lower-case hex, none of them all zeros, and what
 *   tc_span_traceparent_format() writes of it is taken again with the
 *   same ids;
 * - a tracestate taken is written within the buffer, NUL-terminated,
 *   as members of the text (no empty one, no white space around them),
 *   at most 32 of them, and normalising it again changes nothing; a
 *   refusal leaves the buffer empty.
 *
 * Built with libFuzzer, from the top of the source tree (Debian's clang):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Iprobes/lib tests/fuzz/fuzz-trace-context.c \
 *     probes/lib/tc-span-w3c.c -o fuzz-trace-context
 *   ./fuzz-trace-context -max_len=1024 tests/fuzz/corpus/fuzz-trace-context
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-trace-context --seed N --runs M`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem() */
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-span-w3c.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TEXT_MAX 2048u
#define STATE_MAX 256u
#define MEMBERS_MAX 32u

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-trace-context: " __VA_ARGS__);                               \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	PARENT_TAKEN,
	PARENT_REFUSED,
	STATE_TAKEN,
	STATE_CUT,
	STATE_REFUSED,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "traceparent taken", "traceparent refused", "tracestate taken",
    "tracestate cut",	 "tracestate refused",
};
static unsigned long long outcomes[OUTCOMES];

static bool
is_lower_hex(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
			return false;
	return true;
}

static void
check_traceparent(const char *text)
{
	struct tc_span_traceparent parsed, again;
	char formatted[56];
	const char *start = text;

	if (tc_span_traceparent_parse(text, &parsed) < 0) {
		outcomes[PARENT_REFUSED]++;
		return;
	}
	outcomes[PARENT_TAKEN]++;
	while (*start == ' ' || *start == '\t')
		start++;
	tc_span_traceparent_format(&parsed, formatted);
	/* The ids are the text's, digit for digit. */
	if (strlen(start) < 55 || !is_lower_hex(start, 2) || !is_lower_hex(start + 3, 32) ||
	    !is_lower_hex(start + 36, 16) || memcmp(start + 3, formatted + 3, 32) != 0 ||
	    memcmp(start + 36, formatted + 36, 16) != 0)
		FAIL("traceparent '%s' taken as '%s'", text, formatted);
	if ((parsed.trace_id_hi | parsed.trace_id_lo) == 0 || parsed.parent_id == 0 ||
	    parsed.flags > 1)
		FAIL("traceparent '%s' taken with a zero id or flags %u", text, parsed.flags);
	if (tc_span_traceparent_parse(formatted, &again) < 0 ||
	    again.trace_id_hi != parsed.trace_id_hi || again.trace_id_lo != parsed.trace_id_lo ||
	    again.parent_id != parsed.parent_id || again.flags != parsed.flags)
		FAIL("traceparent '%s' as written ('%s') is not taken back", text, formatted);
}

/* Each member of out (size bytes) is one of text's, without white space. */
static void
check_members(const char *text, const char *out)
{
	unsigned int n = 0;

	for (const char *p = out; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0 || p[0] == ' ' || p[0] == '\t' || p[len - 1] == ' ' ||
		    p[len - 1] == '\t' || memchr(p, '=', len) == NULL)
			FAIL("tracestate '%s' gave an empty or padded member in '%s'", text, out);
		if (!memmem(text, strlen(text), p, len))
			FAIL("tracestate '%s' gave a member that is not its own in '%s'", text,
			     out);
		if (++n > MEMBERS_MAX)
			FAIL("tracestate '%s' gave more than %u members", text, MEMBERS_MAX);
		p += len + (comma != NULL);
	}
}

static void
check_tracestate(const char *text, size_t size)
{
	char out[STATE_MAX + 1], again[STATE_MAX + 1];

	memset(out, 0x7f, sizeof(out));
	if (tc_span_tracestate_normalize(text, out, size) < 0) {
		if (out[0] != '\0')
			FAIL("tracestate '%s' refused but written", text);
		outcomes[STATE_REFUSED]++;
		return;
	}
	if (out[size] != 0x7f || memchr(out, '\0', size) == NULL)
		FAIL("tracestate '%s' written past %zu bytes or without its end", text, size);
	check_members(text, out);
	if (tc_span_tracestate_normalize(out, again, size) < 0 || strcmp(out, again) != 0)
		FAIL("tracestate '%s' normalised as '%s', then as '%s'", text, out, again);
	outcomes[STATE_TAKEN]++;
	outcomes[STATE_CUT] += strlen(out) + 1 < strlen(text) && size < strlen(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The headers arrive as C strings: what follows a NUL is not theirs. */
	static char text[TEXT_MAX + 1];
	size_t len = size > 2 ? size - 2 : 0;

	if (size < 2)
		return 0;
	if (len > TEXT_MAX)
		len = TEXT_MAX;
	memcpy(text, data + 2, len);
	text[len] = '\0';
	if (data[0] % 2 == 0)
		check_traceparent(text);
	else
		check_tracestate(text, 1 + data[1] % STATE_MAX);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#define SEED(kind, size, text)                                                                     \
	{                                                                                          \
		(const uint8_t *)kind size text, sizeof(kind size text) - 1                        \
	}
/* The recommendation's examples and their neighbours. */
static const struct fuzz_seed seeds[] = {
    SEED("\x00", "\xff", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    SEED("\x00", "\xff", " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\t"),
    SEED("\x00", "\xff", "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what-next"),
    SEED("\x00", "\xff", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
    SEED("\x00", "\xff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    SEED("\x01", "\xff", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"),
    SEED("\x01", "\x20", "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE ,, tenant@vendor=x y"),
    SEED("\x01", "\xff",
	 "a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11,l=12,m=13,n=14,"
	 "o=15,p=16,q=17,r=18,s=19,t=20,u=21,v=22,w=23,x=24,y=25,z=26,"
	 "aa=27,ab=28,ac=29,ad=30,ae=31,af=32"),
    SEED("\x01", "\xff", "a=1,a=2"),
    SEED("\x01", "\x05", "k=v,0@x=y,a*/_-=!~"),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 1024,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
