/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ssh tunnel of a relay reached through net+ssh:// (tc-consumerd-tunnel.c),
 * with a fake ssh first on PATH (a Python script) that records its
 * arguments and does what each case asks: listens on its forwards' Unix
 * sockets after a warning, is refused a key and says so, writes an
 * overlong line with control bytes, floods its standard error that
 * nobody reads. What must hold: ssh's command line (the owner's
 * configuration left alone, the host after "--"), AES-GCM preferred
 * through a file of the tunnel's that the real ssh reads after the
 * owner's configuration, so that an owner's Ciphers still wins, a private directory,
 * the tunnel ready only once both sockets are there, what ssh said before
 * that forgotten, its last line or its exit status as the reason, never a
 * wait on its standard error, its end and the directory's removal at
 * stop, its death with the thread that started it, and a host or login
 * that would be an option refused before anything runs.
 */
#include <glib.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-consumerd-tunnel.h"

#define WAIT_US (10 * G_USEC_PER_SEC)

static const char fake_ssh[] =
    "#!/usr/bin/python3\n"
    "import os, socket, sys, time\n"
    "mode, state = os.environ['FAKE_SSH_MODE'], os.environ['FAKE_SSH_STATE']\n"
    "with open(state + '/args', 'w') as f:\n"
    "    f.write('\\n'.join(sys.argv[1:]))\n"
    "if '-F' in sys.argv:\n"
    "    with open(sys.argv[sys.argv.index('-F') + 1]) as f, open(state + '/config', 'w') as g:\n"
    "        g.write(f.read())\n"
    "with open(state + '/pid', 'w') as f:\n"
    "    f.write(str(os.getpid()))\n"
    "def say(text):\n"
    "    try:\n"
    "        os.write(2, text.encode())\n"
    "    except BlockingIOError:\n"
    "        pass\n"
    "if mode == 'refused':\n"
    "    say('Permission denied (publickey).\\r\\n')\n"
    "    sys.exit(255)\n"
    "if mode == 'long':\n"
    "    say('x' * 10000 + '\\n' + 'ssh: last\\x01line\\xe9')\n"
    "    sys.exit(1)\n"
    "if mode == 'flood':\n"
    "    for i in range(4096):\n"
    "        say('y' * 1023 + '\\n')\n"
    "say('Warning: Permanently added [h]:2222 (ED25519) to the list of known hosts.\\n')\n"
    "args = sys.argv[1:]\n"
    "socks = []\n"
    "for i, arg in enumerate(args):\n"
    "    if arg == '-L':\n"
    "        s = socket.socket(socket.AF_UNIX)\n"
    "        s.bind(args[i + 1].split(':')[0])\n"
    "        s.listen()\n"
    "        socks.append(s)\n"
    "open(state + '/listening', 'w').close()\n"
    "time.sleep(600)\n";

static char *state_dir;

/* A directory holding the fake ssh, first on PATH, and where it writes. */
static void
setup_fake_ssh(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *program = NULL;

	state_dir = g_dir_make_tmp("tc-tunnel-test-XXXXXX", &error);
	g_assert_no_error(error);
	program = g_build_filename(state_dir, "ssh", NULL);
	g_assert_true(g_file_set_contents(program, fake_ssh, -1, &error));
	g_assert_cmpint(chmod(program, 0755), ==, 0);
	g_setenv("PATH", state_dir, TRUE);
	g_setenv("FAKE_SSH_STATE", state_dir, TRUE);
}

static char *
state_file(const char *name)
{
	g_autofree char *path = g_build_filename(state_dir, name, NULL);
	char *contents = NULL;

	g_file_get_contents(path, &contents, NULL, NULL);
	return contents;
}

static void
forget_state(void)
{
	for (const char *const *name = (const char *const[]){"args", "pid", "listening", "config", NULL};
	     *name; name++) {
		g_autofree char *path = g_build_filename(state_dir, *name, NULL);

		unlink(path);
	}
}

static struct tc_consumerd_tunnel *
start_spec(const char *mode, const char *user, uint16_t port, bool prefer_aes_gcm)
{
	const struct tc_consumerd_tunnel_spec spec = {
	    .host = "relay.example.org",
	    .user = user,
	    .port = port,
	    .control_port = 5342,
	    .data_port = 5343,
	    .prefer_aes_gcm = prefer_aes_gcm,
	};
	struct tc_consumerd_tunnel *tunnel = NULL;

	forget_state();
	g_setenv("FAKE_SSH_MODE", mode, TRUE);
	g_assert_cmpint(tc_consumerd_tunnel_start(&spec, &tunnel), ==, 0);
	g_assert_nonnull(tunnel);
	return tunnel;
}

