/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the per-user limits: accounting, the configuration file,
 * and the accountable user of an application. Run without root: users
 * and groups are named by number. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-peer-identity.h"
#include "tc-user-limits.h"

#define USER 4001
#define OTHER 4002

static char *
write_config(const char *text)
{
	g_autoptr(GError) error = NULL;
	char *path = NULL;
	int fd = g_file_open_tmp("tracectld-XXXXXX.conf", &path, &error);

	g_assert_no_error(error);
	close(fd);
	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
	return path;
}

static void
test_defaults(void)
{
	tc_user_limits_reset();
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_SESSIONS), ==, 64);
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_CONNECTIONS), ==, 1024);
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_BUFFER_BYTES), ==, 1024 * 1024 * 1024);
	g_assert_cmpuint(tc_user_limits_get(0, TC_LIMIT_SESSIONS), ==, TC_LIMIT_UNLIMITED);
	for (guint i = 0; i < TC_LIMIT_COUNT; i++)
		g_assert_nonnull(tc_user_limits_key(i));
}

static void
test_charge_release(void)
{
	TcUserCharge a, b, root;
	g_autoptr(GError) error = NULL;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_SESSIONS, 2);
	tc_user_limits_charge_init(&a, USER);
	tc_user_limits_charge_init(&b, USER);
	tc_user_limits_charge_init(&root, 0);
	g_assert_true(tc_user_limits_charge(&a, TC_LIMIT_SESSIONS, 1, NULL));
	g_assert_true(tc_user_limits_charge(&b, TC_LIMIT_SESSIONS, 1, NULL));
	g_assert_false(tc_user_limits_charge(&b, TC_LIMIT_SESSIONS, 1, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_assert_nonnull(strstr(error->message, "User 4001 would hold 3 sessions"));
	g_assert_nonnull(strstr(error->message, "'MaxSessions' of 2"));
	g_clear_error(&error);
	/* Another user has its own share; root has no limit. */
	{
		TcUserCharge other;

		tc_user_limits_charge_init(&other, OTHER);
		g_assert_true(tc_user_limits_charge(&other, TC_LIMIT_SESSIONS, 2, NULL));
		tc_user_limits_release(&other);
	}
	for (guint i = 0; i < 100; i++)
		g_assert_true(tc_user_limits_charge(&root, TC_LIMIT_SESSIONS, 1, NULL));
	tc_user_limits_release(&a);
	tc_user_limits_release(&a); /* twice is harmless */
	g_assert_true(tc_user_limits_charge(&a, TC_LIMIT_SESSIONS, 1, NULL));
	g_assert_false(tc_user_limits_charge(&a, TC_LIMIT_SESSIONS, 1, NULL));
	tc_user_limits_release(&a);
	tc_user_limits_release(&b);
}

static void
test_channels(void)
{
	TcUserCharge session;
	g_autoptr(GError) error = NULL;
	guint64 mib = 1024 * 1024;

	tc_user_limits_reset();
	tc_user_limits_charge_init(&session, USER);
	/* 64 MiB x 1024 sub-buffers on one CPU: over the channel's limit. */
	g_assert_false(tc_user_limits_charge_channel(&session, 0, 64 * mib * 1024, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_assert_nonnull(strstr(error->message, "MaxChannelBufferBytes"));
	g_clear_error(&error);
	/* Four of 256 MiB fill the user's 1 GiB; the fifth is refused. */
	for (guint i = 0; i < 4; i++)
		g_assert_true(tc_user_limits_charge_channel(&session, i, 256 * mib, NULL));
	g_assert_false(tc_user_limits_charge_channel(&session, 4, 256 * mib, &error));
	g_assert_nonnull(strstr(error->message, "MaxBufferBytes"));
	g_clear_error(&error);
	/* Nothing was counted for the refused ones. */
	g_assert_cmpuint(session.held[TC_LIMIT_CHANNELS], ==, 4);
	g_assert_cmpuint(session.held[TC_LIMIT_BUFFER_BYTES], ==, 1024 * mib);
	/* A session holds at most 64 channels. */
	g_assert_false(tc_user_limits_charge_channel(&session, 64, 1, &error));
	g_assert_nonnull(strstr(error->message, "MaxChannelsPerSession"));
	g_clear_error(&error);
	/* Kernel buffers replace their previous size. */
	tc_user_limits_release(&session);
	g_assert_true(tc_user_limits_recharge_buffer(&session, 0, 800 * mib, &error) == FALSE);
	g_clear_error(&error);
	g_assert_true(tc_user_limits_recharge_buffer(&session, 0, 200 * mib, NULL));
	g_assert_true(tc_user_limits_recharge_buffer(&session, 200 * mib, 100 * mib, NULL));
	g_assert_cmpuint(session.held[TC_LIMIT_BUFFER_BYTES], ==, 100 * mib);
	tc_user_limits_release(&session);
}

static void
test_events(void)
{
	TcUserCharge apps[5];
	g_autoptr(GError) error = NULL;
	guint i;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_METADATA_BYTES, TC_LIMIT_UNLIMITED);
	for (i = 0; i < G_N_ELEMENTS(apps); i++)
		tc_user_limits_charge_init(&apps[i], USER);
	for (i = 0; i < 16384; i++)
		g_assert_true(tc_user_limits_charge_event(&apps[0], i, 100, NULL));
	g_assert_false(tc_user_limits_charge_event(&apps[0], i, 100, &error));
	g_assert_nonnull(strstr(error->message, "MaxEventDescriptionsPerApplication"));
	g_clear_error(&error);
	/* Four applications of 16384 hold the user's 65536. */
	for (guint app = 1; app < 4; app++)
		for (i = 0; i < 16384; i++)
			g_assert_true(tc_user_limits_charge_event(&apps[app], i, 100, NULL));
	g_assert_false(tc_user_limits_charge_event(&apps[4], 0, 100, &error));
	g_assert_nonnull(strstr(error->message, "'MaxEventDescriptions' of 65536"));
	g_clear_error(&error);
	tc_user_limits_release(&apps[0]);
	g_assert_true(tc_user_limits_charge_event(&apps[4], 0, 100, NULL));
	/* Metadata bytes bound descriptions of many fields. */
	tc_user_limits_reset();
	for (i = 0; i < G_N_ELEMENTS(apps); i++)
		tc_user_limits_charge_init(&apps[i], USER);
	for (i = 0; tc_user_limits_charge_event(&apps[i / 16384], i % 16384, 4096, &error); i++)
		;
	g_assert_cmpuint(i, ==, 32 * 1024 * 1024 / 4096);
	g_assert_nonnull(strstr(error->message, "MaxMetadataBytes"));
	for (i = 0; i < G_N_ELEMENTS(apps); i++)
		tc_user_limits_release(&apps[i]);
}

static void
test_config(void)
{
	g_autofree char *path = write_config(
		"# comment\n"
		"[Limits]\n"
		"MaxSessions=10\n"
		"MaxBufferBytes=2G\n"
		"[User 4001]\n"
		"MaxSessions=20\n"
		"MaxConnections=infinity\n"
		"[User 4002]\n"
		"MaxSessions=5\n"
		"[User no-such-user-of-this-system]\n"
		"MaxSessions=1\n");
	g_autoptr(GError) error = NULL;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_CHANNELS, 7); /* an option wins */
	g_test_expect_message("tracectld-limits", G_LOG_LEVEL_WARNING,
			      "*[User no-such-user-of-this-system] names no user*");
	g_assert_true(tc_user_limits_load(path, TRUE, &error));
	g_test_assert_expected_messages();
	g_assert_no_error(error);
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_SESSIONS), ==, 20);
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_CONNECTIONS), ==, TC_LIMIT_UNLIMITED);
	/* A user's group may also lower it. */
	g_assert_cmpuint(tc_user_limits_get(OTHER, TC_LIMIT_SESSIONS), ==, 5);
	g_assert_cmpuint(tc_user_limits_get(OTHER, TC_LIMIT_BUFFER_BYTES), ==,
			 G_GUINT64_CONSTANT(2) << 30);
	g_assert_cmpuint(tc_user_limits_get(4003, TC_LIMIT_SESSIONS), ==, 10);
	g_assert_cmpuint(tc_user_limits_get(4003, TC_LIMIT_CHANNELS), ==, 7);
	{
		TcUserCharge charge;

		tc_user_limits_charge_init(&charge, OTHER);
		g_assert_true(tc_user_limits_charge(&charge, TC_LIMIT_SESSIONS, 5, NULL));
		g_assert_false(tc_user_limits_charge(&charge, TC_LIMIT_SESSIONS, 1, &error));
		g_assert_nonnull(strstr(error->message, path));
		g_clear_error(&error);
		tc_user_limits_release(&charge);
	}
	g_unlink(path);
	/* Missing: fine unless asked for. */
	tc_user_limits_reset();
	g_assert_true(tc_user_limits_load(path, FALSE, NULL));
	g_assert_false(tc_user_limits_load(path, TRUE, &error));
	g_clear_error(&error);
}

