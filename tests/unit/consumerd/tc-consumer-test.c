/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of tracectl-consumerd: this program plays the service. It starts
 * the built consumer on a socket pair, creates sessions and channels over
 * the protocol of common/abi/tc-consumer-abi.h, maps the memfds it gets
 * back and writes events into them like an application would, then checks
 * the trace files, with babeltrace2 when it is installed.
 *
 * TRACECTL_CONSUMERD names the consumer binary (set by meson).
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-rb.h"
#include "tc-rb-ctf.h"

#define BABELTRACE2 "/usr/bin/babeltrace2"
#define TEST_SUBBUF_SIZE 4096u
#define TEST_NUM_SUBBUF 4u
#define TEST_STREAM_ID 0u
#define TEST_MAX_CPUS 4u
#define TEST_REPLY_TIMEOUT_MS 10000
#define TEST_EXIT_TIMEOUT_MS 10000

static const uint8_t test_uuid[16] = {0x3b, 0x8a, 0x1c, 0x52, 0x77, 0x0e, 0x4d, 0x1f,
				      0x9a, 0x6b, 0x21, 0x34, 0x55, 0xc0, 0xde, 0x01};

/* The records the test writes: event id 0 with two 64-bit fields, behind
 * the extended header (the full timestamp). */
struct test_event {
	struct tc_event_header_extended header;
	uint64_t seq;
	uint64_t value;
} __attribute__((packed));

/*
 * A CTF 1.8 description of exactly what tc-rb writes: the packet header and
 * context of struct tc_packet_header, the compact or extended record header
 * (tc-rb.h), every other field byte-aligned (align = 8 bits), little endian.
 * The packet header and context are the service's own (tc-rb-ctf.h).
 * %s is the trace UUID.
 */
static const char test_metadata_format[] =
	"/* CTF 1.8 */\n"
	"\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"\n"
	"trace {\n"
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tuuid = \"%s\";\n"
	"\tbyte_order = le;\n"
	TC_CTF_PACKET_HEADER
	"};\n"
	"\n"
	"env {\n"
	"\tdomain = \"ust\";\n"
	"\ttracer_name = \"tracectl\";\n"
	"\ttracer_major = 0;\n"
	"\ttracer_minor = 1;\n"
	"};\n"
	"\n"
	"clock {\n"
	"\tname = \"monotonic\";\n"
	"\tdescription = \"CLOCK_MONOTONIC\";\n"
	"\tfreq = 1000000000;\n"
	"\tprecision = 1;\n"
	"\toffset_s = 0;\n"
	"\toffset = 0;\n"
	"\tabsolute = true;\n"
	"};\n"
	"\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } "
	":= uint64_clock_monotonic_t;\n"
	"typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } "
	":= uint27_clock_monotonic_t;\n"
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	"\n"
	"stream {\n"
	"\tid = 0;\n"
	TC_CTF_PACKET_CONTEXT
	"\tevent.header := struct {\n"
	"\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	"\t\tvariant <id> {\n"
	"\t\t\tstruct { uint27_clock_monotonic_t timestamp; } compact;\n"
	"\t\t\tstruct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;\n"
	"\t\t} v;\n"
	"\t} align(8);\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"tracectl_test:sample\";\n"
	"\tid = 0;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 13;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 64; align = 8; signed = false; base = 10; } seq;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; base = 10; } value;\n"
	"\t} align(8);\n"
	"};\n";

struct test_buffer {
	int memfd;
	void *mapping;
	uint64_t size;
	struct tc_rb rb;
};

typedef struct {
	char *base_dir;  /* temporary, removed at teardown */
	char *trace_dir; /* base_dir/a/b/trace: created by the consumer */
	char *log_path;  /* the consumer's stderr */
	int fd;          /* the service's end of the command socket */
	GPid pid;
	gboolean has_exited;
	int exit_status;
	uint32_t nr_buffers;
	struct test_buffer buffers[TEST_MAX_CPUS];
} Fixture;

/* Process setup */

/* data: a file size limit in bytes for the consumer, or 0. */
static void
child_setup_cb(gpointer data)
{
	struct rlimit limit = {.rlim_cur = GPOINTER_TO_SIZE(data), .rlim_max = RLIM_INFINITY};

	/* The consumer must set its own modes, whatever it inherits. */
	umask(0);
	if (limit.rlim_cur)
		setrlimit(RLIMIT_FSIZE, &limit);
}

static void
fixture_spawn(Fixture *fixture, gconstpointer file_size_limit)
{
	const char *path = g_getenv("TRACECTL_CONSUMERD");
	g_autofree char *uid = g_strdup_printf("%u", (unsigned)getuid());
	const char *argv[] = {path, "--uid", uid, NULL};
	int pair[2], log_fd, target_fd = TC_CONSUMER_COMMAND_FD;
	g_autoptr(GError) error = NULL;

	g_assert_nonnull(path);
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), ==, 0);
	log_fd = open(fixture->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	g_assert_cmpint(log_fd, >=, 0);
	g_spawn_async_with_pipes_and_fds(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
					 child_setup_cb, (gpointer)file_size_limit, -1, -1, log_fd,
					 &pair[1], &target_fd, 1, &fixture->pid, NULL, NULL, NULL,
					 &error);
	g_assert_no_error(error);
	close(log_fd);
	close(pair[1]);
	fixture->fd = pair[0];
}

static void
fixture_setup(Fixture *fixture, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fixture->base_dir = g_dir_make_tmp("tc-consumerd-test-XXXXXX", &error);
	g_assert_no_error(error);
	fixture->trace_dir = g_build_filename(fixture->base_dir, "a", "b", "trace", NULL);
	fixture->log_path = g_build_filename(fixture->base_dir, "consumerd.log", NULL);
	fixture->fd = -1;
	fixture_spawn(fixture, data);
}

static gboolean
fixture_wait_exit(Fixture *fixture, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 10) {
		pid_t pid = waitpid(fixture->pid, &fixture->exit_status, WNOHANG);

		g_assert_cmpint(pid, >=, 0);
		if (pid == fixture->pid) {
			fixture->has_exited = TRUE;
			return TRUE;
		}
		g_usleep(10000);
	}
	return FALSE;
}

static void
fixture_close_socket(Fixture *fixture)
{
	if (fixture->fd >= 0)
		close(fixture->fd);
	fixture->fd = -1;
}

static void
remove_tree(const char *path)
{
	const char *argv[] = {"rm", "-rf", "--", path, NULL};
	g_autoptr(GError) error = NULL;
	int status;

	g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
		     &status, &error);
	g_assert_no_error(error);
}

static void
fixture_teardown(Fixture *fixture, gconstpointer data)
{
	g_autofree char *log = NULL;

	fixture_close_socket(fixture);
	if (!fixture->has_exited && !fixture_wait_exit(fixture, TEST_EXIT_TIMEOUT_MS)) {
		kill(fixture->pid, SIGKILL);
		waitpid(fixture->pid, NULL, 0);
	}
	for (uint32_t i = 0; i < fixture->nr_buffers; i++) {
		munmap(fixture->buffers[i].mapping, fixture->buffers[i].size);
		close(fixture->buffers[i].memfd);
	}
	if (g_file_get_contents(fixture->log_path, &log, NULL, NULL) && *log) {
		g_test_message("consumer log:\n%s", log);
		/* Under -Db_sanitize, the consumer's reports land in its log. */
		g_assert_null(strstr(log, "runtime error"));
		g_assert_null(strstr(log, "Sanitizer"));
	}
	remove_tree(fixture->base_dir);
	g_free(fixture->base_dir);
	g_free(fixture->trace_dir);
	g_free(fixture->log_path);
}

/* Protocol */

static void
send_raw(Fixture *fixture, const void *msg, size_t len)
{
	g_assert_cmpint(send(fixture->fd, msg, len, MSG_NOSIGNAL), ==, (ssize_t)len);
}

/* Receives one message; its first fd, if any, goes to *fd (a stream's
 * memfd; its wake-up eventfd, the second, is checked and closed). Returns
 * its length. */
static ssize_t
receive_message(Fixture *fixture, void *buf, size_t max, int *fd)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = max};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct pollfd pfd = {.fd = fixture->fd, .events = POLLIN};
	struct cmsghdr *cmsg;
	ssize_t len;

	*fd = -1;
	g_assert_cmpint(poll(&pfd, 1, TEST_REPLY_TIMEOUT_MS), ==, 1);
	len = recvmsg(fixture->fd, &mh, MSG_CMSG_CLOEXEC);
	g_assert_cmpint(len, >, 0);
	g_assert_false(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
	cmsg = CMSG_FIRSTHDR(&mh);
	if (cmsg) {
		int fds[2];

		g_assert_cmpint(cmsg->cmsg_type, ==, SCM_RIGHTS);
		g_assert_cmpuint(cmsg->cmsg_len, ==, CMSG_LEN(sizeof(fds)));
		memcpy(fds, CMSG_DATA(cmsg), sizeof(fds));
		*fd = fds[0];
		/* The wake-up eventfd: 8-byte counter reads. */
		g_assert_cmpint(fcntl(fds[1], F_GETFL) & O_NONBLOCK, !=, 0);
		close(fds[1]);
	}
	return len;
}

/* Receives the reply of a request that sends no stream. */
static void
receive_reply(Fixture *fixture, struct tc_consumer_reply *reply)
{
	int fd;
	ssize_t len = receive_message(fixture, reply, sizeof(*reply), &fd);

	g_assert_cmpint(fd, ==, -1);
	g_assert_cmpint(len, ==, sizeof(*reply));
	g_assert_cmphex(reply->header.magic, ==, TC_CONSUMER_MAGIC);
	g_assert_cmpuint(reply->header.type, ==, TC_CONSUMER_REPLY);
	g_assert_cmpuint(reply->header.size, ==, sizeof(*reply));
	g_assert_nonnull(memchr(reply->message, '\0', sizeof(reply->message)));
}

static int
request(Fixture *fixture, void *msg, uint32_t type, uint32_t size,
	struct tc_consumer_reply *reply)
{
	struct tc_consumer_header *header = msg;

	header->magic = TC_CONSUMER_MAGIC;
	header->type = type;
	header->size = size;
	send_raw(fixture, msg, size);
	receive_reply(fixture, reply);
	return reply->status;
}

