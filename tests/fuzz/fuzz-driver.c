/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The standalone driver of the fuzz harnesses (see fuzz-driver.h). */
#include "fuzz-driver.h"

#include <dirent.h>
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

/* The harness's seeds, or those of a corpus directory (--seeds). */
static const struct fuzz_seed *seeds;
static size_t nr_seeds;

/* A seed with a few bytes changed, inserted or cut. */
static size_t
mutate_seed(uint8_t *out, size_t max, uint64_t *state)
{
	const struct fuzz_seed *seed = &seeds[next_random(state) % nr_seeds];
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

/* The whole file at path, at most max bytes, in a buffer of its size (so
 * that AddressSanitizer sees a read past its end); NULL on failure. */
static uint8_t *
read_file(const char *path, size_t max, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = malloc(max ? max : 1);

	if (!f || !data) {
		perror(path);
		if (f)
			fclose(f);
		free(data);
		return NULL;
	}
	*size = fread(data, 1, max, f);
	fclose(f);
	return data;
}

static int
replay_file(const char *path)
{
	size_t size;
	uint8_t *data = read_file(path, 1 << 20, &size);
	uint8_t *exact;
	int status;

	if (!data)
		return 1;
	exact = malloc(size ? size : 1);
	if (!exact) {
		free(data);
		return 1;
	}
	memcpy(exact, data, size);
	free(data);
	status = LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	return status;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of directory, in name order, as the seeds (kept to the end
 * of the run); non-zero when there is none. */
static int
load_seeds(const char *directory)
{
	DIR *dir = opendir(directory);
	struct dirent *entry;
	char **names = NULL;
	size_t nr_names = 0;
	struct fuzz_seed *loaded;

	if (!dir) {
		perror(directory);
		return 1;
	}
	while ((entry = readdir(dir)) != NULL) {
		char **more;

		if (entry->d_name[0] == '.')
			continue;
		more = realloc(names, (nr_names + 1) * sizeof(*names));
		if (!more ||
		    !(more[nr_names] = malloc(strlen(directory) + strlen(entry->d_name) + 2)))
			abort();
		names = more;
		sprintf(names[nr_names++], "%s/%s", directory, entry->d_name);
	}
	closedir(dir);
	if (nr_names == 0) {
		fprintf(stderr, "%s: no seed\n", directory);
		return 1;
	}
	qsort(names, nr_names, sizeof(*names), compare_names);
	loaded = calloc(nr_names, sizeof(*loaded));
	if (!loaded)
		abort();
	for (size_t i = 0; i < nr_names; i++) {
		size_t size;
		uint8_t *data = read_file(names[i], fuzz_harness.input_max, &size);

		if (!data)
			return 1;
		loaded[i] = (struct fuzz_seed){data, size};
		free(names[i]);
	}
	free(names);
	seeds = loaded;
	nr_seeds = nr_names;
	return 0;
}

/* The harness's own seeds as files of directory, one each: how the
 * committed corpus of a harness with built-in seeds was made. */
static int
write_seeds(const char *directory)
{
	for (size_t i = 0; i < nr_seeds; i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/seed-%02zu", directory, i);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].data, 1, seeds[i].size, f) != seeds[i].size) {
			perror(path);
			if (f)
				fclose(f);
			return 1;
		}
		fclose(f);
	}
	printf("%zu seeds written to %s\n", nr_seeds, directory);
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
	seeds = fuzz_harness.seeds;
	nr_seeds = fuzz_harness.nr_seeds;
	for (; first_file + 1 < argc; first_file += 2) {
		if (strcmp(argv[first_file], "--seed") == 0)
			seed = strtoull(argv[first_file + 1], NULL, 0);
		else if (strcmp(argv[first_file], "--runs") == 0)
			runs = strtoull(argv[first_file + 1], NULL, 0);
		else if (strcmp(argv[first_file], "--seeds") == 0) {
			if (load_seeds(argv[first_file + 1]) != 0) {
				free(input);
				return 1;
			}
		} else if (strcmp(argv[first_file], "--write-seeds") == 0) {
			free(input);
			return write_seeds(argv[first_file + 1]);
		} else
			break;
	}
	if (first_file < argc) {
		for (int i = first_file; i < argc; i++)
			if (replay_file(argv[i]) != 0)
				return 1;
		printf("%d input files read without an error:", argc - first_file);
		report_outcomes(0);
		free(input);
		return fuzz_harness.finish ? fuzz_harness.finish() : 0;
	}
	state = seed;
	for (uint64_t run = 0; run < runs; run++) {
		size_t size = seeds ? mutate_seed(input, fuzz_harness.input_max, &state)
				    : random_bytes(input, fuzz_harness.input_max, &state);

		LLVMFuzzerTestOneInput(input, size);
	}
	free(input);
	status = fuzz_harness.finish ? fuzz_harness.finish() : 0;
	printf("%llu inputs from seed %llu read without an error:", (unsigned long long)runs,
	       (unsigned long long)seed);
	return report_outcomes(runs) || status;
}
