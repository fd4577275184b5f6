/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of libtracectl-ust: the tracepoint macros, and the library
 * against a fake service speaking the wire ABI on a private run directory.
 *
 * The library connects from its constructor, before main(), so the tests
 * that need a service run in a subprocess started once the fake service
 * listens (g_test_trap_subprocess), with TRACECTL_RUNDIR pointing at it.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define TRACECTL_CREATE_PROBES
#include "tc-ust-test-tp.h"

#include "tc-rb.h"
#include "tracectl-abi.h"

#define FAKE_STREAMS 2u
#define FAKE_SUBBUF_SIZE 4096u
#define FAKE_NUM_SUBBUF 4u
#define FAKE_SESSION 1u
#define FAKE_CHANNEL 10u
#define FAKE_STREAM_ID 5u
#define FAKE_ID_BASE 100u
#define FAKE_NOTIFIER ((UINT64_C(1) << 63) | 1u)
#define FAKE_TIMEOUT_MS 10000
/* The valid events of tc-ust-test-tp.h, and big_enum_event below. */
#define FAKE_EVENTS 4u
/* The enumerations they use: unit:state and unit:big, of BIG_ENUM_ENTRIES
 * entries, more than one message holds. */
#define FAKE_ENUMS 2u
#define BIG_ENUM_ENTRIES 100u
/* Sessions made and destroyed before the first measure, and in all. */
#define FAKE_CYCLES_FIRST 50u
#define FAKE_CYCLES 1000u
/* What the process may hold more after all the cycles than after the
 * first ones: the allocator's and the kernel's own noise, far below what
 * one kept filter, binding or buffer per cycle would make (hundreds of
 * kilobytes, two mappings and two descriptors a cycle). AddressSanitizer's
 * allocator maps more regions as its quarantine fills, and its mallinfo2()
 * says 0. */
#define FAKE_HEAP_MARGIN (32u * 1024u)
#define FAKE_MAPS_MARGIN 16u
/* The library frees what the last commands removed once they have been
 * quiet for a few milliseconds (tc-ust-listener.c). */
#define FAKE_RECLAIM_WAIT_US (300 * 1000)

static int argument_evaluations;

/* A descriptor made by hand, as the macros refuse its log level at build
 * time: the library must not register it (the service would drop it). */
static const struct tracectl_ust_field bad_level_fields[] = {
	{"value", TRACECTL_UST_FIELD_SIGNED, 4},
};
static struct tracectl_ust_event bad_level_event = {
	.loglevel = TRACECTL_LOGLEVEL_DEBUG + 1,
	.provider = "unit",
	.name = "bad_level",
	.fields = bad_level_fields,
	.nr_fields = 1,
};
static struct tracectl_ust_event *const bad_level_entry
	__attribute__((used, section("__tracectl_events"))) = &bad_level_event;

/* An enumeration of BIG_ENUM_ENTRIES entries ("v0" = 0, "v1" = 2, ...),
 * made by hand, filled before the module's events are registered (a
 * constructor of a higher priority), and an event of one field of it. */
static char big_enum_labels[BIG_ENUM_ENTRIES][8];
static struct tracectl_ust_enum_entry big_enum_entries[BIG_ENUM_ENTRIES];
static const struct tracectl_ust_enum big_enum = {
	.provider = "unit",
	.name = "big",
	.entries = big_enum_entries,
	.nr_entries = BIG_ENUM_ENTRIES,
};
static const struct tracectl_ust_field big_enum_fields[] = {
	{"value", TRACECTL_UST_FIELD_ENUM | TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_UNSIGNED, 2),
	 0},
};
static const struct tracectl_ust_enum *const big_enum_field_enums[] = {&big_enum};
static struct tracectl_ust_event big_enum_event = {
	.loglevel = TRACECTL_LOGLEVEL_DEFAULT,
	.provider = "unit",
	.name = "big_enum",
	.fields = big_enum_fields,
	.nr_fields = 1,
	.field_enums = big_enum_field_enums,
};
static struct tracectl_ust_event *const big_enum_entry
	__attribute__((used, section("__tracectl_events"))) = &big_enum_event;

static void __attribute__((constructor(101)))
fill_big_enum(void)
{
	for (guint i = 0; i < BIG_ENUM_ENTRIES; i++) {
		g_snprintf(big_enum_labels[i], sizeof(big_enum_labels[i]), "v%u", i);
		big_enum_entries[i] = (struct tracectl_ust_enum_entry){
			.label = big_enum_labels[i], .begin = 2 * i, .end = 2 * i};
	}
}

static int
count_evaluation(void)
{
	return ++argument_evaluations;
}

