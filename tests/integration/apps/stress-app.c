/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workload of the ring-buffer stress tests:
 *
 *   tracectl-stress-app --threads N --count C [--signals S] [--pin]
 *                       [--scribble] [--pace P [--pause-ms M]] [--getppid]
 *
 * N threads each emit C stress:thread events (thread, seq 0..C-1) as fast
 * as they can, while a timer of each thread's own sends it SIGUSR1 every
 * SIGNAL_INTERVAL_NS, whose handler emits stress:signal (thread, its own
 * seq), S at most, in the middle of whatever the thread was writing: the
 * timer's interrupt lands anywhere in the loop, and a thread that runs
 * takes its signal at once. --pin puts thread i on CPU i (so that
 * each CPU's stream holds one thread's events and the discards of that
 * stream are that thread's). --scribble makes thread 0 write garbage over
 * its own ring buffers in the middle of the run, as a buggy or hostile
 * application could. --pace P sleeps 1 ms (or M ms) after every P events
 * of a thread, so that the consumer reads while the run goes on (or, with
 * pauses of 135 ms or more, so that records must carry full timestamps). --getppid
 * calls getppid() right after each stress:thread event. At the end it prints one line per thread:
 *
 *   thread=<i> events=<C> signals=<handler events emitted> cpu=<cpu or -1>
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define RSEQ_SIZE __rseq_size
#else
#define RSEQ_SIZE 0u
#endif

#include "stress-tp.h"

#define THREADS_MAX 64
/* A thread emits a thousand events in about 0.1 ms: a signal every
 * 20 us lands in the middle of its writes dozens of times per run. */
#define SIGNAL_INTERVAL_NS 20000

struct worker {
	pthread_t id;
	uint32_t index;
	uint64_t signals_emitted; /* by the handler, on this thread only */
	int cpu;
};

static struct worker workers[THREADS_MAX];
static __thread struct worker *self;
static unsigned int nr_threads = 2;
static uint64_t count = 100000;
static uint64_t signals_per_thread = 1000;
static bool pin, scribble, call_getppid;
static uint64_t pace, pause_ms = 1;

/* The uprobe test's target: called once per stress:thread event with
 * --getppid. noinline and used, so that it has a symbol of its own. */
__attribute__((noinline, used)) void stress_marker(uint64_t seq);

__attribute__((noinline, used)) void
stress_marker(uint64_t seq)
{
	__asm__ volatile("" : : "r"(seq) : "memory");
}

static void
on_signal(int signo)
{
	if (self && self->signals_emitted < signals_per_thread) {
		tracectl_tracepoint(stress, signal, self->index, self->signals_emitted);
		self->signals_emitted++;
	}
}

/*
 * Writes garbage over every tracectl buffer mapped in this process except
 * their first page (the header the consumer validated at creation): commit
 * counters and packet data, as a stray memset would.
 */
static void
scribble_own_buffers(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end;

		if (!strstr(line, "memfd:tracectl-") || sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		for (unsigned long p = start + 4096; p + 64 <= end; p += 1531)
			memset((void *)p, 0x5a, 64);
	}
	fclose(maps);
}

/* The calling thread's signal timer, or (timer_t)0 when it sends none. */
static timer_t
start_signal_timer(void)
{
	struct sigevent event = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec every = {.it_interval = {.tv_nsec = SIGNAL_INTERVAL_NS},
				   .it_value = {.tv_nsec = SIGNAL_INTERVAL_NS}};
	timer_t timer;

	if (signals_per_thread == 0)
		return (timer_t)0;
	/* glibc names no field for it before 2.41: the kernel's name. */
	event._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
		perror("timer_create");
		exit(1);
	}
	if (timer_settime(timer, 0, &every, NULL) != 0) {
		perror("timer_settime");
		exit(1);
	}
	return timer;
}

static void *
worker_main(void *data)
{
	struct worker *worker = data;
	timer_t timer;
	sigset_t set;

	self = worker;
	if (pin) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(worker->cpu, &cpus);
		if (pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus) != 0)
			worker->cpu = -1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	timer = start_signal_timer();
	for (uint64_t seq = 0; seq < count; seq++) {
		tracectl_tracepoint(stress, thread, worker->index, seq);
		/* The kernel timeline test: a system call right after each event. */
		if (call_getppid) {
			getppid();
			stress_marker(seq);
		}
		if (scribble && worker->index == 0 && seq == count / 2)
			scribble_own_buffers();
		if (pace && seq % pace == pace - 1)
			usleep((useconds_t)(pause_ms * 1000));
	}
	if (timer)
		timer_delete(timer);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	return NULL;
}

static int
parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"threads", required_argument, NULL, 't'}, {"count", required_argument, NULL, 'c'},
		{"signals", required_argument, NULL, 's'}, {"pin", no_argument, NULL, 'p'},
		{"scribble", no_argument, NULL, 'x'},      {"pace", required_argument, NULL, 'P'},
		{"getppid", no_argument, NULL, 'g'},       {"pause-ms", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			nr_threads = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			count = strtoull(optarg, NULL, 10);
			break;
		case 's':
			signals_per_thread = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			pin = true;
			break;
		case 'x':
			scribble = true;
			break;
		case 'P':
			pace = strtoull(optarg, NULL, 10);
			break;
		case 'g':
			call_getppid = true;
			break;
		case 'm':
			pause_ms = strtoull(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (nr_threads == 0 || nr_threads > THREADS_MAX || pause_ms > 10000 || optind != argc) {
		fprintf(stderr, "usage: tracectl-stress-app --threads 1..%d --count C [--signals S] "
				"[--pin] [--scribble]\n", THREADS_MAX);
		return 2;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sigaction action = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	long nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	sigset_t set;
	int ret = parse_options(argc, argv);

	if (ret)
		return ret;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* workers unblock it */
	sigaction(SIGUSR1, &action, NULL);
	for (unsigned int i = 0; i < nr_threads; i++) {
		workers[i].index = i;
		workers[i].cpu = pin ? (int)(i % (nr_cpus > 0 ? nr_cpus : 1)) : -1;
		if (pthread_create(&workers[i].id, NULL, worker_main, &workers[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (unsigned int i = 0; i < nr_threads; i++)
		pthread_join(workers[i].id, NULL);
	for (unsigned int i = 0; i < nr_threads; i++)
		printf("thread=%u events=%llu signals=%llu cpu=%d rseq=%u\n", i,
		       (unsigned long long)count, (unsigned long long)workers[i].signals_emitted,
		       workers[i].cpu, (unsigned int)RSEQ_SIZE);
	return 0;
}