static struct tc_consumerd_tunnel *
start(const char *mode, const char *user, uint16_t port)
{
	return start_spec(mode, user, port, false);
}

/* Looks until check says something else than "not yet". */
static int
check_until_decided(struct tc_consumerd_tunnel *tunnel)
{
	gint64 end = g_get_monotonic_time() + WAIT_US;
	int ret;

	while ((ret = tc_consumerd_tunnel_check(tunnel)) == 0 && g_get_monotonic_time() < end)
		g_usleep(2000);
	return ret;
}

/* Looks until ssh is seen gone. */
static int
check_until_exited(struct tc_consumerd_tunnel *tunnel)
{
	gint64 end = g_get_monotonic_time() + WAIT_US;
	int ret;

	while ((ret = tc_consumerd_tunnel_check(tunnel)) >= 0 && g_get_monotonic_time() < end)
		g_usleep(2000);
	return ret;
}

static gboolean
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void
test_listens(void)
{
	struct tc_consumerd_tunnel *tunnel = start("listen", "tracer", 2222);
	g_autofree char *args = NULL, *dir = NULL, *expected = NULL;
	const char *control = tc_consumerd_tunnel_path(tunnel, false);
	struct stat st;

	g_assert_cmpint(check_until_decided(tunnel), ==, 1);
	dir = g_path_get_dirname(control);
	g_assert_true(g_str_has_prefix(dir, "/tmp/tracectl-ssh-"));
	g_assert_cmpint(stat(dir, &st), ==, 0);
	g_assert_cmpuint(st.st_mode & 07777, ==, 0700);
	g_assert_cmpuint(st.st_uid, ==, getuid());
	g_assert_cmpstr(tc_consumerd_tunnel_path(tunnel, true) + strlen(dir), ==, "/data");
	args = state_file("args");
	expected = g_strdup_printf(
	    "-N\n-o\nExitOnForwardFailure=yes\n-o\nBatchMode=yes\n-o\nControlMaster=no\n-o\n"
	    "ControlPath=none\n-o\nForkAfterAuthentication=no\n-o\nClearAllForwardings=no\n"
	    "-L\n%s:127.0.0.1:5342\n-L\n%s/data:127.0.0.1:5343\n-p\n2222\n-l\ntracer\n--\n"
	    "relay.example.org",
	    control, dir);
	g_assert_cmpstr(args, ==, expected);
	/* Nothing the owner's configuration decides is overridden. */
	g_assert_null(strstr(args, "StrictHostKeyChecking"));
	g_assert_null(strstr(args, "UserKnownHostsFile"));
	/* The warning ssh wrote before it listened is no reason. */
	g_assert_cmpstr(tc_consumerd_tunnel_reason(tunnel), ==, "");
	g_assert_true(tc_consumerd_tunnel_is_running(tunnel));
	tc_consumerd_tunnel_stop(tunnel);
	g_assert_false(exists(dir));
}

/* The real ssh's "ciphers" line for host with the tunnel's configuration
 * file, the owner's ~/.ssh/config in it replaced by owner_config. */
static char *
ciphers_of(const char *config, const char *owner_config, const char *host)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *path = g_build_filename(state_dir, "config-real", NULL);
	g_autofree char *include = g_strdup_printf("Include %s\n", owner_config);
	g_auto(GStrv) parts = g_strsplit(config, "Include ~/.ssh/config\n", 2);
	g_autofree char *text = NULL, *out = NULL;
	const char *argv[] = {"/usr/bin/ssh", "-G", "-F", path, host, NULL};
	const char *line;
	int status;

	g_assert_cmpuint(g_strv_length(parts), ==, 2);
	text = g_strconcat(parts[0], include, parts[1], NULL);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
				   &out, NULL, &status, &error));
	g_assert_no_error(error);
	unlink(path);
	line = strstr(out, "\nciphers ");
	g_assert_nonnull(line);
	return g_strndup(line + 1, strcspn(line + 1, "\n"));
}

/* With AES instructions: ssh reads a file of the tunnel's own (-F) that
 * reads the owner's and the system's configuration first and only then
 * puts AES-GCM first; the real ssh keeps the owner's Ciphers for a host
 * whose configuration sets them, and prefers AES-GCM for the others. */
