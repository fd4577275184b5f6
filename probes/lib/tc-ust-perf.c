/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-perf.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One counter of the thread: its key, its state, its descriptor and its
 * mapped first page (NULL when the mapping failed: read(2) then). */
struct slot {
	uint32_t type;
	uint64_t config;
	enum tc_ust_perf_path path;
	int fd;
	struct perf_event_mmap_page *page;
};

/* initial-exec: no allocation at a thread's first access. A slot with
 * path UNOPENED is free. */
static __thread struct slot slots[TC_UST_PERF_COUNTERS_MAX]
	__attribute__((tls_model("initial-exec")));
static __thread bool has_destructor __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void
close_slots(void)
{
	long page_size = sysconf(_SC_PAGESIZE);

	for (unsigned int i = 0; i < TC_UST_PERF_COUNTERS_MAX; i++) {
		if (slots[i].page)
			munmap(slots[i].page, (size_t)page_size);
		if (slots[i].path != TC_UST_PERF_FAILED && slots[i].path != TC_UST_PERF_UNOPENED)
			close(slots[i].fd);
		memset(&slots[i], 0, sizeof(slots[i]));
	}
}

/* At the thread's exit: a tracepoint in a later destructor would open the
 * counters again, and this destructor then runs once more (POSIX allows
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds). */
static void
thread_exit_cb(void *unused)
{
	close_slots();
	has_destructor = false;
}

static void
make_exit_key(void)
{
	pthread_key_create(&exit_key, thread_exit_cb);
}

/* Opens the counter for the calling thread, user space only, as
 * LTTng-UST does; its first page mapped read-only for the index, offset
 * and rdpmc's permission. */
static void
open_slot(struct slot *slot)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = slot->type,
		.config = slot->config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long page_size = sysconf(_SC_PAGESIZE);
	void *page;

	slot->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (slot->fd < 0) {
		slot->path = TC_UST_PERF_FAILED;
		return;
	}
	page = mmap(NULL, (size_t)page_size, PROT_READ, MAP_SHARED, slot->fd, 0);
	slot->page = page == MAP_FAILED ? NULL : page;
	slot->path = TC_UST_PERF_READ;
	if (!has_destructor) {
		pthread_once(&exit_key_once, make_exit_key);
		/* Any value but NULL: the destructor runs only for those. */
		has_destructor = pthread_setspecific(exit_key, slots) == 0;
	}
}

static struct slot *
find_slot(uint32_t type, uint64_t config)
{
	for (unsigned int i = 0; i < TC_UST_PERF_COUNTERS_MAX; i++) {
		struct slot *slot = &slots[i];

		if (slot->path == TC_UST_PERF_UNOPENED) {
			slot->type = type;
			slot->config = config;
			open_slot(slot);
			return slot;
		}
		if (slot->type == type && slot->config == config)
			return slot;
	}
	return NULL;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t
read_pmc(uint32_t counter)
{
	uint32_t low, high;

	__asm__ volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(counter));
	return (uint64_t)high << 32 | low;
}
#define HAVE_RDPMC 1
#else
#define HAVE_RDPMC 0
#endif

/* The page's count with the hardware counter added, in its sequence lock
 * (the kernel's perf_event_mmap_page protocol); false when the page gives
 * no index, or the machine has no rdpmc. */
static bool
read_page(const struct perf_event_mmap_page *page, uint64_t *count)
{
	uint32_t seq, index;
	int64_t value;

	do {
		seq = __atomic_load_n(&page->lock, __ATOMIC_ACQUIRE);
		index = __atomic_load_n(&page->index, __ATOMIC_RELAXED);
		value = __atomic_load_n(&page->offset, __ATOMIC_RELAXED);
		if (!HAVE_RDPMC || !page->cap_user_rdpmc || index == 0)
			return false;
#if HAVE_RDPMC
		{
			/* The hardware counter is pmc_width bits wide: sign-extend
			 * it, as the kernel's documentation does. */
			unsigned int shift = 64u - page->pmc_width;

			value += (int64_t)(read_pmc(index - 1) << shift) >> shift;
		}
#endif
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&page->lock, __ATOMIC_RELAXED) != seq);
	*count = (uint64_t)value;
	return true;
}

uint64_t
tc_ust_perf_read(uint32_t type, uint64_t config)
{
	struct slot *slot = find_slot(type, config);
	uint64_t count = 0;

	if (__builtin_expect(!slot || slot->path == TC_UST_PERF_FAILED, 0))
		return 0;
	if (slot->page && read_page(slot->page, &count)) {
		slot->path = TC_UST_PERF_RDPMC;
		return count;
	}
	slot->path = TC_UST_PERF_READ;
	if (read(slot->fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	return count;
}

enum tc_ust_perf_path
tc_ust_perf_path(uint32_t type, uint64_t config)
{
	for (unsigned int i = 0; i < TC_UST_PERF_COUNTERS_MAX; i++)
		if (slots[i].path != TC_UST_PERF_UNOPENED && slots[i].type == type &&
		    slots[i].config == config)
			return slots[i].path;
	return TC_UST_PERF_UNOPENED;
}

void
tc_ust_perf_forget(void)
{
	close_slots();
}
