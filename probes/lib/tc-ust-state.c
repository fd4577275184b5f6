/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-state.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-ust-log.h"
#include "tc-ust-rcu.h"

/* A buffer per possible CPU; more would be a confused or hostile service. */
#define TC_UST_STREAMS_MAX 4096u

static_assert(TRACECTL_FIELDS_MAX == TRACECTL_ABI_FIELDS_MAX, "public and wire field limits");
static_assert((int)TRACECTL_UST_FIELD_SIGNED == (int)TRACECTL_FIELD_SIGNED &&
		      (int)TRACECTL_UST_FIELD_UNSIGNED == (int)TRACECTL_FIELD_UNSIGNED &&
		      (int)TRACECTL_UST_FIELD_DOUBLE == (int)TRACECTL_FIELD_DOUBLE &&
		      (int)TRACECTL_UST_FIELD_STRING == (int)TRACECTL_FIELD_STRING &&
		      (int)TRACECTL_UST_FIELD_BYTES == (int)TRACECTL_FIELD_BYTES &&
		      (int)TRACECTL_UST_FIELD_FLOAT == (int)TRACECTL_FIELD_FLOAT &&
		      (int)TRACECTL_UST_FIELD_ARRAY == (int)TRACECTL_FIELD_ARRAY &&
		      (int)TRACECTL_UST_FIELD_SEQUENCE == (int)TRACECTL_FIELD_SEQUENCE &&
		      (int)TRACECTL_UST_FIELD_ENUM == (int)TRACECTL_FIELD_ENUM &&
		      TRACECTL_UST_FIELD_HEX == TRACECTL_FIELD_HEX &&
		      TRACECTL_UST_FIELD_OCT == TRACECTL_FIELD_OCT &&
		      TRACECTL_UST_FIELD_BIG_ENDIAN == TRACECTL_FIELD_BIG_ENDIAN &&
		      TRACECTL_UST_FIELD_TEXT == TRACECTL_FIELD_TEXT &&
		      TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_FLOAT, 4) ==
			      TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_FLOAT, 4),
	      "public and wire field types");
static_assert(TRACECTL_ARRAY_LENGTH_MAX == TRACECTL_ABI_ARRAY_LENGTH_MAX &&
		      TRACECTL_SEQUENCE_LENGTH_MAX == TRACECTL_ABI_SEQUENCE_LENGTH_MAX,
	      "public and wire element counts");

struct tc_ust_state tc_ust_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.connection = TC_UST_CONNECTING,
	.connection_fd = -1,
	.wake_fd = -1,
};

/* [A-Za-z0-9_.-]+, the service's rule for each half of "provider:event". */
static bool
is_valid_name_part(const char *part)
{
	if (!part || !*part)
		return false;
	for (; *part; part++) {
		char c = *part;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* [A-Za-z][A-Za-z0-9_]*, shorter than the wire array. */
static bool
is_valid_field_name(const char *name)
{
	size_t len;

	if (!name || !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
		return false;
	len = strlen(name);
	if (len >= TRACECTL_ABI_FIELD_NAME_MAX)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       len;
}

static bool
is_valid_field(const struct tracectl_ust_field *field)
{
	return is_valid_field_name(field->name) &&
	       tracectl_abi_field_is_valid(field->type, field->size);
}

bool
tc_ust_event_describe(const struct tracectl_ust_event *desc, struct tracectl_msg_event *msg)
{
	int len;

	memset(msg, 0, sizeof(*msg));
	if (!is_valid_name_part(desc->provider) || !is_valid_name_part(desc->name))
		return false;
	if (desc->nr_fields > TRACECTL_ABI_FIELDS_MAX || (desc->nr_fields && !desc->fields))
		return false;
	if (desc->loglevel < 0 || desc->loglevel > TRACECTL_ABI_LOGLEVEL_MAX)
		return false;
	len = snprintf(msg->name, sizeof(msg->name), "%s:%s", desc->provider, desc->name);
	if (len < 0 || (size_t)len >= sizeof(msg->name))
		return false;
	for (uint32_t i = 0; i < desc->nr_fields; i++) {
		const struct tracectl_ust_field *field = &desc->fields[i];

		if (!is_valid_field(field))
			return false;
		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(desc->fields[j].name, field->name) == 0)
				return false;
		}
		strcpy(msg->fields[i].name, field->name);
		msg->fields[i].type = field->type;
		msg->fields[i].size = field->size;
	}
	msg->header.magic = TRACECTL_ABI_MAGIC;
	msg->header.type = TRACECTL_MSG_EVENT;
	msg->header.size = sizeof(*msg);
	msg->loglevel = desc->loglevel;
	msg->nr_fields = desc->nr_fields;
	return true;
}

static struct tc_ust_entry *
find_entry(const struct tracectl_ust_event *desc)
{
	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++) {
		if (tc_ust_state.entries[i]->desc == desc)
			return tc_ust_state.entries[i];
	}
	return NULL;
}