/* Sends a malformed or refused request: it must get an error reply. */
static void
assert_refused(Fixture *fixture, void *msg, uint32_t type, uint32_t size, int expected)
{
	struct tc_consumer_reply reply;

	g_assert_cmpint(request(fixture, msg, type, size, &reply), ==, expected);
	g_assert_cmpstr(reply.message, !=, "");
	g_test_message("refused as expected: %s", reply.message);
}

static int
create_session(Fixture *fixture, uint64_t session_id, const char *trace_dir)
{
	g_autofree struct tc_consumer_session *msg = g_new0(struct tc_consumer_session, 1);
	struct tc_consumer_reply reply;

	msg->session_id = session_id;
	g_assert_cmpuint(g_strlcpy(msg->trace_dir, trace_dir, sizeof(msg->trace_dir)), <,
			 sizeof(msg->trace_dir));
	return request(fixture, msg, TC_CONSUMER_CREATE_SESSION, sizeof(*msg), &reply);
}

static void
channel_msg_init(struct tc_consumer_channel *msg, uint64_t session_id, uint64_t channel_id,
		 const char *name, uint32_t nr_cpus)
{
	memset(msg, 0, sizeof(*msg));
	msg->session_id = session_id;
	msg->channel_id = channel_id;
	msg->stream_id = TEST_STREAM_ID;
	msg->nr_cpus = nr_cpus;
	msg->geometry.subbuf_size = TEST_SUBBUF_SIZE;
	msg->geometry.num_subbuf = TEST_NUM_SUBBUF;
	msg->geometry.read_timer_us = 100000; /* the service's default */
	msg->geometry.monitor_timer_us = 1000000;
	memcpy(msg->uuid, test_uuid, sizeof(msg->uuid));
	g_strlcpy(msg->name, name, sizeof(msg->name));
}

/* The layout of the test's only event class: id 0, two 64-bit fields. */
static void
send_layout(Fixture *fixture, uint64_t session_id)
{
	struct tc_consumer_event_layout msg = {
		.session_id = session_id,
		.stream_id = TEST_STREAM_ID,
		.event_id = 0,
		.nr_fields = 2,
		.fields = {8, 8},
	};
	struct tc_consumer_reply reply;

	g_assert_cmpint(request(fixture, &msg, TC_CONSUMER_EVENT_LAYOUT, sizeof(msg), &reply), ==,
			0);
}

/* Creates a channel and maps its buffers as an application would. */
static void
create_channel(Fixture *fixture, uint64_t session_id, uint64_t channel_id, const char *name,
	       uint32_t nr_cpus)
{
	struct tc_consumer_channel msg;
	union {
		struct tc_consumer_stream stream;
		struct tc_consumer_reply reply;
	} answer;
	uint32_t received = 0;

	g_assert_cmpuint(fixture->nr_buffers + nr_cpus, <=, TEST_MAX_CPUS);
	channel_msg_init(&msg, session_id, channel_id, name, nr_cpus);
	msg.header = (struct tc_consumer_header){TC_CONSUMER_MAGIC, TC_CONSUMER_CREATE_CHANNEL,
						 sizeof(msg), 0};
	send_raw(fixture, &msg, sizeof(msg));
	for (;;) {
		struct test_buffer *buffer = &fixture->buffers[fixture->nr_buffers];
		int fd;
		ssize_t len = receive_message(fixture, &answer, sizeof(answer), &fd);

		g_assert_cmphex(answer.stream.header.magic, ==, TC_CONSUMER_MAGIC);
		if (answer.stream.header.type == TC_CONSUMER_REPLY) {
			g_assert_cmpint(len, ==, sizeof(answer.reply));
			g_assert_cmpint(fd, ==, -1);
			g_assert_cmpint(answer.reply.status, ==, 0);
			break;
		}
		g_assert_cmpuint(answer.stream.header.type, ==, TC_CONSUMER_STREAM);
		g_assert_cmpint(len, ==, sizeof(answer.stream));
		g_assert_cmpint(fd, >=, 0);
		g_assert_cmpuint(answer.stream.channel_id, ==, channel_id);
		g_assert_cmpuint(answer.stream.cpu, ==, received);
		g_assert_cmpuint(answer.stream.shm_size, ==,
				 tc_rb_shm_size(TEST_SUBBUF_SIZE, TEST_NUM_SUBBUF));
		buffer->memfd = fd;
		buffer->size = answer.stream.shm_size;
		buffer->mapping = mmap(NULL, buffer->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				       0);
		g_assert_true(buffer->mapping != MAP_FAILED);
		g_assert_cmpint(tc_rb_attach(&buffer->rb, buffer->mapping, buffer->size), ==, 0);
		fixture->nr_buffers++;
		received++;
	}
	g_assert_cmpuint(received, ==, nr_cpus);
	send_layout(fixture, session_id);
}

static void
send_metadata(Fixture *fixture, uint64_t session_id)
{
	g_autofree char *uuid = g_strdup_printf(
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		test_uuid[0], test_uuid[1], test_uuid[2], test_uuid[3], test_uuid[4], test_uuid[5],
		test_uuid[6], test_uuid[7], test_uuid[8], test_uuid[9], test_uuid[10],
		test_uuid[11], test_uuid[12], test_uuid[13], test_uuid[14], test_uuid[15]);
	g_autofree char *text = g_strdup_printf(test_metadata_format, uuid);
	size_t len = strlen(text), half = len / 2;
	g_autofree uint8_t *buf = g_malloc0(sizeof(struct tc_consumer_metadata) + len);
	struct tc_consumer_metadata *msg = (void *)buf;
	struct tc_consumer_reply reply;

	/* In two chunks, as the service does for long metadata. */
	msg->session_id = session_id;
	memcpy(buf + sizeof(*msg), text, half);
	g_assert_cmpint(request(fixture, msg, TC_CONSUMER_METADATA, sizeof(*msg) + half, &reply),
			==, 0);
	memset(msg, 0, sizeof(*msg));
	msg->session_id = session_id;
	memcpy(buf + sizeof(*msg), text + half, len - half);
	g_assert_cmpint(
		request(fixture, msg, TC_CONSUMER_METADATA, sizeof(*msg) + len - half, &reply), ==,
		0);
}

static int
session_request(Fixture *fixture, uint32_t type, uint64_t session_id,
		struct tc_consumer_reply *reply)
{
	struct tc_consumer_session_ref msg = {.session_id = session_id};

	return request(fixture, &msg, type, sizeof(msg), reply);
}

/* The application side */

/* Returns 0, or -ENOBUFS when the buffer is full (the event is discarded). */
static int
try_write_event(struct test_buffer *buffer, uint64_t seq, uint64_t value)
{
	struct test_event event;
	struct tc_rb_ctx ctx;
	int ret;

	ret = tc_rb_reserve(&buffer->rb, &ctx, sizeof(event));
	if (ret < 0)
		return ret;
	event.header.tag = TC_EVENT_EXTENDED_TAG;
	event.header.id = 0;
	event.header.timestamp = ctx.timestamp;
	event.seq = seq;
	event.value = value;
	tc_rb_write(&ctx, 0, &event, sizeof(event));
	tc_rb_commit(&ctx);
	return 0;
}

/* An event of class id, which has no layout unless id is 0. */
static void
write_event_of_class(struct test_buffer *buffer, uint32_t id, uint64_t seq)
{
	struct test_event event;
	struct tc_rb_ctx ctx;

	g_assert_cmpint(tc_rb_reserve(&buffer->rb, &ctx, sizeof(event)), ==, 0);
	event.header.tag = TC_EVENT_EXTENDED_TAG;
	event.header.id = id;
	event.header.timestamp = ctx.timestamp;
	event.seq = seq;
	event.value = 0;
	tc_rb_write(&ctx, 0, &event, sizeof(event));
	tc_rb_commit(&ctx);
}

static void
write_event(struct test_buffer *buffer, uint64_t seq, uint64_t value)
{
	g_assert_cmpint(try_write_event(buffer, seq, value), ==, 0);
}

static uint64_t
event_value(uint64_t seq)
{
	return seq * 1000003u + 17u;
}

/* The packet header of the sub-buffer being filled, as the app sees it. */
static struct tc_packet_header *
current_packet(struct test_buffer *buffer)
{
	uint64_t offset = __atomic_load_n(&buffer->rb.shm->write_offset, __ATOMIC_ACQUIRE);
	uint64_t index = (offset - 1) / TEST_SUBBUF_SIZE % TEST_NUM_SUBBUF;

	return (struct tc_packet_header *)(buffer->rb.data + index * TEST_SUBBUF_SIZE);
}

/* Checks */

static goffset
file_size(const char *dir, const char *name)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	GStatBuf st;

	g_assert_cmpint(g_stat(path, &st), ==, 0);
	return st.st_size;
}

static void
assert_mode(const char *path, mode_t type, mode_t mode)
{
	GStatBuf st;

	g_assert_cmpint(g_lstat(path, &st), ==, 0);
	g_assert_cmpuint(st.st_mode & S_IFMT, ==, type);
	g_assert_cmpuint(st.st_mode & 07777, ==, mode);
}

static gboolean
has_babeltrace2(void)
{
	if (g_file_test(BABELTRACE2, G_FILE_TEST_IS_EXECUTABLE))
		return TRUE;
	g_test_skip(BABELTRACE2 " is not installed");
	return FALSE;
}

/* Runs babeltrace2 on the trace. Returns its lines of output; stderr must be
 * empty unless may_warn, and goes to *warnings when warnings is not NULL. */
static char **
read_trace_with_warnings(const char *trace_dir, gboolean may_warn, char **warnings)
{
	const char *argv[] = {BABELTRACE2, trace_dir, NULL};
	g_autofree char *out = NULL, *err = NULL;
	g_autoptr(GError) error = NULL;
	int status;

	g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
		     &error);
	g_assert_no_error(error);
	if (*err)
		g_test_message("babeltrace2 stderr:\n%s", err);
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	if (!may_warn)
		g_assert_cmpstr(err, ==, "");
	g_strchomp(out);
	g_test_message("babeltrace2 output:\n%s", out);
	if (warnings)
		*warnings = g_steal_pointer(&err);
	return *out ? g_strsplit(out, "\n", -1) : g_new0(char *, 1);
}

static char **
read_trace(const char *trace_dir, gboolean may_warn)
{
	return read_trace_with_warnings(trace_dir, may_warn, NULL);
}

/* Each line is one sample event: checks that lines hold exactly the events
 * first..last (in any order), each with its cpu. */
