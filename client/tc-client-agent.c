/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A text polkit agent for our own process, as systemctl starts one: over
 * SSH there is no desktop agent, and an administrator outside the tracing
 * group would be refused instead of asked for a password. The agent
 * (pkttyagent, from polkitd) reads the password on our terminal, so it runs
 * only when standard input and error are a terminal, and never with
 * --no-ask-password, which also stops the calls from asking for
 * interaction at all. The agent serves this process only, so it takes
 * precedence over a desktop's agent for our calls: without --fallback, as
 * polkit ignores a fallback agent registered for a process.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tc-client.h"

#define NO_ASK_PASSWORD_OPTION "--no-ask-password"
/* How long the agent may take to register with polkitd: past that, the
 * call goes on, and polkit refuses it if it needs a password. */
#define AGENT_REGISTER_TIMEOUT_MS 10000

static gboolean ask_password = TRUE;

void
tc_client_agent_take_option(int *argc, char **argv)
{
	int kept = 0, i;

	for (i = 0; i < *argc && !g_str_equal(argv[i], "--"); i++)
		if (g_str_equal(argv[i], NO_ASK_PASSWORD_OPTION))
			ask_password = FALSE;
		else
			argv[kept++] = argv[i];
	for (; i < *argc; i++)
		argv[kept++] = argv[i];
	argv[kept] = NULL;
	*argc = kept;
}

gboolean
tc_client_agent_may_ask(void)
{
	return ask_password;
}

/* Waits until the agent closes its end of the pipe: then it is registered
 * with polkitd, and a call made now finds it. */
static void
wait_registered(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char byte;

	while (poll(&pfd, 1, AGENT_REGISTER_TIMEOUT_MS) < 0 && errno == EINTR)
		;
	while (read(fd, &byte, 1) < 0 && errno == EINTR)
		;
}

GSubprocess *
tc_client_agent_open(void)
{
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *program = NULL;
	g_autofree char *pid = NULL;
	GSubprocess *agent;
	int pipe_fds[2];

	/* pkttyagent would answer this machine's polkit: with -H, the
	 * remote polkit asks its own agents, if any. */
	if (tc_client_is_remote() || !ask_password || !isatty(STDIN_FILENO) ||
	    !isatty(STDERR_FILENO))
		return NULL;
	program = g_find_program_in_path("pkttyagent");
	if (program == NULL)
		return NULL;
	if (!g_unix_open_pipe(pipe_fds, FD_CLOEXEC, NULL))
		return NULL;
	pid = g_strdup_printf("%d", (int)getpid());
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_INHERIT);
	/* The launcher closes our copy of the write end when it goes. */
	g_subprocess_launcher_take_fd(launcher, pipe_fds[1], 3);
	agent = g_subprocess_launcher_spawn(launcher, &error, program, "--notify-fd", "3",
					    "--process", pid, NULL);
	g_clear_object(&launcher);
	if (agent == NULL)
		g_debug("Cannot start %s: %s", program, error->message);
	else
		wait_registered(pipe_fds[0]);
	close(pipe_fds[0]);
	return agent;
}

void
tc_client_agent_close(GSubprocess *agent)
{
	if (agent == NULL)
		return;
	g_subprocess_send_signal(agent, SIGTERM);
	g_subprocess_wait(agent, NULL, NULL);
	g_object_unref(agent);
}
