/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * What the fuzz harnesses share: reading an input front to back, and the
 * standalone driver (fuzz-driver.c) that runs a harness without libFuzzer.
 *
 * A harness defines LLVMFuzzerTestOneInput() and, unless built with
 * -DFUZZ_LIBFUZZER, fuzz_harness below. The driver replays the input files
 * given as arguments, or runs `--runs M` inputs made with a seeded
 * generator (`--seed N`; splitmix64, so the same inputs everywhere): a seed
 * input with a few bytes changed, inserted or cut, or random bytes when the
 * harness has no seeds. `--seeds DIR` takes the files of a corpus
 * directory (tests/fuzz/corpus/TARGET) as the seeds instead, and
 * `--write-seeds DIR` writes the harness's own seeds there as files.
 * Built with -DFUZZ_LIBFUZZER, a harness has no driver: libFuzzer's main()
 * runs it on a corpus directory (tests/fuzz/run-fuzz.py). After a run it prints how often each
 * outcome was reached and fails when one never was (from 1000 runs on): inputs that never reach an
 * outcome test less than they seem to.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct fuzz_input {
	const uint8_t *data;
	size_t size, pos;
};

/* Past its end, an input reads as zeros. */
static inline uint8_t
fuzz_take_byte(struct fuzz_input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint32_t
fuzz_take_u32(struct fuzz_input *in)
{
	uint32_t value = 0;

	for (int i = 0; i < 4; i++)
		value |= (uint32_t)fuzz_take_byte(in) << (8 * i);
	return value;
}

/* The descriptors this process has open: a harness counts them before
 * and after an input, so that one left open by the code it runs fails. */
static inline int
fuzz_count_open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	int count = 0;

	if (dir == NULL) {
		perror("opendir /proc/self/fd");
		abort();
	}
	while ((entry = readdir(dir)) != NULL)
		count += entry->d_name[0] != '.';
	closedir(dir);
	return count;
}

/* A directory entry as getdents64() writes it. */
struct fuzz_dirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* The same count, for a harness that counts many times an input:
 * /proc/self/fd is opened once and read again from its start each time,
 * where opendir() allocated 32 KiB a count (which AddressSanitizer
 * fills) and looked the path up again. Its own descriptor is among those
 * counted, every time; a child after fork() opens its own. */
static inline int
fuzz_recount_open_fds(void)
{
	static int dir_fd = -1;
	static pid_t owner;
	uint64_t buf[512];
	int count = 0;
	long n;

	if (dir_fd < 0 || owner != getpid()) {
		if (dir_fd >= 0)
			close(dir_fd);
		dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		owner = getpid();
	}
	if (dir_fd < 0 || lseek(dir_fd, 0, SEEK_SET) < 0) {
		perror("/proc/self/fd");
		abort();
	}
	while ((n = syscall(SYS_getdents64, dir_fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n;) {
			const struct fuzz_dirent64 *entry = (const void *)((const char *)buf + at);

			count += entry->name[0] != '.';
			at += entry->reclen;
		}
	}
	if (n < 0) {
		perror("getdents64 /proc/self/fd");
		abort();
	}
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_seed {
	const uint8_t *data;
	size_t size;
};

struct fuzz_harness {
	const struct fuzz_seed *seeds; /* NULL: random inputs, unless --seeds */
	size_t nr_seeds;
	size_t input_max; /* bytes */
	const char *const *outcome_names;
	const unsigned long long *outcomes; /* counted by the harness */
	unsigned int nr_outcomes;
	/* Optional: checks once all inputs ran; non-zero fails the run. */
	int (*finish)(void);
};

extern const struct fuzz_harness fuzz_harness;
