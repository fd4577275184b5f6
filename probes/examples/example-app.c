/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl-example-app: an instrumented program to copy from, and the
 * workload of the integration tests.
 *
 *   tracectl-example-app [--count K] [--pause] [--forever] [--threads N]
 *                        [--interval-us U] [--app-context TYPE]
 *
 * Emits example:startup, then K example:all_types events (i = 0..K-1,
 * shared by the threads), then example:done. With --pause it prints "ready"
 * after startup and waits for SIGUSR1 before going on; with --forever it
 * emits all_types until it is killed.
 *
 * With --app-context TYPE (int64, uint64 or double) it registers the
 * application context example:request_id (tracectl/app-context.h), whose
 * value in all_types number i is i - 5 (int64), i * 1000 (uint64) or
 * i + 0.5 (double), and which has no value (none) in startup and done.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracectl/app-context.h>

#include "example-tp.h"

#define EXAMPLE_THREADS_MAX 256

struct options {
	uint64_t count;
	bool pause;
	bool forever;
	unsigned int threads;
	unsigned long interval_us;
	enum tracectl_app_context_type app_context;
};

static struct options options = { .count = 10, .threads = 1 };
/* The next index of all_types, shared by every emitting thread. */
static uint64_t next_index;

/* The all_types index this thread is emitting, -1 outside of one: what
 * example:request_id says of it. */
static __thread int64_t current_index = -1;

static const uint8_t blob_bytes[8] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17 };

static void
usage(FILE *out)
{
	fprintf(out, "Usage: tracectl-example-app [--count K] [--pause] [--forever]"
		     " [--threads N] [--interval-us U] [--app-context int64|uint64|double]\n");
}

static bool
parse_number(const char *text, unsigned long long max, unsigned long long *value)
{
	char *end;

	errno = 0;
	*value = strtoull(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && text[0] != '-' && *value <= max;
}

/* Returns 0, or 2 (the exit status for a usage error). */
static int
parse_options(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "pause", no_argument, NULL, 'p' },
		{ "forever", no_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 't' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "app-context", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long value;
	int opt;

	while ((opt = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!parse_number(optarg, UINT64_MAX, &value))
				goto bad;
			options.count = value;
			break;
		case 'p':
			options.pause = true;
			break;
		case 'f':
			options.forever = true;
			break;
		case 't':
			if (!parse_number(optarg, EXAMPLE_THREADS_MAX, &value) || value == 0)
				goto bad;
			options.threads = (unsigned int)value;
			break;
		case 'i':
			if (!parse_number(optarg, 60ull * 1000 * 1000, &value))
				goto bad;
			options.interval_us = (unsigned long)value;
			break;
		case 'a':
			if (strcmp(optarg, "int64") == 0)
				options.app_context = TRACECTL_APP_CONTEXT_INT64;
			else if (strcmp(optarg, "uint64") == 0)
				options.app_context = TRACECTL_APP_CONTEXT_UINT64;
			else if (strcmp(optarg, "double") == 0)
				options.app_context = TRACECTL_APP_CONTEXT_DOUBLE;
			else
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind == argc)
		return 0;
bad:
	usage(stderr);
	return 2;
}

/* Prints "ready" and blocks until SIGUSR1 arrives. SIGUSR1 is blocked
 * before "ready" goes out, so a signal sent right after it is not lost. */
static void
wait_for_sigusr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	while (sigwait(&set, &sig) != 0 || sig != SIGUSR1)
		;
}

static void
sleep_interval(void)
{
	struct timespec delay = {
		.tv_sec = options.interval_us / 1000000,
		.tv_nsec = (long)(options.interval_us % 1000000) * 1000,
	};

	if (options.interval_us)
		while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
			;
}

static void
emit_all_types(uint64_t i)
{
	char message[32];

	/* Skip building the string when nobody records the event. */
	if (!tracectl_tracepoint_enabled(example, all_types))
		return;
	snprintf(message, sizeof(message), "event-%llu", (unsigned long long)i);
	current_index = (int64_t)i;
	tracectl_tracepoint(example, all_types, i, message, blob_bytes, (uint32_t)(i % 8));
	current_index = -1;
}

/* example:request_id's callback, in the tracepoint: quick, no lock. */
static void
get_request_id(void *priv, struct tracectl_app_context_value *value)
{
	if (current_index < 0) {
		value->type = TRACECTL_APP_CONTEXT_NONE;
		return;
	}
	switch (value->type) {
	case TRACECTL_APP_CONTEXT_INT64:
		value->u.s64 = current_index - 5;
		break;
	case TRACECTL_APP_CONTEXT_UINT64:
		value->u.u64 = (uint64_t)current_index * 1000;
		break;
	default:
		value->u.d = (double)current_index + 0.5;
	}
}

static void *
emit_thread(void *data)
{
	for (;;) {
		uint64_t i = __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);

		if (!options.forever && i >= options.count)
			break;
		emit_all_types(i);
		sleep_interval();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t threads[EXAMPLE_THREADS_MAX];
	int ret;

	tracectl_tracepoint(example, startup, (int32_t)getpid());

	ret = parse_options(argc, argv);
	if (ret != 0)
		return ret;
	if (options.app_context != TRACECTL_APP_CONTEXT_NONE) {
		ret = tracectl_app_context_register("example", "request_id", options.app_context,
						    get_request_id, NULL);
		if (ret < 0) {
			fprintf(stderr, "tracectl-example-app: cannot register example:request_id: %s\n",
				strerror(-ret));
			return 1;
		}
	}
	if (options.pause)
		wait_for_sigusr1();

	for (unsigned int t = 1; t < options.threads; t++) {
		ret = pthread_create(&threads[t], NULL, emit_thread, NULL);
		if (ret != 0) {
			fprintf(stderr, "tracectl-example-app: cannot start thread: %s\n",
				strerror(ret));
			return 1;
		}
	}
	emit_thread(NULL);
	for (unsigned int t = 1; t < options.threads; t++)
		pthread_join(threads[t], NULL);

	tracectl_tracepoint(example, done, options.count);
	return 0;
}