static void
test_prefers_aes_gcm(void)
{
	struct tc_consumerd_tunnel *tunnel = start_spec("listen", NULL, 0, true);
	g_autofree char *args = NULL, *config = NULL, *dir = NULL, *expected = NULL;
	g_autofree char *owner = g_build_filename(state_dir, "owner-config", NULL);
	g_autofree char *mine = NULL, *other = NULL, *unconfigured = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(check_until_decided(tunnel), ==, 1);
	dir = g_path_get_dirname(tc_consumerd_tunnel_path(tunnel, false));
	args = state_file("args");
	expected = g_strdup_printf("\n-o\nClearAllForwardings=no\n-F\n%s/config\n-L\n", dir);
	g_assert_nonnull(strstr(args, expected));
	config = state_file("config");
	g_assert_cmpstr(config, ==,
			"# tracectl's tunnel: the owner's ssh configuration, then a default\n"
			"Include ~/.ssh/config\n"
			"Include /etc/ssh/ssh_config\n"
			"Host *\n"
			"\tCiphers ^aes128-gcm@openssh.com\n");
	tc_consumerd_tunnel_stop(tunnel);
	g_assert_false(exists(dir));
	if (access("/usr/bin/ssh", X_OK) != 0)
		return;
	g_assert_true(g_file_set_contents(
	    owner, "Host relay.example.org\n\tCiphers aes256-ctr,chacha20-poly1305@openssh.com\n",
	    -1, &error));
	mine = ciphers_of(config, owner, "relay.example.org");
	other = ciphers_of(config, owner, "other.example.org");
	unlink(owner);
	unconfigured = ciphers_of(config, owner, "relay.example.org");
	g_assert_cmpstr(mine, ==, "ciphers aes256-ctr,chacha20-poly1305@openssh.com");
	g_assert_true(g_str_has_prefix(other, "ciphers aes128-gcm@openssh.com,"));
	g_assert_true(g_str_has_prefix(unconfigured, "ciphers aes128-gcm@openssh.com,"));
}

/* Without a login or a port, ssh's configuration decides them. */
static void
test_configuration_decides(void)
{
	struct tc_consumerd_tunnel *tunnel = start("listen", NULL, 0);
	g_autofree char *args = NULL;

	g_assert_cmpint(check_until_decided(tunnel), ==, 1);
	args = state_file("args");
	g_assert_null(strstr(args, "\n-p\n"));
	g_assert_null(strstr(args, "\n-l\n"));
	g_assert_true(g_str_has_suffix(args, "\n--\nrelay.example.org"));
	tc_consumerd_tunnel_stop(tunnel);
}

static void
test_refused(void)
{
	struct tc_consumerd_tunnel *tunnel = start("refused", "tracer", 0);

	g_assert_cmpint(check_until_decided(tunnel), ==, -ECONNABORTED);
	g_assert_cmpstr(tc_consumerd_tunnel_reason(tunnel), ==,
			"ssh: Permission denied (publickey).");
	g_assert_false(tc_consumerd_tunnel_is_running(tunnel));
	tc_consumerd_tunnel_stop(tunnel);
}

/* An overlong line is cut, control bytes and bytes past ASCII blanked,
 * a last line without its newline counts, "ssh: " is not doubled. */
static void
test_long_lines(void)
{
	struct tc_consumerd_tunnel *tunnel = start("long", NULL, 0);

	g_assert_cmpint(check_until_decided(tunnel), ==, -ECONNABORTED);
	g_assert_cmpstr(tc_consumerd_tunnel_reason(tunnel), ==, "ssh: last line??");
	tc_consumerd_tunnel_stop(tunnel);
}

static void
test_killed(void)
{
	struct tc_consumerd_tunnel *tunnel = start("listen", NULL, 0);
	g_autofree char *pid = NULL;

	g_assert_cmpint(check_until_decided(tunnel), ==, 1);
	pid = state_file("pid");
	g_assert_cmpint(kill(atoi(pid), SIGKILL), ==, 0);
	g_assert_cmpint(check_until_exited(tunnel), ==, -ECONNABORTED);
	g_assert_cmpstr(tc_consumerd_tunnel_reason(tunnel), ==, "ssh was killed by signal 9");
	tc_consumerd_tunnel_stop(tunnel);
}

/* 4 MiB written while nobody reads: ssh drops what the pipe has no room
 * for and goes on to listen. */