static void
test_config_errors(void)
{
	const struct {
		const char *text;
		const char *named;
	} cases[] = {
		{"[Limits]\nMaxSesions=3\n", "MaxSesions"},
		{"[Limits]\nMaxSessions=lots\n", "MaxSessions='lots'"},
		{"[Limits]\nMaxSessions=-1\n", "MaxSessions"},
		{"[Limits]\nMaxBufferBytes=99999999999T\n", "MaxBufferBytes"},
		{"[Limit]\nMaxSessions=3\n", "[Limit]"},
		{"[User]\nMaxSessions=3\n", "[User]"},
		{"[Group 77]\nMaxConnection=3\n", "MaxConnection"},
		{"MaxSessions=3\n", "tracectld-"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = write_config(cases[i].text);
		g_autoptr(GError) error = NULL;

		tc_user_limits_reset();
		g_assert_false(tc_user_limits_load(path, TRUE, &error));
		g_assert_nonnull(error);
		if (strstr(error->message, cases[i].named) == NULL)
			g_error("'%s' does not name '%s'", error->message, cases[i].named);
		g_assert_nonnull(strstr(error->message, path));
		/* Nothing of a bad file is kept. */
		g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_SESSIONS), ==, 64);
		g_unlink(path);
	}
}

/* Contents already read (the fuzz target's way in) are read as a file's. */
static void
test_config_data(void)
{
	static const char good[] = "[Limits]\nMaxSessions=2K\n";
	static const char bad[] = "[Limits]\nMaxSessions=2Q\n";
	g_autoptr(GError) error = NULL;

	tc_user_limits_reset();
	g_assert_true(tc_user_limits_load_data(good, strlen(good), "conf", &error));
	g_assert_no_error(error);
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_SESSIONS), ==, 2048);
	tc_user_limits_reset();
	g_assert_false(tc_user_limits_load_data(bad, strlen(bad), "conf", &error));
	g_assert_true(g_str_has_prefix(error->message, "conf: [Limits] MaxSessions='2Q'"));
	g_assert_cmpuint(tc_user_limits_get(USER, TC_LIMIT_SESSIONS), ==, 64);
}