static bool
reserve_entry_slot(void)
{
	struct tc_ust_entry **entries;
	uint32_t capacity;

	if (tc_ust_state.nr_entries < tc_ust_state.capacity)
		return true;
	if (tc_ust_state.capacity >= TRACECTL_ABI_EVENTS_MAX)
		return false;
	capacity = tc_ust_state.capacity ? tc_ust_state.capacity * 2 : 64;
	entries = realloc(tc_ust_state.entries, capacity * sizeof(*entries));
	if (!entries)
		return false;
	tc_ust_state.entries = entries;
	tc_ust_state.capacity = capacity;
	return true;
}

static struct tc_ust_enum *
find_enum(const struct tracectl_ust_enum *desc)
{
	for (uint32_t i = 0; i < tc_ust_state.nr_enums; i++) {
		if (tc_ust_state.enums[i]->desc == desc)
			return tc_ust_state.enums[i];
	}
	return NULL;
}

static bool
reserve_enum_slots(uint32_t count)
{
	struct tc_ust_enum **enums;
	uint32_t capacity = tc_ust_state.enums_capacity ? tc_ust_state.enums_capacity : 16;

	if (tc_ust_state.nr_enums + count > TRACECTL_ABI_ENUMS_MAX)
		return false;
	while (capacity < tc_ust_state.nr_enums + count)
		capacity *= 2;
	if (capacity == tc_ust_state.enums_capacity)
		return true;
	enums = realloc(tc_ust_state.enums, capacity * sizeof(*enums));
	if (!enums)
		return false;
	tc_ust_state.enums = enums;
	tc_ust_state.enums_capacity = capacity;
	return true;
}

/*
 * Gives each enumeration field of msg its enumeration's index, adding the
 * enumerations not known yet: all or none, so that a refused event leaves
 * none behind. field_enums is NULL for modules before version 3, whose
 * fields cannot be enumerations.
 */
static bool
resolve_enums(const struct tracectl_ust_event *desc,
	      const struct tracectl_ust_enum *const *field_enums, struct tracectl_msg_event *msg)
{
	struct tc_ust_enum *added[TRACECTL_ABI_FIELDS_MAX];
	uint32_t nr_added = 0;
	bool ok = true;

	for (uint32_t i = 0; ok && i < desc->nr_fields; i++) {
		const struct tracectl_ust_enum *enum_desc = field_enums ? field_enums[i] : NULL;
		struct tc_ust_enum *enumeration;

		if (tracectl_abi_field_kind(desc->fields[i].type) != TRACECTL_UST_FIELD_ENUM)
			continue;
		enumeration = enum_desc ? find_enum(enum_desc) : NULL;
		for (uint32_t j = 0; enum_desc && !enumeration && j < nr_added; j++) {
			if (added[j]->desc == enum_desc)
				enumeration = added[j];
		}
		if (enum_desc && !enumeration) {
			enumeration = tc_ust_enum_new(enum_desc);
			if (enumeration) {
				tc_ust_enum_set_index(enumeration, tc_ust_state.nr_enums + nr_added);
				added[nr_added++] = enumeration;
			}
		}
		ok = enumeration && tc_ust_enum_fits(enumeration, desc->fields[i].type);
		if (ok)
			msg->fields[i].size = enumeration->index;
	}
	if (ok)
		ok = reserve_enum_slots(nr_added);
	for (uint32_t j = 0; j < nr_added; j++) {
		if (ok)
			tc_ust_state.enums[tc_ust_state.nr_enums++] = added[j];
		else
			tc_ust_enum_free(added[j]);
	}
	return ok;
}

