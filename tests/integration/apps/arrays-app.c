/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The arrays application: arrays-app COUNT [--pause] records, for i from 0
 * to COUNT - 1, one arrays:ints, arrays:seqs (of length i, the first one
 * empty), arrays:reals and arrays:text event, with the values
 * test-field-arrays.py derives from i; then arrays:bound twice, asked for
 * 70000 bytes (k % 251 at k), recorded capped at 65536 (in a channel of
 * 128 KiB sub-buffers, the second one starts a packet, so that the next
 * record's loss is counted against the packet before), arrays:wide with
 * 65536 values (a 512 KiB record), and arrays:bound again with 1 byte. With
 * --pause it prints "ready" and waits for SIGUSR1 first, so that it can be
 * listed.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app-pause.h"

#include "arrays-tp.h"

#define SEQUENCE_MAX 16u
#define BOUND_ASKED 70000u
#define WIDE_LENGTH 65536u

static void
record(uint32_t i)
{
	uint32_t words[16], net[2], seq_words[SEQUENCE_MAX];
	int8_t small[3] = {(int8_t)(-1 - (int)i), 0, 127};
	int64_t wide[2] = {INT64_MIN + i, INT64_MAX - i};
	uint16_t hex[2] = {(uint16_t)(0xbeef + i), 0xcafe};
	int16_t shorts[SEQUENCE_MAX];
	uint64_t seq_wide[SEQUENCE_MAX];
	double doubles[SEQUENCE_MAX];
	float floats[SEQUENCE_MAX];
	char fixed[8] = {0}, varying[SEQUENCE_MAX + 1] = "abcdefghijklmnop";
	uint32_t n = i < SEQUENCE_MAX ? i : SEQUENCE_MAX;

	for (uint32_t k = 0; k < 16; k++)
		words[k] = i * 16 + k;
	net[0] = htonl(0x01020304u + i);
	net[1] = htonl(0xa0b0c0d0u);
	for (uint32_t k = 0; k < SEQUENCE_MAX; k++) {
		seq_words[k] = 1000 * i + k;
		shorts[k] = (int16_t)(-(int)k * 100);
		seq_wide[k] = UINT64_MAX - k;
		doubles[k] = k + 0.5 + i;
		floats[k] = (float)k * 0.25f - (float)i;
	}
	snprintf(fixed, sizeof(fixed), "t%u", i);
	tracectl_tracepoint(arrays, ints, i, words, small, wide, hex, net);
	tracectl_tracepoint(arrays, seqs, n, seq_words, shorts, seq_wide);
	tracectl_tracepoint(arrays, reals, n, doubles, floats);
	tracectl_tracepoint(arrays, text, n, fixed, varying);
}

int
main(int argc, char **argv)
{
	unsigned int count = argc > 1 ? (unsigned int)atoi(argv[1]) : 1;
	uint8_t *bytes = malloc(BOUND_ASKED);
	uint64_t *values = malloc(WIDE_LENGTH * sizeof(*values));

	if (!bytes || !values)
		return 1;
	for (uint32_t k = 0; k < BOUND_ASKED; k++)
		bytes[k] = (uint8_t)(k % 251);
	for (uint32_t k = 0; k < WIDE_LENGTH; k++)
		values[k] = k;
	if (argc > 2 && strcmp(argv[2], "--pause") == 0)
		app_pause_until_usr1();
	for (uint32_t i = 0; i < count; i++)
		record(i);
	tracectl_tracepoint(arrays, bound, BOUND_ASKED, bytes);
	tracectl_tracepoint(arrays, bound, BOUND_ASKED, bytes);
	tracectl_tracepoint(arrays, wide, WIDE_LENGTH, values);
	tracectl_tracepoint(arrays, bound, 1, bytes);
	free(bytes);
	free(values);
	return 0;
}