static void
test_user_slice(void)
{
	uid_t uid = 0;

	g_assert_true(tc_peer_identity_parse_user_slice(
		"0::/user.slice/user-1000.slice/session-3.scope\n", &uid));
	g_assert_cmpuint(uid, ==, 1000);
	g_assert_true(tc_peer_identity_parse_user_slice(
		"0::/user.slice/user-1001.slice/user@1001.service/app.slice/x.service\n", &uid));
	g_assert_cmpuint(uid, ==, 1001);
	g_assert_false(tc_peer_identity_parse_user_slice("0::/system.slice/cron.service\n", &uid));
	g_assert_false(tc_peer_identity_parse_user_slice("0::/\n", &uid));
	g_assert_false(tc_peer_identity_parse_user_slice("0::/x/user-12x.slice/\n", &uid));
	g_assert_false(tc_peer_identity_parse_user_slice("0::/x/user-.slice/\n", &uid));
	g_assert_false(tc_peer_identity_parse_user_slice(NULL, &uid));
}

/* Our own socket pair: the peer is this process, alive. */
static void
test_peer_self(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	TcPeerUserSource source;
	g_autoptr(GError) error = NULL;
	int fds[2];
	uid_t user = 12345;

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds), ==, 0);
	g_assert_cmpint(getsockopt(fds[0], SOL_SOCKET, SO_PEERCRED, &cred, &len), ==, 0);
	g_assert_true(tc_peer_identity_accountable_user(fds[0], &cred, &user, &source, &error));
	g_assert_no_error(error);
	if (source == TC_PEER_USER_FROM_UID)
		g_assert_cmpuint(user, ==, getuid());
	/* A pid that is not the peer's any more is refused. */
	cred.pid = 0x3fffffff;
	g_assert_false(tc_peer_identity_accountable_user(fds[0], &cred, &user, &source, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	close(fds[0]);
	close(fds[1]);
}

/* tracectld runs as its own user and checks other users' applications:
 * the check must need no right over the peer. Needs root to become
 * another user; skipped otherwise. */
static void
test_peer_other_user(void)
{
	int fds[2];
	pid_t child;
	int status;

	if (getuid() != 0) {
		g_test_skip("needs root to check a peer as another user");
		return;
	}
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		TcPeerUserSource source;
		uid_t user;

		/* The peer is the parent, root; the checker is nobody. */
		if (getsockopt(fds[0], SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
		    setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(!tc_peer_identity_accountable_user(fds[0], &cred, &user, &source, NULL));
	}
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, 0);
	close(fds[0]);
	close(fds[1]);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/user-limits/defaults", test_defaults);
	g_test_add_func("/tracectl/user-limits/charge-release", test_charge_release);
	g_test_add_func("/tracectl/user-limits/channels", test_channels);
	g_test_add_func("/tracectl/user-limits/events", test_events);
	g_test_add_func("/tracectl/user-limits/config", test_config);
	g_test_add_func("/tracectl/user-limits/config-errors", test_config_errors);
	g_test_add_func("/tracectl/user-limits/config-data", test_config_data);
	g_test_add_func("/tracectl/user-limits/user-slice", test_user_slice);
	g_test_add_func("/tracectl/user-limits/peer-self", test_peer_self);
	g_test_add_func("/tracectl/user-limits/peer-other-user", test_peer_other_user);
	return g_test_run();
}