static void
test_descriptor(void)
{
	const struct tracectl_ust_event *event = &__tracectl_event__unit__every_type;
	static const struct {
		const char *name;
		uint32_t type;
		uint32_t size;
	} expected[] = {
		{ "s8", TRACECTL_UST_FIELD_SIGNED, 1 },   { "s16", TRACECTL_UST_FIELD_SIGNED, 2 },
		{ "s32", TRACECTL_UST_FIELD_SIGNED, 4 },  { "s64", TRACECTL_UST_FIELD_SIGNED, 8 },
		{ "u8", TRACECTL_UST_FIELD_UNSIGNED, 1 }, { "u16", TRACECTL_UST_FIELD_UNSIGNED, 2 },
		{ "u32", TRACECTL_UST_FIELD_UNSIGNED, 4 }, { "u64", TRACECTL_UST_FIELD_UNSIGNED, 8 },
		{ "dbl", TRACECTL_UST_FIELD_DOUBLE, 8 },  { "str", TRACECTL_UST_FIELD_STRING, 0 },
		{ "blob", TRACECTL_UST_FIELD_BYTES, 0 },
	};

	g_assert_cmpstr(event->provider, ==, "unit");
	g_assert_cmpstr(event->name, ==, "every_type");
	g_assert_cmpint(event->loglevel, ==, TRACECTL_LOGLEVEL_DEFAULT);
	g_assert_cmpint(TRACECTL_LOGLEVEL_DEFAULT, ==, 13);
	g_assert_cmpuint(event->nr_fields, ==, G_N_ELEMENTS(expected));
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
		g_assert_cmpstr(event->fields[i].name, ==, expected[i].name);
		g_assert_cmpuint(event->fields[i].type, ==, expected[i].type);
		g_assert_cmpuint(event->fields[i].size, ==, expected[i].size);
	}
	event = &__tracectl_event__unit__leveled;
	g_assert_cmpint(event->loglevel, ==, TRACECTL_LOGLEVEL_WARNING);
	g_assert_cmpuint(event->nr_fields, ==, 1);
	g_assert_cmpuint(event->fields[0].type, ==, TRACECTL_UST_FIELD_SIGNED);
	g_assert_cmpuint(event->fields[0].size, ==, sizeof(int));
	g_assert_null(event->field_enums[0]);

	/* Enumerations: the container in the element bits, the enumeration
	 * beside; entries as written, automatic ones left to the library. */
	event = &__tracectl_event__unit__with_enums;
	g_assert_cmpuint(event->nr_fields, ==, 3);
	g_assert_cmpuint(event->fields[0].type, ==,
			 TRACECTL_UST_FIELD_ENUM |
				 TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 1));
	g_assert_cmpuint(event->fields[0].size, ==, 0);
	g_assert_cmpuint(event->fields[2].type, ==,
			 TRACECTL_UST_FIELD_ENUM |
				 TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 8));
	g_assert_true(event->field_enums[0] == &__tracectl_enum__unit__state);
	g_assert_null(event->field_enums[1]);
	g_assert_true(event->field_enums[2] == &__tracectl_enum__unit__state);
	g_assert_cmpuint(__tracectl_enum__unit__state.nr_entries, ==, 5);
	g_assert_cmpstr(__tracectl_enum__unit__state.entries[3].label, ==, "low");
	g_assert_cmpuint(__tracectl_enum__unit__state.entries[3].flags, ==,
			 TRACECTL_UST_ENUM_SIGNED);
	g_assert_cmpint((int64_t)__tracectl_enum__unit__state.entries[3].begin, ==, -3);
	g_assert_cmpuint(__tracectl_enum__unit__state.entries[4].flags, ==,
			 TRACECTL_UST_ENUM_AUTO);

	/* Registered (the constructor ran) but disabled without a service. */
	g_assert_nonnull(__tracectl_event__unit__every_type.priv);
	g_assert_null(__tracectl_event__unit__bad_field_name.priv);
	g_assert_null(bad_level_event.priv);
	g_assert_nonnull(__tracectl_event__unit__with_enums.priv);
	g_assert_nonnull(big_enum_event.priv);
	g_assert_null(__tracectl_event__unit__enum_too_wide.priv);
	g_assert_cmpuint(__tracectl_event__unit__every_type.enabled, ==, 0);
	/* A disabled tracepoint does not evaluate its arguments. */
	tracectl_tracepoint(unit, leveled, count_evaluation());
	g_assert_cmpint(argument_evaluations, ==, 0);
	/* Called directly, the probe writes nowhere and does not crash. */
	__tracectl_probe__unit__every_type(1, NULL, NULL, 12);
	g_assert_false(tracectl_tracepoint_enabled(unit, every_type));
}

/* The fake service. */

typedef struct {
	char *rundir;
	int listen_fd;
	GThread *thread;
	gboolean send_garbage_then_reconnect;
	gboolean with_notifier; /* counts unit:leveled in notifier_page */
	gboolean cycles;	/* makes and destroys FAKE_CYCLES sessions */
	const struct tracectl_notifier_page *notifier_page;
	/* Results, read after the thread ended. */
	void *mappings[FAKE_STREAMS];
	uint64_t shm_size;
	GPtrArray *event_names; /* by index, from the first connection */
	/* ENUM messages in the order they came, of the first connection */
	GArray *enum_messages;
	struct tracectl_msg_event every_type;
	struct tracectl_msg_event with_enums;
	guint connections;
	guint replies_failed;
	gboolean ok;
} FakeService;

static gboolean
wait_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, FAKE_TIMEOUT_MS) == 1;
}

static ssize_t
receive(int fd, void *buf, size_t size)
{
	if (!wait_readable(fd)) {
		errno = ETIMEDOUT;
		return -1;
	}
	return recv(fd, buf, size, 0);
}

/* With pass_fd: a STREAM_ADD's memfd, with a wake-up eventfd as the
 * service does, or a NOTIFIER_ADD's page alone. */