static void
assert_events(char **lines, uint64_t first, uint64_t last, uint32_t nr_cpus)
{
	guint n = g_strv_length(lines);
	g_autofree gboolean *seen = g_new0(gboolean, last - first + 1);

	g_assert_cmpuint(n, ==, last - first + 1);
	for (guint i = 0; i < n; i++) {
		const char *payload = strstr(lines[i], "tracectl_test:sample: ");
		uint64_t seq, value;
		unsigned cpu;

		g_assert_nonnull(payload);
		g_assert_cmpint(sscanf(payload,
				       "tracectl_test:sample: { cpu_id = %u }, { seq = %" SCNu64
				       ", value = %" SCNu64 " }",
				       &cpu, &seq, &value),
				==, 3);
		g_assert_cmpuint(seq, >=, first);
		g_assert_cmpuint(seq, <=, last);
		g_assert_false(seen[seq - first]);
		seen[seq - first] = TRUE;
		g_assert_cmpuint(value, ==, event_value(seq));
		g_assert_cmpuint(cpu, ==, seq % nr_cpus);
	}
}

/* Cases */

static void
test_round_trip(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2;
	/* (4096 - 84) / 28 = 143 events per packet: 200 per CPU is 2 packets. */
	const uint64_t nr_events = 400;
	struct tc_consumer_reply reply;
	g_auto(GStrv) lines = NULL;

	g_assert_cmpint(create_session(fixture, 1, fixture->trace_dir), ==, 0);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	for (uint64_t seq = 0; seq < nr_events; seq++)
		write_event(&fixture->buffers[seq % nr_cpus], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 4);
	g_assert_cmpuint(reply.packets_corrupted, ==, 0);
	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		g_autofree char *name = g_strdup_printf("channel0_%u", cpu);

		g_assert_cmpint(file_size(fixture->trace_dir, name), ==, 2 * TEST_SUBBUF_SIZE);
	}
	if (has_babeltrace2()) {
		lines = read_trace(fixture->trace_dir, FALSE);
		assert_events(lines, 0, nr_events - 1, nr_cpus);
	}

	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 4);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==,
			-ENOENT);
	fixture_close_socket(fixture);
	g_assert_true(fixture_wait_exit(fixture, TEST_EXIT_TIMEOUT_MS));
	g_assert_true(WIFEXITED(fixture->exit_status));
	g_assert_cmpint(WEXITSTATUS(fixture->exit_status), ==, 0);
}

static void
test_permissions(Fixture *fixture, gconstpointer data)
{
	g_autofree char *a = g_build_filename(fixture->base_dir, "a", NULL);
	g_autofree char *b = g_build_filename(a, "b", NULL);
	g_autofree char *metadata = g_build_filename(fixture->trace_dir, "metadata", NULL);
	g_autofree char *stream = g_build_filename(fixture->trace_dir, "chan_0", NULL);
	g_autofree char *empty = g_build_filename(fixture->base_dir, "empty", NULL);
	struct test_buffer *buffer;

	g_assert_cmpint(create_session(fixture, 7, fixture->trace_dir), ==, 0);
	create_channel(fixture, 7, 1, "chan", 1);
	assert_mode(a, S_IFDIR, 0700);
	assert_mode(b, S_IFDIR, 0700);
	assert_mode(fixture->trace_dir, S_IFDIR, 0700);
	assert_mode(metadata, S_IFREG, 0600);
	assert_mode(stream, S_IFREG, 0600);

	/* An existing empty directory is accepted and keeps its mode. */
	g_assert_cmpint(g_mkdir(empty, 0751), ==, 0);
	g_assert_cmpint(chmod(empty, 0751), ==, 0);
	g_assert_cmpint(create_session(fixture, 8, empty), ==, 0);
	assert_mode(empty, S_IFDIR, 0751);

	/* The buffers are sealed: an application cannot shrink them under the
	 * consumer, nor lift the seal. */
	buffer = &fixture->buffers[0];
	g_assert_cmpint(fcntl(buffer->memfd, F_GET_SEALS), ==, F_SEAL_SHRINK | F_SEAL_SEAL);
	g_assert_cmpint(ftruncate(buffer->memfd, 4096), ==, -1);
	g_assert_cmpint(errno, ==, EPERM);
	g_assert_cmpint(fcntl(buffer->memfd, F_ADD_SEALS, F_SEAL_WRITE), ==, -1);
	g_assert_cmpint(kill(fixture->pid, 0), ==, 0);
}

static void
test_malformed(Fixture *fixture, gconstpointer data)
{
	g_autofree struct tc_consumer_session *session = g_new0(struct tc_consumer_session, 1);
	g_autofree uint8_t *big = g_malloc0(TC_CONSUMER_MSG_MAX + 4096);
	g_autofree char *full = g_build_filename(fixture->base_dir, "full", NULL);
	g_autofree char *file = g_build_filename(full, "file", NULL);
	g_autofree char *link = g_build_filename(fixture->base_dir, "link", NULL);
	g_autofree char *dotdot = g_build_filename(fixture->base_dir, "x", "..", "y", NULL);
	struct tc_consumer_channel channel;
	struct tc_consumer_session_ref ref = {.session_id = 99};
	struct tc_consumer_header header = {TC_CONSUMER_MAGIC, 0, 0, 0};
	struct {
		struct tc_consumer_metadata msg;
		char text[8];
	} metadata = {.msg.session_id = 1, .text = "ab\0cd"};
	struct tc_consumer_reply reply;
	uint32_t word = TC_CONSUMER_MAGIC;
	int pipe_fds[2];

	/* Broken headers. */
	send_raw(fixture, &word, sizeof(word));
	receive_reply(fixture, &reply);
	g_assert_cmpint(reply.status, ==, -EBADMSG);
	header.magic = 0xdeadbeef;
	header.type = TC_CONSUMER_FLUSH_SESSION;
	header.size = sizeof(header);
	send_raw(fixture, &header, sizeof(header));
	receive_reply(fixture, &reply);
	g_assert_cmpint(reply.status, ==, -EBADMSG);
	header.magic = TC_CONSUMER_MAGIC;
	header.size = sizeof(header) + 1; /* size field lies */
	send_raw(fixture, &header, sizeof(header));
	receive_reply(fixture, &reply);
	g_assert_cmpint(reply.status, ==, -EBADMSG);
	assert_refused(fixture, &header, 42, sizeof(header), -EOPNOTSUPP);
	assert_refused(fixture, &header, TC_CONSUMER_REPLY, sizeof(header), -EOPNOTSUPP);
	assert_refused(fixture, &ref, TC_CONSUMER_FLUSH_SESSION, sizeof(ref) - 1, -EBADMSG);
	assert_refused(fixture, &ref, TC_CONSUMER_CREATE_SESSION, sizeof(ref), -EBADMSG);
	assert_refused(fixture, &metadata, TC_CONSUMER_METADATA, sizeof(struct tc_consumer_header),
		       -EBADMSG);
	/* Longer than TC_CONSUMER_MSG_MAX. */
	assert_refused(fixture, big, TC_CONSUMER_METADATA, TC_CONSUMER_MSG_MAX + 4096, -EMSGSIZE);
	/* A descriptor attached to a request is closed, the request served. */
	g_assert_cmpint(pipe(pipe_fds), ==, 0);
	{
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control = {0};
		struct iovec iov = {.iov_base = &ref, .iov_len = sizeof(ref)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = control.buf,
				    .msg_controllen = sizeof(control.buf)};
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);

		ref.header = (struct tc_consumer_header){TC_CONSUMER_MAGIC,
							 TC_CONSUMER_FLUSH_SESSION, sizeof(ref), 0};
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &pipe_fds[1], sizeof(int));
		g_assert_cmpint(sendmsg(fixture->fd, &mh, 0), ==, sizeof(ref));
		receive_reply(fixture, &reply);
		g_assert_cmpint(reply.status, ==, -ENOENT);
		close(pipe_fds[1]);
		/* EOF on the pipe: the consumer did not keep the write end. */
		g_assert_cmpint(read(pipe_fds[0], &word, 1), ==, 0);
		close(pipe_fds[0]);
	}

	/* Unknown sessions. */
	assert_refused(fixture, &ref, TC_CONSUMER_FLUSH_SESSION, sizeof(ref), -ENOENT);
	assert_refused(fixture, &ref, TC_CONSUMER_DESTROY_SESSION, sizeof(ref), -ENOENT);
	metadata.msg.session_id = 99;
	assert_refused(fixture, &metadata, TC_CONSUMER_METADATA, sizeof(metadata.msg) + 2, -ENOENT);
	channel_msg_init(&channel, 99, 1, "chan", 1);
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -ENOENT);

	/* Bad trace directories. */
	session->session_id = 1;
	memset(session->trace_dir, 'x', sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session), -EINVAL);
	g_strlcpy(session->trace_dir, "relative/trace", sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session), -EINVAL);
	g_strlcpy(session->trace_dir, dotdot, sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session), -EINVAL);
	g_assert_cmpint(g_mkdir(full, 0700), ==, 0);
	g_assert_true(g_file_set_contents(file, "x", 1, NULL));
	g_strlcpy(session->trace_dir, full, sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session),
		       -ENOTEMPTY);
	g_strlcpy(session->trace_dir, file, sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session), -ENOTDIR);
	g_assert_cmpint(symlink(full, link), ==, 0);
	g_strlcpy(session->trace_dir, link, sizeof(session->trace_dir));
	assert_refused(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session), -ELOOP);
	g_assert_true(g_file_test(file, G_FILE_TEST_EXISTS));

	/* A good session, then bad channels in it. */
	g_assert_cmpint(create_session(fixture, 1, fixture->trace_dir), ==, 0);
	g_assert_cmpint(create_session(fixture, 1, fixture->trace_dir), ==, -EEXIST);
	channel_msg_init(&channel, 1, 1, "chan", 0);
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	channel_msg_init(&channel, 1, 1, "chan", 4097);
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	channel_msg_init(&channel, 1, 1, "chan", 1);
	channel.geometry.subbuf_size = 5000;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	channel_msg_init(&channel, 1, 1, "chan", 1);
	channel.geometry.num_subbuf = 1;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	channel_msg_init(&channel, 1, 1, "chan", 1);
	channel.geometry.overwrite = 2;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	channel_msg_init(&channel, 1, 1, "chan", 1);
	channel.geometry.subbuf_size = TC_RB_SUBBUF_SIZE_MAX * 2;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	for (const char *const *name = (const char *const[]){"", ".hidden", "../x", "a/b", "a\nb",
							      NULL};
	     *name; name++) {
		channel_msg_init(&channel, 1, 1, *name, 1);
		assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel),
			       -EINVAL);
	}
	channel_msg_init(&channel, 1, 1, "chan", 1);
	memset(channel.name, 'n', sizeof(channel.name));
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EINVAL);
	/* A name too long for a file name: refused, nothing left behind. */
	channel_msg_init(&channel, 1, 1, "chan", 1);
	memset(channel.name, 'n', sizeof(channel.name) - 1);
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel),
		       -ENAMETOOLONG);
	/* Stream file collision on the second CPU: the first one is undone. */
	{
		g_autofree char *taken = g_build_filename(fixture->trace_dir, "clash_1", NULL);
		g_autofree char *first = g_build_filename(fixture->trace_dir, "clash_0", NULL);

		g_assert_true(g_file_set_contents(taken, "", 0, NULL));
		channel_msg_init(&channel, 1, 1, "clash", 2);
		assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel),
			       -EEXIST);
		g_assert_false(g_file_test(first, G_FILE_TEST_EXISTS));
		g_assert_cmpint(g_unlink(taken), ==, 0);
	}
	create_channel(fixture, 1, 1, "chan", 1);
	channel_msg_init(&channel, 1, 1, "other", 1); /* same channel id */
	channel.stream_id = 5;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EEXIST);
	channel_msg_init(&channel, 1, 2, "other", 1); /* same stream id */
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EEXIST);
	channel_msg_init(&channel, 1, 2, "chan", 1); /* same files */
	channel.stream_id = 5;
	assert_refused(fixture, &channel, TC_CONSUMER_CREATE_CHANNEL, sizeof(channel), -EEXIST);
	metadata.msg.session_id = 1;
	assert_refused(fixture, &metadata, TC_CONSUMER_METADATA, sizeof(metadata), -EINVAL);

	/* Still alive and serving. */
	g_assert_cmpint(kill(fixture->pid, 0), ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
}

