/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what tracectl-consumerd reads from tracectld: the requests of its
 * command socket (common/abi/tc-consumer-abi.h), read by the consumer's own
 * tc_consumerd_command_receive() from a real AF_UNIX SOCK_SEQPACKET pair,
 * then classified, checked, served and answered by tc-consumerd-command.c
 * and the modules it calls (sessions, channels, streams, files, snapshots,
 * rotations, kernel traces, the user's session files), all built in with
 * AddressSanitizer and UBSan. The consumer runs as the session owner: a bug
 * in the service or a hostile peer on that socket must cost an error reply,
 * never a crash, a file outside the trace directories, a descriptor, or an
 * answer carrying another request's id.
 *
 * The harness plays tracectld. An input is a conversation of up to
 * COMMANDS_MAX requests, each built as one type with values the input
 * picks from tables of good and bad ones (paths, names, geometries, timers,
 * clocks, flags, relay outputs, layouts, homes), then, as the input says,
 * given a bad magic, size field or type, cut or grown, made longer than
 * TC_CONSUMER_MSG_MAX or cut inside its header, sent with its descriptors
 * missing, with one too many or with extra eventfds; or raw bytes of any
 * type, or an empty datagram. The consumer's side runs as
 * tc-consumerd-main.c's route_request() and tc-consumerd-session-thread.c's
 * serve() do, written again below without their threads: classify; serve
 * a malformed request or SESSION_FILES at once; refuse a CREATE_SESSION
 * of a live session, or a request naming none; answer RELAY_STATUS from
 * what the session's "thread" published; serve the rest with the session's
 * own registry, publish, answer, and end the "thread" once its session is
 * gone. The harness reads every message the consumer sent after each
 * request. After the last one it closes its end, and the consumer writes
 * out and frees every session, as when tracectld goes away.
 *
 * What runs for real, and what is played:
 * - files: every absolute path the harness builds lies in a directory of
 *   its own (jail/, on a tmpfs when there is one, made again for each
 *   input with a regular file, a directory that is not empty and a
 *   symbolic link to a directory outside it; paths with ".." would leave
 *   it and must be refused), so sessions, channels, snapshots, rotations
 *   and kernel traces create their directories and files there for real;
 * - the relay (tc-consumerd-relay*.c, which fuzz-relay-reply fuzzes) is
 *   a fake that connects nowhere, refuses the host "refused.example" and
 *   a clear on "noclear.example", and fails the run when it is handed an
 *   output or a path that the consumer's checks should have refused;
 * - kernel traces read /dev/null as their trace_pipe_raw, per_cpu stats
 *   and saved_tgids descriptors (no record), and a formats memfd the
 *   harness writes (good, new events, bad or empty);
 * - the own-process kernel tier is reached up to the mapping of its BPF
 *   ring buffer, which the harness's eventfd refuses (-ENODEV): its
 *   reader thread never starts;
 * - no application writes into the buffers, so no packet is ever written;
 *   the session threads' timers, wake-ups and writer threads do not run,
 *   and the pauses in which an LTTng-UST channel's flush waits for its
 *   writers return at once (tc-consumerd-lttng.c is built in below);
 * - SESSION_FILES reads homes the harness made once for the process.
 * - LTTng-UST channels (when built with liblttng-ust-ctl) are real
 *   buffers made by liblttng-ust-ctl, one stream per possible CPU. Their
 *   geometries come from a table: the accepted ones are small (at most
 *   16 KiB in all per stream, and 4 MiB for the 1024 sub-buffers at the
 *   count's bound), since liblttng-ust-ctl sizes and zeroes each stream's
 *   memfd at creation; the sub-buffer size's upper bound (64 MiB) is
 *   reached only with a count the consumer refuses before any buffer is
 *   made: 2 x 64 MiB per CPU would cost a run seconds. The other values
 *   around the bounds (4095 and 4096 bytes, 1, 2, 1024 and 1025
 *   sub-buffers, 64 MiB + 1, sizes that are no power of two) are there.
 * Valid but large counts (channels of up to 4096 CPUs) are left out: the
 * harness reads the answers once the handler returned, and 4096 streams
 * would fill the socket first.
 *
 * What must hold, beside no error under the sanitizers:
 * - The verdict is the ABI's, which the harness knows from what it built
 *   (the rules are written again below from tc-consumer-abi.h and the list
 *   of checks at the top of tc-consumerd-command.c): a short, truncated or
 *   mis-sized message, a bad magic, an unknown type, an unterminated
 *   string, a bad path, name, geometry, timer, clock, flag, descriptor
 *   count, layout, bound or relay output is refused with its errno; a
 *   request naming no session gets -ENOENT; a well-formed one is served,
 *   with the status the files it finds call for (a trace directory that
 *   exists and is not empty, a path through a file, a symbolic link at
 *   its end, a stream file that exists, a name too long for a file or for
 *   the relay, bad kernel formats); an empty datagram ends the link, as
 *   the consumer says it does. When several checks fail, any of their
 *   errnos will do.
 * - Every message of an answer carries its request's id (0 for a message
 *   too short to hold one). A channel's answer is one stream per CPU, in
 *   CPU order, each with a sealed memfd holding a ring buffer of the
 *   geometry asked and an eventfd; an LTTng-UST channel's is one datum
 *   (the channel id, the number of streams, a per-CPU channel, 1 to
 *   TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX bytes and one pipe), then one
 *   stream per possible CPU in order, each with a memfd sealed against
 *   shrinking, growing and more seals, of the size announced, and a pipe;
 *   an LTTng-UST channel is refused for a session that does not write
 *   locally (-EOPNOTSUPP), with a bad name or geometry (-EINVAL), with an
 *   id its session has (-EEXIST), and fails (-ENOMEM) for a geometry that
 *   liblttng-ust-ctl refuses (a size or count that is no power of two);
 *   SESSION_FILES answers list the home's session files in order, each
 *   with its bytes or its refusal; one reply ends every answer and nothing
 *   comes after it.
 * - A request that is refused, or whose work fails, changes nothing: not
 *   the files under the harness's directory (listed before and after each
 *   request), not the sessions, channels and kernel traces the consumer
 *   holds, not its descriptors. A request served creates exactly what the
 *   ABI says (the directory and its missing parents, "metadata",
 *   "<channel>_<cpu>", "kernel_<cpu>") and keeps exactly the descriptors
 *   its objects need (for an LTTng-UST channel, LTTNG_FDS_PER_STREAM per
 *   stream and LTTNG_FDS_PER_CHANNEL); the metadata file holds every text taken. A
 *   rotation's outcome depends on where the directories lie: it is
 *   checked afterwards (both chunks hold their files). Nothing outside
 *   jail/ is ever created or changed.
 * - Every descriptor that came with a request is closed, but those a
 *   kernel trace keeps; a destroyed session gives back every descriptor
 *   it held; after the consumer's end as many are open as before the
 *   input, and every relay connection it opened is closed.
 *
 * Built with libFuzzer it is a coverage-guided fuzzer (tests/fuzz/meson.build
 * has its sources): `ninja -C build-fuzz tests/fuzz/fuzz-consumer-command`,
 * then `build-fuzz/tests/fuzz/fuzz-consumer-command -max_len=2048 CORPUS`.
 * Otherwise fuzz-driver.c's main() mutates the seeds at the end of this
 * file: `fuzz-consumer-command --seed N --runs M`. With
 * FUZZ_CONSUMER_COMMAND_LOG=1 the consumer's log lines go to stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-consumer-abi.h"
#include "tc-consumerd-command.h"
#include "tc-consumerd-lttng.h"
#include "tc-consumerd-relay.h"
#include "tc-consumerd-session-thread.h"
#include "tc-consumerd-session.h"
#include "tc-log-line.h"
#include "tc-rb.h"

#if TC_CONSUMERD_HAVE_LTTNG
#include <lttng/ust-abi.h>
#include <lttng/ust-ctl.h>
#endif

/* --- LTTng-UST channels, with the harness's pauses ---------------------- */

/* tc-consumerd-lttng.c is built in here, its nanosleep() the harness's. A
 * channel freed before its streams had files (a creation that failed)
 * waits for the packets of its flush to be drained, which nothing can
 * take, in 5 ms pauses up to 200 ms: a few of those were half of a run's
 * time. No application writes into these buffers, so what the consumer
 * would wait for never comes: each pause returns at once, and the
 * consumer goes through the same steps, as many times. */
#if TC_CONSUMERD_HAVE_LTTNG
static int
fuzz_nanosleep(const struct timespec *request, struct timespec *remaining)
{
	(void)request;
	if (remaining)
		*remaining = (struct timespec){0};
	return 0;
}
#endif

#define nanosleep fuzz_nanosleep
#include "tc-consumerd-lttng.c"
#undef nanosleep

/* A failure leaves the input to replay, not the files: the harness's
 * directory is removed first (it may be on a tmpfs). */
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-consumer-command: " __VA_ARGS__);                            \
		fprintf(stderr, "\n");                                                             \
		fail_cleanup();                                                                    \
		abort();                                                                           \
	} while (0)

static void fail_cleanup(void);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define COMMANDS_MAX 24u
#define SLOTS 8u	/* sessions, and their threads, at once */
#define CHANNELS_MAX 4u /* channel ids come from a table of four */
#define FDS_MAX 253u	/* SCM_MAX_FD: what one message can carry */
#define KEY_MAX 512u	/* a listed path, relative to the harness's root */
#define OUT_MAX (TC_CONSUMER_MSG_MAX + 64u)
/* What the relay's stream names may hold: its own bound, which keeps
 * room for a reconnection's "-<generation>" suffix. */
#define RELAY_STREAM_NAME_MAX (CONSUMERD_RELAY_FILE_NAME_MAX - 12u)
#define FILE_NAME_MAX 255u
/* Bounds of the consumer's own, not the ABI's: a channel's CPUs (the
 * checks listed at the top of tc-consumerd-command.c) and a record's
 * context (tc-consumerd-layout.c). */
#define CHANNEL_CPUS_MAX 4096u
#define LAYOUT_CONTEXT_MAX 4096u
/* What an LTTng-UST channel keeps open in the consumer: per stream its
 * memfd, its wake-up pipe (both ends) and its file; per channel the
 * channel's wake-up pipe (both ends). */
#define LTTNG_FDS_PER_STREAM 4
#define LTTNG_FDS_PER_CHANNEL 2

enum outcome {
	HEADER_REFUSED,
	SIZE_REFUSED,
	ROUTE_REFUSED,
	CHECK_REFUSED,
	SERVED,
	WORK_FAILED,
	STREAMS_CHECKED,
	LTTNG_CHECKED,
	FILES_CHECKED,
	KERNEL_TRACED,
	ROTATED,
	RELAY_OPENED,
	SESSION_DESTROYED,
	LINK_ENDED,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "header refused", "size refused",	   "route refused", "check refused", "served",
    "work failed",    "streams checked",   "lttng checked", "files checked", "kernel traced",
    "rotated",	      "relay opened",	   "session destroyed", "link ended",
};
static unsigned long long outcomes[OUTCOMES];

/* What a request is built as (the low bits of its first byte). */
enum kind {
	K_CREATE_SESSION,
	K_CREATE_CHANNEL,
	K_METADATA,
	K_FLUSH,
	K_DESTROY,
	K_SNAPSHOT,
	K_CHANNEL_STATS,
	K_EVENT_LAYOUT,
	K_KERNEL_TRACE,
	K_KERNEL_UPDATE,
	K_KERNEL_STATS,
	K_ROTATE,
	K_CLEAR,
	K_CHUNK_SIZE,
	K_RELAY_STATUS,
	K_KERNEL_OWN,
	K_SNAPSHOT_RELAY,
	K_RELAY_ROTATE,
	K_SESSION_FILES,
	K_RAW,
	K_EMPTY,
	K_LTTNG_CHANNEL,
	K_KERNEL_SNAPSHOT,
	K_KERNEL_SNAPSHOT_RELAY,
	KINDS,
};
#define KIND_MASK 0x1fu
#define FLAG_TWIST 0x20u /* a byte follows: the framing changed */
#define FLAG_FDS 0x40u	 /* a byte follows: descriptors changed, formats */
#define FLAG_ID 0x80u	 /* four bytes follow: the request id, any value */

/* The descriptors the harness sends, by what they are. */
enum fd_kind {
	FD_EVENT,
	FD_NULL,
	FD_FORMATS_GOOD,
	FD_FORMATS_NEW,
	FD_FORMATS_BAD,
	FD_FORMATS_EMPTY,
};

/* --- What the harness knows of the consumer's sessions ------------------- */

struct model_channel {
	uint64_t id;
	uint32_t stream_id, nr_cpus, subbuf_size, num_subbuf;
	char name[TC_CONSUMER_NAME_MAX];
};

struct model_session {
	bool exists;
	uint64_t id;
	bool snapshot, relay_flag;
	/* A rotation moved its directories or failed: where its files are
	 * is no longer known, so the work's outcome is not predicted. */
	bool fs_unknown;
	char trace_dir[TC_CONSUMER_PATH_MAX];
	char host[TC_CONSUMER_HOST_MAX];
	struct model_channel channels[CHANNELS_MAX]; /* in creation order */
	unsigned int n_channels;
	uint64_t lttng_ids[CHANNELS_MAX]; /* its LTTng-UST channels */
	char lttng_names[CHANNELS_MAX][TC_CONSUMER_NAME_MAX];
	uint32_t lttng_subbuf_sizes[CHANNELS_MAX];
	uint32_t lttng_num_subbufs[CHANNELS_MAX];
	unsigned int n_lttng;
	bool has_kernel, kernel_streams;
	uint32_t kernel_cpus;
	char kernel_dir[TC_CONSUMER_PATH_MAX];
	uint64_t metadata_len;
	int fds_held; /* descriptors the consumer opened for it */
};

/* A session "thread" as tc-consumerd-session-thread.c keeps it, without
 * the thread: its registry and what it published for the main thread. */
struct session_thread {
	bool running;
	uint64_t session_id;
	struct tc_consumerd_registry registry;
	bool streams;
	struct tc_consumerd_relay_status status;
};

struct conversation {
	int service_fd, consumer_fd;
	bool link_ended;
	/* What the last request's checks found after it is still so, as
	 * nothing changes files or descriptors between two requests: its
	 * listing of jail/, the descriptors open. */
	bool jail_listed, fds_counted;
	int fds_open;
	uint32_t id_base, sent;
	struct model_session sessions[SLOTS];
	struct session_thread threads[SLOTS];
};

/* One request as built. Its bytes are in out. */
struct built {
	enum kind kind;
	size_t len;
	int fds[FDS_MAX];
	enum fd_kind fd_kinds[FDS_MAX];
	size_t nr_fds;
};

static union {
	struct tc_consumer_header header;
	uint64_t align;
	uint8_t bytes[OUT_MAX];
} out;

/* --- The harness's directory ------------------------------------------ */

static char root[128]; /* mkdtemp()'d once per process */
static char jail[160]; /* root/jail: every path the consumer may write */
static size_t root_len;

/* A listing of a tree under root: "<path relative to root>\t<type>",
 * sorted. */
struct listing {
	char (*keys)[KEY_MAX];
	size_t count, capacity;
};

/* root but jail/, as the harness made it. */
static struct listing outside_jail;

/* Adds "<key>\t<type>", or key as it is when type is 0. */
static void
listing_add(struct listing *l, const char *key, char type)
{
	size_t len = strlen(key);
	char *to;

	if (len + (type ? 2 : 0) >= KEY_MAX)
		FAIL("path too long for a listing: %s", key);
	if (l->count == l->capacity) {
		l->capacity = l->capacity ? 2 * l->capacity : 64;
		l->keys = realloc(l->keys, l->capacity * sizeof(*l->keys));
		if (!l->keys)
			FAIL("out of memory for a listing");
	}
	to = l->keys[l->count++];
	memcpy(to, key, len);
	if (type) {
		to[len++] = '\t';
		to[len++] = type;
	}
	to[len] = '\0';
}

static void
listing_swap(struct listing *a, struct listing *b)
{
	struct listing t = *a;

	*a = *b;
	*b = t;
}

static int
key_compare(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* --- Walking a tree ------------------------------------------------------ */

/* The walks read directories with getdents64() into a buffer of their
 * own: nftw() opened each with opendir(), whose 32 KiB AddressSanitizer
 * allocates and fills, and stat()ed each entry, and a request's two
 * listings were then a third of its time. */

/* An entry's type as a listing writes it (that of lstat()). */
static char
entry_type(int dir_fd, const struct fuzz_dirent64 *entry)
{
	struct stat st;

	switch (entry->type) {
	case DT_DIR:
		return 'd';
	case DT_REG:
		return 'f';
	case DT_LNK:
		return 'l';
	case DT_FIFO:
		return 'p';
	case DT_UNKNOWN:
		break;
	default:
		return '?';
	}
	if (fstatat(dir_fd, entry->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		FAIL("cannot stat %s: %s", entry->name, strerror(errno));
	return S_ISDIR(st.st_mode)    ? 'd'
	       : S_ISREG(st.st_mode)  ? 'f'
	       : S_ISLNK(st.st_mode)  ? 'l'
	       : S_ISFIFO(st.st_mode) ? 'p'
				      : '?';
}

/* Calls visit for each entry of the directory name (under dir_fd), with
 * the directory's descriptor and the entry's type; visit descends. */
typedef void (*dir_visit)(int dir_fd, const char *name, char type, void *data);

static void
dir_each(int dir_fd, const char *name, dir_visit visit, void *data)
{
	uint64_t buf[512];
	int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	long n;

	if (fd < 0)
		FAIL("cannot open the directory %s: %s", name, strerror(errno));
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n;) {
			const struct fuzz_dirent64 *entry = (const void *)((const char *)buf + at);

			at += entry->reclen;
			if (strcmp(entry->name, ".") != 0 && strcmp(entry->name, "..") != 0)
				visit(fd, entry->name, entry_type(fd, entry), data);
		}
	}
	if (n < 0)
		FAIL("cannot read the directory %s: %s", name, strerror(errno));
	close(fd);
}

/* A walk that lists: the key of the directory walked, relative to root;
 * whether jail/ is left out. */
struct listing_walk {
	struct listing *listing;
	char key[KEY_MAX];
	size_t len;
	bool is_outside;
};

static void
listing_visit(int dir_fd, const char *name, char type, void *data)
{
	struct listing_walk *w = data;
	size_t len = w->len, name_len = strlen(name), key_len = len + (len > 0) + name_len;

	if (w->is_outside && len == 0 && strcmp(name, "jail") == 0)
		return;
	if (key_len >= KEY_MAX)
		FAIL("path too long for a listing: %s/%s", w->key, name);
	if (len > 0)
		w->key[len] = '/';
	memcpy(w->key + key_len - name_len, name, name_len + 1);
	listing_add(w->listing, w->key, type);
	if (type == 'd') {
		w->len = key_len;
		dir_each(dir_fd, name, listing_visit, w);
		w->len = len;
	}
	w->key[len] = '\0';
}

/* Lists jail/, which each request may change. */
static void
listing_take_jail(struct listing *l)
{
	struct listing_walk walk = {.listing = l, .key = "jail", .len = strlen("jail")};

	l->count = 0;
	listing_add(l, walk.key, 'd');
	dir_each(AT_FDCWD, jail, listing_visit, &walk);
	qsort(l->keys, l->count, sizeof(*l->keys), key_compare);
}

/* Lists root but jail/: what no input may change, listed once before the
 * first and compared after each. */
static void
listing_take_outside(struct listing *l)
{
	struct listing_walk walk = {.listing = l, .is_outside = true};

	l->count = 0;
	dir_each(AT_FDCWD, root, listing_visit, &walk);
	qsort(l->keys, l->count, sizeof(*l->keys), key_compare);
}

static bool
key_is_in_jail(const char *key)
{
	return strncmp(key, "jail", 4) == 0 && (key[4] == '\0' || key[4] == '\t' || key[4] == '/');
}

/* after must be before plus added. Both listings are sorted, added is
 * sorted here: the three are read once, side by side. */
static void
listing_compare(const struct listing *before, struct listing *added,
		const struct listing *after, const char *what)
{
	size_t i = 0, j = 0, k = 0, n_added = added ? added->count : 0;

	if (n_added > 1)
		qsort(added->keys, n_added, sizeof(*added->keys), key_compare);
	for (;;) {
		const char *kept = i < before->count ? before->keys[i] : NULL;
		const char *made = k < n_added ? added->keys[k] : NULL;
		const char *found = j < after->count ? after->keys[j] : NULL;
		bool is_made = made && (!kept || strcmp(made, kept) < 0);
		const char *want = is_made ? made : kept;

		if (!want && !found)
			return;
		if (!want || !found || strcmp(want, found) != 0)
			FAIL("%s: the files changed: expected '%s', found '%s'", what,
			     want ? want : "(nothing)", found ? found : "(nothing)");
		*(is_made ? &k : &i) += 1;
		j++;
	}
}

/* The key of an absolute path under root: its components, without the
 * empty ones and ".", relative to root. NULL when it is not under root. */
static const char *
path_key(const char *path, char *key)
{
	char copy[TC_CONSUMER_PATH_MAX], *save = NULL;
	size_t used = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	key[0] = '\0';
	for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		used += (size_t)snprintf(key + used, KEY_MAX - used, "/%s", part);
		if (used >= KEY_MAX)
			FAIL("path too long: %s", path);
	}
	if (strncmp(key, root, root_len) != 0 || key[root_len] != '/')
		return NULL;
	return key + root_len + 1;
}