struct tc_ust_entry *
tc_ust_state_add_event(struct tracectl_ust_event *desc, uint32_t api_version)
{
	struct tc_ust_entry *entry = find_entry(desc);
	const struct tracectl_ust_enum *const *field_enums =
		api_version >= 3 ? desc->field_enums : NULL;

	if (entry)
		return entry;
	if (!reserve_entry_slot())
		return NULL;
	entry = calloc(1, sizeof(*entry));
	if (!entry)
		return NULL;
	if (!tc_ust_event_describe(desc, &entry->msg) ||
	    !resolve_enums(desc, field_enums, &entry->msg)) {
		tc_ust_debug("Event %s:%s breaks the naming, log level or enumeration rules, "
			     "not registered",
			     desc->provider ? desc->provider : "?", desc->name ? desc->name : "?");
		free(entry);
		return NULL;
	}
	entry->desc = desc;
	entry->field_enums = field_enums;
	entry->index = tc_ust_state.nr_entries;
	entry->msg.index = entry->index;
	tc_ust_state.entries[tc_ust_state.nr_entries++] = entry;
	/* Tracepoints find their entry through the descriptor. */
	__atomic_store_n(&desc->priv, entry, __ATOMIC_RELEASE);
	return entry;
}

/*
 * The entry stays, so that indexes keep matching what the service knows;
 * only the link to the descriptor, which is about to be unmapped, goes.
 */
void
tc_ust_state_remove_event(struct tracectl_ust_event *desc)
{
	struct tc_ust_entry *entry = find_entry(desc);

	if (!entry)
		return;
	__atomic_store_n(&desc->enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&desc->priv, NULL, __ATOMIC_RELEASE);
	/* Its enumerations are the module's too: another module loaded where
	 * they were must not be taken for them. */
	for (uint32_t i = 0; entry->field_enums && i < desc->nr_fields; i++) {
		struct tc_ust_enum *enumeration =
			entry->field_enums[i] ? find_enum(entry->field_enums[i]) : NULL;

		if (enumeration)
			enumeration->desc = NULL;
	}
	entry->field_enums = NULL;
	entry->desc = NULL;
}

static bool
binding_is_recording(const struct tc_ust_binding *binding)
{
	const struct tc_ust_channel *channel = binding->channel;

	return __atomic_load_n(&binding->enabled, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&channel->dead, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&channel->session->active, __ATOMIC_RELAXED);
}

/* Sets each descriptor's enabled word from its bindings. The release store
 * orders the bindings' state before a tracepoint that sees enabled. */
static void
update_enabled_words(void)
{
	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++) {
		struct tc_ust_entry *entry = tc_ust_state.entries[i];
		uint32_t enabled = 0;

		if (!entry->desc)
			continue;
		for (struct tc_ust_binding *b = entry->bindings; b; b = b->next) {
			if (binding_is_recording(b))
				enabled = 1;
		}
		__atomic_store_n(&entry->desc->enabled, enabled, __ATOMIC_RELEASE);
	}
}

/* Requires the lock. The object is already out of tracepoints' reach. */
static void
retire(struct tc_ust_retired *retired, void (*free_retired)(struct tc_ust_retired *))
{
	retired->free = free_retired;
	retired->next = tc_ust_state.retired;
	tc_ust_state.retired = retired;
	tc_ust_state.nr_retired++;
}

struct tc_ust_retired *
tc_ust_state_take_retired(void)
{
	struct tc_ust_retired *retired = tc_ust_state.retired;

	tc_ust_state.retired = NULL;
	tc_ust_state.nr_retired = 0;
	return retired;
}