/*
 * The application overwrites the magic of a packet it is filling: the
 * packet is dropped and counted, the following ones are written. Two
 * corrupt packets in a row give one log line (rate limit).
 */
static void
test_scribble(Fixture *fixture, gconstpointer data)
{
	const uint64_t per_packet = (TEST_SUBBUF_SIZE - sizeof(struct tc_packet_header)) /
				    sizeof(struct test_event);
	struct test_buffer *buffer;
	struct tc_consumer_reply reply;
	g_autofree char *log = NULL;
	g_auto(GStrv) lines = NULL;
	g_auto(GStrv) log_lines = NULL;
	uint64_t seq = 0;
	guint corrupt_lines = 0;

	g_assert_cmpint(create_session(fixture, 3, fixture->trace_dir), ==, 0);
	create_channel(fixture, 3, 1, "chan", 1);
	send_metadata(fixture, 3);
	buffer = &fixture->buffers[0];
	for (int packet = 0; packet < 2; packet++) {
		write_event(buffer, seq, event_value(seq));
		seq++;
		/* The packet is open and incomplete: the consumer cannot read it yet. */
		current_packet(buffer)->magic = 0xbadc0ffe;
		for (uint64_t i = 1; i < per_packet; i++, seq++)
			write_event(buffer, seq, event_value(seq));
	}
	/* Packet 2: valid, closed by the flush. */
	for (uint64_t i = 0; i < 10; i++)
		write_event(buffer, seq + i, event_value(seq + i));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 3, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_corrupted, ==, 2);
	g_assert_cmpuint(reply.packets_written, ==, 1);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, TEST_SUBBUF_SIZE);

	/* A packet after the corrupt ones is still written. */
	write_event(buffer, seq + 10, event_value(seq + 10));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 3, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 2);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, 2 * TEST_SUBBUF_SIZE);
	if (has_babeltrace2()) {
		/* babeltrace2 may warn about the packets missing before. */
		lines = read_trace(fixture->trace_dir, TRUE);
		assert_events(lines, seq, seq + 10, 1);
	}

	g_assert_true(g_file_get_contents(fixture->log_path, &log, NULL, NULL));
	log_lines = g_strsplit(log, "\n", -1);
	for (guint i = 0; log_lines[i]; i++) {
		if (strstr(log_lines[i], "corrupt packet")) {
			g_assert_true(g_str_has_prefix(log_lines[i], "tracectl-consumerd[uid="));
			g_assert_nonnull(strstr(log_lines[i], "session=3"));
			corrupt_lines++;
		}
	}
	g_assert_cmpuint(corrupt_lines, ==, 1);
}

/*
 * The application writes garbage over the whole buffer, header page and
 * commit counters included: the consumer answers in bounded time, writes
 * nothing invalid and survives.
 */
static void
test_hostile_memory(Fixture *fixture, gconstpointer data)
{
	g_autoptr(GRand) rand = g_rand_new_with_seed(1234);
	struct tc_consumer_reply reply;
	gint64 start;

	g_assert_cmpint(create_session(fixture, 4, fixture->trace_dir), ==, 0);
	create_channel(fixture, 4, 1, "chan", 2);
	for (int round = 0; round < 20; round++) {
		for (uint32_t i = 0; i < fixture->nr_buffers; i++) {
			uint32_t *words = fixture->buffers[i].mapping;
			uint64_t *commit = (uint64_t *)fixture->buffers[i].rb.commit;

			for (uint64_t w = 0; w < fixture->buffers[i].size / 4; w++)
				words[w] = g_rand_int(rand);
			/* Commit counts that look complete. */
			for (uint32_t s = 0; s < TEST_NUM_SUBBUF; s++)
				commit[s * (TC_RB_CACHELINE / 8)] =
					(uint64_t)(round + 1) * TEST_SUBBUF_SIZE;
		}
		start = g_get_monotonic_time();
		g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 4, &reply), ==,
				0);
		/* Bounded: the 200 ms flush wait and a little more. */
		g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	}
	g_assert_cmpuint(reply.packets_written, ==, 0);
	g_assert_cmpuint(reply.packets_corrupted, >, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_1"), ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 4, &reply), ==, 0);
	g_assert_cmpint(kill(fixture->pid, 0), ==, 0);
}

/* Closing the socket makes the consumer flush what it holds and exit 0. */
static void
test_eof_flush(Fixture *fixture, gconstpointer data)
{
	g_auto(GStrv) lines = NULL;

	g_assert_cmpint(create_session(fixture, 5, fixture->trace_dir), ==, 0);
	create_channel(fixture, 5, 1, "chan", 2);
	send_metadata(fixture, 5);
	for (uint64_t seq = 0; seq < 20; seq++)
		write_event(&fixture->buffers[seq % 2], seq, event_value(seq));
	fixture_close_socket(fixture);
	g_assert_true(fixture_wait_exit(fixture, TEST_EXIT_TIMEOUT_MS));
	g_assert_true(WIFEXITED(fixture->exit_status));
	g_assert_cmpint(WEXITSTATUS(fixture->exit_status), ==, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, TEST_SUBBUF_SIZE);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_1"), ==, TEST_SUBBUF_SIZE);
	if (has_babeltrace2()) {
		lines = read_trace(fixture->trace_dir, FALSE);
		assert_events(lines, 0, 19, 2);
	}
}

/* The read timer writes full packets out without any flush. */
static void
test_read_timer(Fixture *fixture, gconstpointer data)
{
	/* Three complete packets and an open one: only the timer reads them. */
	const uint64_t per_packet = (TEST_SUBBUF_SIZE - sizeof(struct tc_packet_header)) /
				    sizeof(struct test_event);
	g_autofree char *stream = g_build_filename(fixture->trace_dir, "chan_0", NULL);

	g_assert_cmpint(create_session(fixture, 6, fixture->trace_dir), ==, 0);
	create_channel(fixture, 6, 1, "chan", 1);
	for (uint64_t seq = 0; seq < 3 * per_packet + 1; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	for (int waited = 0; waited < 5000; waited += 10) {
		GStatBuf st;

		g_assert_cmpint(g_stat(stream, &st), ==, 0);
		if (st.st_size == 3 * TEST_SUBBUF_SIZE)
			break;
		g_usleep(10000);
	}
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, 3 * TEST_SUBBUF_SIZE);
}

/*
 * A writer that reserved space and never committed (it died, or it is
 * stuck): the flush waits a bounded time for it, then answers; the packets
 * before it are written.
 */
static void
test_dead_writer(Fixture *fixture, gconstpointer data)
{
	struct tc_consumer_reply reply;
	struct tc_rb_ctx ctx;
	gint64 start;

	g_assert_cmpint(create_session(fixture, 9, fixture->trace_dir), ==, 0);
	create_channel(fixture, 9, 1, "chan", 1);
	send_metadata(fixture, 9);
	for (uint64_t seq = 0; seq < 5; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	g_assert_cmpint(tc_rb_reserve(&fixture->buffers[0].rb, &ctx, sizeof(struct test_event)),
			==, 0);
	start = g_get_monotonic_time();
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 9, &reply), ==, 0);
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 150 * 1000);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
	g_assert_cmpuint(reply.packets_written, ==, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, 0);

	/* The writer comes back: its packet is complete and written. */
	tc_rb_write(&ctx, 0,
		    &(struct test_event){.header = {TC_EVENT_EXTENDED_TAG, 0, ctx.timestamp}, .seq = 5,
					 .value = event_value(5)},
		    sizeof(struct test_event));
	tc_rb_commit(&ctx);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 9, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 1);
	if (has_babeltrace2()) {
		g_auto(GStrv) lines = read_trace(fixture->trace_dir, FALSE);

		assert_events(lines, 0, 5, 1);
	}
}

/*
 * Writes fail (here the file size limit, EFBIG; a full disk, ENOSPC, takes
 * the same path): the packets are counted as lost, the files stay whole
 * packets, the consumer goes on.
 */
/* Above the size of one memfd (which the limit applies to as well), not a
 * multiple of the packet size. */
#define TEST_FILE_SIZE_LIMIT (6 * TEST_SUBBUF_SIZE + 100)