static gboolean
send_command(int fd, void *msg, uint32_t type, uint32_t size, uint32_t seq, int pass_fd)
{
	struct tracectl_msg_header *header = msg;
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(2 * sizeof(int))];
	} control;
	int fds[2] = {pass_fd, -1};
	size_t nr_fds = type == TRACECTL_MSG_STREAM_ADD ? 2 : 1;
	gboolean sent;
	struct iovec iov = { .iov_base = msg, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	header->magic = TRACECTL_ABI_MAGIC;
	header->type = type;
	header->size = size;
	header->seq = seq;
	if (pass_fd >= 0) {
		struct cmsghdr *cmsg;

		mh.msg_control = &control;
		mh.msg_controllen = CMSG_SPACE(nr_fds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		if (nr_fds == 2) {
			fds[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			g_assert_cmpint(fds[1], >=, 0);
		}
		cmsg->cmsg_len = CMSG_LEN(nr_fds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, nr_fds * sizeof(int));
	}
	sent = sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)size;
	if (fds[1] >= 0)
		close(fds[1]);
	return sent;
}

/* Sends a command and waits for its REPLY. */
static gboolean
command(FakeService *service, int fd, void *msg, uint32_t type, uint32_t size, int pass_fd)
{
	static uint32_t seq;
	struct tracectl_msg_reply reply;

	if (!send_command(fd, msg, type, size, ++seq, pass_fd))
		return FALSE;
	if (receive(fd, &reply, sizeof(reply)) != sizeof(reply) ||
	    reply.header.type != TRACECTL_MSG_REPLY || reply.header.seq != seq)
		return FALSE;
	if (reply.status != 0)
		service->replies_failed++;
	return TRUE;
}

/* Whether an ENUM message continues the enumerations received so far
 * (*enums complete, *entries of the next one), as tracectld reads them. */
static gboolean
receive_enum(const struct tracectl_msg_enum *msg, uint32_t *enums, uint32_t *entries)
{
	if (msg->index != *enums || msg->first != *entries || msg->count == 0 ||
	    msg->count > msg->nr_entries - msg->first)
		return FALSE;
	*entries += msg->count;
	if (*entries == msg->nr_entries) {
		(*enums)++;
		*entries = 0;
	}
	return TRUE;
}

/* Whether each enumeration field of an event names an enumeration sent
 * before it, on this connection. */
static gboolean
enums_sent_before(const struct tracectl_msg_event *event, uint32_t enums)
{
	for (uint32_t i = 0; i < event->nr_fields; i++) {
		if (tracectl_abi_field_kind(event->fields[i].type) == TRACECTL_FIELD_ENUM &&
		    event->fields[i].size >= enums)
			return FALSE;
	}
	return TRUE;
}

/* Reads the enumerations and events of one batch and its EVENTS_END,
 * counting the events in *received and the enumerations in *enums.
 * Returns the batch, 0 on error. */
static uint32_t
receive_batch(FakeService *service, int fd, gboolean record, uint32_t *received, uint32_t *enums)
{
	union {
		struct tracectl_msg_header header;
		struct tracectl_msg_event event;
		struct tracectl_msg_enum enumeration;
		struct tracectl_msg_batch batch;
		uint8_t bytes[TRACECTL_ABI_MSG_MAX];
	} msg;
	uint32_t entries = 0;

	for (;;) {
		ssize_t len = receive(fd, &msg, sizeof(msg));

		if (len == sizeof(msg.batch) && msg.header.type == TRACECTL_MSG_EVENTS_END)
			return entries == 0 ? msg.batch.batch : 0;
		if (len == sizeof(msg.enumeration) && msg.header.type == TRACECTL_MSG_ENUM &&
		    msg.header.size == len) {
			if (!receive_enum(&msg.enumeration, enums, &entries))
				return 0;
			if (record)
				g_array_append_val(service->enum_messages, msg.enumeration);
			continue;
		}
		if (len != sizeof(msg.event) || msg.header.type != TRACECTL_MSG_EVENT ||
		    msg.header.size != len || msg.event.index != *received || entries != 0 ||
		    !enums_sent_before(&msg.event, *enums))
			return 0;
		(*received)++;
		if (!record)
			continue;
		g_ptr_array_add(service->event_names, g_strdup(msg.event.name));
		if (g_str_equal(msg.event.name, "unit:every_type"))
			service->every_type = msg.event;
		if (g_str_equal(msg.event.name, "unit:with_enums"))
			service->with_enums = msg.event;
	}
}

/*
 * Reads REGISTER, then batches of events until the application's
 * FAKE_EVENTS valid events came. The listener may connect while the
 * executable's constructors are still registering them: then the first
 * batch holds fewer (or none) and the rest follows unasked. Returns the
 * last batch, 0 on error.
 */
static uint32_t
receive_registration(FakeService *service, int fd, gboolean record)
{
	union {
		struct tracectl_msg_register reg;
		uint8_t bytes[TRACECTL_ABI_MSG_MAX];
	} msg;
	uint32_t received = 0, enums = 0, batch;

	if (receive(fd, &msg, sizeof(msg)) != sizeof(msg.reg) ||
	    msg.reg.header.type != TRACECTL_MSG_REGISTER ||
	    msg.reg.abi_version != TRACECTL_ABI_VERSION || msg.reg.pid <= 0 ||
	    msg.reg.bits_per_long != sizeof(long) * 8)
		return 0;
	do
		batch = receive_batch(service, fd, record, &received, &enums);
	while (batch != 0 && received < FAKE_EVENTS);
	return received == FAKE_EVENTS && enums == FAKE_ENUMS ? batch : 0;
}

static int
create_buffer(FakeService *service, uint32_t cpu)
{
	static const uint8_t uuid[16] = { 0 };
	int fd = memfd_create("fake-buffer", MFD_CLOEXEC);

	if (service->mappings[cpu])
		munmap(service->mappings[cpu], service->shm_size);

	service->shm_size = tc_rb_shm_size(FAKE_SUBBUF_SIZE, FAKE_NUM_SUBBUF);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)service->shm_size), ==, 0);
	service->mappings[cpu] =
		mmap(NULL, service->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(service->mappings[cpu] != MAP_FAILED);
	g_assert_cmpint(tc_rb_init(service->mappings[cpu], FAKE_SUBBUF_SIZE, FAKE_NUM_SUBBUF, cpu,
				   FAKE_STREAM_ID, uuid), ==, 0);
	return fd;
}

static int
create_notifier_page(gboolean sealed)
{
	int fd = memfd_create("fake-notifier", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, TRACECTL_NOTIFIER_PAGE_SIZE), ==, 0);
	if (sealed)
		g_assert_cmpint(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), ==, 0);
	return fd;
}

/* What tracectld does for an event-rule trigger on unit:leveled. The
 * first page is refused (one failed reply): it could shrink under the
 * tracepoint. */
