/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: tracectld's reading and checking of an LTTng-UST
 * application's registration message (tc_lttng_register_receive(),
 * apps/tc-lttng-register.c): the peek of what it claims
 * (tc_lttng_register_parse_claims()), then liblttng-ust-ctl's receive,
 * then the checks against SO_PEERCRED and what the service serves. The
 * application may be anyone's program.
 *
 * The input's first byte patches the message so that mutations reach
 * the deep checks: bit 0 writes the right magic, bit 1 this process's pid
 * at the claimed pid, bit 2 its uid at the claimed uid, bit 3 ABI 9,
 * bit 4 64 bits per long, bit 5 a socket type of 0 or 1 (bit 6 picks),
 * bit 7 the magic byte-swapped with the claims swapped too. The rest is
 * the message, sent whole on one end of a socket pair whose other end is
 * read; SO_PEERCRED of a socket pair is this very process.
 *
 * WHAT MUST HOLD (beyond no sanitizer error), from what the harness sent
 * (LTTng-UST 2.13's layout: magic, major, minor, pid, ppid, uid, gid,
 * bits per long, five alignments, socket type, a 16-byte name, padding):
 *   - the message is taken exactly when it is 136 bytes or more, its
 *     magic is LTTng-UST's in this machine's byte order, its socket type
 *     0 or 1, its major 8 or 9, it claims this process's pid and uid, and
 *     its bits per long are 64; else it is refused with an error;
 *   - taken, its type, major, minor and bits are the ones sent, and its
 *     name the 16 bytes sent cut at the first NUL, every byte that is not
 *     printable ASCII shown as '?', always NUL-terminated;
 *   - the claims parsed from the bytes alone are the pid and uid the
 *     harness wrote, in the byte order its magic says;
 *   - no descriptor is left open.
 */
#include <dirent.h>
#include <errno.h>
#include <glib.h>
#include <lttng/ust-abi.h>
#include <lttng/ust-sigbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-lttng-register.h"

/* liblttng-ust-ctl asks its executable for it. */
DEFINE_LTTNG_UST_SIGBUS_STATE();

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
static unsigned long long inputs_run;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-lttng-register: input %llu: ", inputs_run);                  \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define MSG_SIZE TC_LTTNG_REGISTER_MSG_SIZE
#define MAGIC 0xC57C57C5u
/* Offsets of LTTng-UST 2.13's registration message. */
enum {
	AT_MAGIC = 0,
	AT_MAJOR = 4,
	AT_MINOR = 8,
	AT_PID = 12,
	AT_UID = 20,
	AT_BITS = 28,
	AT_TYPE = 52,
	AT_NAME = 56,
};

enum outcome {
	TAKEN,
	TAKEN_NOTIFY,
	REFUSED_SHORT,
	REFUSED_CLAIMS,
	REFUSED_OTHER,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    [TAKEN] = "taken",
    [TAKEN_NOTIFY] = "taken, notify",
    [REFUSED_SHORT] = "refused, short",
    [REFUSED_CLAIMS] = "refused, claims",
    [REFUSED_OTHER] = "refused, other",
};
static unsigned long long outcomes[OUTCOMES];

static guint32
get_u32(const guint8 *message, gsize at, gboolean is_swapped)
{
	guint32 value;

	memcpy(&value, message + at, 4);
	return is_swapped ? GUINT32_SWAP_LE_BE(value) : value;
}

static void
put_u32(guint8 *message, gsize at, guint32 value, gboolean is_swapped)
{
	if (is_swapped)
		value = GUINT32_SWAP_LE_BE(value);
	memcpy(message + at, &value, 4);
}

/* The patches the first byte asks for. */
static void
patch(guint8 *message, gsize size, guint8 flags)
{
	gboolean is_swapped = (flags & 0x80) != 0;

	if (size < MSG_SIZE)
		return;
	if (flags & 0x01)
		put_u32(message, AT_MAGIC, MAGIC, is_swapped);
	if (flags & 0x02)
		put_u32(message, AT_PID, (guint32)getpid(), is_swapped);
	if (flags & 0x04)
		put_u32(message, AT_UID, (guint32)getuid(), is_swapped);
	if (flags & 0x08)
		put_u32(message, AT_MAJOR, LTTNG_UST_ABI_MAJOR_VERSION, is_swapped);
	if (flags & 0x10)
		put_u32(message, AT_BITS, 64, is_swapped);
	if (flags & 0x20)
		put_u32(message, AT_TYPE, (flags & 0x40) ? 1 : 0, is_swapped);
}

/* The name as the service must show it. */
static void
expected_name(const guint8 *message, char name[TC_LTTNG_APP_PROCNAME_MAX + 1])
{
	memset(name, 0, TC_LTTNG_APP_PROCNAME_MAX + 1);
	for (gsize i = 0; i < TC_LTTNG_APP_PROCNAME_MAX && message[AT_NAME + i]; i++)
		name[i] = g_ascii_isprint(message[AT_NAME + i]) ? (char)message[AT_NAME + i] : '?';
}