static void
test_write_error(Fixture *fixture, gconstpointer data)
{
	const uint64_t per_packet = (TEST_SUBBUF_SIZE - sizeof(struct tc_packet_header)) /
				    sizeof(struct test_event);
	const uint64_t per_round = 2 * per_packet + 1; /* 3 packets */
	struct tc_consumer_reply reply;
	g_autofree char *log = NULL;

	g_assert_cmpint(create_session(fixture, 2, fixture->trace_dir), ==, 0);
	create_channel(fixture, 2, 1, "chan", 1);
	send_metadata(fixture, 2);
	g_assert_cmpuint(tc_rb_shm_size(TEST_SUBBUF_SIZE, TEST_NUM_SUBBUF), <,
			 TEST_FILE_SIZE_LIMIT);
	for (uint64_t round = 0; round < 3; round++) {
		for (uint64_t i = 0; i < per_round; i++) {
			uint64_t seq = round * per_round + i;

			write_event(&fixture->buffers[0], seq, event_value(seq));
		}
		g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 2, &reply), ==,
				0);
	}
	/* 9 packets, 6 fit under the limit. */
	g_assert_cmpuint(reply.packets_written, ==, 6);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, 6 * TEST_SUBBUF_SIZE);
	g_assert_cmpint(kill(fixture->pid, 0), ==, 0);
	g_assert_true(g_file_get_contents(fixture->log_path, &log, NULL, NULL));
	g_assert_nonnull(strstr(log, "Failed to write a packet of stream chan_0"));
	if (has_babeltrace2()) {
		g_auto(GStrv) lines = read_trace(fixture->trace_dir, FALSE);

		assert_events(lines, 0, 2 * per_round - 1, 1);
	}
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 2, &reply), ==, 0);
}

/*
 * A full buffer discards events and counts them; the next packet closed
 * carries the count in events_discarded. babeltrace2 reads the events that
 * were kept and reports the loss on stderr.
 */
static void
test_discarded_events(Fixture *fixture, gconstpointer data)
{
	const uint64_t nr_events = 2000; /* a 4 x 4096 buffer holds ~570 */
	g_autofree gboolean *is_kept = g_new0(gboolean, nr_events);
	struct tc_consumer_reply reply;
	uint64_t kept = 0, discarded;

	g_assert_cmpint(create_session(fixture, 11, fixture->trace_dir), ==, 0);
	create_channel(fixture, 11, 1, "chan", 1);
	send_metadata(fixture, 11);
	for (uint64_t seq = 0; seq < nr_events; seq++) {
		if (try_write_event(&fixture->buffers[0], seq, event_value(seq)) == 0) {
			is_kept[seq] = TRUE;
			kept++;
		}
	}
	discarded = __atomic_load_n(&fixture->buffers[0].rb.shm->events_discarded,
				    __ATOMIC_RELAXED);
	g_assert_cmpuint(kept + discarded, ==, nr_events);
	g_assert_cmpuint(discarded, >, 0);
	/* The flush frees the buffer; the packet of one more event records the
	 * loss (a flush closes no empty packet, so without it the loss at the
	 * very end would not reach the trace). */
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 11, &reply), ==, 0);
	write_event(&fixture->buffers[0], nr_events, event_value(nr_events));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 11, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_corrupted, ==, 0);
	if (has_babeltrace2()) {
		g_autofree char *warnings = NULL;
		g_auto(GStrv) lines = read_trace_with_warnings(fixture->trace_dir, TRUE, &warnings);
		uint64_t reported = 0;
		guint n = g_strv_length(lines);

		/* Lines of events, and maybe discarded-event notices on stdout. */
		for (guint i = 0; i < n; i++) {
			const char *payload = strstr(lines[i], "{ seq = ");
			uint64_t seq;

			if (!payload)
				continue;
			g_assert_cmpint(sscanf(payload, "{ seq = %" SCNu64, &seq), ==, 1);
			if (seq == nr_events)
				continue; /* the one after the flush */
			g_assert_cmpuint(seq, <, nr_events);
			g_assert_true(is_kept[seq]);
			is_kept[seq] = FALSE;
			kept--;
		}
		g_assert_cmpuint(kept, ==, 0);
		/* One warning per packet that saw a loss: usually one, more if the
		 * read timer ran during the write loop. */
		for (const char *w = strstr(warnings, "discarded "); w;
		     w = strstr(w + 1, "discarded "))
			reported += g_ascii_strtoull(w + strlen("discarded "), NULL, 10);
		g_assert_cmpuint(reported, ==, discarded);
	}
}

/*
 * A packet holding an event class the consumer has no layout for waits for
 * it (the service may send it after the application's first records), up
 * to 2 s, holding its sub-buffer. Once the writers lose events behind it,
 * it waits 50 ms at most: then it is dropped as corrupt and the packets
 * after it are written.
 */
static void
test_unknown_event_while_losing(Fixture *fixture, gconstpointer data)
{
	const uint64_t per_packet = (TEST_SUBBUF_SIZE - sizeof(struct tc_packet_header)) /
				    sizeof(struct test_event);
	struct test_buffer *buffer = &fixture->buffers[0];
	struct tc_consumer_reply reply;
	uint64_t seq = 0;

	g_assert_cmpint(create_session(fixture, 12, fixture->trace_dir), ==, 0);
	create_channel(fixture, 12, 1, "chan", 1);
	send_metadata(fixture, 12);
	write_event_of_class(buffer, 7, seq++);
	for (; seq < per_packet + 1; seq++) /* the last one closes the first packet */
		write_event(buffer, seq, event_value(seq));
	/* No loss yet: the packet waits, the flush (200 ms) ends without it. */
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 12, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 0);
	g_assert_cmpuint(reply.packets_corrupted, ==, 0);
	/* The writers fill the buffer and lose events. */
	while (try_write_event(buffer, seq, event_value(seq)) == 0)
		seq++;
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 12, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_corrupted, ==, 1);
	g_assert_cmpuint(reply.packets_written, >=, TEST_NUM_SUBBUF - 1);
}

/* SIGTERM: like the end of the connection, flush and exit 0. */
static void
test_sigterm(Fixture *fixture, gconstpointer data)
{
	g_assert_cmpint(create_session(fixture, 5, fixture->trace_dir), ==, 0);
	create_channel(fixture, 5, 1, "chan", 1);
	write_event(&fixture->buffers[0], 0, event_value(0));
	g_assert_cmpint(kill(fixture->pid, SIGTERM), ==, 0);
	g_assert_true(fixture_wait_exit(fixture, TEST_EXIT_TIMEOUT_MS));
	g_assert_true(WIFEXITED(fixture->exit_status));
	g_assert_cmpint(WEXITSTATUS(fixture->exit_status), ==, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "chan_0"), ==, TEST_SUBBUF_SIZE);
}

static int
rotate(Fixture *fixture, uint64_t session_id, const char *from_root, const char *to_root,
       struct tc_consumer_reply *reply)
{
	g_autofree struct tc_consumer_rotate *msg = g_new0(struct tc_consumer_rotate, 1);

	msg->session_id = session_id;
	g_strlcpy(msg->from_root, from_root, sizeof(msg->from_root));
	g_strlcpy(msg->to_root, to_root, sizeof(msg->to_root));
	return request(fixture, msg, TC_CONSUMER_ROTATE, sizeof(*msg), reply);
}

/* Rotation: the chunk moves to the archive with its metadata, the session
 * goes on in new, empty files with the whole metadata, and each packet is
 * in one chunk only. Clear cuts the current chunk's files. */
static void
test_rotate_clear(Fixture *fixture, gconstpointer data)
{
	g_autofree char *from_root = g_build_filename(fixture->base_dir, "a", NULL);
	g_autofree char *to_root = g_build_filename(fixture->base_dir, "archives", "0", NULL);
	g_autofree char *archived = g_build_filename(to_root, "b", "trace", NULL);
	g_autofree char *old_path = g_build_filename(archived, "metadata", NULL);
	g_autofree char *new_path = g_build_filename(fixture->trace_dir, "metadata", NULL);
	g_autofree char *old_metadata = NULL, *new_metadata = NULL;
	g_autofree struct tc_consumer_rotate *bad = g_new0(struct tc_consumer_rotate, 1);
	struct tc_consumer_reply reply;
	gsize old_len, new_len;

	g_assert_cmpint(create_session(fixture, 1, fixture->trace_dir), ==, 0);
	create_channel(fixture, 1, 10, "channel0", 1);
	send_metadata(fixture, 1);
	for (uint64_t seq = 0; seq < 200; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_CHUNK_SIZE, 1, &reply), ==, 0);
	g_assert_cmpint(rotate(fixture, 1, from_root, to_root, &reply), ==, 0);
	g_assert_cmpuint(reply.bytes_used, ==, 2 * TEST_SUBBUF_SIZE);
	g_assert_cmpint(file_size(archived, "channel0_0"), ==, 2 * TEST_SUBBUF_SIZE);
	g_assert_cmpint(file_size(fixture->trace_dir, "channel0_0"), ==, 0);
	g_assert_true(g_file_get_contents(old_path, &old_metadata, &old_len, NULL));
	g_assert_true(g_file_get_contents(new_path, &new_metadata, &new_len, NULL));
	g_assert_cmpuint(old_len, >, 0);
	g_assert_cmpmem(old_metadata, old_len, new_metadata, new_len);

	for (uint64_t seq = 200; seq < 300; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_CHUNK_SIZE, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.bytes_used, ==, TEST_SUBBUF_SIZE);
	if (has_babeltrace2()) {
		g_auto(GStrv) before = read_trace(archived, FALSE);
		g_auto(GStrv) after = read_trace(fixture->trace_dir, FALSE);

		assert_events(before, 0, 199, 1);
		assert_events(after, 200, 299, 1);
	}
	/* The archive's place is taken: nothing is replaced. */
	g_assert_cmpint(rotate(fixture, 1, from_root, to_root, &reply), ==, -EEXIST);
	g_assert_cmpint(file_size(archived, "channel0_0"), ==, 2 * TEST_SUBBUF_SIZE);

	g_assert_cmpint(session_request(fixture, TC_CONSUMER_CLEAR, 1, &reply), ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_CHUNK_SIZE, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.bytes_used, ==, 0);
	g_assert_cmpint(file_size(fixture->trace_dir, "metadata"), ==, (goffset)new_len);

	/* Malformed: not under from_root, unterminated, relative, a size off. */
	g_assert_cmpint(rotate(fixture, 1, "/nonexistent", to_root, &reply), ==, -EINVAL);
	g_assert_cmpint(rotate(fixture, 1, from_root, "relative", &reply), ==, -EINVAL);
	g_assert_cmpint(rotate(fixture, 2, from_root, to_root, &reply), ==, -ENOENT);
	bad->session_id = 1;
	memset(bad->from_root, 'x', sizeof(bad->from_root));
	assert_refused(fixture, bad, TC_CONSUMER_ROTATE, sizeof(*bad), -EINVAL);
	assert_refused(fixture, bad, TC_CONSUMER_ROTATE, sizeof(*bad) - 1, -EBADMSG);
	g_assert_cmpint(kill(fixture->pid, 0), ==, 0);
}