static gboolean
apply_notifier(FakeService *service, int fd)
{
	struct tracectl_msg_notifier notifier = {
		.channel_handle = FAKE_NOTIFIER,
		.shm_size = TRACECTL_NOTIFIER_PAGE_SIZE,
	};
	struct tracectl_msg_event_enable enable = { .channel_handle = FAKE_NOTIFIER };
	int unsealed = create_notifier_page(FALSE), sealed = create_notifier_page(TRUE);
	gboolean ok;
	void *page;

	notifier.channel_handle = FAKE_NOTIFIER + 1;
	ok = command(service, fd, &notifier, TRACECTL_MSG_NOTIFIER_ADD, sizeof(notifier), unsealed);
	notifier.channel_handle = FAKE_NOTIFIER;
	ok = ok && command(service, fd, &notifier, TRACECTL_MSG_NOTIFIER_ADD, sizeof(notifier),
			   sealed);
	page = mmap(NULL, TRACECTL_NOTIFIER_PAGE_SIZE, PROT_READ, MAP_SHARED, sealed, 0);

	g_assert_true(page != MAP_FAILED);
	service->notifier_page = page;
	close(unsealed);
	close(sealed);
	while (enable.index < service->event_names->len &&
	       !g_str_equal(g_ptr_array_index(service->event_names, enable.index), "unit:leveled"))
		enable.index++;
	return ok && command(service, fd, &enable, TRACECTL_MSG_EVENT_ENABLE, sizeof(enable), -1);
}

/* What tracectld does for a session with one channel that enables every event. */
static gboolean
apply_session(FakeService *service, int fd, uint32_t batch)
{
	struct tracectl_msg_channel channel = {
		.session_handle = FAKE_SESSION,
		.channel_handle = FAKE_CHANNEL,
		.stream_id = FAKE_STREAM_ID,
		.nr_streams = FAKE_STREAMS,
		.subbuf_size = FAKE_SUBBUF_SIZE,
		.num_subbuf = FAKE_NUM_SUBBUF,
	};
	struct tracectl_msg_session session = { .session_handle = FAKE_SESSION };
	struct tracectl_msg_batch done = { .batch = batch };

	if (!command(service, fd, &channel, TRACECTL_MSG_CHANNEL_ADD, sizeof(channel), -1))
		return FALSE;
	for (uint32_t cpu = 0; cpu < FAKE_STREAMS; cpu++) {
		struct tracectl_msg_stream stream = {
			.channel_handle = FAKE_CHANNEL,
			.cpu = cpu,
			.shm_size = service->shm_size ? service->shm_size
						      : tc_rb_shm_size(FAKE_SUBBUF_SIZE,
								       FAKE_NUM_SUBBUF),
		};
		int memfd = create_buffer(service, cpu);
		gboolean sent = command(service, fd, &stream, TRACECTL_MSG_STREAM_ADD,
					sizeof(stream), memfd);

		close(memfd);
		if (!sent)
			return FALSE;
	}
	for (uint32_t i = 0; i < service->event_names->len; i++) {
		struct tracectl_msg_event_enable enable = {
			.channel_handle = FAKE_CHANNEL,
			.index = i,
			.id = FAKE_ID_BASE + i,
		};

		if (!command(service, fd, &enable, TRACECTL_MSG_EVENT_ENABLE, sizeof(enable), -1))
			return FALSE;
	}
	if (!command(service, fd, &session, TRACECTL_MSG_SESSION_START, sizeof(session), -1))
		return FALSE;
	if (service->with_notifier && !apply_notifier(service, fd))
		return FALSE;
	return send_command(fd, &done, TRACECTL_MSG_EVENTS_DONE, sizeof(done), 0, -1);
}

/* A program that records every event: PUSH_INT 1, RETURN. */
static uint32_t
always_true_filter(uint8_t *bytecode)
{
	struct tc_filter_header header = {
	    .magic = TC_FILTER_MAGIC,
	    .version = TC_FILTER_VERSION,
	    .nr_insns = 3,
	};
	struct tc_filter_insn push = {.op = TC_FILTER_OP_PUSH_INT};
	struct tc_filter_insn ret = {.op = TC_FILTER_OP_RETURN};
	int64_t one = 1;

	memcpy(bytecode, &header, sizeof(header));
	memcpy(bytecode + sizeof(header), &push, 8);
	memcpy(bytecode + sizeof(header) + 8, &one, 8);
	memcpy(bytecode + sizeof(header) + 16, &ret, 8);
	return sizeof(header) + 24;
}

/* What tracectld sends for one session's life in the application: a
 * channel with contexts and its buffers, every event enabled with a
 * filter (replaced once), start, stop, then the destroy's removal. */
