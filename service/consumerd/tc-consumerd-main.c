/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl-consumerd: the per-user process that owns a user's ring buffers
 * and writes them out as CTF 1.8 traces. tracectld starts it already
 * running as the session owner, with the command socket as fd 3 (see
 * common/abi/tc-consumer-abi.h) and stderr going to the service's log.
 *
 * Threads:
 *
 *   main     owns the command socket and the list of session threads;
 *            ppoll(command socket) -> a request: served here when it
 *            names no session (SESSION_FILES, a malformed one) or asks
 *            for a relay's status (published by the session's thread),
 *            else handed to its session's thread; CREATE_SESSION starts
 *            that thread. It never waits for a session's output.
 *   session  one per session (tc-consumerd-session-thread.h): its timers,
 *            wake-ups, packets, files or relay, and its requests.
 *   writer   one per session thread: its direct-I/O packet writes
 *            (tc-consumerd-writer.h).
 *
 * EOF on the socket, SIGTERM or SIGINT: every session thread flushes and
 * writes out its session, all are joined, exit 0. SIGTERM and SIGINT are
 * blocked except inside the main thread's ppoll() (every other thread
 * blocks every signal), so that the stop flag is never missed and never
 * interrupts a write.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "tc-consumer-abi.h"
#include "tc-consumerd-command.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-session-thread.h"

/* Exit status of a consumer that refuses to serve the service it reached;
 * tracectl-consumer@.service does not restart it (RestartPreventExitStatus). */
#define CONSUMERD_EXIT_REFUSED 3

struct tc_consumerd_options {
	unsigned long uid;   /* for logging only */
	const char *connect; /* systemd units: the service's consumer socket */
};

static volatile sig_atomic_t stop_signal;

static void
stop_signal_cb(int signal_number)
{
	stop_signal = signal_number;
}

static void
usage(FILE *out)
{
	fprintf(out, "Usage: tracectl-consumerd [--uid UID] [--connect SOCKET]\n"
		     "Writes out the ring buffers of one user's tracing sessions.\n"
		     "Started by tracectld with its command socket as file descriptor %d,\n"
		     "or, as a systemd unit, connecting to tracectld's SOCKET.\n",
		     TC_CONSUMER_COMMAND_FD);
}

/* Returns 0, or 1 after printing a message (exit status 2). */
static int
parse_options(int argc, char **argv, struct tc_consumerd_options *options)
{
	static const struct option longopts[] = {
		{"uid", required_argument, NULL, 'u'},
		{"connect", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int opt;

	options->uid = (unsigned long)getuid();
	options->connect = NULL;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			errno = 0;
			options->uid = strtoul(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || optarg[0] == '-' ||
			    options->uid > UINT_MAX) {
				fprintf(stderr, "tracectl-consumerd: invalid uid \"%s\"\n", optarg);
				return 1;
			}
			break;
		case 'c':
			options->connect = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'V':
			printf("tracectl-consumerd %s\n", PACKAGE_VERSION);
			exit(EXIT_SUCCESS);
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 1;
	}
	return 0;
}

/*
 * Connects to the service's consumer socket and makes it the command
 * socket. The service knows us by our uid (SO_PEERCRED), so there is
 * nothing to prove. Returns 0 or -errno.
 */
static int
connect_command_socket(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, ret = 0;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* Under systemd the new socket may already be descriptor 3. */
	if (fd != TC_CONSUMER_COMMAND_FD) {
		if (dup2(fd, TC_CONSUMER_COMMAND_FD) < 0)
			ret = -errno;
		close(fd);
	}
	return ret;
}

/*
 * A consumer running as root writes wherever the service tells it to: it
 * may serve only a service that is root itself, or the service's account
 * could use it to write any file (a unit, tracectl-consumer@0.service,
 * can be started by others than root's service). The listening end's
 * credentials are the kernel's, taken when it called listen().
 * Returns 0, -EPERM when refused, or -errno.
 */
static int
check_service_for_root(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getuid() != 0 && geteuid() != 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (cred.uid != 0) {
		tc_consumerd_error(
		    "Refusing to serve, as root, a service running as uid %u (pid %ld): "
		    "a root consumer serves only a service running as root",
		    (unsigned)cred.uid, (long)cred.pid);
		return -EPERM;
	}
	return 0;
}

/* Checks that fd 3 is the SOCK_SEQPACKET socket of the protocol. */
static int
check_command_socket(int fd)
{
	struct stat st;
	socklen_t len = sizeof(int);
	int type;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return -errno;
	return type == SOCK_SEQPACKET ? 0 : -EPROTOTYPE;
}

/* Blocks SIGTERM and SIGINT, installs their handler; *unblocked is the
 * mask to use inside ppoll(). */
static void
setup_signals(sigset_t *unblocked)
{
	struct sigaction action = {.sa_handler = stop_signal_cb};
	sigset_t stop_set;

	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_set, unblocked);
	sigdelset(unblocked, SIGTERM);
	sigdelset(unblocked, SIGINT);
	sigemptyset(&action.sa_mask);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	/* Writes use MSG_NOSIGNAL; this covers anything else. */
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit must cost packets (EFBIG), not the consumer. */
	signal(SIGXFSZ, SIG_IGN);
}