void
tc_ust_state_free_retired(struct tc_ust_retired *retired)
{
	if (!retired)
		return;
	/* A section that never ends must not stop the listener: what it may
	 * still read is left unfreed rather than waited for. */
	if (!tc_ust_rcu_synchronize()) {
		tc_ust_debug("A tracepoint did not return within a grace period: "
			     "what the service removed stays allocated");
		return;
	}
	while (retired) {
		struct tc_ust_retired *next = retired->next;

		retired->free(retired);
		retired = next;
	}
}

static void
free_session(struct tc_ust_retired *retired)
{
	free((struct tc_ust_session *)((char *)retired - offsetof(struct tc_ust_session, retired)));
}

static void
free_binding(struct tc_ust_retired *retired)
{
	struct tc_ust_binding *binding =
	    (struct tc_ust_binding *)((char *)retired - offsetof(struct tc_ust_binding, retired));

	tc_ust_filter_free(binding->filter);
	free(binding);
}

/* A replaced filter, waiting for its grace period. */
struct retired_filter {
	struct tc_ust_retired retired;
	struct tc_ust_filter *filter;
};

static void
free_filter(struct tc_ust_retired *retired)
{
	struct retired_filter *holder =
	    (struct retired_filter *)((char *)retired - offsetof(struct retired_filter, retired));

	tc_ust_filter_free(holder->filter);
	free(holder);
}

static void
free_stream(struct tc_rb *rb)
{
	if (rb->wake_fd >= 0)
		close(rb->wake_fd);
	munmap(rb->shm, rb->shm_size);
	free(rb);
}

static void
free_channel(struct tc_ust_retired *retired)
{
	struct tc_ust_channel *channel =
	    (struct tc_ust_channel *)((char *)retired - offsetof(struct tc_ust_channel, retired));

	for (uint32_t cpu = 0; cpu < channel->nr_streams; cpu++) {
		if (channel->streams[cpu])
			free_stream(channel->streams[cpu]);
	}
	free(channel->streams);
	free(channel->app_contexts);
	free(channel->perf_counters);
	if (channel->notifier)
		munmap(channel->notifier, TRACECTL_NOTIFIER_PAGE_SIZE);
	free(channel);
}

/* Unlinks and retires every binding to channel. A tracepoint standing on
 * one still finds the rest of the list through its next, which stays. */
static void
retire_bindings_of(const struct tc_ust_channel *channel)
{
	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++) {
		struct tc_ust_binding **link = &tc_ust_state.entries[i]->bindings;
		struct tc_ust_binding *b;

		while ((b = *link) != NULL) {
			if (b->channel != channel) {
				link = &b->next;
				continue;
			}
			__atomic_store_n(link, b->next, __ATOMIC_RELEASE);
			retire(&b->retired, free_binding);
		}
	}
}

static bool
session_has_channel(const struct tc_ust_session *session)
{
	for (const struct tc_ust_channel *c = tc_ust_state.channels; c; c = c->next) {
		if (c->session == session)
			return true;
	}
	return false;
}

/* A session that is neither active nor has a channel holds nothing a
 * later command needs: a new one is made inactive on its next mention. */
static void
retire_session_if_unused(struct tc_ust_session *session)
{
	struct tc_ust_session **link = &tc_ust_state.sessions;

	if (__atomic_load_n(&session->active, __ATOMIC_RELAXED) || session_has_channel(session))
		return;
	while (*link && *link != session)
		link = &(*link)->next;
	if (!*link)
		return; /* the notifiers' own, never in the list */
	*link = session->next;
	retire(&session->retired, free_session);
}

/* Unlinks channel, its bindings and maybe its session, and retires them. */
static void
retire_channel(struct tc_ust_channel *channel)
{
	struct tc_ust_channel **link = &tc_ust_state.channels;

	while (*link != channel)
		link = &(*link)->next;
	*link = channel->next;
	/* Tracepoints already in it stop at their next look. */
	__atomic_store_n(&channel->dead, 1, __ATOMIC_RELEASE);
	retire_bindings_of(channel);
	retire(&channel->retired, free_channel);
	retire_session_if_unused(channel->session);
}