static void
test_flood_never_blocks(void)
{
	struct tc_consumerd_tunnel *tunnel = start("flood", NULL, 0);
	g_autofree char *listening = g_build_filename(state_dir, "listening", NULL);
	gint64 end = g_get_monotonic_time() + WAIT_US;

	while (!exists(listening) && g_get_monotonic_time() < end)
		g_usleep(10000);
	g_assert_true(exists(listening));
	g_assert_cmpint(check_until_decided(tunnel), ==, 1);
	tc_consumerd_tunnel_stop(tunnel);
}

static void *
start_and_end_cb(void *data)
{
	struct tc_consumerd_tunnel **tunnel = data;

	*tunnel = start("listen", NULL, 0);
	g_assert_cmpint(check_until_decided(*tunnel), ==, 1);
	return NULL;
}

/* ssh dies with the thread that started it: a session's thread, which
 * ends with its session or with the consumer. */
static void
test_dies_with_its_thread(void)
{
	struct tc_consumerd_tunnel *tunnel = NULL;
	pthread_t thread;

	g_assert_cmpint(pthread_create(&thread, NULL, start_and_end_cb, &tunnel), ==, 0);
	g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
	g_assert_cmpint(check_until_exited(tunnel), ==, -ECONNABORTED);
	g_assert_cmpstr(tc_consumerd_tunnel_reason(tunnel), ==, "ssh was killed by signal 9");
	tc_consumerd_tunnel_stop(tunnel);
}

static void
test_refused_spec(void)
{
	static const struct {
		const char *host, *user;
	} bad[] = {
	    {"-oProxyCommand=touch /tmp/x", NULL},
	    {"relay", "-oProxyCommand=x"},
	    {"relay example", NULL},
	    {"relay", "a@b"},
	    {"", NULL},
	};
	struct tc_consumerd_tunnel *tunnel = NULL;
	g_autofree char *args = NULL;

	forget_state();
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		const struct tc_consumerd_tunnel_spec spec = {
		    .host = bad[i].host, .user = bad[i].user, .control_port = 1, .data_port = 2};

		g_assert_cmpint(tc_consumerd_tunnel_start(&spec, &tunnel), ==, -EINVAL);
	}
	/* Nothing ran. */
	args = state_file("args");
	g_assert_null(args);
}

static void
test_no_ssh(void)
{
	const struct tc_consumerd_tunnel_spec spec = {
	    .host = "relay", .control_port = 1, .data_port = 2};
	struct tc_consumerd_tunnel *tunnel = NULL;
	g_autofree char *path = g_strdup(g_getenv("PATH"));

	g_setenv("PATH", "/nonexistent", TRUE);
	g_assert_cmpint(tc_consumerd_tunnel_start(&spec, &tunnel), ==, -ENOENT);
	g_setenv("PATH", path, TRUE);
}

int
main(int argc, char **argv)
{
	g_autofree char *program = NULL;
	int ret;

	g_test_init(&argc, &argv, NULL);
	if (access("/usr/bin/python3", X_OK) != 0) {
		g_test_skip("/usr/bin/python3 plays ssh here");
		return 77;
	}
	setup_fake_ssh();
	g_test_add_func("/tracectl/consumerd/tunnel/listens", test_listens);
	g_test_add_func("/tracectl/consumerd/tunnel/configuration-decides",
			test_configuration_decides);
	g_test_add_func("/tracectl/consumerd/tunnel/prefers-aes-gcm", test_prefers_aes_gcm);
	g_test_add_func("/tracectl/consumerd/tunnel/refused", test_refused);
	g_test_add_func("/tracectl/consumerd/tunnel/long-lines", test_long_lines);
	g_test_add_func("/tracectl/consumerd/tunnel/killed", test_killed);
	g_test_add_func("/tracectl/consumerd/tunnel/flood-never-blocks", test_flood_never_blocks);
	g_test_add_func("/tracectl/consumerd/tunnel/dies-with-its-thread",
			test_dies_with_its_thread);
	g_test_add_func("/tracectl/consumerd/tunnel/refused-spec", test_refused_spec);
	g_test_add_func("/tracectl/consumerd/tunnel/no-ssh", test_no_ssh);
	ret = g_test_run();
	forget_state();
	program = g_build_filename(state_dir, "ssh", NULL);
	unlink(program);
	rmdir(state_dir);
	return ret;
}