static void
write_file(const char *path, const void *bytes, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len || fchmod(fd, mode) < 0)
		FAIL("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

static void
make_dir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) < 0 || chmod(path, mode) < 0)
		FAIL("cannot make %s: %s", path, strerror(errno));
}

static void
make_link(const char *target, const char *path)
{
	if (symlink(target, path) < 0)
		FAIL("cannot link %s: %s", path, strerror(errno));
}

static void
remove_visit(int dir_fd, const char *name, char type, void *data)
{
	if (type == 'd')
		dir_each(dir_fd, name, remove_visit, data);
	if (unlinkat(dir_fd, name, type == 'd' ? AT_REMOVEDIR : 0) < 0)
		FAIL("cannot remove %s: %s", name, strerror(errno));
}

static void
remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			FAIL("cannot remove %s: %s", path, strerror(errno));
		return;
	}
	remove_visit(AT_FDCWD, path, S_ISDIR(st.st_mode) ? 'd' : 'f', NULL);
}

static void
remove_root(void)
{
	remove_tree(root);
}

static void
fail_cleanup(void)
{
	static bool is_removing;

	if (root[0] && !is_removing) {
		is_removing = true;
		remove_tree(root);
	}
}

/* jail/ as each input finds it: f a regular file, full a directory that
 * is not empty, ln a symbolic link to root/outside/dir. */
static void
jail_make(void)
{
	char path[256];

	make_dir(jail, 0700);
	snprintf(path, sizeof(path), "%s/f", jail);
	write_file(path, "f", 1, 0600);
	snprintf(path, sizeof(path), "%s/full", jail);
	make_dir(path, 0700);
	snprintf(path, sizeof(path), "%s/full/x", jail);
	write_file(path, "x", 1, 0600);
	snprintf(path, sizeof(path), "%s/ln", jail);
	make_link("../outside/dir", path);
}

/* --- SESSION_FILES: the homes, made once ------------------------------- */

struct file_fixture {
	const char *name;
	int status; /* 0: its bytes are sent; else its refusal */
	size_t size;
	const char *bytes;
};

#define BIG_FILE_BYTES 70000u
static char big_file[BIG_FILE_BYTES];

/* The session files of fixed/home, in the ABI's order (strcmp()); c.txt,
 * .h.lttng and .lttng are in the directory but are no session files. */
static struct file_fixture home_files[] = {
    {"a.lttng", 0, 21, "<session>a</session>\n"},
    {"b.lttng", 0, BIG_FILE_BYTES, big_file},
    {"d.lttng", -EPERM, 0, NULL}, /* a directory */
    {"e.lttng", 0, 0, ""},
    {"g.lttng", -EPERM, 0, NULL}, /* writable by its group */
    {"p.lttng", -EPERM, 0, NULL}, /* a FIFO */
    {"x.lttng", -ELOOP, 0, NULL}, /* a symbolic link */
};

enum home_kind { HOME_FILES, HOME_EMPTY, HOME_NONE, HOME_REFUSED, HOME_INVALID };

struct home_case {
	const char *path; /* under root, or relative */
	enum home_kind kind;
	int status, status_alt;
	bool relative;
};

/* O_NOFOLLOW | O_DIRECTORY on a symbolic link fails with ELOOP or
 * ENOTDIR, as the kernel sees fit. */
static const struct home_case home_cases[16] = {
    {"fixed/home", HOME_FILES, 0, 0, false},
    {"fixed/nohome", HOME_NONE, 0, 0, false},
    {"fixed/plain", HOME_REFUSED, -ENOTDIR, -ENOTDIR, false},
    {"fixed/homelink", HOME_REFUSED, -ENOTDIR, -ELOOP, false},
    {"fixed/badhome", HOME_REFUSED, -EPERM, -EPERM, false},
    {"fixed/linkconf", HOME_REFUSED, -ENOTDIR, -ELOOP, false},
    {"fixed/home/", HOME_FILES, 0, 0, false},
    {"fixed/../fixed/home", HOME_FILES, 0, 0, false},
    {"fixed/empty", HOME_EMPTY, 0, 0, false},
    {"home", HOME_INVALID, -EINVAL, -EINVAL, true},
    {"", HOME_INVALID, -EINVAL, -EINVAL, true},
    {"fixed/home", HOME_INVALID, -EINVAL, -EINVAL, false}, /* cut */
    {"fixed/home", HOME_FILES, 0, 0, false},
    {"fixed/home", HOME_FILES, 0, 0, false},
    {"fixed/home", HOME_FILES, 0, 0, false},
    {"fixed/home", HOME_FILES, 0, 0, false},
};

static void
make_sessions_dir(const char *home, mode_t config_mode)
{
	char path[256];

	make_dir(home, 0700);
	snprintf(path, sizeof(path), "%s/.config", home);
	make_dir(path, config_mode);
	snprintf(path, sizeof(path), "%s/.config/tracectl", home);
	make_dir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/tracectl/sessions", home);
	make_dir(path, 0700);
}

static void
fixed_make(void)
{
	char base[192], dir[256], path[320];

	snprintf(base, sizeof(base), "%s/fixed", root);
	make_dir(base, 0700);
	snprintf(dir, sizeof(dir), "%s/home", base);
	make_sessions_dir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/home/.config/tracectl/sessions", base);
	for (size_t i = 0; i < BIG_FILE_BYTES; i++)
		big_file[i] = (char)('a' + i % 23);
	snprintf(path, sizeof(path), "%s/a.lttng", dir);
	write_file(path, home_files[0].bytes, home_files[0].size, 0600);
	snprintf(path, sizeof(path), "%s/b.lttng", dir);
	write_file(path, big_file, BIG_FILE_BYTES, 0600);
	snprintf(path, sizeof(path), "%s/c.txt", dir);
	write_file(path, "c", 1, 0600);
	snprintf(path, sizeof(path), "%s/.h.lttng", dir);
	write_file(path, "h", 1, 0600);
	snprintf(path, sizeof(path), "%s/.lttng", dir);
	write_file(path, "l", 1, 0600);
	snprintf(path, sizeof(path), "%s/d.lttng", dir);
	make_dir(path, 0700);
	snprintf(path, sizeof(path), "%s/e.lttng", dir);
	write_file(path, "", 0, 0600);
	snprintf(path, sizeof(path), "%s/g.lttng", dir);
	write_file(path, "g", 1, 0660);
	snprintf(path, sizeof(path), "%s/p.lttng", dir);
	if (mkfifo(path, 0600) < 0)
		FAIL("mkfifo %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/x.lttng", dir);
	make_link("a.lttng", path);
	snprintf(path, sizeof(path), "%s/plain", base);
	write_file(path, "p", 1, 0600);
	snprintf(path, sizeof(path), "%s/homelink", base);
	make_link("home", path);
	snprintf(dir, sizeof(dir), "%s/badhome", base);
	make_sessions_dir(dir, 0770);
	snprintf(dir, sizeof(dir), "%s/linkconf", base);
	make_dir(dir, 0700);
	snprintf(path, sizeof(path), "%s/.config", dir);
	make_link("../home/.config", path);
	snprintf(dir, sizeof(dir), "%s/empty", base);
	make_sessions_dir(dir, 0700);
}

/* --- Kernel formats, as the helper's memfd holds them -------------------- */

#define COMMON_FIELDS                                                                              \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char formats_good[] =
    "== header_page header_page\n"
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"
    "== sched sched_switch\n"
    "name: sched_switch\nID: 316\nformat:\n" COMMON_FIELDS
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";

static const char formats_new[] =
    "== irq irq_handler_entry\n"
    "name: irq_handler_entry\nID: 120\nformat:\n" COMMON_FIELDS
    "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

static const char formats_bad[] = "garbage, not a format record\n";

static int
formats_memfd(enum fd_kind kind)
{
	const char *text = kind == FD_FORMATS_GOOD  ? formats_good
			   : kind == FD_FORMATS_NEW ? formats_new
			   : kind == FD_FORMATS_BAD ? formats_bad
						    : "";
	size_t len = strlen(text);
	int fd = memfd_create("fuzz-formats", MFD_CLOEXEC);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		FAIL("formats memfd: %s", strerror(errno));
	return fd;
}

static int
open_fd(enum fd_kind kind)
{
	int fd = kind == FD_EVENT  ? eventfd(0, EFD_CLOEXEC)
		 : kind == FD_NULL ? open("/dev/null", O_RDONLY | O_CLOEXEC)
				   : formats_memfd(kind);

	if (fd < 0)
		FAIL("cannot open a descriptor to send: %s", strerror(errno));
	return fd;
}

/* --- The relay, played -------------------------------------------------- */

/* The rules of a relay output, written again from tc-consumer-abi.h. */
static bool rule_relay_output(const struct tc_consumer_relay_output *relay);
static bool rule_relative(const char *path);

struct tc_consumerd_relay {
	struct tc_consumer_relay_output out;
	unsigned int streams;
	char address[CONSUMERD_RELAY_ADDRESS_MAX];
	unsigned int chunks;
};

static unsigned int relays_open;

int
tc_consumerd_relay_open(const struct tc_consumer_relay_output *output, uint64_t session_id,
			struct tc_consumerd_relay **result, char *error, size_t error_size)
{
	struct tc_consumerd_relay *relay;

	(void)session_id;
	if (!rule_relay_output(output))
		FAIL("the consumer opened a relay output that its checks must refuse");
	if (strcmp(output->host, "refused.example") == 0) {
		snprintf(error, error_size, "Cannot connect to the relay at %s: %s", output->host,
			 strerror(ECONNREFUSED));
		return -ECONNREFUSED;
	}
	relay = calloc(1, sizeof(*relay));
	if (!relay)
		FAIL("out of memory for a relay");
	relay->out = *output;
	snprintf(relay->address, sizeof(relay->address), "tcp://%s:%u/%u", output->host,
		 (unsigned)output->control_port, (unsigned)output->data_port);
	relays_open++;
	outcomes[RELAY_OPENED]++;
	*result = relay;
	return 0;
}

void
tc_consumerd_relay_close(struct tc_consumerd_relay *relay)
{
	if (!relay)
		return;
	relays_open--;
	free(relay);
}

int
tc_consumerd_relay_stream_add(struct tc_consumerd_relay *relay,
			      struct tc_consumerd_relay_stream *stream, const char *file_name,
			      const char *path, bool is_metadata)
{
	if (!rule_relative(path))
		FAIL("the relay was given the path \"%s\", not a relative path without \"..\"",
		     path);
	if (strlen(file_name) > RELAY_STREAM_NAME_MAX)
		return -ENAMETOOLONG;
	snprintf(stream->file_name, sizeof(stream->file_name), "%s", file_name);
	stream->path = path;
	stream->is_metadata = is_metadata;
	stream->added = true;
	relay->streams++;
	return 0;
}

void
tc_consumerd_relay_streams_sent(struct tc_consumerd_relay *relay)
{
	(void)relay;
}

void
tc_consumerd_relay_stream_remove(struct tc_consumerd_relay *relay,
				 struct tc_consumerd_relay_stream *stream)
{
	if (stream->added)
		relay->streams--;
	stream->added = false;
}

int
tc_consumerd_relay_send_packet(struct tc_consumerd_relay *relay,
			       struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
			       uint32_t size)
{
	(void)relay, (void)stream, (void)packet, (void)size;
	return 0;
}

/* An LTTng-UST packet sent: its index must describe what is sent. */
int
tc_consumerd_relay_send_packet_with_info(struct tc_consumerd_relay *relay,
					 struct tc_consumerd_relay_stream *stream,
					 const uint8_t *packet, uint32_t size,
					 const struct tc_consumerd_relay_packet_info *info)
{
	(void)relay, (void)packet;
	if (!stream->added || stream->is_metadata)
		FAIL("an LTTng-UST packet sent to a stream %s", stream->added ? "of metadata"
									       : "not added");
	if (info->packet_size != (uint64_t)size * 8 || info->content_size > info->packet_size ||
	    info->content_size == 0)
		FAIL("an LTTng-UST packet of %" PRIu32 " bytes sent with sizes %" PRIu64
		     "/%" PRIu64 " bits",
		     size, info->content_size, info->packet_size);
	return 0;
}

int
tc_consumerd_relay_send_metadata(struct tc_consumerd_relay *relay,
				 struct tc_consumerd_relay_stream *stream, const void *text,
				 size_t len)
{
	(void)relay, (void)stream, (void)text, (void)len;
	return 0;
}

void
tc_consumerd_relay_send_beacon(struct tc_consumerd_relay *relay,
			       struct tc_consumerd_relay_stream *stream, uint64_t ctf_stream_id,
			       uint64_t timestamp)
{
	(void)relay, (void)stream, (void)ctf_stream_id, (void)timestamp;
}

int
tc_consumerd_relay_chunk_rotate(struct tc_consumerd_relay *relay, uint32_t command, uint32_t steps,
				int64_t timestamp, char *path, size_t path_size)
{
	(void)timestamp;
	if (!(steps & (CONSUMERD_RELAY_CHUNK_BEGIN | CONSUMERD_RELAY_CHUNK_CLOSE)))
		FAIL("a relay rotation of no step");
	if (command == TC_CONSUMER_RELAY_CHUNK_DELETE &&
	    strcmp(relay->out.host, "noclear.example") == 0)
		return -EPERM;
	snprintf(path, path_size, "archives/chunk-%u", relay->chunks++);
	return 0;
}

bool
tc_consumerd_relay_is_up(struct tc_consumerd_relay *relay, uint64_t now)
{
	(void)relay, (void)now;
	return true;
}

void
tc_consumerd_relay_give_up_first_connection(struct tc_consumerd_relay *relay)
{
	(void)relay;
}

bool
tc_consumerd_relay_is_connecting(const struct tc_consumerd_relay *relay)
{
	(void)relay;
	return false;
}

int
tc_consumerd_relay_wait_received(struct tc_consumerd_relay *relay, int timeout_ms)
{
	(void)relay, (void)timeout_ms;
	return 0;
}

void
tc_consumerd_relay_set_give_up(struct tc_consumerd_relay *relay, uint64_t deadline)
{
	(void)relay, (void)deadline;
}

uint32_t
tc_consumerd_relay_live_timer_us(const struct tc_consumerd_relay *relay)
{
	return relay->out.live_timer_us;
}

void
tc_consumerd_relay_get_status(const struct tc_consumerd_relay *relay,
			      struct tc_consumerd_relay_status *status)
{
	memset(status, 0, sizeof(*status));
	status->up = true;
	snprintf(status->address, sizeof(status->address), "%s", relay->address);
}

/* The consumer's logs: formatted, so that what they print of a request
 * is read, but written out only when asked (every refusal logs). Replaces
 * common/util/tc-log-line.c. */
static bool log_is_shown;

void
tc_log_line_write(const char *prefix, const char *format, va_list args)
{
	char line[TC_LOG_LINE_MAX];

	vsnprintf(line, sizeof(line), format, args);
	if (log_is_shown)
		fprintf(stderr, "%s%s\n", prefix, line);
}

/* --- The ABI's rules, written again ------------------------------------ */

static bool
rule_terminated(const char *field, size_t size)
{
	return memchr(field, '\0', size) != NULL;
}

/* Absolute, no ".." component. */
static bool
rule_absolute(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *c = path; (c = strstr(c, "/..")) != NULL; c += 3)
		if (c[3] == '/' || c[3] == '\0')
			return false;
	return true;
}

/* Relative, not empty, no "", "." or ".." component, no control byte. */
static bool
rule_relative(const char *path)
{
	const char *part = path;

	if (path[0] == '\0' || path[0] == '/')
		return false;
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	for (;;) {
		size_t len = strcspn(part, "/");

		if (len == 0 || (len == 1 && part[0] == '.') ||
		    (len == 2 && part[0] == '.' && part[1] == '.'))
			return false;
		if (part[len] == '\0')
			return true;
		part += len + 1;
	}
}

/* A relay's name: a single relative component. */
static bool
rule_relay_name(const char *name, size_t size)
{
	return rule_terminated(name, size) && rule_relative(name) && !strchr(name, '/');
}

static bool
rule_timer(uint32_t us)
{
	return us == 0 || (us >= TC_CONSUMER_TIMER_MIN_US && us <= TC_CONSUMER_TIMER_MAX_US);
}

/* A string of 1 to max characters of alphabet, not starting with '-'. */
static bool
rule_ssh_name(const char *name, size_t max, const char *alphabet)
{
	size_t len = strlen(name);

	return len > 0 && len <= max && name[0] != '-' && strspn(name, alphabet) == len;
}

#define RULE_ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/* A relay reached through ssh: its host and login go on ssh's command
 * line, so nothing there may read as an option or a separator. */
static bool
rule_relay_ssh(const struct tc_consumer_relay_output *relay)
{
	if (!(relay->flags & TC_CONSUMER_RELAY_SSH))
		return true;
	return rule_terminated(relay->ssh_user, sizeof(relay->ssh_user)) &&
	       rule_ssh_name(relay->host, 253, RULE_ALNUM ".:-") &&
	       (relay->ssh_user[0] == '\0' || rule_ssh_name(relay->ssh_user, 32, RULE_ALNUM "._-"));
}