void
tc_ust_state_reset_connection(void)
{
	while (tc_ust_state.channels)
		retire_channel(tc_ust_state.channels);
	while (tc_ust_state.sessions) {
		__atomic_store_n(&tc_ust_state.sessions->active, 0, __ATOMIC_RELEASE);
		retire_session_if_unused(tc_ust_state.sessions);
	}
	update_enabled_words();
	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++)
		tc_ust_state.entries[i]->sent_batch = 0;
	tc_ust_state.nr_sent = 0;
	tc_ust_state.nr_enums_sent = 0;
	tc_ust_state.nr_app_contexts_sent = 0;
	tc_ust_state.batch_requested = false;
}

static struct tc_ust_session *
find_session(uint64_t handle)
{
	for (struct tc_ust_session *s = tc_ust_state.sessions; s; s = s->next) {
		if (s->handle == handle)
			return s;
	}
	return NULL;
}

/* Sessions are created on first mention, inactive; freed once unused. */
static struct tc_ust_session *
get_session(uint64_t handle)
{
	struct tc_ust_session *session = find_session(handle);

	if (session)
		return session;
	session = calloc(1, sizeof(*session));
	if (!session)
		return NULL;
	session->handle = handle;
	session->next = tc_ust_state.sessions;
	tc_ust_state.sessions = session;
	return session;
}

/* The channel with this handle; removed ones are no longer listed. */
struct tc_ust_channel *
tc_ust_state_find_channel(uint64_t handle)
{
	for (struct tc_ust_channel *c = tc_ust_state.channels; c; c = c->next) {
		if (c->handle == handle)
			return c;
	}
	return NULL;
}

int
tc_ust_state_channel_add(const struct tracectl_msg_channel *msg)
{
	struct tc_ust_session *session;
	struct tc_ust_channel *channel;

	if (tc_ust_state_find_channel(msg->channel_handle))
		return -EEXIST;
	if (msg->nr_streams == 0 || msg->nr_streams > TC_UST_STREAMS_MAX ||
	    msg->subbuf_size > UINT32_MAX || msg->num_subbuf > UINT32_MAX ||
	    tc_rb_shm_size((uint32_t)msg->subbuf_size, (uint32_t)msg->num_subbuf) == 0 ||
	    (msg->contexts & ~TRACECTL_CONTEXT_ALL) != 0)
		return -EINVAL;
	session = get_session(msg->session_handle);
	channel = calloc(1, sizeof(*channel));
	if (!session || !channel)
		goto no_memory;
	channel->streams = calloc(msg->nr_streams, sizeof(*channel->streams));
	if (!channel->streams)
		goto no_memory;
	channel->handle = msg->channel_handle;
	channel->session = session;
	channel->stream_id = msg->stream_id;
	channel->nr_streams = msg->nr_streams;
	channel->subbuf_size = (uint32_t)msg->subbuf_size;
	channel->num_subbuf = (uint32_t)msg->num_subbuf;
	channel->contexts = msg->contexts;
	channel->next = tc_ust_state.channels;
	tc_ust_state.channels = channel;
	return 0;

no_memory:
	free(channel);
	if (session)
		retire_session_if_unused(session);
	return -ENOMEM;
}

/* The session of every notifier: always active, never in the list, so
 * that no session command reaches it. */
static struct tc_ust_session notifier_session = {
	.handle = TRACECTL_NOTIFIER_SESSION,
	.active = 1,
};

/*
 * A notifier is a channel whose events count in a shared page. The page
 * is unmapped after a grace period once its channel is removed, like
 * buffers are.
 */
int
tc_ust_state_notifier_add(const struct tracectl_msg_notifier *msg, int fd)
{
	struct tc_ust_channel *channel;
	struct stat st;
	void *mapping;
	int seals;

	if (tc_ust_state_find_channel(msg->channel_handle))
		return -EEXIST;
	seals = fcntl(fd, F_GET_SEALS);
	/* A file shorter than the mapping would turn tracepoints into SIGBUS;
	 * the service seals it against shrinking. */
	if (msg->shm_size != TRACECTL_NOTIFIER_PAGE_SIZE || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < TRACECTL_NOTIFIER_PAGE_SIZE ||
	    seals < 0 || (seals & F_SEAL_SHRINK) == 0)
		return -EINVAL;
	channel = calloc(1, sizeof(*channel));
	if (!channel)
		return -ENOMEM;
	mapping = mmap(NULL, TRACECTL_NOTIFIER_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, 0);
	if (mapping == MAP_FAILED) {
		free(channel);
		return -errno;
	}
	channel->handle = msg->channel_handle;
	channel->session = &notifier_session;
	channel->notifier = mapping;
	channel->next = tc_ust_state.channels;
	tc_ust_state.channels = channel;
	return 0;
}

