/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signals through pidfds (tc-process.c) and the run directory's checks and
 * sockets (tc-rundir.c). */
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-process.h"
#include "tc-rundir.h"

/* The pid a pidfd refers to, from /proc/self/fdinfo. */
static long
pidfd_pid(int pidfd)
{
	g_autofree char *path = g_strdup_printf("/proc/self/fdinfo/%d", pidfd);
	g_autofree char *text = NULL;
	const char *line;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	line = strstr(text, "\nPid:");
	g_assert_nonnull(line);
	return strtol(line + strlen("\nPid:"), NULL, 10);
}

/* The pidfd names the process that connected, and a signal sent through
 * it after that process was reaped reaches nobody and is no error. */
static void
test_peer_pidfd(void)
{
	g_autofree char *dir = g_dir_make_tmp("tc-process-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "s", NULL);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int fd, pidfd, status;
	pid_t child;

	g_strlcpy(addr.sun_path, path, sizeof(addr.sun_path));
	g_assert_cmpint(bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(listen_fd, 1), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		int sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);

		if (connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	pidfd = tc_process_open_peer(fd);
	g_assert_cmpint(pidfd, >=, 0);
	g_assert_cmpint(pidfd_pid(pidfd), ==, child);
	g_assert_true(tc_process_signal(pidfd, SIGKILL));
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* Reaped: its pid may belong to anyone now, the pidfd to nobody. */
	g_assert_true(tc_process_signal(pidfd, SIGKILL));
	g_assert_false(tc_process_signal(-1, SIGKILL));
	g_assert_cmpint(errno, ==, EBADF);
	close(pidfd);
	close(fd);
	close(listen_fd);
	unlink(path);
	rmdir(dir);
}

static void
test_rundir_checks(void)
{
	g_autofree char *dir = g_dir_make_tmp("tc-rundir-XXXXXX", NULL);
	g_autofree char *run = g_build_filename(dir, "run", NULL);
	g_autofree char *link = g_build_filename(dir, "link", NULL);
	g_autofree char *parent = g_build_filename(dir, "new", NULL);
	g_autofree char *missing = g_build_filename(parent, "run", NULL);
	g_autoptr(GError) error = NULL;
	struct stat st;

	g_assert_true(tc_rundir_prepare(missing, &error));
	g_assert_no_error(error);
	g_assert_cmpint(stat(missing, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 07777, ==, 0755);
	g_assert_cmpint(mkdir(run, 0700), ==, 0);
	g_assert_true(tc_rundir_prepare(run, &error));
	g_assert_cmpint(chmod(run, 0777), ==, 0);
	g_assert_false(tc_rundir_prepare(run, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED);
	g_assert_nonnull(strstr(error->message, "writable by its group or others"));
	g_clear_error(&error);
	g_assert_cmpint(chmod(run, 0755), ==, 0);
	g_assert_cmpint(symlink(run, link), ==, 0);
	g_assert_false(tc_rundir_prepare(link, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED);
	g_assert_nonnull(strstr(error->message, "symbolic link"));
	unlink(link);
	rmdir(run);
	rmdir(missing);
	rmdir(parent);
	rmdir(dir);
}

/* The socket has its mode once it is at its path, replaces a stale one,
 * and leaves no private directory behind. */
static void
test_rundir_listen(void)
{
	g_autofree char *dir = g_dir_make_tmp("tc-rundir-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "app.sock", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GDir) listing = NULL;
	mode_t saved_umask = umask(0077);
	struct stat st;
	int fd;

	g_assert_true(g_file_set_contents(path, "stale", -1, NULL));
	fd = tc_rundir_listen(path, SOCK_CLOEXEC, 0666, 4, &error);
	umask(saved_umask);
	g_assert_no_error(error);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(lstat(path, &st), ==, 0);
	g_assert_true(S_ISSOCK(st.st_mode));
	g_assert_cmpint(st.st_mode & 07777, ==, 0666);
	listing = g_dir_open(dir, 0, NULL);
	g_assert_cmpstr(g_dir_read_name(listing), ==, "app.sock");
	g_assert_null(g_dir_read_name(listing));
	close(fd);
	unlink(path);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/process/peer-pidfd", test_peer_pidfd);
	g_test_add_func("/tracectl/process/rundir-checks", test_rundir_checks);
	g_test_add_func("/tracectl/process/rundir-listen", test_rundir_listen);
	return g_test_run();
}