/* Losses before a rotation are reported in the archive, and the next
 * chunk reads without a warning: its packets count their own losses.
 * Likewise after a clear. */
static void
test_rotate_after_losses(Fixture *fixture, gconstpointer data)
{
	g_autofree char *from_root = g_build_filename(fixture->base_dir, "a", NULL);
	g_autofree char *to_root = g_build_filename(fixture->base_dir, "archives", "0", NULL);
	struct tc_consumer_reply reply;
	uint64_t discarded = 0;

	g_assert_cmpint(create_session(fixture, 1, fixture->trace_dir), ==, 0);
	create_channel(fixture, 1, 10, "channel0", 1);
	send_metadata(fixture, 1);
	for (uint64_t seq = 0; seq < 2000; seq++)
		if (try_write_event(&fixture->buffers[0], seq, event_value(seq)) < 0)
			discarded++;
	g_assert_cmpuint(discarded, >, 0);
	g_assert_cmpint(rotate(fixture, 1, from_root, to_root, &reply), ==, 0);
	for (uint64_t seq = 2000; seq < 2100; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	if (has_babeltrace2()) {
		g_auto(GStrv) after = read_trace(fixture->trace_dir, FALSE);

		assert_events(after, 2000, 2099, 1);
	}
	/* The same for a clear after losses. */
	discarded = 0;
	for (uint64_t seq = 3000; seq < 5000; seq++)
		if (try_write_event(&fixture->buffers[0], seq, event_value(seq)) < 0)
			discarded++;
	g_assert_cmpuint(discarded, >, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_CLEAR, 1, &reply), ==, 0);
	for (uint64_t seq = 6000; seq < 6050; seq++)
		write_event(&fixture->buffers[0], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	if (has_babeltrace2()) {
		g_auto(GStrv) cleared = read_trace(fixture->trace_dir, FALSE);

		assert_events(cleared, 6000, 6049, 1);
	}
}

/* Streaming to lttng-relayd */

#define LTTNG_RELAYD "/usr/bin/lttng-relayd"
#define TEST_RELAY_HOSTNAME "tc-test-host"
#define TEST_RELAY_TRACE_PATH "ust/uid/1000/64-bit"
#define TEST_RELAY_WAIT_MS 10000

typedef struct {
	GPid pid;
	char *output_dir;
	uint16_t ports[3]; /* control, data, live */
} Relay;

/* Children the test starts die with it, even when an assertion fails. */
static void
die_with_parent_cb(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* A port nobody listens on right now. */
static uint16_t
free_port(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
	close(fd);
	return ntohs(addr.sin_port);
}

static gboolean
port_is_open(uint16_t port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	gboolean open = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;

	close(fd);
	return open;
}

/* Starts lttng-relayd on 127.0.0.1 (ports chosen before, or new), writing
 * into output_dir; waits until it listens. */
static void
relay_start(Relay *relay)
{
	g_autofree char *ctrl = NULL, *data = NULL, *live = NULL, *home = NULL;
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) env = g_get_environ();

	for (int i = 0; i < 3; i++)
		if (relay->ports[i] == 0)
			relay->ports[i] = free_port();
	ctrl = g_strdup_printf("tcp://127.0.0.1:%u", relay->ports[0]);
	data = g_strdup_printf("tcp://127.0.0.1:%u", relay->ports[1]);
	live = g_strdup_printf("tcp://127.0.0.1:%u", relay->ports[2]);
	home = g_build_filename(relay->output_dir, "..", NULL);
	env = g_environ_setenv(env, "LTTNG_HOME", home, TRUE);
	{
		const char *argv[] = {LTTNG_RELAYD, "-o", relay->output_dir, "-C", ctrl,
				      "-D", data, "-L", live, NULL};

		g_spawn_async(NULL, (char **)argv, env,
			      G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
				      G_SPAWN_STDERR_TO_DEV_NULL,
			      die_with_parent_cb, NULL, &relay->pid, &error);
	}
	g_assert_no_error(error);
	for (int waited = 0; !port_is_open(relay->ports[0]) || !port_is_open(relay->ports[2]);
	     waited += 20) {
		g_assert_cmpint(waited, <, TEST_RELAY_WAIT_MS);
		g_usleep(20000);
	}
}

static void
relay_stop(Relay *relay, int signal_number)
{
	if (relay->pid <= 0)
		return;
	kill(relay->pid, signal_number);
	waitpid(relay->pid, NULL, 0);
	relay->pid = 0;
}

static gboolean
has_relayd(void)
{
	if (g_file_test(LTTNG_RELAYD, G_FILE_TEST_IS_EXECUTABLE))
		return TRUE;
	g_test_skip(LTTNG_RELAYD " is not installed");
	return FALSE;
}

static void
relay_init(Relay *relay, Fixture *fixture)
{
	memset(relay, 0, sizeof(*relay));
	relay->output_dir = g_build_filename(fixture->base_dir, "relay", NULL);
	relay_start(relay);
}

/* relay_flags: TC_CONSUMER_RELAY_* of the relay output. */
static int
create_relay_session_with(Fixture *fixture, uint64_t session_id, const Relay *relay,
			  uint16_t control_port, uint32_t live_timer_us, uint32_t relay_flags,
			  struct tc_consumer_reply *reply)
{
	g_autofree struct tc_consumer_session *msg = g_new0(struct tc_consumer_session, 1);

	msg->session_id = session_id;
	msg->flags = TC_CONSUMER_SESSION_RELAY;
	msg->relay.flags = relay_flags;
	g_strlcpy(msg->trace_dir, TEST_RELAY_TRACE_PATH, sizeof(msg->trace_dir));
	g_strlcpy(msg->relay.host, "127.0.0.1", sizeof(msg->relay.host));
	msg->relay.family = AF_INET;
	msg->relay.control_port = control_port;
	msg->relay.data_port = relay->ports[1];
	msg->relay.live_timer_us = live_timer_us;
	msg->relay.creation_time = 1700000000;
	g_strlcpy(msg->relay.hostname, TEST_RELAY_HOSTNAME, sizeof(msg->relay.hostname));
	g_snprintf(msg->relay.session_name, sizeof(msg->relay.session_name), "s%" PRIu64,
		   session_id);
	return request(fixture, msg, TC_CONSUMER_CREATE_SESSION, sizeof(*msg), reply);
}

static int
create_relay_session_full(Fixture *fixture, uint64_t session_id, const Relay *relay,
			  uint16_t control_port, uint32_t live_timer_us,
			  struct tc_consumer_reply *reply)
{
	return create_relay_session_with(fixture, session_id, relay, control_port, live_timer_us,
					 0, reply);
}

static int
create_relay_session(Fixture *fixture, uint64_t session_id, const Relay *relay,
		     uint32_t live_timer_us)
{
	struct tc_consumer_reply reply;
	int ret = create_relay_session_full(fixture, session_id, relay, relay->ports[0],
					    live_timer_us, &reply);

	if (ret < 0)
		g_test_message("create session: %s", reply.message);
	return ret;
}

/* Where the relay filed the trace of session session_id. */
static char *
relay_trace_dir(const Relay *relay, uint64_t session_id)
{
	g_autofree char *host_dir = g_build_filename(relay->output_dir, TEST_RELAY_HOSTNAME, NULL);
	g_autofree char *prefix = g_strdup_printf("s%" PRIu64 "-", session_id);
	g_autoptr(GDir) dir = g_dir_open(host_dir, 0, NULL);
	const char *name;

	g_assert_nonnull(dir);
	while ((name = g_dir_read_name(dir)))
		if (g_str_has_prefix(name, prefix))
			return g_build_filename(host_dir, name, TEST_RELAY_TRACE_PATH, NULL);
	g_assert_not_reached();
}

/* A relay's trace of channel0 holding events 0 to nr_events - 1, two
 * whole packets per CPU. */
static void
assert_relay_trace(const char *trace_dir, uint32_t nr_cpus, uint64_t nr_events)
{
	g_auto(GStrv) lines = NULL;

	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		g_autofree char *name = g_strdup_printf("channel0_%u", cpu);

		g_assert_cmpint(file_size(trace_dir, name), ==, 2 * TEST_SUBBUF_SIZE);
	}
	if (has_babeltrace2()) {
		lines = read_trace(trace_dir, FALSE);
		assert_events(lines, 0, nr_events - 1, nr_cpus);
	}
}

static void
test_relay_round_trip(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2;
	const uint64_t nr_events = 400;
	struct tc_consumer_reply reply;
	g_autofree char *trace_dir = NULL;
	Relay relay;

	if (!has_relayd())
		return;
	relay_init(&relay, fixture);
	g_assert_cmpint(create_relay_session(fixture, 1, &relay, 0), ==, 0);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	for (uint64_t seq = 0; seq < nr_events; seq++)
		write_event(&fixture->buffers[seq % nr_cpus], seq, event_value(seq));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 4);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	/* Nothing local: the relay has it. */
	g_assert_false(g_file_test(fixture->trace_dir, G_FILE_TEST_EXISTS));
	trace_dir = relay_trace_dir(&relay, 1);
	assert_relay_trace(trace_dir, nr_cpus, nr_events);
	relay_stop(&relay, SIGTERM);
	g_free(relay.output_dir);
}

static void
test_relay_refused(Fixture *fixture, gconstpointer data)
{
	struct tc_consumer_reply reply;
	g_autofree char *expected = NULL;
	Relay relay = {.ports = {free_port(), free_port(), 0}};

	g_assert_cmpint(create_relay_session_full(fixture, 1, &relay, relay.ports[0], 0, &reply),
			==, -ECONNREFUSED);
	g_test_message("refused as expected: %s", reply.message);
	expected = g_strdup_printf("net://127.0.0.1:%u:%u", relay.ports[0], relay.ports[1]);
	g_assert_nonnull(strstr(reply.message, expected));
	/* No session was left behind. */
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==,
			-ENOENT);
}

/* A relay that answers the handshake one byte a second: each byte comes
 * well within the socket's own timeout, so only a bound on the whole
 * reply stops it. */
typedef struct {
	int control, data; /* listening */
	gint stop;
} TrickleRelay;

static int
listen_any_port(uint16_t *port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(fd, 4), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
	*port = ntohs(addr.sin_port);
	return fd;
}

