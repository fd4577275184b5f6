/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-wait.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tc-ust-log.h"
#include "tracectl-abi.h"

/*
 * Only the service changes the page, but anyone who can read it can wake
 * its futex. A wake-up that changed nothing is therefore not a reason to
 * try to connect: the waiter checks the state and sleeps again, first for
 * SPURIOUS_WAKE_PAUSE_MS without the futex, so that a storm of wake-ups
 * costs it at most 1000 / SPURIOUS_WAKE_PAUSE_MS checks a second; a real
 * change made meanwhile is seen when the pause ends.
 */
#define SPURIOUS_WAKE_PAUSE_MS 50
/* Connecting is tried again at least this often even if the page never
 * changes (it may have been replaced by a new file). */
#define WAIT_MAX_MS 60000

static void
sleep_ms(int ms)
{
	poll(NULL, 0, ms);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleeps until the page's state is no longer state, or WAIT_MAX_MS. */
static void
wait_for_change(struct tracectl_wait_page *page, uint32_t state)
{
	int64_t deadline = now_ms() + WAIT_MAX_MS;

	for (;;) {
		int64_t left = deadline - now_ms();
		struct timespec timeout = {.tv_sec = left / 1000,
					   .tv_nsec = (left % 1000) * 1000000};

		if (left <= 0)
			return;
		/* Returns at once if the state already changed: no wake-up is lost. */
		syscall(SYS_futex, &page->state, FUTEX_WAIT, state, &timeout, NULL, 0);
		if (__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) != state)
			return;
		sleep_ms(SPURIOUS_WAKE_PAUSE_MS);
		if (__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) != state)
			return;
	}
}

/* Maps the page read-only: applications never write it, so no application
 * can wake or stall the others. Returns NULL when there is none. */
static struct tracectl_wait_page *
map_wait_page(const char *wait_path)
{
	struct stat st;
	void *map;
	int fd;

	fd = open(wait_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct tracectl_wait_page)) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, sizeof(struct tracectl_wait_page), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

void
tc_ust_wait_for_service(const char *wait_path, int fallback_ms)
{
	struct tracectl_wait_page *page = map_wait_page(wait_path);
	uint32_t state;

	if (page == NULL) {
		sleep_ms(fallback_ms);
		return;
	}
	state = __atomic_load_n(&page->state, __ATOMIC_ACQUIRE);
	if (state & TRACECTL_WAIT_READY) {
		/* Marked ready but not answering: it died, or is just exiting. */
		sleep_ms(fallback_ms);
	} else {
		tc_ust_debug("Waiting for the service (state %u)", state);
		wait_for_change(page, state);
	}
	munmap(page, sizeof(*page));
}