static bool
rule_relay_output(const struct tc_consumer_relay_output *relay)
{
	return rule_terminated(relay->host, sizeof(relay->host)) && relay->host[0] != '\0' &&
	       (relay->family == AF_UNSPEC || relay->family == AF_INET ||
		relay->family == AF_INET6) &&
	       relay->control_port != 0 && relay->data_port != 0 &&
	       rule_timer(relay->live_timer_us) &&
	       rule_relay_name(relay->hostname, sizeof(relay->hostname)) &&
	       rule_relay_name(relay->session_name, sizeof(relay->session_name)) &&
	       rule_relay_ssh(relay);
}

static bool
is_power_of_two(uint32_t value)
{
	return value != 0 && (value & (value - 1)) == 0;
}

static bool
rule_geometry(uint32_t subbuf_size, uint32_t num_subbuf)
{
	return is_power_of_two(subbuf_size) && is_power_of_two(num_subbuf) &&
	       subbuf_size >= TC_RB_SUBBUF_SIZE_MIN && subbuf_size <= TC_RB_SUBBUF_SIZE_MAX &&
	       num_subbuf >= TC_RB_NUM_SUBBUF_MIN && num_subbuf <= TC_RB_NUM_SUBBUF_MAX;
}

/* It becomes "<name>_<cpu>": not empty, not hidden, one component, no
 * control byte. */