/* Each stream holds a file descriptor, up to 4096 per channel: take what
 * the hard limit allows. */
static void
raise_file_limit(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) < 0 || limit.rlim_cur == limit.rlim_max)
		return;
	limit.rlim_cur = limit.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &limit) < 0)
		tc_consumerd_warning("Failed to raise the open file limit, ignoring: %m");
}

/* Hands request to the thread that serves it, or serves it here when it
 * names no session or only asks for what a session thread published. */
static void
route_request(struct tc_consumerd_session_thread **threads, struct tc_consumerd_request *request)
{
	struct tc_consumerd_session_thread *thread;
	struct tc_consumerd_relay_status status;
	enum tc_consumerd_request_kind kind;
	uint64_t session_id = 0;
	char why[64];

	kind = tc_consumerd_command_classify(request, &session_id);
	if (kind == CONSUMERD_REQUEST_NO_SESSION) {
		tc_consumerd_command_serve(request, NULL);
		return;
	}
	thread = tc_consumerd_session_thread_find(*threads, session_id);
	if (kind == CONSUMERD_REQUEST_CREATE) {
		snprintf(why, sizeof(why), "Session %" PRIu64 " exists already", session_id);
		if (thread)
			tc_consumerd_command_refuse(request, -EEXIST, why);
		else
			tc_consumerd_session_thread_start(threads, session_id, request);
		return;
	}
	snprintf(why, sizeof(why), "No session %" PRIu64, session_id);
	if (!thread) {
		tc_consumerd_command_refuse(request, -ENOENT, why);
		return;
	}
	if (kind == CONSUMERD_REQUEST_RELAY_STATUS) {
		tc_consumerd_command_answer_relay_status(
		    request,
		    tc_consumerd_session_thread_relay_status(thread, &status) ? &status : NULL);
		return;
	}
	if (!tc_consumerd_session_thread_submit(thread, request))
		tc_consumerd_command_refuse(request, -ENOENT, why);
}

/*
 * Receives requests and hands them to their session's thread until the
 * service goes away or a stop signal arrives; never waits for a session.
 * Returns 0, or -errno when ppoll() failed.
 */
static int
run(int fd, struct tc_consumerd_session_thread **threads, const sigset_t *unblocked)
{
	struct tc_consumerd_request *request;
	struct pollfd pfd;
	int ret;

	while (!stop_signal) {
		tc_consumerd_session_thread_reap(threads);
		pfd = (struct pollfd){.fd = fd, .events = POLLIN};
		ret = ppoll(&pfd, 1, NULL, unblocked);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (pfd.revents & POLLNVAL)
			return -EBADF;
		ret = tc_consumerd_command_receive(fd, &request);
		if (ret == -EPIPE)
			break;
		if (ret == 0)
			route_request(threads, request);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct tc_consumerd_session_thread *threads = NULL;
	struct tc_consumerd_options options;
	sigset_t unblocked;
	int ret;

	if (parse_options(argc, argv, &options) != 0)
		return 2;
	tc_consumerd_log_init(options.uid);
	/* Trace directories 0700, files 0600, whatever the parent's umask. */
	umask(0077);
	if (options.connect) {
		ret = connect_command_socket(options.connect);
		if (ret < 0) {
			tc_consumerd_error("Cannot connect to %s: %s", options.connect,
					   strerror(-ret));
			return EXIT_FAILURE;
		}
		ret = check_service_for_root(TC_CONSUMER_COMMAND_FD);
		if (ret == -EPERM)
			return CONSUMERD_EXIT_REFUSED;
		if (ret < 0) {
			tc_consumerd_error("Cannot check the service at %s: %s", options.connect,
					   strerror(-ret));
			return EXIT_FAILURE;
		}
	}
	ret = check_command_socket(TC_CONSUMER_COMMAND_FD);
	if (ret < 0) {
		tc_consumerd_error("File descriptor %d is not the command socket: %s",
				   TC_CONSUMER_COMMAND_FD, strerror(-ret));
		return EXIT_FAILURE;
	}
	setup_signals(&unblocked);
	raise_file_limit();
	tc_consumerd_debug("Started, pid %ld", (long)getpid());

	ret = run(TC_CONSUMER_COMMAND_FD, &threads, &unblocked);
	if (ret < 0)
		tc_consumerd_error("Failed to wait for requests, stopping: %s", strerror(-ret));
	else if (stop_signal)
		tc_consumerd_info("Stopping on signal %d", (int)stop_signal);
	tc_consumerd_session_thread_stop_all(&threads);
	close(TC_CONSUMER_COMMAND_FD);
	tc_consumerd_debug("Exiting");
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
