/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-wake"

#include "tc-wake.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracectl-abi.h"

#define WAIT_PAGE_SIZE 4096

static struct tracectl_wait_page *page;

static void
publish(guint32 state)
{
	__atomic_store_n(&page->state, state, __ATOMIC_RELEASE);
	syscall(SYS_futex, &page->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static guint32
next_generation(gboolean ready)
{
	guint32 state = __atomic_load_n(&page->state, __ATOMIC_ACQUIRE);

	return (((state >> 1) + 1) << 1) | (ready ? TRACECTL_WAIT_READY : 0);
}

gboolean
tc_wake_ready(const char *rundir, GError **error)
{
	g_autofree char *path = g_build_filename(rundir, TRACECTL_WAIT_FILE, NULL);
	int fd;
	void *map;

	/* Never follow a link planted in the run directory. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || fchmod(fd, 0644) < 0 || ftruncate(fd, WAIT_PAGE_SIZE) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "Cannot set up '%s': %s", path, g_strerror(saved));
		if (fd >= 0)
			close(fd);
		return FALSE;
	}
	map = mmap(NULL, WAIT_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot map '%s': %s", path,
			    g_strerror(errno));
		return FALSE;
	}
	page = map;
	publish(next_generation(TRUE));
	return TRUE;
}

void
tc_wake_stopping(void)
{
	if (page == NULL)
		return;
	publish(next_generation(FALSE));
	munmap(page, WAIT_PAGE_SIZE);
	page = NULL;
}
