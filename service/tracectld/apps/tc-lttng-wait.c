/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-wait.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static gint32 *page;
static size_t page_size;

/* Applications race us to create the page (they create it to wait on
 * it), so it is opened without O_EXCL; fs.protected_regular may refuse
 * O_CREAT on one an application made, hence the second try without. */
static int
open_page(const char *shm_name)
{
	/* Writable by all while it may still be sized by applications. */
	mode_t old_mask = umask(0);
	int fd = shm_open(shm_name, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	umask(old_mask);
	if (fd < 0 && errno == EACCES)
		fd = shm_open(shm_name, O_RDWR | O_CLOEXEC, 0);
	return fd;
}

gboolean
tc_lttng_wait_ready(const char *shm_name, GError **error)
{
	long size = sysconf(_SC_PAGE_SIZE);
	int fd = open_page(shm_name);
	void *map;

	/* Root's and read-only for others once sized: nobody else may set
	 * it and make applications believe a daemon listens. */
	if (fd < 0 || ftruncate(fd, size) < 0 || fchown(fd, 0, 0) < 0 || fchmod(fd, 0644) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "Cannot set up the wait page '%s': %s", shm_name, g_strerror(saved));
		if (fd >= 0)
			close(fd);
		return FALSE;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot map '%s': %s", shm_name,
			    g_strerror(errno));
		return FALSE;
	}
	page = map;
	page_size = size;
	__atomic_store_n(page, 1, __ATOMIC_RELEASE);
	/* Not FUTEX_PRIVATE: the waiters are other processes. */
	syscall(SYS_futex, page, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return TRUE;
}

void
tc_lttng_wait_stopping(void)
{
	if (page == NULL)
		return;
	__atomic_store_n(page, 0, __ATOMIC_RELEASE);
	munmap(page, page_size);
	page = NULL;
}
