/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the consumer's writing of the own-process tier's system call
 * records (tc_consumerd_kernel_own_syscall_put(), service/consumerd/
 * tc-consumerd-kernel-own-syscall.c): the bytes a record copied are the
 * traced task's memory (a path, a socket address, the integers a call
 * wrote back), which the task's owner chooses, and their length is the
 * program's. The input is: a byte picking the call (of the table of
 * decoded calls, common/util/tc-syscall-args.c, or another), a byte
 * picking entry or exit, a record's header (tc_own_record), a 32-bit
 * data length, then the data.
 *
 * What must hold, beside no error under the sanitizers: the call's
 * metadata declares; the payload written stays within
 * TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX (a guard after it stays intact);
 * a string field ends at a NUL within what was written; the same record
 * writes the same bytes twice.
 *
 * Built with libFuzzer, from the top of the source tree (Debian's clang;
 * the syscall table header is the build tree's):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined -Itests/fuzz -Icommon/abi \
 *     -Icommon/util -Ibuild/common -Iservice/consumerd \
 *     tests/fuzz/fuzz-own-syscall.c \
 *     service/consumerd/tc-consumerd-kernel-own-syscall.c \
 *     common/util/tc-syscall-args.c common/util/tc-syscall-name.c -o fuzz-own-syscall
 *   ./fuzz-own-syscall -max_len=512 tests/fuzz/corpus/fuzz-own-syscall
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds built below:
 * `fuzz-own-syscall --seed N --runs M`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-consumerd-kernel-own-syscall.h"
#include "tc-syscall-args.h"
#include "tc-syscall-name.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define GUARD 64u

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-own-syscall: " __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	DECODED_ENTRY,
	DECODED_EXIT,
	REGISTERS,
	COPIED,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "decoded entry", "decoded exit", "registers only", "data copied"};
static unsigned long long outcomes[OUTCOMES];

/* The calls picked by the input's first byte: the decoded ones first. */
static const char *const picks[] = {"openat", "read", "write", "pipe2", "connect", "accept",
				    "accept4", "socketpair", "newfstatat", "execve",
				    "landlock_add_rule"};

static void
write_payload(uint8_t *out, const struct tc_syscall_args_layout *layout, bool is_exit,
	      const struct tc_own_record *head, const uint8_t *data, uint32_t data_len,
	      size_t *written)
{
	uint8_t *end;

	memset(out, 0xa5, TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX + GUARD);
	end = tc_consumerd_kernel_own_syscall_put(out, layout, is_exit, head, data, data_len);
	if (end < out || (size_t)(end - out) > TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX)
		FAIL("payload of %td bytes", end - out);
	for (size_t i = TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX;
	     i < TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX + GUARD; i++)
		if (out[i] != 0xa5)
			FAIL("the guard after the payload was written at %zu", i);
	*written = (size_t)(end - out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	const char *name = picks[fuzz_take_byte(&in) % ARRAY_LEN(picks)];
	bool is_exit = fuzz_take_byte(&in) & 1;
	struct tc_syscall_args_layout layout, *used = NULL;
	static uint8_t first[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX + GUARD];
	static uint8_t second[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX + GUARD];
	struct tc_own_record head;
	uint32_t data_len;
	size_t written, again;
	char text[2048];

	for (size_t i = 0; i < sizeof(head); i++)
		((uint8_t *)&head)[i] = fuzz_take_byte(&in);
	data_len = fuzz_take_u32(&in);
	if (data_len > size - in.pos)
		data_len = (uint32_t)(size - in.pos);
	if (tc_syscall_args_layout(name, is_exit, &layout))
		used = &layout;
	outcomes[used ? (is_exit ? DECODED_EXIT : DECODED_ENTRY) : REGISTERS]++;
	if (used && used->copy >= 0 && data_len > 0 && data_len <= TC_OWN_SYSCALL_DATA_MAX)
		outcomes[COPIED]++;
	if (tc_consumerd_kernel_own_syscall_declare(text, sizeof(text), name, is_exit, 1000,
						    used) <= 0)
		FAIL("%s's metadata did not declare", name);
	write_payload(first, used, is_exit, &head, data + in.pos, data_len, &written);
	write_payload(second, used, is_exit, &head, data + in.pos, data_len, &again);
	if (written != again || memcmp(first, second, written) != 0)
		FAIL("the same record wrote different payloads");
	if (used && used->copy >= 0 && used->fields[used->copy].kind == TC_SYSCALL_ARGS_STRING &&
	    !memchr(first, '\0', written))
		FAIL("a string field without its NUL");
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Seeds: openat's path, connect's IPv4 and IPv6 addresses, pipe2's and
 * accept's exits, read's exit, and a call not decoded (landlock_add_rule:
 * lttng-modules' table came before it). */
struct seed {
	uint8_t pick, is_exit;
	struct tc_own_record head;
	uint32_t data_len;
	uint8_t data[32];
} __attribute__((packed));

static struct seed seed_records[] = {
    {0, 0, {.args = {(uint32_t)-100, 0x1000, 0, 0}}, 12, "/etc/passwd"},
    {4, 0, {.args = {3, 0x2000, 16}}, 16, {2, 0, 0x10, 0x92, 127, 0, 0, 1}},
    {4, 0, {.args = {3, 0x2000, 28}}, 28, {10, 0, 0, 80, [23] = 1}},
    {3, 1, {.value = 0}, 8, {5, 0, 0, 0, 6, 0, 0, 0}},
    {5, 1, {.value = 4}, 20, {16, 0, 0, 0, 2, 0, 0x13, 0x88, 10, 0, 0, 1}},
    {1, 1, {.value = 100, .args = {3, 0x3000, 4096}}, 0, {0}},
    {10, 0, {.args = {1, 2, 3, 4, 5, 6}}, 0, {0}},
};
static struct fuzz_seed seeds[ARRAY_LEN(seed_records)];

__attribute__((constructor)) static void
make_seeds(void)
{
	for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
		seeds[i] = (struct fuzz_seed){(const uint8_t *)&seed_records[i],
					      sizeof(seed_records[i])};
}

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 512,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