static gboolean
apply_cycle(FakeService *service, int fd, uint32_t cycle)
{
	struct tracectl_msg_channel channel = {
	    .session_handle = 1000u + cycle,
	    .channel_handle = 100000u + cycle,
	    .stream_id = FAKE_STREAM_ID,
	    .nr_streams = FAKE_STREAMS,
	    .subbuf_size = FAKE_SUBBUF_SIZE,
	    .num_subbuf = FAKE_NUM_SUBBUF,
	    .contexts = TRACECTL_CONTEXT_VPID | TRACECTL_CONTEXT_VTID,
	};
	struct tracectl_msg_session session = {.session_handle = channel.session_handle};
	static struct tracectl_msg_event_filter filter;
	gboolean ok = command(service, fd, &channel, TRACECTL_MSG_CHANNEL_ADD, sizeof(channel), -1);

	for (uint32_t cpu = 0; ok && cpu < FAKE_STREAMS; cpu++) {
		struct tracectl_msg_stream stream = {
		    .channel_handle = channel.channel_handle,
		    .cpu = cpu,
		    .shm_size = tc_rb_shm_size(FAKE_SUBBUF_SIZE, FAKE_NUM_SUBBUF),
		};
		int memfd = create_buffer(service, cpu);

		ok = command(service, fd, &stream, TRACECTL_MSG_STREAM_ADD, sizeof(stream), memfd);
		close(memfd);
	}
	for (uint32_t i = 0; ok && i < service->event_names->len; i++) {
		struct tracectl_msg_event_enable enable = {
		    .channel_handle = channel.channel_handle,
		    .index = i,
		    .id = FAKE_ID_BASE + i,
		};

		filter.channel_handle = channel.channel_handle;
		filter.index = i;
		filter.size = always_true_filter(filter.bytecode);
		for (int twice = 0; ok && twice < 2; twice++)
			ok = command(service, fd, &filter, TRACECTL_MSG_EVENT_FILTER,
				     sizeof(filter), -1);
		ok = ok &&
		     command(service, fd, &enable, TRACECTL_MSG_EVENT_ENABLE, sizeof(enable), -1);
	}
	return ok &&
	       command(service, fd, &session, TRACECTL_MSG_SESSION_START, sizeof(session), -1) &&
	       command(service, fd, &session, TRACECTL_MSG_SESSION_STOP, sizeof(session), -1) &&
	       command(service, fd, &channel, TRACECTL_MSG_CHANNEL_REMOVE, sizeof(channel), -1);
}

static gboolean
wait_for_file(const char *dir, const char *name)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);

	for (int i = 0; i < FAKE_TIMEOUT_MS / 10; i++) {
		if (g_file_test(path, G_FILE_TEST_EXISTS))
			return TRUE;
		g_usleep(10000);
	}
	return FALSE;
}

static void
touch_file(const char *dir, const char *name)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);

	g_assert_true(g_file_set_contents(path, "", 0, NULL));
}

/* The cycles, with the application measuring itself after the first
 * FAKE_CYCLES_FIRST ("first") and after all ("last"). A session recording
 * all along keeps tracepoints walking the bindings (and running the
 * filters) of the sessions that come and go. */
static gboolean
apply_cycles(FakeService *service, int fd, uint32_t batch)
{
	if (!apply_session(service, fd, batch))
		return FALSE;
	for (uint32_t cycle = 0; cycle < FAKE_CYCLES; cycle++) {
		if (!apply_cycle(service, fd, cycle))
			return FALSE;
		if (cycle + 1 == FAKE_CYCLES_FIRST) {
			touch_file(service->rundir, "first");
			if (!wait_for_file(service->rundir, "first-measured"))
				return FALSE;
		}
	}
	touch_file(service->rundir, "last");
	return TRUE;
}