static bool
rule_channel_name(const char *name)
{
	if (name[0] == '\0' || name[0] == '.')
		return false;
	for (const char *c = name; *c; c++)
		if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

static bool
rule_clock(const struct tc_consumer_clock *clock)
{
	return clock->freq >= TC_CONSUMER_CLOCK_FREQ_MIN &&
	       clock->freq <= TC_CONSUMER_CLOCK_FREQ_MAX && clock->offset_ticks < clock->freq &&
	       clock->tsc <= 1 && clock->pad == 0;
}

static bool
rule_layout(const struct tc_consumer_event_layout *msg)
{
	if (msg->event_id > TC_CONSUMER_EVENT_ID_MAX ||
	    msg->nr_fields > TC_CONSUMER_LAYOUT_FIELDS_MAX ||
	    msg->context_size > LAYOUT_CONTEXT_MAX)
		return false;
	for (uint32_t i = 0; i < msg->nr_fields; i++) {
		uint8_t kind = msg->fields[i];
		uint32_t size = msg->sizes[i];

		if (kind == TC_CONSUMER_FIELD_ARRAY) {
			if (size == 0 || size > TC_CONSUMER_FIELD_ARRAY_MAX)
				return false;
		} else if (kind == TC_CONSUMER_FIELD_SEQUENCE) {
			if (size != 1 && size != 2 && size != 4 && size != 8)
				return false;
		} else if ((!(kind >= 1 && kind <= 8) && kind != TC_CONSUMER_FIELD_STRING &&
			    kind != TC_CONSUMER_FIELD_BYTES) ||
			   size != 0) {
			return false;
		}
	}
	return true;
}

/* The exact size of a request type (a minimum with *has_payload), or 0
 * for a type the consumer does not take. */
static size_t
abi_size(uint32_t type, bool *has_payload)
{
	*has_payload = false;
	switch (type) {
	case TC_CONSUMER_CREATE_SESSION:
		return sizeof(struct tc_consumer_session);
	case TC_CONSUMER_CREATE_CHANNEL:
		return sizeof(struct tc_consumer_channel);
	case TC_CONSUMER_METADATA:
		*has_payload = true;
		return sizeof(struct tc_consumer_metadata);
	case TC_CONSUMER_FLUSH_SESSION:
	case TC_CONSUMER_DESTROY_SESSION:
	case TC_CONSUMER_KERNEL_STATS:
	case TC_CONSUMER_CLEAR:
	case TC_CONSUMER_CHUNK_SIZE:
	case TC_CONSUMER_RELAY_STATUS:
		return sizeof(struct tc_consumer_session_ref);
	case TC_CONSUMER_SNAPSHOT:
	case TC_CONSUMER_KERNEL_SNAPSHOT:
		return sizeof(struct tc_consumer_snapshot);
	case TC_CONSUMER_CHANNEL_STATS:
		return sizeof(struct tc_consumer_channel_ref);
	case TC_CONSUMER_EVENT_LAYOUT:
		return sizeof(struct tc_consumer_event_layout);
	case TC_CONSUMER_KERNEL_TRACE:
		return sizeof(struct tc_consumer_kernel_trace);
	case TC_CONSUMER_KERNEL_UPDATE:
		return sizeof(struct tc_consumer_kernel_update);
	case TC_CONSUMER_ROTATE:
		return sizeof(struct tc_consumer_rotate);
	case TC_CONSUMER_KERNEL_OWN:
		return sizeof(struct tc_consumer_kernel_own);
	case TC_CONSUMER_SNAPSHOT_RELAY:
	case TC_CONSUMER_KERNEL_SNAPSHOT_RELAY:
		return sizeof(struct tc_consumer_snapshot_relay);
	case TC_CONSUMER_RELAY_ROTATE:
		return sizeof(struct tc_consumer_relay_rotate);
	case TC_CONSUMER_SESSION_FILES:
		return sizeof(struct tc_consumer_session_files);
#if TC_CONSUMERD_HAVE_LTTNG
	case TC_CONSUMER_LTTNG_CHANNEL:
		return sizeof(struct tc_consumer_lttng_channel);
#endif
	default:
		return 0;
	}
}

/* --- The model's lookups ------------------------------------------------ */

static struct model_session *
model_find(struct conversation *c, uint64_t id)
{
	for (unsigned int i = 0; i < SLOTS; i++)
		if (c->sessions[i].exists && c->sessions[i].id == id)
			return &c->sessions[i];
	return NULL;
}

static const struct model_channel *
model_channel(const struct model_session *s, uint64_t id)
{
	for (unsigned int i = 0; i < s->n_channels; i++)
		if (s->channels[i].id == id)
			return &s->channels[i];
	return NULL;
}

static bool
model_has_lttng(const struct model_session *s, uint64_t id)
{
	for (unsigned int i = 0; i < s->n_lttng; i++)
		if (s->lttng_ids[i] == id)
			return true;
	return false;
}

/* The streams of an LTTng-UST channel: one per possible CPU. */
static uint32_t
lttng_nr_streams(void)
{
#if TC_CONSUMERD_HAVE_LTTNG
	int n = lttng_ust_ctl_get_nr_stream_per_channel();

	return n > 0 ? (uint32_t)n : 0;
#else
	return 0;
#endif
}

static const struct model_channel *
model_stream(const struct model_session *s, uint32_t stream_id)
{
	for (unsigned int i = 0; i < s->n_channels; i++)
		if (s->channels[i].stream_id == stream_id)
			return &s->channels[i];
	return NULL;
}

/* Streaming to a relay: the relay flag, and not a snapshot session. */
static bool
model_streams(const struct model_session *s)
{
	return s->relay_flag && !s->snapshot;
}

/* Writing files of its own: neither snapshot nor streaming. */
static bool
model_is_local(const struct model_session *s)
{
	return !s->snapshot && !s->relay_flag;
}

/* --- Building requests from the input ----------------------------------- */

static const uint64_t session_ids[4] = {1, 2, 3, 0};

static uint64_t
take_session_id(struct fuzz_input *in)
{
	return session_ids[fuzz_take_byte(in) & 3];
}

/* value, NUL-terminated, or when is_cut, value then the rest of the field
 * without a NUL: a reader that runs past the field sees a sound start. */
static void
fill_string(char *field, size_t size, const char *value, bool is_cut)
{
	if (!is_cut) {
		snprintf(field, size, "%s", value);
		return;
	}
	memset(field, 'u', size);
	memcpy(field, value, strlen(value) < size ? strlen(value) : size);
}

/* Under jail/: made there or found as each input makes it (full, f, ln). */
static const char *const jail_paths[16] = {
    "a",    "b",      "a/b",  "b/a", "c/k", "a/kernel", "snap/1", "snap/2",
    "arch", "arch/a", "full", "f",   "f/x", "ln",	"",	  "a/metadata",
};

/* An absolute path under jail/. The pick's bits 0-3 choose the path, 4-6
 * its variant: 0-3 as it is, 4 made relative, 5 with "/.." after it, 6
 * not terminated, 7 "//" or "/./" after jail. A rotation's target never
 * goes through the symbolic link: the consumer follows a user's links
 * inside a path (the user's own), and would write outside jail/. */
static void
build_absolute(char *field, size_t size, uint8_t pick, bool is_target)
{
	unsigned int index = pick & 15u, variant = (pick >> 4) & 7u;
	const char *rel = is_target && index == 13 ? "arch/ln" : jail_paths[index];
	char path[TC_CONSUMER_PATH_MAX];

	if (variant == 7)
		snprintf(path, sizeof(path), "%s%s/%s", jail, index & 1 ? "/" : "/.", rel);
	else
		snprintf(path, sizeof(path), "%s%s%s", jail, rel[0] ? "/" : "", rel);
	if (variant == 4)
		memmove(path, path + 1, strlen(path));
	if (variant == 5)
		strcat(path, "/..");
	fill_string(field, size, path, variant == 6);
}

static const char *const relative_paths[16] = {
    "ust/uid/1000/64-bit",
    "kernel",
    "snapshot-1/ust",
    "a",
    "ust",
    "b/c",
    "x",
    "ust/pid/app-1",
    "snapshot-2",
    "kernel/x",
    "k",
    "a/b/c/d",
    "archive",
    "s",
    "t/u",
    "v",
};
static const char *const bad_relative_paths[4] = {"", "a//b", "./a", "a\001b"};

/* A relative path, as a relay files it. Variants as above: 4 made
 * absolute (under jail/, as every absolute path the harness sends), 5
 * "../" before it, 6 not terminated, 7 empty, with an empty or "."
 * component, or a control byte. */
static void
build_relative(char *field, size_t size, uint8_t pick)
{
	unsigned int index = pick & 15u, variant = (pick >> 4) & 7u;
	char path[TC_CONSUMER_PATH_MAX];

	if (variant == 4)
		snprintf(path, sizeof(path), "%s/%s", jail, relative_paths[index]);
	else if (variant == 5)
		snprintf(path, sizeof(path), "../%s", relative_paths[index]);
	else if (variant == 7)
		snprintf(path, sizeof(path), "%s", bad_relative_paths[index & 3]);
	else
		snprintf(path, sizeof(path), "%s", relative_paths[index]);
	fill_string(field, size, path, variant == 6);
}

/* A path of the field's kind, or of the other kind when bit 7 says so. */
static void
build_path(struct fuzz_input *in, char *field, size_t size, bool is_relative, bool is_target)
{
	uint8_t pick = fuzz_take_byte(in);

	if (is_relative != ((pick & 0x80) != 0))
		build_relative(field, size, pick);
	else
		build_absolute(field, size, pick, is_target);
}

static const char *const relay_hosts[8] = {
    "relay.example", "refused.example", "noclear.example", "127.0.0.1", "::1", "",
    "relay.example", "h/../x",
};
static const char *const relay_hostnames[8] = {
    "host", "my-host.example", "", "..", "a/b", ".", "host", "a\001",
};
static const char *const relay_session_names[8] = {
    "s1", "auto-session", "", "..", "x/y", ".", "s1", "s\177",
};
static const uint32_t relay_families[4] = {AF_UNSPEC, AF_INET, AF_INET6, 7};
/* net+ssh:// logins: none (the configuration's), good ones, an option, a
 * separator, the longest and one too long; the seventh is cut. */
static const char *const relay_ssh_users[8] = {
    "", "tracer", "-oProxyCommand=x", "a@b", "u.v-w_x", "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu",
    "tracer", "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu",
};
static const uint32_t live_timers[8] = {
    0,
    0,
    0,
    TC_CONSUMER_TIMER_MIN_US,
    TC_CONSUMER_TIMER_MAX_US,
    TC_CONSUMER_TIMER_MIN_US - 1u,
    TC_CONSUMER_TIMER_MAX_US + 1u,
    2000000,
};

/* Three bytes: host, family, ports and connect-later; host and session
 * names; live timer, and whether through ssh, its login and port. The
 * seventh of each name is cut. */
static void
build_relay(struct fuzz_input *in, struct tc_consumer_relay_output *relay)
{
	uint8_t a = fuzz_take_byte(in), b = fuzz_take_byte(in), t = fuzz_take_byte(in);

	fill_string(relay->host, sizeof(relay->host), relay_hosts[a & 7u], (a & 7u) == 6);
	relay->family = relay_families[(a >> 3) & 3u];
	relay->control_port = a & 0x20 ? 0 : 5342;
	relay->data_port = a & 0x40 ? 0 : 5343;
	relay->flags = a & 0x80 ? TC_CONSUMER_RELAY_CONNECT_LATER : 0;
	fill_string(relay->hostname, sizeof(relay->hostname), relay_hostnames[b & 7u],
		    (b & 7u) == 6);
	fill_string(relay->session_name, sizeof(relay->session_name),
		    relay_session_names[(b >> 3) & 7u], ((b >> 3) & 7u) == 6);
	relay->live_timer_us = live_timers[t & 7u];
	relay->creation_time = 1700000000;
	if (t & 0x08) {
		relay->flags |= TC_CONSUMER_RELAY_SSH;
		fill_string(relay->ssh_user, sizeof(relay->ssh_user),
			    relay_ssh_users[(t >> 4) & 7u], ((t >> 4) & 7u) == 6);
		relay->ssh_port = t & 0x80 ? 2222 : 0;
	}
}

/* The session's kind as the harness knows it: where its paths are. */
static bool
streams_of(const struct conversation *c, uint64_t session_id)
{
	const struct model_session *s = model_find((struct conversation *)c, session_id);

	return s && model_streams(s);
}

static void
need_fd(struct built *b, enum fd_kind kind)
{
	if (b->nr_fds < FDS_MAX)
		b->fd_kinds[b->nr_fds++] = kind;
}

static size_t
build_create_session(struct fuzz_input *in)
{
	struct tc_consumer_session *m = (void *)out.bytes;
	uint8_t flags;

	m->header.type = TC_CONSUMER_CREATE_SESSION;
	m->session_id = take_session_id(in);
	flags = fuzz_take_byte(in);
	m->flags = (flags & 1 ? TC_CONSUMER_SESSION_SNAPSHOT : 0) |
		   (flags & 2 ? TC_CONSUMER_SESSION_RELAY : 0) | (flags & 4 ? 0x4u : 0);
	build_path(in, m->trace_dir, sizeof(m->trace_dir), flags & 2, false);
	if (flags & (2 | 8))
		build_relay(in, &m->relay);
	return sizeof(*m);
}

/* Names: good ones, hidden, empty, with '/' or control bytes, cut, and
 * the lengths around a file name's 255 bytes and the relay's bound. */
static void
build_channel_name(char *field, size_t size, uint8_t pick)
{
	static const char *const names[16] = {
	    "chan",  "ust",   "metadata",	   "a_1",  ".hidden", "",   "a/b",
	    "x\037", "x\177", "\303\251t\303\251", "chan", NULL,      NULL, NULL,
	    "chan",  NULL,
	};
	static const unsigned int lengths[16] = {[11] = 255, [12] = 253, [13] = 241, [15] = 242};

	if (lengths[pick & 15u]) {
		memset(field, 'n', lengths[pick & 15u]);
		field[lengths[pick & 15u]] = '\0';
		return;
	}
	fill_string(field, size, names[pick & 15u], (pick & 15u) == 14);
}

static uint32_t
timer_of(unsigned int pick, bool is_high)
{
	static const uint32_t timers[4] = {0, TC_CONSUMER_TIMER_MIN_US, TC_CONSUMER_TIMER_MAX_US};

	if ((pick & 3u) == 3u)
		return is_high ? TC_CONSUMER_TIMER_MAX_US + 1u : TC_CONSUMER_TIMER_MIN_US - 1u;
	return timers[pick & 3u];
}

static size_t
build_create_channel(struct fuzz_input *in)
{
	static const uint32_t cpus[8] = {1, 2, 3, 4, 0, CHANNEL_CPUS_MAX + 1, UINT32_MAX, 1};
	static const uint32_t geometries[16][2] = {
	    {4096, 2}, {4096, 4}, {8192, 2},	   {16384, 2},	  {4096, 2}, {8192, 4},
	    {4096, 8}, {4096, 2}, {4096, 1},	   {4096, 3},	  {2048, 2}, {4096, 2048},
	    {6144, 2}, {0, 0},	  {128u << 20, 2}, {1u << 31, 4},
	};
	static const uint32_t flags[4] = {0, TC_CONSUMER_CHANNEL_CLOCK_TSC,
					  TC_CONSUMER_CHANNEL_OWNER_WRITERS,
					  TC_CONSUMER_CHANNEL_FLAGS};
	struct tc_consumer_channel *m = (void *)out.bytes;
	uint8_t ids, g, f, t;

	m->header.type = TC_CONSUMER_CREATE_CHANNEL;
	m->session_id = take_session_id(in);
	ids = fuzz_take_byte(in);
	m->channel_id = 1 + (ids & 3u);
	m->stream_id = 1 + ((ids >> 2) & 3u);
	build_channel_name(m->name, sizeof(m->name), fuzz_take_byte(in));
	m->nr_cpus = cpus[fuzz_take_byte(in) & 7u];
	g = fuzz_take_byte(in);
	m->geometry.subbuf_size = geometries[g & 15u][0];
	m->geometry.num_subbuf = geometries[g & 15u][1];
	m->geometry.overwrite = (g >> 4) & 3u; /* 2 and 3 are refused */
	f = fuzz_take_byte(in);
	m->flags = flags[f & 3u] | (f & 4 ? 0x1u : 0) | (f & 8 ? 0x80000000u : 0);
	t = fuzz_take_byte(in);
	m->geometry.switch_timer_us = timer_of(t, t & 0x40);
	m->geometry.read_timer_us = timer_of(t >> 2, t & 0x40);
	m->geometry.monitor_timer_us = timer_of(t >> 4, t & 0x80);
	memset(m->uuid, (int)m->session_id + 1, sizeof(m->uuid));
	return sizeof(*m);
}

/* Geometries: small accepted ones, every bound of the consumer's from
 * both sides, and sizes liblttng-ust-ctl refuses (see the top). */
static const uint32_t lttng_geometries[16][2] = {
    {4096, 2},	     {4096, 4}, {8192, 2},	      {16384, 1},
    {4096, 1024},    {4095, 2}, {4096, 1},	      {4096, 1025},
    {(64u << 20) + 1, 2}, {64u << 20, 1}, {6144, 2},	      {4096, 3},
    {2048, 4},	     {0, 0},	{UINT32_MAX, UINT32_MAX}, {8192, 4},
};

static size_t
build_lttng_channel(struct fuzz_input *in)
{
	static const uint32_t chan_ids[4] = {0, 1, 7, UINT32_MAX};
	struct tc_consumer_lttng_channel *m = (void *)out.bytes;
	uint8_t ids, g, t;

	m->header.type = TC_CONSUMER_LTTNG_CHANNEL;
	m->session_id = take_session_id(in);
	ids = fuzz_take_byte(in);
	m->channel_id = ids & 3u; /* tracectld names its one channel 0 */
	m->chan_id = chan_ids[(ids >> 2) & 3u];
	m->reserved = ids & 0x10 ? 0xffffffffu : 0;
	build_channel_name(m->name, sizeof(m->name), fuzz_take_byte(in));
	g = fuzz_take_byte(in);
	m->geometry.subbuf_size = lttng_geometries[g & 15u][0];
	m->geometry.num_subbuf = lttng_geometries[g & 15u][1];
	m->geometry.overwrite = (g >> 4) & 3u; /* any value but 0 is overwrite */
	t = fuzz_take_byte(in);
	/* Its timers are the consumer's to run (it polls): any value goes. */
	m->geometry.switch_timer_us = timer_of(t, t & 0x40);
	m->geometry.read_timer_us = timer_of(t >> 2, t & 0x40);
	m->geometry.monitor_timer_us = timer_of(t >> 4, t & 0x80);
	memset(m->uuid, (int)m->session_id + 0x11, sizeof(m->uuid));
	return sizeof(*m);
}

static size_t
build_metadata(struct fuzz_input *in)
{
	struct tc_consumer_metadata *m = (void *)out.bytes;
	uint8_t *text = out.bytes + sizeof(*m);
	unsigned int n;

	m->header.type = TC_CONSUMER_METADATA;
	m->session_id = take_session_id(in);
	n = fuzz_take_byte(in);
	for (unsigned int i = 0; i < n; i++)
		text[i] = fuzz_take_byte(in);
	return sizeof(*m) + n;
}

static size_t
build_session_ref(struct fuzz_input *in, uint32_t type)
{
	struct tc_consumer_session_ref *m = (void *)out.bytes;

	m->header.type = type;
	m->session_id = take_session_id(in);
	return sizeof(*m);
}

static const uint64_t max_stream_bytes[4] = {0, 4096, 1u << 20, UINT64_MAX};

static size_t
build_snapshot(struct fuzz_input *in)
{
	struct tc_consumer_snapshot *m = (void *)out.bytes;

	m->header.type = TC_CONSUMER_SNAPSHOT;
	m->session_id = take_session_id(in);
	m->max_stream_bytes = max_stream_bytes[fuzz_take_byte(in) & 3u];
	build_path(in, m->dir, sizeof(m->dir), false, false);
	return sizeof(*m);
}

static size_t
build_channel_stats(struct fuzz_input *in)
{
	struct tc_consumer_channel_ref *m = (void *)out.bytes;
	uint8_t pick;

	m->header.type = TC_CONSUMER_CHANNEL_STATS;
	m->session_id = take_session_id(in);
	pick = fuzz_take_byte(in);
	m->channel_id = pick & 0x80 ? 0xdeadbeef : 1 + (pick & 3u);
	return sizeof(*m);
}

static size_t
build_event_layout(struct fuzz_input *in)
{
	static const uint32_t event_ids[4] = {TC_CONSUMER_EVENT_ID_MAX,
					      TC_CONSUMER_EVENT_ID_MAX + 1, UINT32_MAX, 1000};
	static const uint32_t context_sizes[4] = {0, 8, LAYOUT_CONTEXT_MAX, LAYOUT_CONTEXT_MAX + 1};
	static const uint8_t kinds[16] = {
	    1, 2, 4,	8, 3, TC_CONSUMER_FIELD_ARRAY,   6, TC_CONSUMER_FIELD_SEQUENCE,
	    TC_CONSUMER_FIELD_STRING, TC_CONSUMER_FIELD_BYTES, 0, 9, 0xfb, 1, 4, 0xff};
	/* An array's bytes, a sequence's element's, and sizes no kind takes. */
	static const uint32_t sizes[8] = {0, 1, 2, 8, 3, TC_CONSUMER_FIELD_ARRAY_MAX,
					  TC_CONSUMER_FIELD_ARRAY_MAX + 1, UINT32_MAX};
	struct tc_consumer_event_layout *m = (void *)out.bytes;
	uint8_t event;

	m->header.type = TC_CONSUMER_EVENT_LAYOUT;
	m->session_id = take_session_id(in);
	m->stream_id = 1 + (fuzz_take_byte(in) & 3u);
	event = fuzz_take_byte(in);
	m->event_id = event < 0xf0 ? event : event_ids[event & 3u];
	m->context_size = context_sizes[fuzz_take_byte(in) & 3u];
	m->nr_fields = fuzz_take_byte(in) % 40u;
	for (uint32_t i = 0; i < m->nr_fields && i < TC_CONSUMER_LAYOUT_FIELDS_MAX; i++) {
		uint8_t pick = fuzz_take_byte(in);

		m->fields[i] = kinds[pick & 15u];
		/* Mostly the size the kind takes, sometimes another. */
		if (pick >> 4 == 15)
			m->sizes[i] = sizes[fuzz_take_byte(in) & 7u];
		else if (m->fields[i] == TC_CONSUMER_FIELD_ARRAY)
			m->sizes[i] = 1 + (pick >> 4) * 100u;
		else if (m->fields[i] == TC_CONSUMER_FIELD_SEQUENCE)
			m->sizes[i] = 1u << (pick >> 4 & 3u);
	}
	return sizeof(*m);
}

/* Its descriptors, in the ABI's order: a trace_pipe_raw per CPU, then
 * the stats files, the formats, saved_tgids. */
static size_t
build_kernel_trace(const struct conversation *c, struct fuzz_input *in, struct built *b,
		   enum fd_kind formats)
{
	static const uint32_t cpus[8] = {1, 2, 3, 251, 0, 125, 126, 252};
	static const uint64_t freqs[8] = {
	    1000000000ull,
	    TC_CONSUMER_CLOCK_FREQ_MIN,
	    TC_CONSUMER_CLOCK_FREQ_MAX,
	    TC_CONSUMER_CLOCK_FREQ_MIN - 1,
	    TC_CONSUMER_CLOCK_FREQ_MAX + 1,
	    0,
	    2400000000ull,
	    1000000000ull,
	};
	/* A snapshot session's flight recorder geometry: 0 x 0 elsewhere,
	 * the bounds of TC_CONSUMER_KERNEL_FLIGHT_* and past them. */
	static const uint32_t subbufs[4] = {0, TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MIN, 65536,
					    TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MIN - 1};
	static const uint32_t nums[4] = {0, 1, 4, 1u << 20};
	struct tc_consumer_kernel_trace *m = (void *)out.bytes;
	uint8_t contexts, more, clock, geometry;
	uint64_t offsets[4];

	m->header.type = TC_CONSUMER_KERNEL_TRACE;
	m->session_id = take_session_id(in);
	contexts = fuzz_take_byte(in);
	more = fuzz_take_byte(in);
	m->flags = (contexts & 0xfu) | ((uint32_t)(contexts >> 4) << 8) |
		   (more & 1 ? TC_CONSUMER_KSTATS : 0) | (more & 2 ? 0x1000u : 0) |
		   (more & 4 ? 0x80000000u : 0);
	m->nr_cpus = cpus[(more >> 3) & 7u];
	clock = fuzz_take_byte(in);
	m->clock.freq = freqs[clock & 7u];
	offsets[0] = 0;
	offsets[1] = m->clock.freq - 1;
	offsets[2] = m->clock.freq;
	offsets[3] = 12345;
	m->clock.offset_ticks = offsets[(clock >> 3) & 3u];
	m->clock.offset_s = 1700000000;
	m->clock.tsc = (clock >> 5) & 3u;
	m->clock.pad = clock >> 7;
	memset(m->uuid, 0x6b, sizeof(m->uuid));
	geometry = fuzz_take_byte(in);
	m->flight_subbuf_size = subbufs[geometry & 3u];
	m->flight_num_subbuf = nums[(geometry >> 2) & 3u];
	build_path(in, m->dir, sizeof(m->dir), streams_of(c, m->session_id), false);
	for (uint32_t i = 0; i < m->nr_cpus; i++)
		need_fd(b, FD_NULL);
	for (uint32_t i = 0; (m->flags & TC_CONSUMER_KSTATS) && i < m->nr_cpus; i++)
		need_fd(b, FD_NULL);
	need_fd(b, formats);
	if (m->flags & TC_CONSUMER_KCTX_PID)
		need_fd(b, FD_NULL);
	return sizeof(*m);
}

static size_t
build_kernel_update(struct fuzz_input *in, struct built *b)
{
	static const enum fd_kind formats[4] = {FD_NULL, FD_FORMATS_NEW, FD_FORMATS_GOOD,
						FD_FORMATS_BAD};
	struct tc_consumer_kernel_update *m = (void *)out.bytes;
	uint8_t pick;

	m->header.type = TC_CONSUMER_KERNEL_UPDATE;
	m->session_id = take_session_id(in);
	pick = fuzz_take_byte(in);
	m->flags = ((uint32_t)(pick & 0xfu) << 8) | (pick & 0x10 ? TC_CONSUMER_KCTX_PID : 0) |
		   (pick & 0x20 ? TC_CONSUMER_KSTATS : 0);
	if (pick >> 6)
		need_fd(b, formats[pick >> 6]);
	return sizeof(*m);
}

static size_t
build_rotate(struct fuzz_input *in)
{
	struct tc_consumer_rotate *m = (void *)out.bytes;

	m->header.type = TC_CONSUMER_ROTATE;
	m->session_id = take_session_id(in);
	build_path(in, m->from_root, sizeof(m->from_root), false, false);
	build_path(in, m->to_root, sizeof(m->to_root), false, true);
	return sizeof(*m);
}

static size_t
build_kernel_own(struct fuzz_input *in, struct built *b)
{
	struct tc_consumer_kernel_own *m = (void *)out.bytes;

	m->header.type = TC_CONSUMER_KERNEL_OWN;
	m->session_id = take_session_id(in);
	memset(m->uuid, 0x6f, sizeof(m->uuid));
	build_path(in, m->dir, sizeof(m->dir), false, false);
	need_fd(b, FD_EVENT);
	return sizeof(*m);
}

static size_t
build_snapshot_relay(struct fuzz_input *in)
{
	struct tc_consumer_snapshot_relay *m = (void *)out.bytes;

	m->header.type = TC_CONSUMER_SNAPSHOT_RELAY;
	m->session_id = take_session_id(in);
	m->max_stream_bytes = max_stream_bytes[fuzz_take_byte(in) & 3u];
	build_relay(in, &m->relay);
	build_path(in, m->trace_path, sizeof(m->trace_path), true, false);
	return sizeof(*m);
}

static size_t
build_relay_rotate(struct fuzz_input *in)
{
	static const uint32_t commands[4] = {TC_CONSUMER_RELAY_CHUNK_ARCHIVE,
					     TC_CONSUMER_RELAY_CHUNK_DELETE, 1, 3};
	struct tc_consumer_relay_rotate *m = (void *)out.bytes;
	uint8_t pick;

	m->header.type = TC_CONSUMER_RELAY_ROTATE;
	m->session_id = take_session_id(in);
	pick = fuzz_take_byte(in);
	m->close_command = commands[pick & 3u];
	m->flags = ((pick >> 2) & 7u) | (pick & 0x20 ? 0x100u : 0);
	m->timestamp = pick & 0x40 ? 1700000000 : 0;
	return sizeof(*m);
}

static const uint32_t max_files[8] = {
    1, 2, 3, 7, TC_CONSUMER_SESSION_FILES_MAX, 0, TC_CONSUMER_SESSION_FILES_MAX + 1, 5};
static const uint32_t max_file_bytes[8] = {
    TC_CONSUMER_SESSION_FILE_BYTES_MAX,
    100,
    21,
    20,
    0,
    TC_CONSUMER_SESSION_FILE_BYTES_MAX + 1,
    BIG_FILE_BYTES,
    BIG_FILE_BYTES - 1,
};

static size_t
build_session_files(struct fuzz_input *in)
{
	struct tc_consumer_session_files *m = (void *)out.bytes;
	const struct home_case *home = &home_cases[fuzz_take_byte(in) & 15u];
	uint8_t bounds = fuzz_take_byte(in);
	char path[TC_CONSUMER_PATH_MAX];

	m->header.type = TC_CONSUMER_SESSION_FILES;
	m->max_files = max_files[bounds & 7u];
	m->max_file_bytes = max_file_bytes[(bounds >> 3) & 7u];
	snprintf(path, sizeof(path), "%s%s%s", home->relative ? "" : root,
		 home->relative ? "" : "/", home->path);
	fill_string(m->home, sizeof(m->home), path, home == &home_cases[11]);
	return sizeof(*m);
}

static size_t
build_raw(struct fuzz_input *in)
{
	unsigned int n;

	out.header.type = fuzz_take_byte(in);
	n = fuzz_take_byte(in);
	for (unsigned int i = 0; i < n; i++)
		out.bytes[sizeof(out.header) + i] = fuzz_take_byte(in);
	return sizeof(out.header) + n;
}

static size_t
build_body(const struct conversation *c, struct fuzz_input *in, struct built *b, uint8_t fds)
{
	static const enum fd_kind formats[4] = {FD_FORMATS_GOOD, FD_FORMATS_BAD, FD_FORMATS_EMPTY,
						FD_FORMATS_GOOD};
	size_t len;

	switch (b->kind) {
	case K_CREATE_SESSION:
		return build_create_session(in);
	case K_CREATE_CHANNEL:
		return build_create_channel(in);
	case K_METADATA:
		return build_metadata(in);
	case K_FLUSH:
		return build_session_ref(in, TC_CONSUMER_FLUSH_SESSION);
	case K_DESTROY:
		return build_session_ref(in, TC_CONSUMER_DESTROY_SESSION);
	case K_SNAPSHOT:
		return build_snapshot(in);
	case K_CHANNEL_STATS:
		return build_channel_stats(in);
	case K_EVENT_LAYOUT:
		return build_event_layout(in);
	case K_KERNEL_TRACE:
		return build_kernel_trace(c, in, b, formats[(fds >> 4) & 3u]);
	case K_KERNEL_UPDATE:
		return build_kernel_update(in, b);
	case K_KERNEL_STATS:
		return build_session_ref(in, TC_CONSUMER_KERNEL_STATS);
	case K_ROTATE:
		return build_rotate(in);
	case K_CLEAR:
		return build_session_ref(in, TC_CONSUMER_CLEAR);
	case K_CHUNK_SIZE:
		return build_session_ref(in, TC_CONSUMER_CHUNK_SIZE);
	case K_RELAY_STATUS:
		return build_session_ref(in, TC_CONSUMER_RELAY_STATUS);
	case K_KERNEL_OWN:
		return build_kernel_own(in, b);
	case K_SNAPSHOT_RELAY:
		return build_snapshot_relay(in);
	case K_RELAY_ROTATE:
		return build_relay_rotate(in);
	case K_SESSION_FILES:
		return build_session_files(in);
	case K_RAW:
		return build_raw(in);
	case K_LTTNG_CHANNEL:
		return build_lttng_channel(in);
	case K_KERNEL_SNAPSHOT:
		/* The user-space snapshot's message, another type. */
		len = build_snapshot(in);
		((struct tc_consumer_header *)out.bytes)->type = TC_CONSUMER_KERNEL_SNAPSHOT;
		return len;
	case K_KERNEL_SNAPSHOT_RELAY:
		len = build_snapshot_relay(in);
		((struct tc_consumer_header *)out.bytes)->type = TC_CONSUMER_KERNEL_SNAPSHOT_RELAY;
		return len;
	default:
		return 0;
	}
}

/* The framing changed as the twist byte says: 1 a bit of the magic, 2
 * the size field off, 3 cut, 4 grown with zeros, 5 another type, 6 longer
 * than the consumer reads, 7 cut inside the header. */
static void
twist(struct built *b, uint8_t t)
{
	int8_t off = (int8_t)t >> 3;
	size_t by = 1 + (t >> 3);

	switch (t & 7u) {
	case 1:
		out.header.magic ^= 1u << ((t >> 3) & 31u);
		break;
	case 2:
		out.header.size += off ? (uint32_t)(int32_t)off : 1u;
		break;
	case 3:
		b->len = b->len > sizeof(out.header) + by ? b->len - by : sizeof(out.header);
		out.header.size = (uint32_t)b->len;
		break;
	case 4:
		b->len += by;
		out.header.size = (uint32_t)b->len;
		break;
	case 5:
		out.header.type = t >> 3;
		break;
	case 6:
		b->len = TC_CONSUMER_MSG_MAX + by;
		out.header.size = (uint32_t)b->len;
		break;
	case 7:
		b->len = 1 + (t >> 4) % 15u;
		break;
	default:
		break;
	}
}

/* The descriptors changed as the fds byte says: bits 0-1 extra eventfds,
 * 2-3 the ones the type takes: as they are, one fewer, one more, none. */
static void
change_fds(struct built *b, uint8_t fds)
{
	switch ((fds >> 2) & 3u) {
	case 1:
		if (b->nr_fds > 0)
			b->nr_fds--;
		break;
	case 2:
		need_fd(b, FD_NULL);
		break;
	case 3:
		b->nr_fds = 0;
		break;
	default:
		break;
	}
	for (unsigned int i = 0; i < (fds & 3u); i++)
		need_fd(b, FD_EVENT);
}

/* The next request, its bytes in out. */
static void
build_request(struct conversation *c, struct fuzz_input *in, struct built *b)
{
	/* Only what the last request wrote is cleared: out is 64 KiB. */
	static size_t dirty = sizeof(out.bytes);
	uint8_t head = fuzz_take_byte(in);
	uint8_t t = head & FLAG_TWIST ? fuzz_take_byte(in) : 0;
	uint8_t fds = head & FLAG_FDS ? fuzz_take_byte(in) : 0;
	uint32_t id = head & FLAG_ID ? fuzz_take_u32(in) : c->id_base + c->sent + 1;

	memset(out.bytes, 0, dirty);
	b->kind = (enum kind)((head & KIND_MASK) % KINDS);
	b->nr_fds = 0;
	b->len = build_body(c, in, b, fds);
	dirty = b->len;
	out.header.magic = TC_CONSUMER_MAGIC;
	out.header.size = (uint32_t)b->len;
	out.header.request_id = id;
	if (b->kind != K_EMPTY)
		twist(b, t);
	if (b->len > dirty && b->len <= sizeof(out.bytes))
		dirty = b->len;
	change_fds(b, fds);
	c->sent++;
}

/* --- What the consumer must make of a request ---------------------------- */

enum stage {
	STAGE_LINK_END, /* an empty datagram: the end of the link */
	STAGE_HEADER,	/* refused by its framing */
	STAGE_SIZE,	/* of the wrong size for its type */
	STAGE_ROUTE,	/* a session that exists already, or none */
	STAGE_CHECK,	/* refused by a check of its fields */
	STAGE_WORK,	/* checked: the work's own outcome */
};

enum fs_rule {
	FS_UNCHANGED,
	FS_EXACT, /* the files before, and added */
	FS_ANY,	  /* anything under jail/ (a rotation) */
};

struct expectation {
	enum stage stage;
	uint32_t type;
	uint32_t reply_id;
	int status, status_alt; /* the errno expected, or either */
	bool any_status;	/* the work's outcome is checked afterwards */
	enum tc_consumerd_request_kind kind;
	uint64_t session_id;
	struct model_session *session;
	const struct model_channel *channel;
	int lttng_channel; /* CHANNEL_STATS of an LTTng-UST channel: its index; -1 */
	const struct home_case *home;
	enum fs_rule fs;
	struct listing *added;
	int fds_kept; /* by the consumer when served; -1: any */
	/* Packets a served request reports: a snapshot's of the LTTng-UST
	 * channels' first sub-buffer, whose header liblttng-ust-ctl writes
	 * when it makes the buffer (one per stream the bound lets in). */
	uint64_t packets;
};

static void
refuse(struct expectation *e, enum stage stage, int status)
{
	e->stage = stage;
	e->status = e->status_alt = status;
}

/* Two checks failed: either errno will do. */
static void
refuse_either(struct expectation *e, bool is_invalid, bool is_taken)
{
	e->stage = STAGE_CHECK;
	e->status = is_invalid ? -EINVAL : -EEXIST;
	e->status_alt = is_taken ? -EEXIST : -EINVAL;
}

static void
work(struct expectation *e, int status)
{
	e->stage = STAGE_WORK;
	e->status = e->status_alt = status;
	if (status != 0)
		e->added->count = 0;
	e->fs = status == 0 && e->added->count ? FS_EXACT : FS_UNCHANGED;
}

/* A request whose outcome depends on where a rotation left the files:
 * the consumer's status is taken, and checked against what follows. */
static void
work_unknown(struct expectation *e)
{
	e->stage = STAGE_WORK;
	e->any_status = true;
	e->fs = FS_ANY;
	e->fds_kept = -1;
}

static void
note_entry(int dir_fd, const char *name, char type, void *data)
{
	(void)dir_fd, (void)name, (void)type;
	*(bool *)data = false;
}

static bool
dir_is_empty(const char *path)
{
	bool is_empty = true;

	dir_each(AT_FDCWD, path, note_entry, &is_empty);
	return is_empty;
}

/* The key of path, which the harness only ever builds under jail/. */
static const char *
jail_key(const char *path, char *buf)
{
	const char *key = path_key(path, buf);

	if (!key || !key_is_in_jail(key))
		FAIL("the harness built a path outside its directory: %s", path);
	return key;
}

/* What tc_consumerd_output_open_dir(path) does, as tc-consumerd-output.h
 * says: the missing parents and the directory are made (0700), an
 * existing empty directory is taken; a non-empty one, one that is no
 * directory, a symbolic link at the end or a parent that is no directory
 * are refused. What it makes goes to added; returns 0 or the errno. */
static int
expect_open_dir(const char *path, struct listing *added)
{
	char norm[KEY_MAX], prefix[KEY_MAX];
	bool is_missing = false;
	size_t len;
	struct stat st;

	jail_key(path, norm);
	len = strlen(norm);
	for (size_t i = root_len + 1; i <= len; i++) {
		if (i < len && norm[i] != '/')
			continue;
		memcpy(prefix, norm, i);
		prefix[i] = '\0';
		if (!is_missing && lstat(prefix, &st) < 0) {
			if (errno != ENOENT)
				FAIL("lstat %s: %s", prefix, strerror(errno));
			is_missing = true;
		}
		if (is_missing) {
			listing_add(added, prefix + root_len + 1, 'd');
			continue;
		}
		if (i < len && (stat(prefix, &st) < 0 || !S_ISDIR(st.st_mode)))
			return -ENOTDIR;
		if (i < len)
			continue;
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		return dir_is_empty(prefix) ? 0 : -ENOTEMPTY;
	}
	return 0;
}

/* A new file in the directory dir, which the request may have made:
 * refused when it exists, or was made by this request already. */
static int
expect_new_file(const char *dir, const char *name, struct listing *added)
{
	char norm[KEY_MAX], path[KEY_MAX + FILE_NAME_MAX + 2], file[KEY_MAX];
	struct stat st;

	jail_key(dir, norm);
	snprintf(path, sizeof(path), "%s/%s", norm, name);
	snprintf(file, sizeof(file), "%s\tf", path + root_len + 1);
	for (size_t i = 0; i < added->count; i++)
		if (strcmp(added->keys[i], file) == 0)
			return -EEXIST;
	if (lstat(path, &st) == 0)
		return -EEXIST;
	listing_add(added, path + root_len + 1, 'f');
	return 0;
}

static void
expect_create_session(struct expectation *e)
{
	const struct tc_consumer_session *m = (const void *)out.bytes;
	bool is_relay = m->flags & TC_CONSUMER_SESSION_RELAY;
	int status;

	if (!rule_terminated(m->trace_dir, sizeof(m->trace_dir)) ||
	    !(is_relay ? rule_relative(m->trace_dir) && rule_relay_output(&m->relay)
		       : rule_absolute(m->trace_dir)) ||
	    (m->flags & ~(TC_CONSUMER_SESSION_SNAPSHOT | TC_CONSUMER_SESSION_RELAY)))
		return refuse(e, STAGE_CHECK, -EINVAL);
	e->fds_kept = 1; /* the metadata in memory */
	if (m->flags & TC_CONSUMER_SESSION_SNAPSHOT)
		return work(e, 0);
	if (is_relay)
		return work(e, strcmp(m->relay.host, "refused.example") == 0 ? -ECONNREFUSED : 0);
	e->fds_kept = 2; /* the directory and its metadata file */
	status = expect_open_dir(m->trace_dir, e->added);
	if (status == 0)
		status = expect_new_file(m->trace_dir, "metadata", e->added);
	work(e, status);
}

/* The stream files "<name>_<cpu>" of a channel, or its relay streams. */
static int
expect_stream_files(const struct model_session *s, const char *name, uint32_t nr_cpus,
		    const char *dir, struct listing *added)
{
	char file[FILE_NAME_MAX + 32];
	int status;

	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		size_t len = (size_t)snprintf(file, sizeof(file), "%s_%" PRIu32, name, cpu);

		if (len > FILE_NAME_MAX || (model_streams(s) && len > RELAY_STREAM_NAME_MAX))
			return -ENAMETOOLONG;
		if (!dir)
			continue;
		status = expect_new_file(dir, file, added);
		if (status < 0)
			return status;
	}
	return 0;
}