/* Accepts on fd within timeout_ms; -1 when nobody came or the test stops. */
static int
accept_within(int fd, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	return poll(&pfd, 1, timeout_ms) == 1 ? accept4(fd, NULL, NULL, SOCK_CLOEXEC) : -1;
}

static gpointer
trickle_relay_thread(gpointer data)
{
	TrickleRelay *relay = data;
	int control = accept_within(relay->control, 10000);
	int data_fd = accept_within(relay->data, 10000);
	uint8_t command[16 + 8], reply[8] = {0, 0, 0, 2, 0, 0, 0, 13};
	size_t got = 0;

	while (control >= 0 && got < sizeof(command)) {
		ssize_t n = read(control, command + got, sizeof(command) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	for (size_t i = 0; control >= 0 && i < sizeof(reply) && !g_atomic_int_get(&relay->stop); i++) {
		if (write(control, &reply[i], 1) != 1)
			break;
		g_usleep(G_USEC_PER_SEC);
	}
	while (!g_atomic_int_get(&relay->stop))
		g_usleep(G_USEC_PER_SEC / 20);
	if (control >= 0)
		close(control);
	if (data_fd >= 0)
		close(data_fd);
	return NULL;
}

static void
test_relay_trickle(Fixture *fixture, gconstpointer data)
{
	TrickleRelay trickle = {0};
	Relay relay = {0};
	struct tc_consumer_reply reply;
	g_autofree char *expected = NULL;
	GThread *thread;
	gint64 start, took_ms;
	int ret;

	trickle.control = listen_any_port(&relay.ports[0]);
	trickle.data = listen_any_port(&relay.ports[1]);
	thread = g_thread_new("trickle-relay", trickle_relay_thread, &trickle);
	start = g_get_monotonic_time();
	ret = create_relay_session_full(fixture, 1, &relay, relay.ports[0], 0, &reply);
	took_ms = (g_get_monotonic_time() - start) / 1000;
	g_atomic_int_set(&trickle.stop, 1);
	g_thread_join(thread);
	close(trickle.control);
	close(trickle.data);
	g_test_message("creation against a trickling relay: %d after %" G_GINT64_FORMAT " ms: %s",
		       ret, took_ms, reply.message);
	/* The handshake's replies have one I/O timeout (2 s) in all; the
	 * version reply alone takes 8 s to trickle in. */
	g_assert_cmpint(ret, ==, -ETIMEDOUT);
	g_assert_cmpint(took_ms, <, 5000);
	expected = g_strdup_printf("net://127.0.0.1:%u:%u", relay.ports[0], relay.ports[1]);
	g_assert_nonnull(strstr(reply.message, expected));
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, &reply), ==,
			-ENOENT);
}

/* Reads what a live viewer printed until it printed count sample events
 * or timeout_ms passed. Returns the number of sample events seen. */
static guint
viewer_wait_events(int fd, GString *out, guint count, int timeout_ms)
{
	const gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	guint seen = 0;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		gint64 left = (deadline - g_get_monotonic_time()) / 1000;
		char buf[4096];
		ssize_t n;

		seen = 0;
		for (const char *p = out->str; (p = strstr(p, "tracectl_test:sample:")); p++)
			seen++;
		if (seen >= count || left <= 0)
			return seen;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return seen;
		g_string_append_len(out, buf, n);
	}
}

/* Waits until the relay lists a viewer attached to session s1: a viewer
 * starts at the end of each stream (babeltrace2 attaches seeking the
 * last packet), so only what is sent after that reaches it. */
static void
viewer_wait_attached(uint16_t live_port)
{
	g_autofree char *url = g_strdup_printf("net://127.0.0.1:%u", live_port);
	const char *argv[] = {BABELTRACE2, "--input-format=lttng-live", url, NULL};

	for (int tries = 0; tries < 200; tries++) {
		g_autofree char *out = NULL;

		g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
			     &out, NULL, NULL, NULL);
		if (out && strstr(out, "/s1 ") && strstr(out, "1 client(s) connected"))
			return;
		g_usleep(50000);
	}
	g_assert_not_reached();
}

static void
test_relay_live(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2, live_timer_us = 100000;
	/* An event arrives within the live period plus a second. */
	const int arrival_ms = live_timer_us / 1000 + 1000;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autofree char *url = NULL;
	struct tc_consumer_reply reply;
	GPid viewer;
	int viewer_out;
	Relay relay;

	if (!has_relayd() || !has_babeltrace2())
		return;
	relay_init(&relay, fixture);
	g_assert_cmpint(create_relay_session(fixture, 1, &relay, live_timer_us), ==, 0);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	url = g_strdup_printf("net://127.0.0.1:%u/host/" TEST_RELAY_HOSTNAME "/s1", relay.ports[2]);
	{
		const char *argv[] = {BABELTRACE2, url, NULL};

		g_spawn_async_with_pipes(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
					 die_with_parent_cb, NULL, &viewer, NULL, &viewer_out, NULL,
					 &error);
	}
	g_assert_no_error(error);
	viewer_wait_attached(relay.ports[2]);
	/* A few events on one CPU only: the other stream stays idle, and the
	 * viewer must not wait for it. */
	for (uint64_t seq = 0; seq < 3; seq++)
		write_event(&fixture->buffers[0], seq * nr_cpus, event_value(seq * nr_cpus));
	g_assert_cmpuint(viewer_wait_events(viewer_out, out, 3, arrival_ms + 5000), ==, 3);
	/* Then more, while the session records: each within the live period
	 * plus a second. */
	for (uint64_t seq = 3; seq < 6; seq++) {
		write_event(&fixture->buffers[seq % nr_cpus], seq, event_value(seq));
		g_assert_cmpuint(viewer_wait_events(viewer_out, out, seq + 1, arrival_ms), ==,
				 seq + 1);
	}
	g_test_message("viewer output:\n%s", out->str);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	/* babeltrace2 goes on waiting for a new session of that name. */
	kill(viewer, SIGTERM);
	g_assert_cmpint(waitpid(viewer, NULL, 0), ==, viewer);
	close(viewer_out);
	relay_stop(&relay, SIGTERM);
	g_free(relay.output_dir);
}

/* Sample events seq first..last, round robin over the CPUs, then a flush. */
static void
write_events_and_flush(Fixture *fixture, uint64_t first, uint64_t last, uint32_t nr_cpus,
		       struct tc_consumer_reply *reply)
{
	for (uint64_t seq = first; seq <= last; seq++)
		write_event(&fixture->buffers[seq % nr_cpus], seq, event_value(seq));
	session_request(fixture, TC_CONSUMER_FLUSH_SESSION, 1, reply);
}

/* Polls session 1's relay status until connected (or, with lost, until
 * lost_since is set), up to timeout_ms; returns the last status. */
static void
relay_status_wait(Fixture *fixture, gboolean lost, int timeout_ms, struct tc_consumer_reply *reply)
{
	const gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	for (;;) {
		g_assert_cmpint(session_request(fixture, TC_CONSUMER_RELAY_STATUS, 1, reply), ==,
				0);
		if ((lost ? reply->relay_lost_since != 0 : reply->relay_connected != 0) ||
		    g_get_monotonic_time() >= deadline)
			return;
		g_usleep(10000);
	}
}

/* Resumes a stopped relay daemon after a while, as one that comes up. */
static gpointer
resume_later(gpointer data)
{
	g_usleep(300000);
	kill(GPOINTER_TO_INT(data), SIGCONT);
	return NULL;
}

/* A session loaded at the service's start (TC_CONSUMER_RELAY_CONNECT_LATER)
 * whose relay is stopped when it is created (it accepts connections and
 * never answers), and resumes while the session is flushed: the creation
 * never waits for the relay; the packets flushed before it answered are
 * held, not lost, the flush waits for the first connection, and they
 * reach the relay, counted written; nothing shows as lost. */
static void
test_relay_connect_later(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2;
	const uint64_t nr_events = 400;
	struct tc_consumer_reply reply;
	g_autofree char *trace_dir = NULL;
	gint64 start, took_ms;
	GThread *resumer;
	Relay relay;

	if (!has_relayd())
		return;
	relay_init(&relay, fixture);
	kill(relay.pid, SIGSTOP);
	start = g_get_monotonic_time();
	g_assert_cmpint(create_relay_session_with(fixture, 1, &relay, relay.ports[0], 0,
						  TC_CONSUMER_RELAY_CONNECT_LATER, &reply),
			==, 0);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	took_ms = (g_get_monotonic_time() - start) / 1000;
	g_test_message("created in %" G_GINT64_FORMAT " ms with the relay stopped", took_ms);
	g_assert_cmpint(took_ms, <, 1000);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_RELAY_STATUS, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.relay_connected, ==, 0);
	g_assert_cmpint(reply.relay_lost_since, ==, 0);

	resumer = g_thread_new("resume-relay", resume_later, GINT_TO_POINTER(relay.pid));
	write_events_and_flush(fixture, 0, nr_events - 1, nr_cpus, &reply);
	g_thread_join(resumer);
	g_assert_cmpint(reply.status, ==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 2 * nr_cpus);
	relay_status_wait(fixture, FALSE, 2000, &reply);
	g_assert_cmpuint(reply.relay_connected, ==, 1);
	g_assert_cmpuint(reply.relay_lost_packets, ==, 0);
	g_assert_cmpint(reply.relay_lost_since, ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	trace_dir = relay_trace_dir(&relay, 1);
	assert_relay_trace(trace_dir, nr_cpus, nr_events);
	relay_stop(&relay, SIGTERM);
	g_free(relay.output_dir);
}

/* The same with a relay that never answers (ports listening, never
 * read): the first probe gives up after its I/O timeout, and only then
 * is the relay lost, with the packets it held and the reason, which the
 * service's Problem is made of. */