static gboolean
must_take(const guint8 *message, gsize size)
{
	guint32 major, type;

	if (size < MSG_SIZE || get_u32(message, AT_MAGIC, FALSE) != MAGIC)
		return FALSE;
	major = get_u32(message, AT_MAJOR, FALSE);
	type = get_u32(message, AT_TYPE, FALSE);
	return type <= 1 && major >= LTTNG_UST_ABI_MAJOR_VERSION_OLDEST_COMPATIBLE &&
	       major <= LTTNG_UST_ABI_MAJOR_VERSION &&
	       get_u32(message, AT_PID, FALSE) == (guint32)getpid() &&
	       get_u32(message, AT_UID, FALSE) == (guint32)getuid() &&
	       get_u32(message, AT_BITS, FALSE) == 64;
}

static void
check_taken(const guint8 *message, const TcLttngRegistration *registration)
{
	char name[TC_LTTNG_APP_PROCNAME_MAX + 1];

	if (registration->is_notify != (get_u32(message, AT_TYPE, FALSE) == 1))
		FAIL("taken as the wrong socket type");
	if (registration->abi_major != get_u32(message, AT_MAJOR, FALSE) ||
	    registration->abi_minor != get_u32(message, AT_MINOR, FALSE) ||
	    registration->bits_per_long != 64)
		FAIL("taken with other values than sent");
	expected_name(message, name);
	if (memcmp(registration->procname, name, sizeof(name)) != 0)
		FAIL("name kept as '%.16s', expected '%s'", registration->procname, name);
	outcomes[registration->is_notify ? TAKEN_NOTIFY : TAKEN]++;
}

/* The claims read from the bytes alone. */
static void
check_claims(const guint8 *message, gsize size)
{
	g_autoptr(GError) error = NULL;
	TcLttngClaims claims;
	gboolean is_parsed = tc_lttng_register_parse_claims(message, size, &claims, &error);
	guint32 magic = size >= 4 ? get_u32(message, AT_MAGIC, FALSE) : 0;
	gboolean is_swapped = magic == GUINT32_SWAP_LE_BE(MAGIC);

	if (is_parsed != (size >= MSG_SIZE && (magic == MAGIC || is_swapped)))
		FAIL("claims %s", is_parsed ? "parsed from a bad message" : "not parsed");
	if (is_parsed && (claims.pid != get_u32(message, AT_PID, is_swapped) ||
			  claims.uid != get_u32(message, AT_UID, is_swapped)))
		FAIL("claims parsed as pid %u uid %u", claims.pid, claims.uid);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autofree guint8 *message = NULL;
	gsize length = size > 0 ? size - 1 : 0;
	struct timeval timeout = {.tv_sec = 2};
	TcLttngRegistration registration;
	struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
	int open_before, fds[2];
	gboolean is_taken;

	inputs_run++;
	message = g_memdup2(size > 0 ? data + 1 : data, length);
	patch(message, length, size > 0 ? data[0] : 0);
	check_claims(message, length);
	open_before = fuzz_count_open_fds();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", strerror(errno));
	setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	/* Whole, then the end: a short message is read short at once. */
	if (length > 0 && send(fds[1], message, length, MSG_NOSIGNAL) != (ssize_t)length)
		FAIL("send: %s", strerror(errno));
	shutdown(fds[1], SHUT_WR);
	is_taken = tc_lttng_register_receive(fds[0], &cred, &registration, &error);
	close(fds[0]);
	close(fds[1]);
	if (is_taken != must_take(message, length))
		FAIL("%s", is_taken ? "taken, though it must be refused"
				    : "refused, though it must be taken");
	if (is_taken)
		check_taken(message, &registration);
	else if (error == NULL)
		FAIL("refused without an error");
	else
		outcomes[length < MSG_SIZE						  ? REFUSED_SHORT
			 : strstr(error->message, "claims") != NULL ? REFUSED_CLAIMS
								      : REFUSED_OTHER]++;
	if (fuzz_count_open_fds() != open_before)
		FAIL("%d descriptors open before, %d after", open_before, fuzz_count_open_fds());
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* A message of LTTng-UST 2.13 with the patches of flags. */
#define MESSAGE(flags, name0)                                                                      \
	flags, 0xc5, 0x57, 0x7c, 0xc5, 9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,  \
	    0, 0, 0, 0, 64, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0,     \
	    0, 0, 0, 0, name0, 'p', 'p', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Z16, Z16, Z16, Z16
#define Z16 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
static const struct fuzz_seed seeds[] = {
    /* A command socket's and a notify socket's, claims patched in. */
    SEED(MESSAGE(0x06, 'a')),
    SEED(MESSAGE(0x66, 'b')),
    /* Claims of another pid, uid; an unprintable name. */
    SEED(MESSAGE(0x04, 'c')),
    SEED(MESSAGE(0x02, 0x07)),
    /* The other byte order; ABI 7; 32 bits; socket type 2. */
    SEED(MESSAGE(0x87, 'd')),
    SEED(0x06, 0xc5, 0x57, 0x7c, 0xc5, 7, 0, 0, 0),
    SEED(MESSAGE(0x06, 'e')),
    /* Short. */
    SEED(0x06, 0xc5, 0x57, 0x7c, 0xc5, 9, 0, 0, 0),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 512,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