static void
expect_create_channel(struct expectation *e)
{
	const struct tc_consumer_channel *m = (const void *)out.bytes;
	const struct tc_channel_geometry *g = &m->geometry;
	struct model_session *s = e->session;
	bool is_taken, is_invalid;

	if (!rule_terminated(m->name, sizeof(m->name)))
		return refuse(e, STAGE_CHECK, -EINVAL);
	is_taken = model_channel(s, m->channel_id) || model_stream(s, m->stream_id);
	is_invalid = !rule_channel_name(m->name) || m->nr_cpus < 1 ||
		     m->nr_cpus > CHANNEL_CPUS_MAX || (m->flags & ~TC_CONSUMER_CHANNEL_FLAGS) ||
		     g->overwrite > 1 || !rule_timer(g->switch_timer_us) ||
		     !rule_timer(g->read_timer_us) || !rule_timer(g->monitor_timer_us) ||
		     !rule_geometry(g->subbuf_size, g->num_subbuf);
	if (is_taken || is_invalid)
		return refuse_either(e, is_invalid, is_taken);
	if (s->fs_unknown)
		return work_unknown(e);
	/* Each stream keeps its eventfd, and its file when local: its memfd
	 * is the service's once sent. */
	e->fds_kept = (int)m->nr_cpus * (model_is_local(s) ? 2 : 1);
	work(e, expect_stream_files(s, m->name, m->nr_cpus, model_is_local(s) ? s->trace_dir : NULL,
				    e->added));
}

static bool
is_lttng_geometry(const struct tc_channel_geometry *g)
{
	return is_power_of_two(g->subbuf_size) && is_power_of_two(g->num_subbuf);
}

/* The consumer's checks in their order: the first that fails is the
 * status, and any other failing one will do too. */
static void
expect_lttng_channel(struct expectation *e)
{
	const struct tc_consumer_lttng_channel *m = (const void *)out.bytes;
	const struct tc_channel_geometry *g = &m->geometry;
	struct model_session *s = e->session;
	int failed[4], n = 0;
	uint32_t streams = lttng_nr_streams();

	/* Written locally, kept in memory for snapshots, or streamed (its
	 * session was made only if its relay opened). */
	if (!rule_terminated(m->name, sizeof(m->name)) || !rule_channel_name(m->name))
		failed[n++] = -EINVAL;
	if (g->num_subbuf < 2 || g->num_subbuf > TC_RB_NUM_SUBBUF_MAX || g->subbuf_size < 4096 ||
	    g->subbuf_size > TC_RB_SUBBUF_SIZE_MAX)
		failed[n++] = -EINVAL;
	if (model_has_lttng(s, m->channel_id))
		failed[n++] = -EEXIST;
	if (n > 0) {
		refuse(e, STAGE_CHECK, failed[0]);
		e->status_alt = failed[n - 1];
		return;
	}
	if (s->fs_unknown)
		return work_unknown(e);
	/* The buffers are made before the files. */
	if (!is_lttng_geometry(g))
		return work(e, -ENOMEM);
	if (!model_is_local(s)) {
		/* No stream file: its sub-buffers wait for a snapshot, or go
		 * to relay streams named as the files; the names are checked
		 * now. */
		e->fds_kept = (int)streams * (LTTNG_FDS_PER_STREAM - 1) + LTTNG_FDS_PER_CHANNEL;
		return work(e, expect_stream_files(s, m->name, streams, NULL, e->added));
	}
	e->fds_kept = (int)streams * LTTNG_FDS_PER_STREAM + LTTNG_FDS_PER_CHANNEL;
	work(e, expect_stream_files(s, m->name, streams, s->trace_dir, e->added));
}

/* Stats of the session's channel of that id, tracectl's or LTTng-UST's. */
static void
expect_channel_stats(struct expectation *e)
{
	uint64_t id = ((const struct tc_consumer_channel_ref *)out.bytes)->channel_id;
	struct model_session *s = e->session;

	e->channel = model_channel(s, id);
	e->lttng_channel = -1;
	for (unsigned int i = 0; !e->channel && i < s->n_lttng; i++)
		if (s->lttng_ids[i] == id)
			e->lttng_channel = (int)i;
	if (!e->channel && e->lttng_channel < 0)
		return refuse(e, STAGE_CHECK, -ENOENT);
	work(e, 0);
}

static void
expect_metadata(struct expectation *e, size_t len)
{
	const char *text = (const char *)out.bytes + sizeof(struct tc_consumer_metadata);

	if (memchr(text, '\0', len - sizeof(struct tc_consumer_metadata)))
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (e->session->fs_unknown)
		return work_unknown(e);
	work(e, 0);
}

/* A snapshot's files: the directory, its metadata, then a file per
 * stream, channel by channel as the consumer holds them (the newest
 * first). Two streams of one name stop it: a file is never replaced. */
static void
expect_snapshot(struct expectation *e)
{
	const struct tc_consumer_snapshot *m = (const void *)out.bytes;
	const struct model_session *s = e->session;
	char file[FILE_NAME_MAX + 32];
	int status;

	if (!s->snapshot || !rule_terminated(m->dir, sizeof(m->dir)) || !rule_absolute(m->dir))
		return refuse(e, STAGE_CHECK, -EINVAL);
	status = expect_open_dir(m->dir, e->added);
	if (status == 0)
		status = expect_new_file(m->dir, "metadata", e->added);
	for (unsigned int i = s->n_channels; status == 0 && i-- > 0;) {
		for (uint32_t cpu = 0; status == 0 && cpu < s->channels[i].nr_cpus; cpu++) {
			snprintf(file, sizeof(file), "%s_%" PRIu32, s->channels[i].name, cpu);
			status = expect_new_file(m->dir, file, e->added);
		}
	}
	/* Then the LTTng-UST channels' streams, the newest channel first. */
	for (unsigned int i = s->n_lttng; status == 0 && i-- > 0;) {
		for (uint32_t n = 0; status == 0 && n < lttng_nr_streams(); n++) {
			snprintf(file, sizeof(file), "%s_%" PRIu32, s->lttng_names[i], n);
			status = expect_new_file(m->dir, file, e->added);
		}
		if (m->max_stream_bytes == 0 || m->max_stream_bytes >= s->lttng_subbuf_sizes[i])
			e->packets += lttng_nr_streams();
	}
	e->stage = STAGE_WORK;
	e->status = e->status_alt = status;
	/* What was written before a name came twice stays. */
	e->fs = e->added->count ? FS_EXACT : FS_UNCHANGED;
}

static void
expect_layout(struct expectation *e)
{
	const struct tc_consumer_event_layout *m = (const void *)out.bytes;

	if (!model_stream(e->session, m->stream_id))
		return refuse(e, STAGE_CHECK, -ENOENT);
	if (!rule_layout(m))
		return refuse(e, STAGE_CHECK, -EINVAL);
	work(e, 0);
}

static bool
fd_kind_is_formats(enum fd_kind kind)
{
	return kind == FD_FORMATS_GOOD || kind == FD_FORMATS_NEW;
}

/* The consumer's flight_geometry_is_valid(): a snapshot session's kernel
 * trace keeps a bounded ring per CPU, the others' none. */
static bool
rule_flight_geometry(const struct model_session *s, const struct tc_consumer_kernel_trace *m)
{
	if (!s->snapshot)
		return m->flight_subbuf_size == 0 && m->flight_num_subbuf == 0;
	return m->flight_subbuf_size >= TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MIN &&
	       m->flight_subbuf_size <= TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MAX &&
	       m->flight_num_subbuf >= 1 &&
	       (uint64_t)m->flight_subbuf_size * m->flight_num_subbuf <=
		   TC_CONSUMER_KERNEL_FLIGHT_BYTES_MAX;
}

static void
expect_kernel_trace(struct expectation *e, const struct built *b)
{
	const struct tc_consumer_kernel_trace *m = (const void *)out.bytes;
	struct model_session *s = e->session;
	bool stats = m->flags & TC_CONSUMER_KSTATS, pid = m->flags & TC_CONSUMER_KCTX_PID;
	size_t cpu_fds = stats ? 2 * (size_t)m->nr_cpus : m->nr_cpus;
	bool is_invalid;
	int status;

	is_invalid =
	    (m->flags & ~(TC_CONSUMER_KCTX_ALL | TC_CONSUMER_KHIDE_ALL | TC_CONSUMER_KSTATS)) ||
	    !rule_clock(&m->clock);
	if (is_invalid)
		return refuse(e, STAGE_CHECK, -EINVAL);
	is_invalid = m->nr_cpus < 1 || m->nr_cpus > TC_CONSUMER_KERNEL_CPUS_MAX ||
		     (stats && m->nr_cpus > TC_CONSUMER_KERNEL_STATS_CPUS_MAX) ||
		     b->nr_fds != cpu_fds + 1 + pid || !rule_terminated(m->dir, sizeof(m->dir)) ||
		     !(model_streams(s) ? rule_relative(m->dir) : rule_absolute(m->dir)) ||
		     !rule_flight_geometry(s, m);
	if (s->has_kernel || is_invalid)
		return refuse_either(e, is_invalid, s->has_kernel);
	if (!fd_kind_is_formats(b->fd_kinds[cpu_fds]))
		return work(e, -EBADMSG);
	if (s->fs_unknown)
		return work_unknown(e);
	/* Its buffers' descriptors, its stats files, saved_tgids and its
	 * metadata (a file, or a memfd when streaming or a flight recorder)
	 * and, local, a file per CPU. A flight recorder writes nothing until a
	 * snapshot. */
	e->fds_kept = (int)cpu_fds + pid + 1 +
		      (model_streams(s) || s->snapshot ? 0 : (int)m->nr_cpus);
	if (model_streams(s) || s->snapshot)
		return work(e, 0);
	status = expect_open_dir(m->dir, e->added);
	if (status == 0)
		status = expect_new_file(m->dir, "metadata", e->added);
	for (uint32_t cpu = 0; status == 0 && cpu < m->nr_cpus; cpu++) {
		char file[32];

		snprintf(file, sizeof(file), "kernel_%" PRIu32, cpu);
		status = expect_new_file(m->dir, file, e->added);
	}
	work(e, status);
}

static void
expect_kernel_update(struct expectation *e, const struct built *b)
{
	const struct tc_consumer_kernel_update *m = (const void *)out.bytes;

	if (!e->session->has_kernel)
		return refuse(e, STAGE_CHECK, -ENOENT);
	if (b->nr_fds > 1 || (m->flags & ~TC_CONSUMER_KHIDE_ALL))
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (b->nr_fds == 1 && !fd_kind_is_formats(b->fd_kinds[0]))
		return work(e, -EBADMSG);
	if (e->session->fs_unknown)
		return work_unknown(e);
	work(e, 0);
}

/* The ABI's "<from_root>/<path> to <to_root>/<path>", on the text. */
static bool
rebase(const char *path, const char *from_root, const char *to_root, char *result, size_t size)
{
	size_t from_len = strlen(from_root);

	while (from_len > 1 && from_root[from_len - 1] == '/')
		from_len--;
	if (strncmp(path, from_root, from_len) != 0 || path[from_len] != '/' ||
	    path[from_len + 1] == '\0')
		return false;
	snprintf(result, size, "%s/%s", to_root, path + from_len + 1);
	return true;
}

/* Whether a rotation of s may touch the files: a directory to move that
 * lies under from_root. Else it refuses at once (-EINVAL), or, with
 * nothing to move, does nothing. */
static void
expect_rotate(struct expectation *e)
{
	const struct tc_consumer_rotate *m = (const void *)out.bytes;
	const struct model_session *s = e->session;
	/* The user-space trace moves when it has channels, tracectl's or
	 * LTTng-UST's. */
	bool has_user_space = s->n_channels > 0 || s->n_lttng > 0;
	char target[2 * TC_CONSUMER_PATH_MAX];

	if (s->snapshot)
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (!rule_terminated(m->from_root, sizeof(m->from_root)) ||
	    !rule_terminated(m->to_root, sizeof(m->to_root)) || !rule_absolute(m->from_root) ||
	    !rule_absolute(m->to_root))
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (has_user_space &&
	    !rebase(s->trace_dir, m->from_root, m->to_root, target, sizeof(target)))
		return work(e, -EINVAL);
	if (!has_user_space && s->has_kernel &&
	    !rebase(s->kernel_dir, m->from_root, m->to_root, target, sizeof(target)))
		return work(e, -EINVAL);
	if (!has_user_space && !s->has_kernel)
		return work(e, 0);
	work_unknown(e);
}

static void
expect_kernel_own(struct expectation *e, const struct built *b)
{
	const struct tc_consumer_kernel_own *m = (const void *)out.bytes;

	if (b->nr_fds != 1 || !rule_terminated(m->dir, sizeof(m->dir)) || !rule_absolute(m->dir))
		return refuse(e, STAGE_CHECK, -EINVAL);
	/* An eventfd is no BPF ring buffer: its mapping fails. */
	work(e, -ENODEV);
}