/* Accepts one connection. Returns the socket or -1. */
static int
accept_app(FakeService *service)
{
	int fd;

	if (!wait_readable(service->listen_fd))
		return -1;
	fd = accept4(service->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		service->connections++;
	return fd;
}

/*
 * Waits until the application's end closes. An application that exits
 * before reading the last messages sent to it resets the connection
 * instead (ECONNRESET): that is a close too. Messages it sends before
 * are read and ignored. FALSE on a timeout or any other error.
 */
static gboolean
wait_for_close(int fd)
{
	char buf[TRACECTL_ABI_MSG_MAX];
	ssize_t n;

	while ((n = receive(fd, buf, sizeof(buf))) > 0)
		;
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static gpointer
fake_service_main(gpointer data)
{
	FakeService *service = data;
	struct tracectl_msg_batch garbage = { 0 };
	int fd = accept_app(service);
	uint32_t batch;

	if (fd < 0)
		return NULL;
	batch = receive_registration(service, fd, TRUE);
	if (batch == 0 || !(service->cycles ? apply_cycles(service, fd, batch)
					    : apply_session(service, fd, batch)))
		goto out;
	if (service->send_garbage_then_reconnect) {
		g_autofree char *go = g_build_filename(service->rundir, "go", NULL);

		for (int i = 0; i < 1000 && !g_file_test(go, G_FILE_TEST_EXISTS); i++)
			g_usleep(10000);
		/* A message one byte short: the library must hang up and come back. */
		if (!send_command(fd, &garbage, TRACECTL_MSG_EVENTS_DONE, sizeof(garbage) - 1, 0,
				  -1) ||
		    !wait_for_close(fd))
			goto out;
		close(fd);
		fd = accept_app(service);
		if (fd < 0)
			goto out;
		batch = receive_registration(service, fd, FALSE);
		if (batch == 0 || !apply_session(service, fd, batch))
			goto out;
	}
	/* The application runs, then exits: its end closes. */
	service->ok = wait_for_close(fd);
out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void
fake_service_start(FakeService *service, gboolean garbage, gboolean notifier, gboolean cycles)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	GError *error = NULL;

	memset(service, 0, sizeof(*service));
	service->send_garbage_then_reconnect = garbage;
	service->with_notifier = notifier;
	service->cycles = cycles;
	service->event_names = g_ptr_array_new_with_free_func(g_free);
	service->enum_messages = g_array_new(FALSE, TRUE, sizeof(struct tracectl_msg_enum));
	service->rundir = g_dir_make_tmp("tc-ust-test-XXXXXX", &error);
	g_assert_no_error(error);
	g_snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/app.sock", service->rundir);
	service->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	g_assert_cmpint(service->listen_fd, >=, 0);
	g_assert_cmpint(bind(service->listen_fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	g_assert_cmpint(listen(service->listen_fd, 4), ==, 0);
	service->thread = g_thread_new("fake-service", fake_service_main, service);
}

static void
fake_service_stop(FakeService *service)
{
	char *path = g_build_filename(service->rundir, "app.sock", NULL);

	g_thread_join(service->thread);
	close(service->listen_fd);
	g_unlink(path);
	g_free(path);
	path = g_build_filename(service->rundir, "go", NULL);
	g_unlink(path);
	for (guint i = 0; i < 3; i++) {
		static const char *const marks[] = {"first", "first-measured", "last"};

		g_free(path);
		path = g_build_filename(service->rundir, marks[i], NULL);
		g_unlink(path);
	}
	g_rmdir(service->rundir);
	g_free(path);
	g_clear_pointer(&service->rundir, g_free);
}

static void
fake_service_free(FakeService *service)
{
	for (guint i = 0; i < FAKE_STREAMS; i++) {
		if (service->mappings[i])
			munmap(service->mappings[i], service->shm_size);
	}
	if (service->notifier_page)
		munmap((void *)service->notifier_page, TRACECTL_NOTIFIER_PAGE_SIZE);
	g_ptr_array_unref(service->event_names);
	g_array_unref(service->enum_messages);
}

/* Reads the record of every stream into one array of packets' contents. */
static GByteArray *
collect_records(FakeService *service)
{
	static const uint8_t uuid[16] = { 0 };
	GByteArray *records = g_byte_array_new();
	g_autofree uint8_t *packet = g_malloc(FAKE_SUBBUF_SIZE);

	for (uint32_t cpu = 0; cpu < FAKE_STREAMS; cpu++) {
		struct tc_rb_reader reader;
		int ret;

		g_assert_cmpint(tc_rb_reader_init(&reader, service->mappings[cpu], service->shm_size,
						  FAKE_STREAM_ID, cpu, uuid), ==, 0);
		tc_rb_flush(&reader.rb);
		while ((ret = tc_rb_reader_get(&reader, packet)) == 1) {
			const struct tc_packet_header *header = (const void *)packet;

			g_byte_array_append(records, packet + sizeof(*header),
					    header->content_size / 8 - sizeof(*header));
			tc_rb_reader_put(&reader);
		}
		g_assert_cmpint(ret, ==, 0);
		g_assert_cmpuint(reader.rb.shm->events_discarded, ==, 0);
	}
	return records;
}

static uint32_t
event_id(FakeService *service, const char *name)
{
	for (guint i = 0; i < service->event_names->len; i++) {
		if (g_str_equal(g_ptr_array_index(service->event_names, i), name))
			return FAKE_ID_BASE + i;
	}
	g_assert_not_reached();
}

/* Takes the next packed value of size bytes from a record. */
static void
take(const uint8_t **cursor, void *value, size_t size)
{
	memcpy(value, *cursor, size);
	*cursor += size;
}

/*
 * Takes a record header, compact or extended (tc-rb.h), and returns the
 * event id. The first record of a buffer has no record before it, so it
 * carries its full timestamp (extended header).
 */
static uint32_t
take_record_header(const uint8_t **cursor, gboolean first_in_buffer)
{
	struct tc_event_header_extended extended;
	uint32_t word;

	memcpy(&word, *cursor, sizeof(word));
	if (tc_event_compact_id(word) != TC_EVENT_ID_EXTENDED) {
		g_assert_false(first_in_buffer);
		*cursor += sizeof(word);
		return tc_event_compact_id(word);
	}
	take(cursor, &extended, sizeof(extended));
	g_assert_cmpuint(extended.tag, ==, TC_EVENT_EXTENDED_TAG);
	g_assert_cmpuint(extended.timestamp, >, 0);
	return extended.id;
}

static uint32_t
peek_record_id(const uint8_t *cursor)
{
	const uint8_t *copy = cursor;

	return take_record_header(&copy, FALSE);
}

static void
check_every_type_record(const uint8_t **cursor, uint32_t id, gboolean first_in_buffer)
{
	int8_t s8;
	int16_t s16;
	int32_t s32;
	int64_t s64;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32, length;
	uint64_t u64;
	double dbl;

	g_assert_cmpuint(take_record_header(cursor, first_in_buffer), ==, id);
	take(cursor, &s8, 1);
	take(cursor, &s16, 2);
	take(cursor, &s32, 4);
	take(cursor, &s64, 8);
	take(cursor, &u8, 1);
	take(cursor, &u16, 2);
	take(cursor, &u32, 4);
	take(cursor, &u64, 8);
	take(cursor, &dbl, 8);
	g_assert_cmpint(s8, ==, -5);
	g_assert_cmpint(s16, ==, -10);
	g_assert_cmpint(s32, ==, -15);
	g_assert_cmpint(s64, ==, -20);
	g_assert_cmpuint(u8, ==, 5);
	g_assert_cmpuint(u16, ==, 10);
	g_assert_cmpuint(u32, ==, 15);
	g_assert_cmpuint(u64, ==, 20);
	g_assert_cmpfloat(dbl, ==, 1.25);
	g_assert_cmpstr((const char *)*cursor, ==, "hello");
	*cursor += strlen("hello") + 1;
	take(cursor, &length, 4);
	g_assert_cmpuint(length, ==, 3);
	g_assert_cmpmem(*cursor, 3, "\x01\x02\x03", 3);
	*cursor += 3;
}

/* Runs in the subprocess: the constructor waited for the service, so the
 * events are live at the first instruction. */
static void
emit_in_subprocess(void)
{
	g_assert_cmpuint(__tracectl_event__unit__every_type.enabled, ==, 1);
	tracectl_tracepoint(unit, every_type, 5, "hello", "\x01\x02\x03", 3);
	tracectl_tracepoint(unit, leveled, 42);
	g_assert_cmpuint(__tracectl_event__unit__bad_field_name.enabled, ==, 0);
	tracectl_tracepoint(unit, bad_field_name, 1);
	g_assert_cmpuint(bad_level_event.enabled, ==, 0);
}

static void
run_subprocess(FakeService *service, const char *path)
{
	g_setenv("TRACECTL_RUNDIR", service->rundir, TRUE);
	g_setenv("TRACECTL_UST_REGISTER_TIMEOUT", "-1", TRUE);
	g_test_trap_subprocess(path, FAKE_TIMEOUT_MS * 1000, G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_unsetenv("TRACECTL_RUNDIR");
	g_test_trap_assert_passed();
	/* The library is silent. */
	g_test_trap_assert_stdout("");
}

/* The enumeration of the ENUM message at message, as the service would
 * read it. */
static const struct tracectl_msg_enum *
enum_message(const FakeService *service, guint message)
{
	return &g_array_index(service->enum_messages, struct tracectl_msg_enum, message);
}

/* unit:state in one message, automatic values resolved; unit:big in three
 * of 44, 44 and 12 entries; the enumeration fields of unit:with_enums
 * naming unit:state by its index. */
static void
check_enums(const FakeService *service)
{
	static const struct {
		const char *label;
		int64_t begin, end;
		uint32_t flags;
	} state[] = {
		{"idle", 0, 0, 0},
		{"busy", 1, 5, 0},
		{"done", 6, 6, 0},
		{"low", -3, -1, TRACECTL_ENUM_ENTRY_SIGNED},
		{"zero", 0, 0, TRACECTL_ENUM_ENTRY_SIGNED},
	};
	const struct tracectl_msg_enum *msg = NULL;
	guint big = 0;

	g_assert_cmpuint(service->enum_messages->len, ==, 1 + 3);
	for (guint m = 0; m < service->enum_messages->len; m++) {
		const struct tracectl_msg_enum *candidate = enum_message(service, m);

		if (g_str_equal(candidate->name, "unit:state"))
			msg = candidate;
		else if (g_str_equal(candidate->name, "unit:big") && candidate->first == 0)
			big = m;
	}
	g_assert_nonnull(msg);
	g_assert_cmpuint(msg->nr_entries, ==, G_N_ELEMENTS(state));
	g_assert_cmpuint(msg->count, ==, G_N_ELEMENTS(state));
	for (guint i = 0; i < G_N_ELEMENTS(state); i++) {
		g_assert_cmpstr(msg->entries[i].label, ==, state[i].label);
		g_assert_cmpint((int64_t)msg->entries[i].begin, ==, state[i].begin);
		g_assert_cmpint((int64_t)msg->entries[i].end, ==, state[i].end);
		g_assert_cmpuint(msg->entries[i].flags, ==, state[i].flags);
	}
	for (guint m = 0; m < 3; m++) {
		const struct tracectl_msg_enum *part = enum_message(service, big + m);

		g_assert_cmpstr(part->name, ==, "unit:big");
		g_assert_cmpuint(part->nr_entries, ==, BIG_ENUM_ENTRIES);
		g_assert_cmpuint(part->first, ==, m * TRACECTL_ABI_ENUM_ENTRIES_PER_MSG);
		g_assert_cmpuint(part->count, ==, m < 2 ? TRACECTL_ABI_ENUM_ENTRIES_PER_MSG : 12);
		g_assert_cmpuint(part->entries[part->count - 1].end, ==,
				 2 * (part->first + part->count - 1));
	}
	g_assert_cmpuint(service->with_enums.fields[0].size, ==, msg->index);
	g_assert_cmpuint(service->with_enums.fields[2].size, ==, msg->index);
	g_assert_cmpuint(service->with_enums.fields[1].type, ==, TRACECTL_FIELD_SIGNED);
}

static void
test_fake_service(void)
{
	g_autoptr(GByteArray) records = NULL;
	const uint8_t *cursor;
	uint32_t id, payloads;
	FakeService service;
	int32_t value;

	if (g_test_subprocess()) {
		emit_in_subprocess();
		return;
	}
	fake_service_start(&service, FALSE, FALSE, FALSE);
	run_subprocess(&service, "/tracectl/ust/fake-service");
	fake_service_stop(&service);
	g_assert_true(service.ok);
	g_assert_cmpuint(service.replies_failed, ==, 0);

	/* What the service learnt: the valid events, fields described exactly. */
	g_assert_cmpuint(service.event_names->len, ==, FAKE_EVENTS);
	check_enums(&service);
	g_assert_cmpint(service.every_type.loglevel, ==, 13);
	g_assert_cmpuint(service.every_type.nr_fields, ==, 11);
	g_assert_cmpstr(service.every_type.fields[3].name, ==, "s64");
	g_assert_cmpuint(service.every_type.fields[3].type, ==, TRACECTL_FIELD_SIGNED);
	g_assert_cmpuint(service.every_type.fields[3].size, ==, 8);
	g_assert_cmpuint(service.every_type.fields[10].type, ==, TRACECTL_FIELD_BYTES);

	/* What the application recorded: both events, byte for byte. The
	 * process may have moved between CPUs, so the order is not known. */
	records = collect_records(&service);
	payloads = (1 + 2 + 4 + 8 + 1 + 2 + 4 + 8 + 8 + 6 + 4 + 3) + 4;
	/* Two buffers: two extended headers; one: the second record is less
	 * than 2^27 ticks after the first, so its header is compact. */
	g_assert_true(records->len == payloads + 13 + 13 || records->len == payloads + 13 + 4);
	cursor = records->data;
	id = peek_record_id(cursor);
	if (id == event_id(&service, "unit:leveled")) {
		g_assert_cmpuint(take_record_header(&cursor, TRUE), ==, id);
		take(&cursor, &value, 4);
		g_assert_cmpint(value, ==, 42);
		check_every_type_record(&cursor, event_id(&service, "unit:every_type"),
					records->len == payloads + 13 + 13);
	} else {
		check_every_type_record(&cursor, event_id(&service, "unit:every_type"), TRUE);
		g_assert_cmpuint(take_record_header(&cursor, records->len == payloads + 13 + 13), ==,
				 event_id(&service, "unit:leveled"));
		take(&cursor, &value, 4);
		g_assert_cmpint(value, ==, 42);
	}
	g_assert_true(cursor == records->data + records->len);
	fake_service_free(&service);
}

/* Runs in the subprocess: lets the fake service send its garbage, sees the
 * library hang up (events off) and register again (events on again). */
static gboolean
wait_enabled(uint32_t expected)
{
	for (int i = 0; i < 1000; i++) {
		if (__atomic_load_n(&__tracectl_event__unit__every_type.enabled, __ATOMIC_RELAXED) ==
		    expected)
			return TRUE;
		g_usleep(10000);
	}
	return FALSE;
}

static void
reconnect_in_subprocess(void)
{
	g_autofree char *go = g_build_filename(g_getenv("TRACECTL_RUNDIR"), "go", NULL);

	g_assert_cmpuint(__tracectl_event__unit__every_type.enabled, ==, 1);
	g_assert_true(g_file_set_contents(go, "", 0, NULL));
	g_assert_true(wait_enabled(0));
	/* The listener retries every second, then the session is applied again. */
	g_assert_true(wait_enabled(1));
}

static void
test_protocol_error_reconnects(void)
{
	FakeService service;

	if (g_test_subprocess()) {
		reconnect_in_subprocess();
		return;
	}
	fake_service_start(&service, TRUE, FALSE, FALSE);
	run_subprocess(&service, "/tracectl/ust/protocol-error-reconnects");
	fake_service_stop(&service);
	g_assert_cmpuint(service.connections, ==, 2);
	g_assert_true(service.ok);
	fake_service_free(&service);
}

/* Three unit:leveled count in the notifier, and are recorded as well;
 * unit:every_type, not in the notifier, counts nothing. */
static void
notify_in_subprocess(void)
{
	for (int i = 0; i < 3; i++)
		tracectl_tracepoint(unit, leveled, i);
	tracectl_tracepoint(unit, every_type, 5, "hello", "\x01\x02\x03", 3);
}

static void
test_notifier(void)
{
	g_autoptr(GByteArray) records = NULL;
	FakeService service;

	if (g_test_subprocess()) {
		notify_in_subprocess();
		return;
	}
	fake_service_start(&service, FALSE, TRUE, FALSE);
	run_subprocess(&service, "/tracectl/ust/notifier");
	fake_service_stop(&service);
	g_assert_true(service.ok);
	g_assert_cmpuint(service.replies_failed, ==, 1);
	g_assert_nonnull(service.notifier_page);
	g_assert_cmpuint(service.notifier_page->count, ==, 3);
	records = collect_records(&service);
	/* Four records: (13 or 4) + 4 bytes each for unit:leveled, and
	 * unit:every_type's. */
	g_assert_cmpuint(records->len, >, 3 * 8);
	fake_service_free(&service);
}

/* What the process holds: heap in use, mappings, descriptors. */
typedef struct {
	size_t heap;
	guint maps;
	guint fds;
} Holdings;

static void
measure(Holdings *holdings)
{
	g_autofree char *maps = NULL;
	GDir *dir = g_dir_open("/proc/self/fd", 0, NULL);

	holdings->heap = mallinfo2().uordblks;
	g_assert_true(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
	holdings->maps = 0;
	for (const char *c = maps; *c; c++)
		holdings->maps += *c == '\n';
	g_assert_nonnull(dir);
	holdings->fds = 0;
	while (g_dir_read_name(dir))
		holdings->fds++;
	g_dir_close(dir);
}

static gpointer
emit_until_stopped(gpointer data)
{
	const gint *stop = data;

	for (int i = 0; !g_atomic_int_get(stop); i++)
		tracectl_tracepoint(unit, leveled, i);
	return NULL;
}

/* Runs in the subprocess, while a thread's tracepoints run through every
 * session as it comes and goes. */
static void
cycles_in_subprocess(void)
{
	const char *rundir = g_getenv("TRACECTL_RUNDIR");
	Holdings first, last;
	gint stop = 0;
	GThread *emitter = g_thread_new("emitter", emit_until_stopped, &stop);

	g_assert_true(wait_for_file(rundir, "first"));
	g_usleep(FAKE_RECLAIM_WAIT_US);
	measure(&first);
	touch_file(rundir, "first-measured");
	g_assert_true(wait_for_file(rundir, "last"));
	g_usleep(FAKE_RECLAIM_WAIT_US);
	measure(&last);
	g_atomic_int_set(&stop, 1);
	g_thread_join(emitter);
	/* On stderr: the subprocess's stdout must stay empty. */
	g_printerr("# after %u sessions: heap %zu, %u maps, %u fds; after %u: heap %zu, "
		   "%u maps, %u fds\n",
		   FAKE_CYCLES_FIRST, first.heap, first.maps, first.fds, FAKE_CYCLES, last.heap,
		   last.maps, last.fds);
	g_assert_cmpuint(last.maps, <=, first.maps + FAKE_MAPS_MARGIN);
	g_assert_cmpuint(last.fds, <=, first.fds);
	g_assert_cmpuint(last.heap, <=, first.heap + FAKE_HEAP_MARGIN);
}

static void
test_cycles_free(void)
{
	FakeService service;

	if (g_test_subprocess()) {
		cycles_in_subprocess();
		return;
	}
	fake_service_start(&service, FALSE, FALSE, TRUE);
	run_subprocess(&service, "/tracectl/ust/cycles-free");
	fake_service_stop(&service);
	g_assert_true(service.ok);
	g_assert_cmpuint(service.replies_failed, ==, 0);
	fake_service_free(&service);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/ust/descriptor", test_descriptor);
	g_test_add_func("/tracectl/ust/fake-service", test_fake_service);
	g_test_add_func("/tracectl/ust/protocol-error-reconnects", test_protocol_error_reconnects);
	g_test_add_func("/tracectl/ust/notifier", test_notifier);
	g_test_add_func("/tracectl/ust/cycles-free", test_cycles_free);
	return g_test_run();
}
