/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CLI's small files in the user's home (tc-client-config.c,
 * tc-client-history-file.c). */
#include "tc-client.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Replaced whole through a new file renamed over the old one, so that a
 * concurrent command reads the old contents or the new, never a mix; but
 * not synced: on a journaling file system an fsync() waits for whatever
 * other processes wrote meanwhile, and a command would wait on another
 * user's disk load for a convenience that a crash may as well lose.
 */
gboolean
tc_client_state_file_write(const char *path, const char *contents, GError **error)
{
	g_autofree char *temporary = g_strconcat(path, ".XXXXXX", NULL);
	gsize length = strlen(contents), done = 0;
	int fd = g_mkstemp_full(temporary, O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "Cannot create %s: %s", temporary, g_strerror(errno));
		return FALSE;
	}
	while (done < length) {
		ssize_t n = write(fd, contents + done, length - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		done += (gsize)n;
	}
	if (done < length || close(fd) < 0 || g_rename(temporary, path) < 0) {
		int saved = errno;

		if (done < length)
			close(fd);
		g_unlink(temporary);
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved),
			    "Cannot write %s: %s", path, g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}