static void
expect_snapshot_relay(struct expectation *e)
{
	const struct tc_consumer_snapshot_relay *m = (const void *)out.bytes;
	const struct model_session *s = e->session;
	char file[FILE_NAME_MAX + 32];

	if (!s->snapshot || !rule_terminated(m->trace_path, sizeof(m->trace_path)) ||
	    !rule_relative(m->trace_path) || !rule_relay_output(&m->relay) ||
	    m->relay.live_timer_us != 0)
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (strcmp(m->relay.host, "refused.example") == 0)
		return work(e, -ECONNREFUSED);
	for (unsigned int i = 0; i < s->n_channels; i++) {
		size_t len = (size_t)snprintf(file, sizeof(file), "%s_%" PRIu32,
					      s->channels[i].name, s->channels[i].nr_cpus - 1);

		if (len > RELAY_STREAM_NAME_MAX)
			return work(e, -ENAMETOOLONG);
	}
	/* Then a stream per LTTng-UST stream, whose first sub-buffer's
	 * packet (its header only) is sent as to a file. */
	for (unsigned int i = 0; i < s->n_lttng; i++) {
		size_t len = (size_t)snprintf(file, sizeof(file), "%s_%" PRIu32,
					      s->lttng_names[i], lttng_nr_streams() - 1);

		if (len > RELAY_STREAM_NAME_MAX)
			return work(e, -ENAMETOOLONG);
		if (m->max_stream_bytes == 0 || m->max_stream_bytes >= s->lttng_subbuf_sizes[i])
			e->packets += lttng_nr_streams();
	}
	work(e, 0);
}

/* A flight recorder's snapshot into a directory: its metadata and a file
 * per CPU. The buffers are /dev/null: the rings hold no packet. */
static void
expect_kernel_snapshot(struct expectation *e)
{
	const struct tc_consumer_snapshot *m = (const void *)out.bytes;
	const struct model_session *s = e->session;
	char file[32];
	int status;

	if (!s->has_kernel)
		return refuse(e, STAGE_CHECK, -ENOENT);
	if (!s->snapshot || !rule_terminated(m->dir, sizeof(m->dir)) || !rule_absolute(m->dir))
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (s->fs_unknown)
		return work_unknown(e);
	status = expect_open_dir(m->dir, e->added);
	if (status == 0)
		status = expect_new_file(m->dir, "metadata", e->added);
	for (uint32_t cpu = 0; status == 0 && cpu < s->kernel_cpus; cpu++) {
		snprintf(file, sizeof(file), "kernel_%" PRIu32, cpu);
		status = expect_new_file(m->dir, file, e->added);
	}
	e->stage = STAGE_WORK;
	e->status = e->status_alt = status;
	e->fs = e->added->count ? FS_EXACT : FS_UNCHANGED;
}

/* The same to a relay: refused as a user-space one; what the harness'
 * relay makes of it is taken as it comes. */
static void
expect_kernel_snapshot_relay(struct expectation *e)
{
	const struct tc_consumer_snapshot_relay *m = (const void *)out.bytes;
	const struct model_session *s = e->session;

	if (!s->has_kernel)
		return refuse(e, STAGE_CHECK, -ENOENT);
	if (!s->snapshot || !rule_terminated(m->trace_path, sizeof(m->trace_path)) ||
	    !rule_relative(m->trace_path) || !rule_relay_output(&m->relay) ||
	    m->relay.live_timer_us != 0)
		return refuse(e, STAGE_CHECK, -EINVAL);
	if (strcmp(m->relay.host, "refused.example") == 0)
		return work(e, -ECONNREFUSED);
	work_unknown(e);
}

static void
expect_relay_rotate(struct expectation *e)
{
	const struct tc_consumer_relay_rotate *m = (const void *)out.bytes;

	if (!model_streams(e->session) ||
	    (m->close_command != TC_CONSUMER_RELAY_CHUNK_ARCHIVE &&
	     m->close_command != TC_CONSUMER_RELAY_CHUNK_DELETE) ||
	    (m->flags & ~(TC_CONSUMER_RELAY_ROTATE_BEGIN | TC_CONSUMER_RELAY_ROTATE_CLOSE |
			  TC_CONSUMER_RELAY_ROTATE_NO_WAIT)))
		return refuse(e, STAGE_CHECK, -EINVAL);
	work(e, m->close_command == TC_CONSUMER_RELAY_CHUNK_DELETE &&
			strcmp(e->session->host, "noclear.example") == 0
		    ? -EPERM
		    : 0);
}

static void
expect_session_files(struct expectation *e)
{
	const struct tc_consumer_session_files *m = (const void *)out.bytes;
	const struct home_case *home = NULL;

	for (size_t i = 0; i < ARRAY_LEN(home_cases) && !home; i++) {
		char path[TC_CONSUMER_PATH_MAX];

		snprintf(path, sizeof(path), "%s%s%s", home_cases[i].relative ? "" : root,
			 home_cases[i].relative ? "" : "/", home_cases[i].path);
		if (strncmp(path, m->home, sizeof(m->home)) == 0)
			home = &home_cases[i];
	}
	if (!home)
		home = &home_cases[11]; /* not terminated */
	e->home = home;
	if (m->max_files < 1 || m->max_files > TC_CONSUMER_SESSION_FILES_MAX ||
	    m->max_file_bytes < 1 || m->max_file_bytes > TC_CONSUMER_SESSION_FILE_BYTES_MAX ||
	    home->kind == HOME_INVALID)
		return refuse(e, STAGE_CHECK, -EINVAL);
	e->stage = STAGE_WORK;
	e->status = home->status;
	e->status_alt = home->status_alt;
}

/* Requests naming a session that exists. */
static void
expect_session_request(struct expectation *e, const struct built *b)
{
	switch (e->type) {
	case TC_CONSUMER_CREATE_CHANNEL:
		return expect_create_channel(e);
	case TC_CONSUMER_METADATA:
		return expect_metadata(e, b->len);
	case TC_CONSUMER_SNAPSHOT:
		return expect_snapshot(e);
	case TC_CONSUMER_KERNEL_SNAPSHOT:
		return expect_kernel_snapshot(e);
	case TC_CONSUMER_KERNEL_SNAPSHOT_RELAY:
		return expect_kernel_snapshot_relay(e);
	case TC_CONSUMER_CHANNEL_STATS:
		return expect_channel_stats(e);
	case TC_CONSUMER_EVENT_LAYOUT:
		return expect_layout(e);
	case TC_CONSUMER_KERNEL_TRACE:
		return expect_kernel_trace(e, b);
	case TC_CONSUMER_KERNEL_UPDATE:
		return expect_kernel_update(e, b);
	case TC_CONSUMER_KERNEL_STATS:
		return e->session->has_kernel ? work(e, 0) : refuse(e, STAGE_CHECK, -ENOENT);
	case TC_CONSUMER_ROTATE:
		return expect_rotate(e);
	case TC_CONSUMER_RELAY_STATUS:
		return model_streams(e->session) ? work(e, 0) : refuse(e, STAGE_CHECK, -EINVAL);
	case TC_CONSUMER_KERNEL_OWN:
		return expect_kernel_own(e, b);
	case TC_CONSUMER_SNAPSHOT_RELAY:
		return expect_snapshot_relay(e);
	case TC_CONSUMER_RELAY_ROTATE:
		return expect_relay_rotate(e);
	case TC_CONSUMER_LTTNG_CHANNEL:
		return expect_lttng_channel(e);
	default: /* FLUSH_SESSION, DESTROY_SESSION, CLEAR, CHUNK_SIZE */
		work(e, 0);
		/* A destroyed session gives back every descriptor it held. */
		if (e->type == TC_CONSUMER_DESTROY_SESSION)
			e->fds_kept = -e->session->fds_held;
		/* Where a rotation left the files, syncing them may fail: the
		 * status is the consumer's, but nothing is made. */
		e->any_status = e->session->fs_unknown;
		return;
	}
}

/* The verdict on the request in out, from its bytes and descriptors. */
static void
expect_request(struct conversation *c, const struct built *b, struct expectation *e,
	       struct listing *added)
{
	const struct tc_consumer_header *h = &out.header;
	const struct tc_consumer_session_ref *ref = (const void *)out.bytes;
	bool has_payload;
	size_t size;

	memset(e, 0, sizeof(*e));
	added->count = 0;
	e->added = added;
	e->kind = CONSUMERD_REQUEST_NO_SESSION;
	if (b->len == 0)
		return refuse(e, STAGE_LINK_END, 0);
	e->reply_id = b->len >= sizeof(*h) ? h->request_id : 0;
	if (b->len > TC_CONSUMER_MSG_MAX)
		return refuse(e, STAGE_HEADER, -EMSGSIZE);
	if (b->len < sizeof(*h) || h->magic != TC_CONSUMER_MAGIC || h->size != b->len)
		return refuse(e, STAGE_HEADER, -EBADMSG);
	size = abi_size(h->type, &has_payload);
	if (size == 0)
		return refuse(e, STAGE_HEADER, -EOPNOTSUPP);
	if (has_payload ? b->len < size : b->len != size)
		return refuse(e, STAGE_SIZE, -EBADMSG);
	e->type = h->type;
	if (e->type == TC_CONSUMER_SESSION_FILES)
		return expect_session_files(e);
	e->session_id = ref->session_id;
	e->session = model_find(c, ref->session_id);
	e->kind = e->type == TC_CONSUMER_CREATE_SESSION	   ? CONSUMERD_REQUEST_CREATE
		  : e->type == TC_CONSUMER_RELAY_STATUS	   ? CONSUMERD_REQUEST_RELAY_STATUS
		  : e->type == TC_CONSUMER_DESTROY_SESSION ? CONSUMERD_REQUEST_DESTROY
							   : CONSUMERD_REQUEST_SESSION;
	if (e->type == TC_CONSUMER_CREATE_SESSION)
		return e->session ? refuse(e, STAGE_ROUTE, -EEXIST) : expect_create_session(e);
	if (!e->session)
		return refuse(e, STAGE_ROUTE, -ENOENT);
	expect_session_request(e, b);
}

/* --- The consumer's side, as its main loop and session threads run it ----- */

static struct session_thread *
thread_find(struct conversation *c, uint64_t session_id)
{
	for (unsigned int i = 0; i < SLOTS; i++)
		if (c->threads[i].running && c->threads[i].session_id == session_id)
			return &c->threads[i];
	return NULL;
}

static struct session_thread *
thread_start(struct conversation *c, uint64_t session_id)
{
	for (unsigned int i = 0; i < SLOTS; i++) {
		if (c->threads[i].running)
			continue;
		c->threads[i] = (struct session_thread){.running = true, .session_id = session_id};
		return &c->threads[i];
	}
	FAIL("more than %u sessions at once", SLOTS);
}

/* As the session thread's publish(): whether it streams, and its relay's
 * status, for the main thread's answers to RELAY_STATUS. */
static void
thread_publish(struct session_thread *t)
{
	const struct tc_consumerd_session *session = t->registry.sessions;

	t->streams = session && session->relay;
	if (t->streams)
		tc_consumerd_relay_get_status(session->relay, &t->status);
}

/* As the session thread's serve(): run, publish, then answer; the thread
 * ends once its session is gone. */
static void
thread_serve(struct session_thread *t, struct tc_consumerd_request *request)
{
	struct tc_consumer_reply reply;
	bool is_broken = tc_consumerd_command_run(request, &t->registry, &reply) < 0;

	thread_publish(t);
	tc_consumerd_command_answer(request, &reply, is_broken);
	if (!t->registry.sessions)
		t->running = false;
}

/* As tc-consumerd-main.c's route_request(). */
static void
consumer_route(struct conversation *c, struct tc_consumerd_request *request,
	       const struct expectation *e)
{
	enum tc_consumerd_request_kind kind;
	struct session_thread *t;
	uint64_t session_id = 0;
	char why[64];

	kind = tc_consumerd_command_classify(request, &session_id);
	if (kind != e->kind ||
	    (kind != CONSUMERD_REQUEST_NO_SESSION && session_id != e->session_id))
		FAIL("request classified as %d for session %" PRIu64 ", not %d for %" PRIu64,
		     (int)kind, session_id, (int)e->kind, e->session_id);
	if (kind == CONSUMERD_REQUEST_NO_SESSION) {
		tc_consumerd_command_serve(request, NULL);
		return;
	}
	t = thread_find(c, session_id);
	if (kind == CONSUMERD_REQUEST_CREATE) {
		snprintf(why, sizeof(why), "Session %" PRIu64 " exists already", session_id);
		if (t)
			tc_consumerd_command_refuse(request, -EEXIST, why);
		else
			thread_serve(thread_start(c, session_id), request);
		return;
	}
	snprintf(why, sizeof(why), "No session %" PRIu64, session_id);
	if (!t)
		tc_consumerd_command_refuse(request, -ENOENT, why);
	else if (kind == CONSUMERD_REQUEST_RELAY_STATUS)
		tc_consumerd_command_answer_relay_status(request, t->streams ? &t->status : NULL);
	else
		thread_serve(t, request);
}

/* --- Sending, and reading the answer ------------------------------------ */