/* Retires the channel with its buffers and bindings (tc-ust-state.h). */
int
tc_ust_state_channel_remove(const struct tracectl_msg_channel *msg)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);

	if (!channel || channel->session->handle != msg->session_handle)
		return -ENOENT;
	retire_channel(channel);
	update_enabled_words();
	return 0;
}

/*
 * Whether fd is an eventfd whose writes never wait. The tracepoint that
 * closes a packet writes into the wake-up descriptor (tc_rb_wake_reader()):
 * into anything else the service sent, that write could kill the process
 * (SIGPIPE from a pipe or socket without a reader) or block the
 * tracepoint (a full pipe, a blocking eventfd whose counter is full).
 * Without /proc the answer is no: no wake-ups, which costs latency only.
 */
static bool
is_nonblocking_eventfd(int fd)
{
	static const char eventfd_link[] = "anon_inode:[eventfd]";
	char path[32], link[sizeof(eventfd_link)];
	int flags = fcntl(fd, F_GETFL);
	ssize_t len;

	if (flags < 0 || (flags & O_NONBLOCK) == 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, link, sizeof(link));
	return len == (ssize_t)sizeof(eventfd_link) - 1 &&
	       memcmp(link, eventfd_link, (size_t)len) == 0;
}

/*
 * Maps the buffer of one CPU of a channel from the memfd that came with the
 * message. The caller keeps ownership of fd and closes it.
 */
int
tc_ust_state_stream_add(const struct tracectl_msg_stream *msg, int fd, int wake_fd)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);
	uint64_t expected_size;
	struct tc_rb *rb;
	struct stat st;
	void *mapping;
	int ret;

	if (!channel)
		return -ENOENT;
	if (msg->cpu >= channel->nr_streams || channel->streams[msg->cpu])
		return -EINVAL;
	expected_size = tc_rb_shm_size(channel->subbuf_size, channel->num_subbuf);
	/* A file shorter than the mapping would turn tracepoints into SIGBUS. */
	if (msg->shm_size != expected_size || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < expected_size)
		return -EINVAL;
	/* MAP_POPULATE: the page faults happen here, in the listener thread,
	 * not in the first tracepoints that touch each page. */
	mapping = mmap(NULL, expected_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		       0);
	if (mapping == MAP_FAILED)
		return -errno;
	rb = calloc(1, sizeof(*rb));
	if (!rb) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = tc_rb_attach(rb, mapping, expected_size);
	if (ret < 0)
		goto fail;
	/* Writers pick the buffer of their CPU (tc-ust-emit.c). */
	if (rb->subbuf_size != channel->subbuf_size || rb->num_subbuf != channel->num_subbuf ||
	    rb->cpu != msg->cpu) {
		ret = -EINVAL;
		goto fail;
	}
	rb->picks_by_cpu = true;
#ifdef TC_RB_HAVE_RSEQ
	rb->move_locally = tc_rb_rseq_registered();
#endif
	/* Not a non-blocking eventfd, or none: no wake-ups, the consumer's
	 * timer reads. */
	rb->wake_fd = is_nonblocking_eventfd(wake_fd) ? fcntl(wake_fd, F_DUPFD_CLOEXEC, 3) : -1;
	__atomic_store_n(&channel->streams[msg->cpu], rb, __ATOMIC_RELEASE);
	return 0;

fail:
	free(rb);
	munmap(mapping, expected_size);
	return ret;
}