static void
test_relay_connect_later_silent(Fixture *fixture, gconstpointer data)
{
	struct tc_consumer_reply reply;
	Relay relay = {0};
	gint64 start, took_ms;
	int control, data_fd;

	control = listen_any_port(&relay.ports[0]);
	data_fd = listen_any_port(&relay.ports[1]);
	start = g_get_monotonic_time();
	g_assert_cmpint(create_relay_session_with(fixture, 1, &relay, relay.ports[0], 0,
						  TC_CONSUMER_RELAY_CONNECT_LATER, &reply),
			==, 0);
	create_channel(fixture, 1, 10, "channel0", 2);
	send_metadata(fixture, 1);
	took_ms = (g_get_monotonic_time() - start) / 1000;
	g_test_message("created in %" G_GINT64_FORMAT " ms, the relay silent", took_ms);
	g_assert_cmpint(took_ms, <, 1000);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_RELAY_STATUS, 1, &reply), ==, 0);
	g_assert_cmpint(reply.relay_lost_since, ==, 0);

	/* The flush waits for the first probe, one I/O timeout at most; the
	 * packets it held are not written. */
	start = g_get_monotonic_time();
	write_events_and_flush(fixture, 0, 399, 2, &reply);
	took_ms = (g_get_monotonic_time() - start) / 1000;
	g_test_message("flushed in %" G_GINT64_FORMAT " ms, the relay silent", took_ms);
	g_assert_cmpint(took_ms, <, 3000);
	g_assert_cmpuint(reply.packets_written, ==, 0);
	relay_status_wait(fixture, TRUE, 5000, &reply);
	g_test_message("lost %" PRIu64 " packets, errno %u", (uint64_t)reply.relay_lost_packets,
		       reply.relay_errno);
	g_assert_cmpint(reply.relay_lost_since, >, 0);
	g_assert_cmpuint(reply.relay_connected, ==, 0);
	g_assert_cmpuint(reply.relay_errno, ==, ETIMEDOUT);
	g_assert_cmpuint(reply.relay_lost_packets, ==, 4);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	close(control);
	close(data_fd);
}

static void
test_relay_restart(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2;
	struct tc_consumer_reply reply;
	g_auto(GStrv) lines = NULL;
	g_autofree char *trace_dir = NULL, *warnings = NULL;
	guint before = 0, after = 0;
	Relay relay;

	if (!has_relayd() || !has_babeltrace2())
		return;
	relay_init(&relay, fixture);
	g_assert_cmpint(create_relay_session(fixture, 1, &relay, 0), ==, 0);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	write_events_and_flush(fixture, 0, 399, nr_cpus, &reply);
	g_assert_cmpint(reply.status, ==, 0);

	/* The relay dies: the consumer goes on draining, and drops. */
	relay_stop(&relay, SIGKILL);
	write_events_and_flush(fixture, 400, 799, nr_cpus, &reply);
	write_events_and_flush(fixture, 800, 1199, nr_cpus, &reply);
	g_assert_cmpuint(reply.packets_written, <, 12);
	/* What the service shows in Problem. */
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_RELAY_STATUS, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.relay_connected, ==, 0);
	g_assert_cmpuint(reply.relay_lost_packets, >=, 4);
	g_assert_cmpint(reply.relay_lost_since, >, 0);
	g_assert_true(g_str_has_prefix(reply.message, "net://127.0.0.1:"));

	/* It comes back on the same ports: the consumer reconnects alone. */
	relay_start(&relay);
	g_usleep(2 * G_USEC_PER_SEC);
	write_events_and_flush(fixture, 1200, 1599, nr_cpus, &reply);
	g_assert_cmpint(reply.status, ==, 0);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_RELAY_STATUS, 1, &reply), ==, 0);
	g_assert_cmpuint(reply.relay_connected, ==, 1);
	g_assert_cmpint(session_request(fixture, TC_CONSUMER_DESTROY_SESSION, 1, &reply), ==, 0);
	relay_stop(&relay, SIGTERM);

	/* One trace, whole packets only: what came before and after, the gap
	 * reported as discarded packets. */
	trace_dir = relay_trace_dir(&relay, 1);
	lines = read_trace_with_warnings(trace_dir, TRUE, &warnings);
	for (guint i = 0; lines[i]; i++) {
		uint64_t seq;
		const char *p = strstr(lines[i], "seq = ");

		if (!p)
			continue;
		seq = g_ascii_strtoull(p + 6, NULL, 10);
		g_assert_true(seq < 400 || seq >= 800);
		if (seq < 400)
			before++;
		else if (seq >= 1200)
			after++;
	}
	g_assert_cmpuint(before, ==, 400);
	g_assert_cmpuint(after, ==, 400);
	g_assert_nonnull(strstr(warnings, "discarded"));
	g_free(relay.output_dir);
}

/* A snapshot request of session_id to relay (its ports), under path. */
static void
snapshot_relay_msg_init(struct tc_consumer_snapshot_relay *msg, uint64_t session_id,
			const Relay *relay, const char *path)
{
	memset(msg, 0, sizeof(*msg));
	msg->session_id = session_id;
	g_strlcpy(msg->trace_path, path, sizeof(msg->trace_path));
	g_strlcpy(msg->relay.host, "127.0.0.1", sizeof(msg->relay.host));
	msg->relay.family = AF_INET;
	msg->relay.control_port = relay->ports[0];
	msg->relay.data_port = relay->ports[1];
	msg->relay.creation_time = 1700000000;
	g_strlcpy(msg->relay.hostname, TEST_RELAY_HOSTNAME, sizeof(msg->relay.hostname));
	g_snprintf(msg->relay.session_name, sizeof(msg->relay.session_name), "s%" PRIu64,
		   session_id);
}

#define TEST_SNAPSHOT_PATH "snap-1"

/* A snapshot session's buffers sent to lttng-relayd: refusals first
 * (unknown or non-snapshot session, unsafe path, live timer, nobody
 * listening), then the packets a local snapshot would write, under
 * <host>/<session>-<date>/<snapshot path>/ on the relay. */
static void
test_snapshot_relay(Fixture *fixture, gconstpointer data)
{
	const uint32_t nr_cpus = 2;
	const uint64_t nr_events = 400;
	g_autofree struct tc_consumer_snapshot_relay *msg =
		g_new0(struct tc_consumer_snapshot_relay, 1);
	g_autofree struct tc_consumer_session *session = g_new0(struct tc_consumer_session, 1);
	g_autofree char *plain = g_build_filename(fixture->base_dir, "plain", NULL);
	g_autofree char *expected = NULL;
	g_autofree char *streamed = NULL;
	g_autofree char *session_dir = NULL;
	g_autofree char *trace_dir = NULL;
	struct tc_consumer_reply reply;
	Relay relay = {.ports = {free_port(), free_port(), 0}};

	snapshot_relay_msg_init(msg, 1, &relay, TEST_SNAPSHOT_PATH "/" TEST_RELAY_TRACE_PATH);
	assert_refused(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), -ENOENT);
	g_assert_cmpint(create_session(fixture, 2, plain), ==, 0);
	msg->session_id = 2;
	assert_refused(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), -EINVAL);
	session->session_id = 1;
	session->flags = TC_CONSUMER_SESSION_SNAPSHOT;
	g_strlcpy(session->trace_dir, fixture->trace_dir, sizeof(session->trace_dir));
	g_assert_cmpint(request(fixture, session, TC_CONSUMER_CREATE_SESSION, sizeof(*session),
				&reply),
			==, 0);
	msg->session_id = 1;
	g_strlcpy(msg->trace_path, "/abs/path", sizeof(msg->trace_path));
	assert_refused(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), -EINVAL);
	g_strlcpy(msg->trace_path, "snap/../../x", sizeof(msg->trace_path));
	assert_refused(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), -EINVAL);
	snapshot_relay_msg_init(msg, 1, &relay, TEST_SNAPSHOT_PATH "/" TEST_RELAY_TRACE_PATH);
	msg->relay.live_timer_us = 100000;
	assert_refused(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), -EINVAL);
	msg->relay.live_timer_us = 0;
	g_assert_cmpint(request(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), &reply),
			==, -ECONNREFUSED);
	expected = g_strdup_printf("net://127.0.0.1:%u:%u", relay.ports[0], relay.ports[1]);
	g_assert_nonnull(strstr(reply.message, expected));

	if (!has_relayd())
		return;
	relay.output_dir = g_build_filename(fixture->base_dir, "relay", NULL);
	relay_start(&relay);
	create_channel(fixture, 1, 10, "channel0", nr_cpus);
	send_metadata(fixture, 1);
	for (uint64_t seq = 0; seq < nr_events; seq++)
		write_event(&fixture->buffers[seq % nr_cpus], seq, event_value(seq));
	g_assert_cmpint(request(fixture, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), &reply),
			==, 0);
	g_assert_cmpuint(reply.packets_written, ==, 4);
	/* Nothing local: a snapshot session writes only when asked to. */
	g_assert_false(g_file_test(fixture->trace_dir, G_FILE_TEST_EXISTS));
	/* relay_trace_dir() is <host>/s1-<date>/TEST_RELAY_TRACE_PATH. */
	streamed = relay_trace_dir(&relay, 1);
	session_dir = g_strndup(streamed, strlen(streamed) - strlen("/" TEST_RELAY_TRACE_PATH));
	trace_dir = g_build_filename(session_dir, TEST_SNAPSHOT_PATH, TEST_RELAY_TRACE_PATH, NULL);
	assert_relay_trace(trace_dir, nr_cpus, nr_events);
	relay_stop(&relay, SIGTERM);
	g_free(relay.output_dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	signal(SIGPIPE, SIG_IGN);
#define ADD_WITH(path, data, func)                                                           \
	g_test_add("/tracectl/consumerd/" path, Fixture, data, fixture_setup, func,          \
		   fixture_teardown)
#define ADD(path, func) ADD_WITH(path, NULL, func)
	ADD("round-trip", test_round_trip);
	ADD("permissions", test_permissions);
	ADD("malformed", test_malformed);
	ADD("scribble", test_scribble);
	ADD("hostile-memory", test_hostile_memory);
	ADD("eof-flush", test_eof_flush);
	ADD("read-timer", test_read_timer);
	ADD("dead-writer", test_dead_writer);
	ADD_WITH("write-error", GSIZE_TO_POINTER(TEST_FILE_SIZE_LIMIT), test_write_error);
	ADD("sigterm", test_sigterm);
	ADD("discarded-events", test_discarded_events);
	ADD("unknown-event-while-losing", test_unknown_event_while_losing);
	ADD("rotate-clear", test_rotate_clear);
	ADD("rotate-after-losses", test_rotate_after_losses);
	ADD("relay-round-trip", test_relay_round_trip);
	ADD("relay-refused", test_relay_refused);
	ADD("relay-trickle", test_relay_trickle);
	ADD("relay-live", test_relay_live);
	ADD("relay-restart", test_relay_restart);
	ADD("relay-connect-later", test_relay_connect_later);
	ADD("relay-connect-later-silent", test_relay_connect_later_silent);
	ADD("snapshot-relay", test_snapshot_relay);
#undef ADD
#undef ADD_WITH
	return g_test_run();
}
