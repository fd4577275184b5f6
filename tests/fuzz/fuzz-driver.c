/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The standalone driver of the fuzz harnesses (see fuzz-driver.h). */
#include "fuzz-driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COVERAGE_MIN_RUNS 1000u

static uint64_t
next_random(uint64_t *state)
{
	/* splitmix64: small, and the same sequence everywhere. */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A seed with a few bytes changed, inserted or cut. */
static size_t
mutate_seed(uint8_t *out, size_t max, uint64_t *state)
{
	const struct fuzz_seed *seed = &fuzz_harness.seeds[next_random(state) % fuzz_harness.nr_seeds];
	size_t size = seed->size < max ? seed->size : max;
	unsigned int edits = 1 + next_random(state) % 16;

	memcpy(out, seed->data, size);
	for (unsigned int i = 0; i < edits; i++) {
		size_t at = next_random(state) % (size + 1);
		uint8_t value = (uint8_t)next_random(state);

		switch (next_random(state) % 4) {
		case 0: /* insert */
			if (size < max) {
				memmove(out + at + 1, out + at, size - at);
				out[at] = value;
				size++;
			}
			break;
		case 1: /* cut */
			if (at < size) {
				memmove(out + at, out + at + 1, size - at - 1);
				size--;
			}
			break;
		default: /* change */
			if (at < size)
				out[at] = value;
			break;
		}
	}
	return size;
}

static size_t
random_bytes(uint8_t *out, size_t max, uint64_t *state)
{
	size_t size = next_random(state) % (max + 1);

	for (size_t i = 0; i < size; i++)
		out[i] = (uint8_t)next_random(state);
	return size;
}

static int
replay_file(const char *path)
{
	static uint8_t data[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t size;

	if (!f) {
		perror(path);
		return 1;
	}
	size = fread(data, 1, sizeof(data), f);
	fclose(f);
	return LLVMFuzzerTestOneInput(data, size);
}

/* Writes each seed into dir as seed-N: the corpus a coverage-guided
 * fuzzer starts from (tests/fuzz/corpus/<target>/). */
static int
write_seeds(const char *dir)
{
	for (size_t i = 0; i < fuzz_harness.nr_seeds; i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-%zu", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(fuzz_harness.seeds[i].data, 1, fuzz_harness.seeds[i].size, f) !=
			      fuzz_harness.seeds[i].size) {
			perror(path);
			if (f)
				fclose(f);
			return 1;
		}
		fclose(f);
	}
	printf("%zu seeds written into %s\n", fuzz_harness.nr_seeds, dir);
	return 0;
}

static int
report_outcomes(unsigned long long runs)
{
	const struct fuzz_harness *h = &fuzz_harness;
	int status = 0;

	for (unsigned int i = 0; i < h->nr_outcomes; i++)
		printf("%s %s %llu", i ? "," : "", h->outcome_names[i], h->outcomes[i]);
	printf("\n");
	for (unsigned int i = 0; i < h->nr_outcomes; i++) {
		if (runs >= COVERAGE_MIN_RUNS && h->outcomes[i] == 0) {
			fprintf(stderr, "no input reached '%s': the seeds or the harness are broken\n",
				h->outcome_names[i]);
			status = 1;
		}
	}
	return status;
}

int
main(int argc, char **argv)
{
	uint64_t seed = 1, runs = 10000, state;
	uint8_t *input = malloc(fuzz_harness.input_max);
	int first_file = 1, status;

	if (!input)
		return 1;
	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) {
		free(input);
		return write_seeds(argv[2]);
	}
	for (; first_file + 1 < argc; first_file += 2) {
		if (strcmp(argv[first_file], "--seed") == 0)
			seed = strtoull(argv[first_file + 1], NULL, 0);
		else if (strcmp(argv[first_file], "--runs") == 0)
			runs = strtoull(argv[first_file + 1], NULL, 0);
		else
			break;
	}
	if (first_file < argc) {
		for (int i = first_file; i < argc; i++)
			if (replay_file(argv[i]) != 0)
				return 1;
		printf("%d input files read without an error\n", argc - first_file);
		free(input);
		return fuzz_harness.finish ? fuzz_harness.finish() : 0;
	}
	state = seed;
	for (uint64_t run = 0; run < runs; run++) {
		size_t size = fuzz_harness.seeds
				      ? mutate_seed(input, fuzz_harness.input_max, &state)
				      : random_bytes(input, fuzz_harness.input_max, &state);

		LLVMFuzzerTestOneInput(input, size);
	}
	free(input);
	status = fuzz_harness.finish ? fuzz_harness.finish() : 0;
	printf("%llu inputs from seed %llu read without an error:", (unsigned long long)runs,
	       (unsigned long long)seed);
	return report_outcomes(runs) || status;
}