static struct tc_ust_binding *
find_binding(struct tc_ust_entry *entry, const struct tc_ust_channel *channel)
{
	for (struct tc_ust_binding *b = entry->bindings; b; b = b->next) {
		if (b->channel == channel)
			return b;
	}
	return NULL;
}

int
tc_ust_state_event_enable(const struct tracectl_msg_event_enable *msg, bool enable)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);
	struct tc_ust_binding *binding;
	struct tc_ust_entry *entry;
	bool is_new = false;

	/* Only events sent on this connection can be named by the service. */
	if (msg->index >= tc_ust_state.nr_sent)
		return -EINVAL;
	if (!channel)
		return -ENOENT;
	entry = tc_ust_state.entries[msg->index];
	binding = find_binding(entry, channel);
	if (!enable) {
		if (binding)
			__atomic_store_n(&binding->enabled, 0, __ATOMIC_RELEASE);
		update_enabled_words();
		return 0;
	}
	if (binding && binding->filter_refused)
		return -EINVAL;
	if (!binding) {
		binding = calloc(1, sizeof(*binding));
		if (!binding)
			return -ENOMEM;
		binding->channel = channel;
		binding->next = entry->bindings;
		is_new = true;
	} else if (__atomic_load_n(&binding->enabled, __ATOMIC_RELAXED) &&
		   binding->id != msg->id) {
		/* Changing the id under running tracepoints would mix ids. */
		return -EBUSY;
	}
	__atomic_store_n(&binding->id, msg->id, __ATOMIC_RELAXED);
	__atomic_store_n(&binding->enabled, 1, __ATOMIC_RELAXED);
	if (is_new)
		__atomic_store_n(&entry->bindings, binding, __ATOMIC_RELEASE);
	update_enabled_words();
	return 0;
}

/* The binding of the entry in channel, created disabled when missing. */
static struct tc_ust_binding *
get_binding(struct tc_ust_entry *entry, struct tc_ust_channel *channel)
{
	struct tc_ust_binding *binding = find_binding(entry, channel);

	if (binding)
		return binding;
	binding = calloc(1, sizeof(*binding));
	if (!binding)
		return NULL;
	binding->channel = channel;
	binding->next = entry->bindings;
	__atomic_store_n(&entry->bindings, binding, __ATOMIC_RELEASE);
	return binding;
}

int
tc_ust_state_event_filter(const struct tracectl_msg_event_filter *msg)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);
	struct tc_ust_filter *filter = NULL;
	struct retired_filter *old = NULL;
	struct tc_ust_binding *binding;
	struct tc_ust_entry *entry;
	int ret;

	if (msg->index >= tc_ust_state.nr_sent || msg->size > sizeof(msg->bytecode))
		return -EINVAL;
	if (!channel)
		return -ENOENT;
	entry = tc_ust_state.entries[msg->index];
	if (!entry->desc)
		return -ENOENT;
	binding = get_binding(entry, channel);
	if (!binding)
		return -ENOMEM;
	/* Taken first: a filter that replaces another always retires it. */
	if (binding->filter && !(old = calloc(1, sizeof(*old))))
		return -ENOMEM;
	ret = msg->size > 0 ? tc_ust_filter_load(msg->bytecode, msg->size, entry->desc->fields,
						 entry->desc->nr_fields, &filter)
			    : 0;
	binding->filter_refused = ret < 0;
	if (ret < 0) {
		free(old);
		__atomic_store_n(&binding->enabled, 0, __ATOMIC_RELEASE);
		update_enabled_words();
		return ret;
	}
	if (old) {
		old->filter = binding->filter;
		retire(&old->retired, free_filter);
	}
	__atomic_store_n(&binding->filter, filter, __ATOMIC_RELEASE);
	return 0;
}

int
tc_ust_state_session_set_active(uint64_t handle, bool active)
{
	struct tc_ust_session *session = active ? get_session(handle) : find_session(handle);

	/* Stopping a session not known here changes nothing. */
	if (!session)
		return active ? -ENOMEM : 0;
	__atomic_store_n(&session->active, active ? 1 : 0, __ATOMIC_RELEASE);
	update_enabled_words();
	retire_session_if_unused(session);
	return 0;
}
