/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-wait.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tc-ust-log.h"
#include "tracectl-abi.h"

static void
sleep_ms(int ms)
{
	poll(NULL, 0, ms);
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
		/* Returns when the service changes the state (or at once if it
		 * already did since the load above): no wake-up can be lost. */
		syscall(SYS_futex, &page->state, FUTEX_WAIT, state, NULL, NULL, 0);
	}
	munmap(page, sizeof(*page));
}