/* Sends the request with its descriptors, then closes the harness's. */
static void
send_request(struct conversation *c, struct built *b)
{
	union {
		char buf[CMSG_SPACE(FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = out.bytes, .iov_len = b->len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cmsg;

	for (size_t i = 0; i < b->nr_fds; i++)
		b->fds[i] = open_fd(b->fd_kinds[i]);
	if (b->nr_fds > 0) {
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(b->nr_fds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(b->nr_fds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), b->fds, b->nr_fds * sizeof(int));
	}
	if (sendmsg(c->service_fd, &mh, MSG_NOSIGNAL) != (ssize_t)b->len)
		FAIL("cannot send a request of %zu bytes with %zu descriptors: %s", b->len,
		     b->nr_fds, strerror(errno));
	for (size_t i = 0; i < b->nr_fds; i++)
		close(b->fds[i]);
}

/* The request as received: its bytes (cut at TC_CONSUMER_MSG_MAX) and
 * every descriptor sent. */
static void
check_received(const struct tc_consumerd_request *request, const struct built *b)
{
	size_t len = b->len < TC_CONSUMER_MSG_MAX ? b->len : TC_CONSUMER_MSG_MAX;

	if (request->len != len || request->is_truncated != (b->len > TC_CONSUMER_MSG_MAX) ||
	    request->nr_fds != b->nr_fds || memcmp(request->msg, out.bytes, len) != 0)
		FAIL("request of %zu bytes with %zu descriptors received as %zu bytes with %zu",
		     b->len, b->nr_fds, request->len, request->nr_fds);
}

/* What the answer brought so far. */
struct answer {
	bool is_replied;
	struct tc_consumer_reply reply;
	bool has_lttng_data; /* an LTTng-UST channel's datum came */
	uint32_t streams;
	size_t file_index;    /* SESSION_FILES: the listed file under way */
	uint64_t file_offset; /* and its bytes received */
};

static bool
fd_is_eventfd(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* One buffer of the channel asked: its memfd sealed against shrinking,
 * of the size announced, holding a ring buffer of the geometry asked for
 * this CPU and stream. */
static void
check_buffer(int memfd, const struct tc_consumer_channel *asked, uint32_t cpu, uint64_t shm_size)
{
	const struct tc_rb_shm *shm;
	struct stat st;
	int seals = fcntl(memfd, F_GET_SEALS);

	if (fstat(memfd, &st) < 0 || (uint64_t)st.st_size != shm_size || seals < 0 ||
	    !(seals & F_SEAL_SHRINK) || !(seals & F_SEAL_SEAL))
		FAIL("stream %" PRIu32 ": a memfd of %lld bytes (%" PRIu64 " said), seals %#x", cpu,
		     (long long)st.st_size, shm_size, seals);
	shm = mmap(NULL, sizeof(*shm), PROT_READ, MAP_SHARED, memfd, 0);
	if (shm == MAP_FAILED)
		FAIL("cannot map a stream's memfd: %s", strerror(errno));
	if (shm->magic != TC_RB_MAGIC || shm->subbuf_size != asked->geometry.subbuf_size ||
	    shm->num_subbuf != asked->geometry.num_subbuf || shm->cpu != cpu ||
	    shm->stream_id != asked->stream_id || shm->shm_size != shm_size)
		FAIL("stream %" PRIu32 ": not the ring buffer asked for", cpu);
	munmap((void *)shm, sizeof(*shm));
}

static bool
fd_is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* An LTTng-UST stream's memfd: sealed so that no application can change
 * its size, of the size announced. */
static void
check_lttng_shm(int memfd, uint32_t cpu, uint64_t shm_size)
{
	int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	int seals = fcntl(memfd, F_GET_SEALS);
	struct stat st;

	if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != shm_size ||
	    shm_size == 0 || seals < 0 || (seals & want) != want)
		FAIL("LTTng-UST stream %" PRIu32 ": a memfd of %lld bytes (%" PRIu64 " said), "
		     "seals %#x",
		     cpu, (long long)st.st_size, shm_size, seals);
}

/* The datum that opens an LTTng-UST channel's answer. */
static void
check_lttng_data(const struct expectation *e, const uint8_t *msg, size_t len, const int *fds,
		 size_t nr_fds, struct answer *a)
{
	const struct tc_consumer_lttng_channel_data *data = (const void *)msg;
	const struct tc_consumer_lttng_channel *asked = (const void *)out.bytes;

	if (e->type != TC_CONSUMER_LTTNG_CHANNEL || e->stage != STAGE_WORK || a->has_lttng_data ||
	    a->streams != 0)
		FAIL("an LTTng-UST channel datum in the answer to a request of type %" PRIu32
		     " (stage %d), %" PRIu32 " streams after it",
		     e->type, (int)e->stage, a->streams);
	if (len <= sizeof(*data) || len - sizeof(*data) > TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX ||
	    nr_fds != 1 || data->channel_id != asked->channel_id ||
	    data->nr_streams != lttng_nr_streams() || data->chan_type != 0 /* per CPU */)
		FAIL("LTTng-UST channel %" PRIu64 " datum of %zu bytes, %zu descriptors, %" PRIu32
		     " streams, type %d (channel %" PRIu64 " asked)",
		     data->channel_id, len, nr_fds, data->nr_streams, (int)data->chan_type,
		     asked->channel_id);
	if (!fd_is_pipe(fds[0]))
		FAIL("LTTng-UST channel %" PRIu64 ": its wake-up descriptor is no pipe",
		     asked->channel_id);
	a->has_lttng_data = true;
}

/* One stream of an LTTng-UST channel, after its datum, in order. */
static void
check_lttng_stream(const uint8_t *msg, size_t len, const int *fds, size_t nr_fds,
		   struct answer *a)
{
	const struct tc_consumer_stream *stream = (const void *)msg;
	const struct tc_consumer_lttng_channel *asked = (const void *)out.bytes;

	if (!a->has_lttng_data || len != sizeof(*stream) || nr_fds != 2 ||
	    stream->channel_id != asked->channel_id || stream->cpu != a->streams ||
	    a->streams >= lttng_nr_streams())
		FAIL("LTTng-UST stream %" PRIu32 " of channel %" PRIu64 " (%zu bytes, %zu "
		     "descriptors) is not stream %" PRIu32 " of channel %" PRIu64,
		     stream->cpu, stream->channel_id, len, nr_fds, a->streams, asked->channel_id);
	check_lttng_shm(fds[0], stream->cpu, stream->shm_size);
	if (!fd_is_pipe(fds[1]))
		FAIL("LTTng-UST stream %" PRIu32 ": its wake-up descriptor is no pipe", stream->cpu);
	a->streams++;
}

static void
check_stream(const struct expectation *e, const uint8_t *msg, size_t len, const int *fds,
	     size_t nr_fds, struct answer *a)
{
	const struct tc_consumer_stream *stream = (const void *)msg;
	const struct tc_consumer_channel *asked = (const void *)out.bytes;

	if (e->type == TC_CONSUMER_LTTNG_CHANNEL && e->stage == STAGE_WORK)
		return check_lttng_stream(msg, len, fds, nr_fds, a);
	if (e->type != TC_CONSUMER_CREATE_CHANNEL || e->stage != STAGE_WORK)
		FAIL("a stream in the answer to a request of type %" PRIu32 " (stage %d)", e->type,
		     (int)e->stage);
	if (len != sizeof(*stream) || nr_fds != 2 || stream->channel_id != asked->channel_id ||
	    stream->cpu != a->streams || a->streams >= asked->nr_cpus)
		FAIL("stream %" PRIu32 " of channel %" PRIu64 " (%zu bytes, %zu descriptors) is "
		     "not stream %" PRIu32 " of channel %" PRIu64,
		     stream->cpu, stream->channel_id, len, nr_fds, a->streams, asked->channel_id);
	check_buffer(fds[0], asked, stream->cpu, stream->shm_size);
	if (!fd_is_eventfd(fds[1]))
		FAIL("stream %" PRIu32 ": its second descriptor is no eventfd", stream->cpu);
	a->streams++;
}

/* The expected answer for the listed file at index, as the fixture and
 * the bounds make it: its bytes, or its refusal. */
static int
file_status(const struct file_fixture *file, uint32_t max_bytes)
{
	if (file->status == 0 && file->size > max_bytes)
		return -EFBIG;
	return file->status;
}

static size_t
files_listed(const struct expectation *e)
{
	const struct tc_consumer_session_files *m = (const void *)out.bytes;

	if (e->stage != STAGE_WORK || e->home->kind != HOME_FILES)
		return 0;
	return m->max_files < ARRAY_LEN(home_files) ? m->max_files : ARRAY_LEN(home_files);
}

static void
check_file_answer(const struct expectation *e, const uint8_t *msg, size_t len, size_t nr_fds,
		  struct answer *a)
{
	const struct tc_consumer_session_files *asked = (const void *)out.bytes;
	const struct tc_consumer_session_file *f = (const void *)msg;
	const struct file_fixture *file = &home_files[a->file_index];
	const char *payload = (const char *)msg + sizeof(*f);
	size_t chunk = len - sizeof(*f);
	int status;

	if (e->type != TC_CONSUMER_SESSION_FILES || a->file_index >= files_listed(e) ||
	    len < sizeof(*f) || nr_fds != 0)
		FAIL("a session file answer (index %zu, %zu bytes) that was not asked for",
		     a->file_index, len);
	status = file_status(file, asked->max_file_bytes);
	if (f->index != a->file_index || !rule_terminated(f->name, sizeof(f->name)) ||
	    strcmp(f->name, file->name) != 0 || f->status != status)
		FAIL("session file %" PRIu32 " '%.32s' status %d, not %zu '%s' status %d", f->index,
		     f->name, (int)f->status, a->file_index, file->name, status);
	if (status < 0) {
		if (chunk == 0 || payload[chunk - 1] != '\0' || strlen(payload) != chunk - 1)
			FAIL("the refusal of '%s' does not end with its reason", file->name);
		a->file_index++;
		return;
	}
	if (f->size != file->size || f->offset != a->file_offset ||
	    chunk > TC_CONSUMER_SESSION_FILE_CHUNK_MAX || (chunk == 0 && file->size != 0) ||
	    f->offset + chunk > file->size || memcmp(payload, file->bytes + f->offset, chunk) != 0)
		FAIL("'%s': %zu bytes at %" PRIu64 " of %" PRIu64 " are not its bytes", file->name,
		     chunk, f->offset, f->size);
	a->file_offset += chunk;
	if (a->file_offset == file->size) {
		a->file_index++;
		a->file_offset = 0;
	}
}

/* Reads every message the consumer sent: the answer must end with its
 * reply, and nothing may follow. */
static void
read_answer(struct conversation *c, const struct expectation *e, struct answer *a)
{
	static union {
		struct tc_consumer_header header;
		uint64_t align;
		uint8_t bytes[TC_CONSUMER_MSG_MAX];
	} in;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} control;

	for (;;) {
		struct iovec iov = {.iov_base = in.bytes, .iov_len = sizeof(in.bytes)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = control.buf,
				    .msg_controllen = sizeof(control.buf)};
		struct cmsghdr *cmsg;
		int fds[4];
		size_t nr_fds = 0;
		ssize_t n = recvmsg(c->service_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
			FAIL("reading the answer: %zd, flags %#x: %s", n, (unsigned)mh.msg_flags,
			     strerror(errno));
		for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
			size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds + nr_fds, CMSG_DATA(cmsg), count * sizeof(int));
			nr_fds += count;
		}
		if (a->is_replied)
			FAIL("a message after the reply");
		if ((size_t)n < sizeof(in.header) || in.header.magic != TC_CONSUMER_MAGIC ||
		    in.header.size != (size_t)n || in.header.request_id != e->reply_id)
			FAIL("a message of %zd bytes, size field %" PRIu32 ", for request %" PRIu32
			     ", not %" PRIu32,
			     n, in.header.size, in.header.request_id, e->reply_id);
		if (in.header.type == TC_CONSUMER_STREAM) {
			check_stream(e, in.bytes, (size_t)n, fds, nr_fds, a);
		} else if (in.header.type == TC_CONSUMER_LTTNG_CHANNEL_DATA) {
			check_lttng_data(e, in.bytes, (size_t)n, fds, nr_fds, a);
		} else if (in.header.type == TC_CONSUMER_SESSION_FILE) {
			check_file_answer(e, in.bytes, (size_t)n, nr_fds, a);
		} else if (in.header.type == TC_CONSUMER_REPLY && (size_t)n == sizeof(a->reply) &&
			   nr_fds == 0) {
			memcpy(&a->reply, in.bytes, sizeof(a->reply));
			a->is_replied = true;
		} else {
			FAIL("a message of type %" PRIu32 ", %zd bytes, %zu descriptors",
			     in.header.type, n, nr_fds);
		}
		for (size_t i = 0; i < nr_fds; i++)
			close(fds[i]);
	}
	if (!a->is_replied)
		FAIL("request %" PRIu32 " of type %" PRIu32 " was not answered", e->reply_id,
		     e->type);
}

/* --- Checking the answer and what it changed ----------------------------- */

static const struct tc_consumerd_session *
consumer_session(struct conversation *c, uint64_t session_id)
{
	struct session_thread *t = thread_find(c, session_id);

	return t ? t->registry.sessions : NULL;
}

/* What a served request answers beside its status. */
/* A channel's figures: tracectl's own channels', else an LTTng-UST
 * channel's (nothing written: none discarded). */
static void
check_channel_stats(const struct expectation *e, const struct tc_consumer_reply *reply)
{
	const struct model_session *s = e->session;
	const struct model_channel *ch = e->channel;
	uint64_t bytes;

	if (ch)
		bytes = (uint64_t)ch->subbuf_size * ch->num_subbuf * ch->nr_cpus;
	else
		bytes = (uint64_t)s->lttng_subbuf_sizes[e->lttng_channel] *
			s->lttng_num_subbufs[e->lttng_channel] * lttng_nr_streams();
	if (reply->buffer_bytes != bytes)
		FAIL("channel stats: %" PRIu64 " bytes of buffers, not %" PRIu64,
		     reply->buffer_bytes, bytes);
}

static void
check_reply_values(struct conversation *c, const struct expectation *e,
		   const struct tc_consumer_reply *reply)
{
	const struct tc_consumerd_session *session = consumer_session(c, e->session_id);

	switch (e->type) {
	case TC_CONSUMER_CHANNEL_STATS:
		check_channel_stats(e, reply);
		break;
	case TC_CONSUMER_RELAY_STATUS:
		if (!session || !session->relay || reply->relay_connected != 1 ||
		    reply->relay_errno != 0 || reply->relay_lost_packets != 0 ||
		    strcmp(reply->message, session->relay->address) != 0)
			FAIL("relay status '%s', connected %" PRIu32, reply->message,
			     reply->relay_connected);
		break;
	case TC_CONSUMER_RELAY_ROTATE:
		if (strncmp(reply->message, "archives/chunk-", 15) != 0)
			FAIL("the relay's chunk '%s' is not in the reply", reply->message);
		break;
	default:
		break;
	}
	/* No application wrote: nothing was written, sent or lost, but the
	 * empty packets of LTTng-UST's buffers a snapshot writes, and those
	 * an LTTng-UST channel's streams wrote when flushed (at most one per
	 * stream and request). */
	if (e->type == TC_CONSUMER_CHANNEL_STATS && !e->channel &&
	    reply->packets_written <= (uint64_t)lttng_nr_streams() * COMMANDS_MAX &&
	    reply->packets_corrupted == 0 && reply->events_discarded == 0)
		return;
	if (reply->packets_written != e->packets || reply->packets_corrupted != 0 ||
	    reply->events_discarded != 0)
		FAIL("%" PRIu64 " packets written, %" PRIu64 " corrupt, %" PRIu64 " events lost",
		     reply->packets_written, reply->packets_corrupted, reply->events_discarded);
}

static void
check_reply(struct conversation *c, const struct expectation *e, const struct answer *a)
{
	const struct tc_consumer_reply *reply = &a->reply;
	const struct tc_consumer_channel *asked = (const void *)out.bytes;
	uint32_t streams;

	if (!rule_terminated(reply->message, sizeof(reply->message)) || reply->status > 0 ||
	    (reply->status < 0 && reply->message[0] == '\0'))
		FAIL("reply of status %d with the message '%.64s'", (int)reply->status,
		     reply->message);
	if (!e->any_status && reply->status != e->status && reply->status != e->status_alt)
		FAIL("request %" PRIu32 " of type %" PRIu32 " answered %d (%s), not %d (stage %d)",
		     e->reply_id, e->type, (int)reply->status, reply->message, e->status,
		     (int)e->stage);
	streams =
	    e->type == TC_CONSUMER_CREATE_CHANNEL && e->stage == STAGE_WORK && reply->status == 0
		? asked->nr_cpus
		: 0;
	if (e->type == TC_CONSUMER_LTTNG_CHANNEL && e->stage == STAGE_WORK && reply->status == 0) {
		streams = lttng_nr_streams();
		if (!a->has_lttng_data)
			FAIL("LTTng-UST channel served without its datum");
	} else if (a->has_lttng_data) {
		FAIL("an LTTng-UST channel datum before a reply of status %d", (int)reply->status);
	}
	if (a->streams != streams)
		FAIL("%" PRIu32 " streams before a reply of status %d, not %" PRIu32, a->streams,
		     (int)reply->status, streams);
	if (e->type == TC_CONSUMER_SESSION_FILES && reply->status == 0 &&
	    a->file_index != files_listed(e))
		FAIL("%zu session files answered, not %zu", a->file_index, files_listed(e));
	if (reply->status == 0 && e->stage == STAGE_WORK)
		check_reply_values(c, e, reply);
}

/* The metadata file of a local session holds every text taken. */
static void
check_metadata_file(const struct model_session *s)
{
	char path[TC_CONSUMER_PATH_MAX + 16];
	struct stat st;

	if (!model_is_local(s) || s->fs_unknown)
		return;
	snprintf(path, sizeof(path), "%s/metadata", s->trace_dir);
	if (stat(path, &st) < 0 || (uint64_t)st.st_size != s->metadata_len)
		FAIL("%s holds %lld bytes, not %" PRIu64, path, (long long)st.st_size,
		     s->metadata_len);
}

/* A chunk's directory after a rotation: metadata and its stream files. */
static void
check_chunk(const char *dir, const struct model_session *s, bool is_kernel, uint32_t kernel_cpus)
{
	char path[2 * TC_CONSUMER_PATH_MAX + FILE_NAME_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		FAIL("rotated, but %s is missing", path);
	for (unsigned int i = 0; !is_kernel && i < s->n_channels; i++)
		for (uint32_t cpu = 0; cpu < s->channels[i].nr_cpus; cpu++) {
			snprintf(path, sizeof(path), "%s/%s_%" PRIu32, dir, s->channels[i].name,
				 cpu);
			if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
				FAIL("rotated, but %s is missing", path);
		}
	for (uint32_t cpu = 0; is_kernel && cpu < kernel_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/kernel_%" PRIu32, dir, cpu);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			FAIL("rotated, but %s is missing", path);
	}
}

static bool
key_is_under(const char *key, const char *dir_key)
{
	size_t len = strlen(dir_key);

	return strncmp(key, dir_key, len) == 0 && (key[len] == '/' || key[len] == '\0');
}

/* After a rotation that got to the files: on success both chunks hold
 * their files; a session whose directory lay under a moved one, or whose
 * rotation failed, no longer has its files where the model says. */
static void
after_rotation(struct conversation *c, struct model_session *s, int status)
{
	const struct tc_consumer_rotate *m = (const void *)out.bytes;
	char target[2 * TC_CONSUMER_PATH_MAX], moved[2][KEY_MAX], key[KEY_MAX];

	snprintf(moved[0], KEY_MAX, "%s", s->n_channels ? jail_key(s->trace_dir, key) : "-");
	snprintf(moved[1], KEY_MAX, "%s", s->has_kernel ? jail_key(s->kernel_dir, key) : "-");
	for (unsigned int i = 0; i < SLOTS; i++) {
		struct model_session *other = &c->sessions[i];

		if (!other->exists || other == s)
			continue;
		for (unsigned int j = 0; j < 2; j++)
			if ((model_is_local(other) &&
			     key_is_under(jail_key(other->trace_dir, key), moved[j])) ||
			    (other->has_kernel && !other->kernel_streams &&
			     key_is_under(jail_key(other->kernel_dir, key), moved[j])))
				other->fs_unknown = true;
	}
	if (status != 0) {
		s->fs_unknown = true;
		return;
	}
	outcomes[ROTATED]++;
	if (s->n_channels) {
		rebase(s->trace_dir, m->from_root, m->to_root, target, sizeof(target));
		check_chunk(target, s, false, 0);
		check_chunk(s->trace_dir, s, false, 0);
	}
	if (s->has_kernel) {
		rebase(s->kernel_dir, m->from_root, m->to_root, target, sizeof(target));
		check_chunk(target, s, true, s->kernel_cpus);
		check_chunk(s->kernel_dir, s, true, s->kernel_cpus);
	}
}

static void
check_fds(const struct expectation *e, int delta, int status)
{
	int kept = 0;

	/* A failed rotation closes what it must: its session's count. */
	if (e->stage == STAGE_WORK && e->type == TC_CONSUMER_ROTATE)
		kept = status == 0 ? 0 : -1;
	else if (e->stage == STAGE_WORK && (status == 0 || e->type == TC_CONSUMER_DESTROY_SESSION))
		kept = e->fds_kept;
	if (kept != -1 && delta != kept)
		FAIL("request of type %" PRIu32 " (status %d): %d descriptors more open after it, "
		     "not %d",
		     e->type, status, delta, kept);
}

/* The consumer holds what the model says: a session per live thread, with
 * its channels, its kernel trace, its relay. */
static void
check_consumer_state(struct conversation *c)
{
	for (unsigned int i = 0; i < SLOTS; i++) {
		const struct session_thread *t = &c->threads[i];
		const struct model_session *s = t->running ? model_find(c, t->session_id) : NULL;
		const struct tc_consumerd_session *held = t->registry.sessions;
		unsigned int channels = 0, lttng = 0;

		if (!t->running)
			continue;
		if (!s || !held || held->next || held->session_id != s->id)
			FAIL("the consumer holds session %" PRIu64 " as the harness does not",
			     t->session_id);
		for (const struct tc_consumerd_channel *ch = held->channels; ch; ch = ch->next)
			channels++;
		for (struct tc_consumerd_lttng_channel *l = held->lttng_channels; l;
		     l = *tc_consumerd_lttng_channel_next(l))
			lttng++;
		if (lttng != s->n_lttng)
			FAIL("session %" PRIu64 ": %u LTTng-UST channels held, %u expected", s->id,
			     lttng, s->n_lttng);
		if (channels != s->n_channels || !!held->kernel != s->has_kernel || held->own ||
		    held->snapshot != s->snapshot || !!held->relay != model_streams(s))
			FAIL("session %" PRIu64 ": %u channels, kernel %d, relay %d held; %u, %d, "
			     "%d expected",
			     s->id, channels, !!held->kernel, !!held->relay, s->n_channels,
			     s->has_kernel, model_streams(s));
	}
	for (unsigned int i = 0; i < SLOTS; i++)
		if (c->sessions[i].exists && !thread_find(c, c->sessions[i].id))
			FAIL("session %" PRIu64 " has no thread", c->sessions[i].id);
}

/* What a served request changed in the model. */
static void
model_apply(struct conversation *c, const struct expectation *e, const struct built *b, int status,
	    int delta)
{
	struct model_session *s = e->session;

	if (e->stage != STAGE_WORK)
		return;
	switch (e->type) {
	case TC_CONSUMER_CREATE_SESSION: {
		const struct tc_consumer_session *m = (const void *)out.bytes;

		if (status != 0)
			return;
		for (s = c->sessions; s < c->sessions + SLOTS && s->exists; s++)
			;
		if (s == c->sessions + SLOTS)
			FAIL("more than %u sessions", SLOTS);
		*s = (struct model_session){.exists = true, .id = m->session_id, .fds_held = delta};
		s->snapshot = m->flags & TC_CONSUMER_SESSION_SNAPSHOT;
		s->relay_flag = m->flags & TC_CONSUMER_SESSION_RELAY;
		memcpy(s->trace_dir, m->trace_dir, sizeof(s->trace_dir));
		memcpy(s->host, m->relay.host, sizeof(s->host));
		return;
	}
	case TC_CONSUMER_CREATE_CHANNEL: {
		const struct tc_consumer_channel *m = (const void *)out.bytes;
		struct model_channel *ch = &s->channels[s->n_channels];

		if (status != 0)
			return;
		*ch = (struct model_channel){m->channel_id, m->stream_id, m->nr_cpus,
					     m->geometry.subbuf_size, m->geometry.num_subbuf};
		memcpy(ch->name, m->name, sizeof(ch->name));
		s->n_channels++;
		break;
	}
	case TC_CONSUMER_LTTNG_CHANNEL: {
		const struct tc_consumer_lttng_channel *m = (const void *)out.bytes;

		if (status != 0)
			return;
		if (s->n_lttng == CHANNELS_MAX)
			FAIL("more than %u LTTng-UST channels", CHANNELS_MAX);
		memcpy(s->lttng_names[s->n_lttng], m->name, sizeof(m->name));
		s->lttng_subbuf_sizes[s->n_lttng] = m->geometry.subbuf_size;
		s->lttng_num_subbufs[s->n_lttng] = m->geometry.num_subbuf;
		s->lttng_ids[s->n_lttng++] = m->channel_id;
		break;
	}
	case TC_CONSUMER_METADATA:
		if (status == 0)
			s->metadata_len += b->len - sizeof(struct tc_consumer_metadata);
		break;
	case TC_CONSUMER_KERNEL_TRACE: {
		const struct tc_consumer_kernel_trace *m = (const void *)out.bytes;

		if (status != 0)
			return;
		s->has_kernel = true;
		s->kernel_streams = model_streams(s);
		s->kernel_cpus = m->nr_cpus;
		memcpy(s->kernel_dir, m->dir, sizeof(s->kernel_dir));
		break;
	}
	case TC_CONSUMER_ROTATE:
		if (e->any_status)
			after_rotation(c, s, status);
		break;
	case TC_CONSUMER_DESTROY_SESSION:
		s->exists = false;
		outcomes[SESSION_DESTROYED]++;
		return;
	default:
		break;
	}
	if (s)
		s->fds_held += delta;
}

static void
count_outcome(const struct expectation *e, int status)
{
	static const enum outcome by_stage[] = {
	    [STAGE_LINK_END] = LINK_ENDED, [STAGE_HEADER] = HEADER_REFUSED,
	    [STAGE_SIZE] = SIZE_REFUSED,   [STAGE_ROUTE] = ROUTE_REFUSED,
	    [STAGE_CHECK] = CHECK_REFUSED, [STAGE_WORK] = SERVED,
	};

	outcomes[e->stage == STAGE_WORK && status != 0 ? WORK_FAILED : by_stage[e->stage]]++;
	if (e->stage != STAGE_WORK || status != 0)
		return;
	if (e->type == TC_CONSUMER_CREATE_CHANNEL)
		outcomes[STREAMS_CHECKED]++;
	if (e->type == TC_CONSUMER_LTTNG_CHANNEL)
		outcomes[LTTNG_CHECKED]++;
	if (e->type == TC_CONSUMER_SESSION_FILES && files_listed(e) > 0)
		outcomes[FILES_CHECKED]++;
	if (e->type == TC_CONSUMER_KERNEL_TRACE)
		outcomes[KERNEL_TRACED]++;
}

/* One request: built, sent, received, served as the consumer does, its
 * answer read, and what it changed checked. */
static void
run_request(struct conversation *c, struct fuzz_input *in)
{
	static struct listing before, after, added;
	struct tc_consumerd_request *request = NULL;
	struct built b = {0};
	struct expectation e;
	struct answer a = {0};
	int fds_before = c->fds_counted ? c->fds_open : fuzz_recount_open_fds(), ret, fds_more;

	build_request(c, in, &b);
	expect_request(c, &b, &e, &added);
	if (c->jail_listed)
		listing_swap(&before, &after);
	else
		listing_take_jail(&before);
	c->jail_listed = false;
	send_request(c, &b);
	ret = tc_consumerd_command_receive(c->consumer_fd, &request);
	if (e.stage == STAGE_LINK_END) {
		/* The consumer stops here: its descriptors were closed. */
		if (ret != -EPIPE || fuzz_recount_open_fds() != fds_before)
			FAIL("an empty datagram: %d, %d descriptors more", ret,
			     fuzz_recount_open_fds() - fds_before);
		c->link_ended = true;
		count_outcome(&e, 0);
		return;
	}
	if (ret != 0)
		FAIL("a request of %zu bytes was not received: %d", b.len, ret);
	check_received(request, &b);
	consumer_route(c, request, &e);
	read_answer(c, &e, &a);
	check_reply(c, &e, &a);
	if (e.fs != FS_ANY) {
		listing_take_jail(&after);
		listing_compare(&before, e.added, &after, "a request");
		c->jail_listed = true;
	}
	c->fds_open = fuzz_recount_open_fds();
	c->fds_counted = true;
	fds_more = c->fds_open - fds_before;
	check_fds(&e, fds_more, a.reply.status);
	model_apply(c, &e, &b, a.reply.status, fds_more);
	if (e.session && e.session->exists && e.type == TC_CONSUMER_METADATA)
		check_metadata_file(e.session);
	check_consumer_state(c);
	count_outcome(&e, a.reply.status);
	if (log_is_shown)
		fprintf(stderr,
			"request %u: kind %d, type %" PRIu32 ", %zu bytes, %zu fds: stage %d, "
			"status %d\n",
			c->sent, (int)b.kind, e.type, b.len, b.nr_fds, (int)e.stage,
			(int)a.reply.status);
}

/* The service goes away: the consumer sees the end, then writes out and
 * frees every session, as tc_consumerd_session_thread_stop_all() has
 * each thread do. */
static void
conversation_end(struct conversation *c)
{
	uint64_t deadline = tc_rb_clock_now() + CONSUMERD_EXIT_BUDGET_MS * 1000000ull;
	struct tc_consumerd_request *request = NULL;

	if (!c->link_ended && (close(c->service_fd),
			       tc_consumerd_command_receive(c->consumer_fd, &request) != -EPIPE))
		FAIL("the consumer did not see the service's end");
	for (unsigned int i = 0; i < SLOTS; i++) {
		if (!c->threads[i].running)
			continue;
		tc_consumerd_session_destroy_all(&c->threads[i].registry, deadline);
		c->threads[i].running = false;
	}
	close(c->consumer_fd);
	if (c->link_ended)
		close(c->service_fd);
}

/* A tmpfs when there is one: the consumer syncs its files at every flush
 * and destruction, which costs milliseconds each on a disk. */
static const char *
temporary_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return tmp && *tmp ? tmp : "/tmp";
}

static void
harness_init(void)
{
	char path[256];

	/* As the consumer's main(): directories 0700, files 0600. */
	umask(0077);
	log_is_shown = getenv("FUZZ_CONSUMER_COMMAND_LOG") != NULL;
	tc_consumerd_log_init((unsigned long)getuid());
	snprintf(root, sizeof(root), "%s/fuzz-consumer-command-XXXXXX", temporary_dir());
	if (!mkdtemp(root))
		FAIL("mkdtemp %s: %s", root, strerror(errno));
	root_len = strlen(root);
	snprintf(jail, sizeof(jail), "%s/jail", root);
	snprintf(path, sizeof(path), "%s/outside", root);
	make_dir(path, 0700);
	snprintf(path, sizeof(path), "%s/outside/dir", root);
	make_dir(path, 0700);
	fixed_make();
	atexit(remove_root);
	listing_take_outside(&outside_jail);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct listing end;
	static bool is_ready;
	struct fuzz_input in = {data, size, 0};
	struct conversation c = {0};
	struct tc_consumerd_request *request = NULL;
	int sv[2], fds_start;

	if (!is_ready)
		harness_init();
	is_ready = true;
	fds_start = fuzz_recount_open_fds();
	jail_make();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		FAIL("socketpair: %s", strerror(errno));
	c.service_fd = sv[0];
	c.consumer_fd = sv[1];
	if (tc_consumerd_command_receive(c.consumer_fd, &request) != -EAGAIN)
		FAIL("a request received before any was sent");
	c.id_base = (uint32_t)fuzz_take_byte(&in) << 16;
	while (c.sent < COMMANDS_MAX && in.pos < in.size && !c.link_ended)
		run_request(&c, &in);
	conversation_end(&c);
	if (relays_open != 0)
		FAIL("%u relay connections left open", relays_open);
	if (fuzz_recount_open_fds() != fds_start)
		FAIL("%d descriptors open before the input, %d after", fds_start,
		     fuzz_recount_open_fds());
	listing_take_outside(&end);
	listing_compare(&outside_jail, NULL, &end, "the input");
	remove_tree(jail);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Conversations: the ids' base, then requests: a kind byte (K_* |
 * FLAG_*), its twist, fds and id bytes when flagged, then its values (see
 * each build_*() above). Session ids: 0x00 is 1, 0x01 is 2. Paths: the
 * low nibble picks a path, 0x00 "a", 0x01 "b", 0x06 "snap/1", 0x08 "arch",
 * 0x0a "full", 0x0b "f", 0x0d "ln"; 0x40 relative, 0x50 "..", 0x60 not
 * terminated, 0x80 the other kind (relative for a local path). */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
#define LOCAL_SESSION(s, path) K_CREATE_SESSION, s, 0x00, path
#define SNAPSHOT_SESSION(s) K_CREATE_SESSION, s, 0x01, 0x00
#define RELAY_SESSION(s, host) K_CREATE_SESSION, s, 0x02, 0x00, host, 0x00, 0x00
#define CHANNEL(s, ids, name, cpus) K_CREATE_CHANNEL, s, ids, name, cpus, 0x00, 0x00, 0x00
#define METADATA(s) K_METADATA, s, 6, '/', '*', ' ', '*', '/', '\n'
#define LTTNG(s, ids, name, geometry) K_LTTNG_CHANNEL, s, ids, name, geometry, 0x00
static const struct fuzz_seed seeds[] = {
    /* A local session's life: channel, metadata, layout, stats, flush,
     * snapshot refused (not a snapshot session), rotation, clear, destroy. */
    SEED(0x01, LOCAL_SESSION(0x00, 0x00), CHANNEL(0x00, 0x00, 0x00, 0x01), METADATA(0x00),
	 K_EVENT_LAYOUT, 0x00, 0x00, 3, 0x01, 2, 0x08, 0x03, K_CHANNEL_STATS, 0x00, 0x00, K_FLUSH,
	 0x00, K_SNAPSHOT, 0x00, 0x00, 0x06, K_ROTATE, 0x00, 0x0e, 0x08, K_CLEAR, 0x00,
	 K_CHUNK_SIZE, 0x00, METADATA(0x00), K_DESTROY, 0x00),
    /* A snapshot session: two channels, snapshots into new and used
     * directories, and through the relay. */
    SEED(0x02, SNAPSHOT_SESSION(0x01), CHANNEL(0x01, 0x00, 0x00, 0x00),
	 CHANNEL(0x01, 0x05, 0x01, 0x01), METADATA(0x01), K_SNAPSHOT, 0x01, 0x01, 0x06, K_SNAPSHOT,
	 0x01, 0x00, 0x06, K_SNAPSHOT_RELAY, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, K_SNAPSHOT_RELAY,
	 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, K_CLEAR, 0x01, K_DESTROY, 0x01),
    /* A streaming session: channel, metadata, status, relay rotations,
     * a clear the relay refuses, a local rotation. */
    SEED(0x03, RELAY_SESSION(0x02, 0x02), CHANNEL(0x02, 0x00, 0x01, 0x01), METADATA(0x02),
	 K_RELAY_STATUS, 0x02, K_RELAY_ROTATE, 0x02, 0x04, K_RELAY_ROTATE, 0x02, 0x09,
	 K_RELAY_ROTATE, 0x02, 0x01, K_ROTATE, 0x02, 0x0e, 0x08, K_DESTROY, 0x02),
    /* Kernel traces: local with contexts and stats, then updates; 125 CPUs
     * with stats, 126 refused; into a streaming session; refused clocks
     * and descriptor counts. */
    SEED(0x04, LOCAL_SESSION(0x00, 0x01), K_KERNEL_TRACE, 0x00, 0x1f, 0x09, 0x00, 0x05,
	 LOCAL_SESSION(0x02, 0x03), K_KERNEL_TRACE, 0x02, 0x00, 0x31, 0x00, 0x04, K_KERNEL_TRACE,
	 0x02, 0x00, 0x29, 0x00, 0x04, K_KERNEL_UPDATE, 0x00, 0x41, K_KERNEL_UPDATE, 0x00, 0x83,
	 K_KERNEL_UPDATE, 0x00, 0xc0, K_KERNEL_STATS, 0x00, K_ROTATE, 0x00, 0x0e, 0x08, K_FLUSH,
	 0x00, RELAY_SESSION(0x01, 0x00), K_KERNEL_TRACE, 0x01, 0x00, 0x00, 0x00, 0x01,
	 K_KERNEL_TRACE | FLAG_FDS, 0x04, 0x00, 0x00, 0x08, 0x03, 0x04),
    /* Trace directories the consumer must refuse or cannot use: relative,
     * with "..", not terminated, not empty, a file, through a file, a
     * symbolic link; the same session twice; requests for none. */
    SEED(0x05, LOCAL_SESSION(0x00, 0x40), LOCAL_SESSION(0x00, 0x50), LOCAL_SESSION(0x00, 0x60),
	 LOCAL_SESSION(0x00, 0x0a), LOCAL_SESSION(0x00, 0x0b), LOCAL_SESSION(0x00, 0x0c),
	 LOCAL_SESSION(0x00, 0x0d), LOCAL_SESSION(0x00, 0x80), LOCAL_SESSION(0x01, 0x70),
	 LOCAL_SESSION(0x01, 0x02), K_FLUSH, 0x02, K_DESTROY, 0x03, K_METADATA, 0x02, 0),
    /* Channels refused: names, CPU counts, geometries, timers, flags, ids
     * taken, a stream file that exists. */
    SEED(0x06, LOCAL_SESSION(0x00, 0x00), CHANNEL(0x00, 0x00, 0x04, 0x00),
	 CHANNEL(0x00, 0x00, 0x05, 0x00), CHANNEL(0x00, 0x00, 0x06, 0x00),
	 CHANNEL(0x00, 0x00, 0x0b, 0x00), CHANNEL(0x00, 0x00, 0x0e, 0x00),
	 CHANNEL(0x00, 0x00, 0x00, 0x04), CHANNEL(0x00, 0x00, 0x00, 0x05), K_CREATE_CHANNEL, 0x00,
	 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, K_CREATE_CHANNEL, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
	 0x00, K_CREATE_CHANNEL, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, K_CREATE_CHANNEL, 0x00,
	 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, CHANNEL(0x00, 0x00, 0x0c, 0x00),
	 CHANNEL(0x00, 0x00, 0x0c, 0x00), CHANNEL(0x00, 0x05, 0x00, 0x00),
	 CHANNEL(0x00, 0x0a, 0x00, 0x00)),
    /* Framing: a bad magic, a size field off, cut, grown, another type,
     * too long, a header cut short, raw bytes, extra descriptors. */
    SEED(0x07, LOCAL_SESSION(0x00, 0x00), K_FLUSH | FLAG_TWIST, 0x01, 0x00, K_FLUSH | FLAG_TWIST,
	 0x0a, 0x00, K_FLUSH | FLAG_TWIST, 0x03, 0x00, K_FLUSH | FLAG_TWIST, 0x04, 0x00,
	 K_FLUSH | FLAG_TWIST, 0x1d, 0x00, K_FLUSH | FLAG_TWIST, 0x06, 0x00, K_FLUSH | FLAG_TWIST,
	 0x57, 0x00, K_METADATA | FLAG_TWIST, 0x0c, 0x00, 4, 'a', 'b', 'c', 'd', K_RAW, 17, 8, 1, 0,
	 0, 0, 0, 0, 0, 0, K_RAW, 0xff, 0, K_FLUSH | FLAG_FDS, 0x03, 0x00, K_FLUSH | FLAG_ID, 0, 0,
	 0, 0, 0x00, K_DESTROY, 0x00),
    /* The user's session files: every home, bounds good and bad. */
    SEED(0x08, K_SESSION_FILES, 0x00, 0x00, K_SESSION_FILES, 0x00, 0x04, K_SESSION_FILES, 0x00,
	 0x3b, K_SESSION_FILES, 0x01, 0x00, K_SESSION_FILES, 0x02, 0x00, K_SESSION_FILES, 0x03,
	 0x00, K_SESSION_FILES, 0x04, 0x00, K_SESSION_FILES, 0x05, 0x00, K_SESSION_FILES, 0x06,
	 0x33, K_SESSION_FILES, 0x07, 0x0b, K_SESSION_FILES, 0x08, 0x00, K_SESSION_FILES, 0x09,
	 0x00, K_SESSION_FILES, 0x0b, 0x00, K_SESSION_FILES, 0x00, 0x05, K_SESSION_FILES, 0x00,
	 0x20),
    /* The own-process tier, relay outputs refused, an empty datagram
     * with a descriptor: the end of the link. */
    SEED(0x09, LOCAL_SESSION(0x00, 0x00), K_KERNEL_OWN, 0x00, 0x05, K_KERNEL_OWN | FLAG_FDS, 0x0c,
	 0x00, 0x05, K_CREATE_SESSION, 0x01, 0x02, 0x00, 0x05, 0x00, 0x00, K_CREATE_SESSION, 0x01,
	 0x02, 0x00, 0x00, 0x10, 0x00, K_CREATE_SESSION, 0x01, 0x02, 0x00, 0x00, 0x00, 0x05,
	 K_CREATE_SESSION, 0x01, 0x02, 0x00, 0x01, 0x00, 0x00, K_EMPTY | FLAG_FDS, 0x01, K_FLUSH,
	 0x00),
    /* LTTng-UST channels: two in a local session with a tracectl channel
     * of another name, flushed; the same id again; the same name under
     * another id (its files exist); geometries past every bound and that
     * liblttng-ust-ctl refuses; names refused; 1024 sub-buffers; then
     * destroyed. */
    SEED(0x0a, LOCAL_SESSION(0x00, 0x00), LTTNG(0x00, 0x00, 0x00, 0x00),
	 LTTNG(0x00, 0x05, 0x01, 0x14), CHANNEL(0x00, 0x00, 0x02, 0x01), K_FLUSH, 0x00,
	 LTTNG(0x00, 0x00, 0x02, 0x00), LTTNG(0x00, 0x02, 0x00, 0x01), LTTNG(0x00, 0x02, 0x03, 0x05),
	 LTTNG(0x00, 0x02, 0x03, 0x06), LTTNG(0x00, 0x02, 0x03, 0x07),
	 LTTNG(0x00, 0x02, 0x03, 0x08), LTTNG(0x00, 0x02, 0x03, 0x09),
	 LTTNG(0x00, 0x02, 0x03, 0x0a), LTTNG(0x00, 0x02, 0x03, 0x0b),
	 LTTNG(0x00, 0x02, 0x03, 0x0c), LTTNG(0x00, 0x02, 0x03, 0x0e),
	 LTTNG(0x00, 0x02, 0x04, 0x00), LTTNG(0x00, 0x02, 0x0b, 0x00), LTTNG(0x00, 0x02, 0x0e, 0x00),
	 LTTNG(0x00, 0x02, 0x05, 0x00), LTTNG(0x00, 0x03, 0x03, 0x04), K_DESTROY, 0x00),
    /* An LTTng-UST channel kept in memory by a snapshot session, its
     * snapshot, through the relay too, and its clear; refused: streaming
     * sessions, no session, framing and descriptors changed; then a
     * destroy with one. */
    SEED(0x0b, SNAPSHOT_SESSION(0x01), LTTNG(0x01, 0x00, 0x00, 0x00), K_SNAPSHOT, 0x01, 0x01,
	 0x06, K_SNAPSHOT_RELAY, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, K_CLEAR, 0x01,
	 RELAY_SESSION(0x02, 0x02),
	 LTTNG(0x02, 0x00, 0x00, 0x00), LTTNG(0x03, 0x00, 0x00, 0x00), LOCAL_SESSION(0x00, 0x01),
	 K_LTTNG_CHANNEL | FLAG_TWIST, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
	 K_LTTNG_CHANNEL | FLAG_TWIST, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
	 K_LTTNG_CHANNEL | FLAG_FDS, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, LTTNG(0x00, 0x1f, 0x03, 0x30),
	 K_DESTROY, 0x00),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 2048,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
