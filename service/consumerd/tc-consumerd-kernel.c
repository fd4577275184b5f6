/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel raw buffers to CTF, one stream file per CPU ("kernel_<cpu>").
 *
 *   read a page of trace_pipe_raw (non-blocking)
 *     -> libtraceevent's kbuffer walks its records (time extends, padding,
 *        the missed-events mark the kernel puts in the page header)
 *     -> each record is decoded once with its format (tep_find_event) and
 *        appended to the CPU's packet: our event header (id, timestamp),
 *        then the fields as the metadata describes them, with what LTTng's
 *        tools expect (tc-consumerd-kernel-lttng.h): a few fields written
 *        twice, system calls' text arguments as "unknown (0xADDRESS)"
 *     -> a packet is written when it is full or at the end of a drain;
 *        events the kernel lost count in the packet where they were
 *        reported, so babeltrace2 shows them there; how many comes from
 *        the CPU's stats file (overrun + dropped events), as the page
 *        stores the count only when it has room for it
 *
 * A snapshot session's trace (a flight recorder) writes no file: it is
 * read as any other, as the kernel's overwrite-mode buffers fill, but its
 * packets, of at most a sub-buffer each, go to each CPU's ring of the
 * newest (tc-consumerd-kernel-flight.h) and its metadata to a memfd; a
 * snapshot (tc_consumerd_kernel_trace_snapshot) reads what came since the
 * last read and writes the rings out. Reading only at snapshots would
 * leave each one a whole buffer to convert: 75 to 105 ms for 1 MiB per
 * CPU against 22 to 37 ms (docs/performance.md).
 *
 * Context fields (pid, tid, procname, prio) come first in each event, from
 * tc-consumerd-kernel-task.c; the events the service enabled only for them
 * (TC_CONSUMER_KHIDE_*) are followed but not written. Events enabled later
 * come with their formats first (tc_consumerd_kernel_trace_update), and their
 * event classes are appended to the metadata.
 *
 * Everything that comes from the kernel's pages is bounds-checked against
 * the record's size: a format and a record that disagree cost that field,
 * never a read out of the page.
 */
#include "tc-consumerd-kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-kernel-flight.h"
#include "tc-consumerd-kernel-lttng.h"
#include "tc-consumerd-kernel-metadata.h"
#include "tc-consumerd-kernel-statedump.h"
#include "tc-consumerd-kernel-task.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"
#include "tc-rb.h"

#define PACKET_MAX (256u * 1024u)
#define FORMATS_MAX (64u << 20)
#define PAGES_PER_DRAIN 4096u
/* Free bytes at the end of a page that mean the kernel was still filling
 * it when it was read, rather than the record that did not fit. */
#define PAGE_ROOM_CAUGHT_UP 256
#define HIDDEN_MAX 4
#define MIN(a, b) ((a) < (b) ? (a) : (b))

struct kernel_cpu {
	int fd;      /* trace_pipe_raw */
	int stats_fd; /* per_cpu stats, or -1 */
	uint64_t lost_counted; /* of the kernel's lost count, in discarded */
	struct kbuffer *kbuf; /* walks page */
	uint8_t *page;
	const uint8_t *record; /* the next record of page, or NULL */
	unsigned long long record_ts;
	uint32_t pages_read; /* in this drain */
	bool caught_up;      /* this drain read a page the kernel is filling */
	int file_fd; /* kernel_<cpu> */
	uint64_t file_size;
	struct tc_consumerd_write_behind write_behind;
	uint64_t seq;
	uint64_t discarded; /* free-running */
	uint64_t discarded_base; /* of discarded, before the current chunk */
	uint64_t begin, end;
	uint32_t used; /* bytes in packet */
	uint32_t packet_max; /* bytes of packet */
	uint8_t *packet;
	struct tc_consumerd_kernel_flight *flight; /* a flight recorder's, or NULL */
	struct tc_consumerd_relay_stream relay; /* streaming: instead of file_fd */
};

struct event_fields {
	struct tep_format_field **common; /* NULL-terminated */
	struct tep_format_field **own;
	/* Of own, those written again under their tracefs names after
	 * them (tc_consumerd_kernel_lttng_field_repeated); NULL-terminated. */
	struct tep_format_field *repeated[CONSUMERD_KERNEL_LTTNG_REPEATED_MAX + 1];
	/* Bit i: own[i] is a user address written as text
	 * (tc_consumerd_kernel_lttng_user_text); system calls have at most 6. */
	uint64_t user_text;
	bool known;
};

struct tc_consumerd_kernel_trace {
	struct tep_handle *tep;
	struct tc_consumerd_kernel_tasks *tasks; /* NULL without contexts */
	uint32_t contexts;                    /* TC_CONSUMER_KCTX_* */
	int hidden_ids[HIDDEN_MAX];           /* -1 or the id of a hidden event */
	/* ftrace:raw_data, where the helper's state dump comes: its id (-1:
	 * unknown) and its fields' offsets. */
	int raw_data_id;
	struct tc_consumerd_kernel_statedump_layout raw_data;
	int metadata_fd;
	uint64_t metadata_size;
	uint64_t session_id;
	uint8_t uuid[16];
	uint32_t page_size;
	uint64_t unknown_records;
	struct tc_consumerd_ratelimit loss_limit; /* of the unknown-loss warnings */
	/* libtraceevent allocates the field lists it returns: they are asked
	 * for once per event class, not once per record. By event id. */
	struct event_fields *fields;
	uint32_t nr_fields;
	char *dir; /* as the service gave it, for rotations */
	/* Streaming: the session's relay (NULL: files), the metadata stream,
	 * the trace's path on the relay, and its clock for beacons. */
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream relay_metadata;
	char *relay_path;
	bool clock_tsc;
	bool flight; /* a snapshot session's: no files, packets kept in memory */
	uint32_t nr_cpus;
	struct kernel_cpu cpus[];
};

/* Reads the whole memfd; NUL-terminated. */
static char *
read_formats(int fd, size_t *len)
{
	struct stat st;
	char *text;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > FORMATS_MAX)
		return NULL;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return NULL;
	if (pread(fd, text, (size_t)st.st_size, 0) != st.st_size) {
		free(text);
		return NULL;
	}
	text[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return text;
}

/* "== <system> <event>\n<text>" records, into tep: the header page the
 * first time, the events tep does not know yet. Returns how many events
 * were added, or -EBADMSG. */
static int
parse_formats(struct tep_handle *tep, char *text, size_t len, bool with_header)
{
	char *record = text, *end = text + len;
	int formats = 0;

	if (strncmp(text, "== ", 3) != 0)
		return -EBADMSG;
	while (record < end) {
		char system[128], name[128], *body = strchr(record, '\n'), *next;
		unsigned long size;

		if (!body || sscanf(record, "== %127s %127s", system, name) != 2)
			return -EBADMSG;
		body++;
		next = strstr(body, "\n== ");
		next = next ? next + 1 : end;
		size = (unsigned long)(next - body);
		record = next;
		if (strcmp(system, "header_page") == 0) {
			if (with_header && tep_parse_header_page(tep, body, size, 8) < 0)
				return -EBADMSG;
		} else if (tep_find_event_by_name(tep, system, name)) {
			continue; /* known already */
		} else if (tep_parse_event(tep, body, size, system) != 0) {
			return -EBADMSG;
		} else {
			formats++;
		}
	}
	return formats;
}

static int
load_formats(struct tep_handle *tep, int fd, bool with_header)
{
	size_t len = 0;
	char *text = read_formats(fd, &len);
	int ret = text ? parse_formats(tep, text, len, with_header) : -EBADMSG;

	free(text);
	return ret;
}

static int
write_metadata(struct tc_consumerd_kernel_trace *trace, int dir_fd,
	       const struct tc_consumer_clock *clock)
{
	size_t len = 0;
	char *text =
	    tc_consumerd_kernel_metadata(trace->tep, trace->uuid, clock, trace->contexts, &len);
	int ret;

	if (!text)
		return -ENOMEM;
	if (trace->flight) {
		trace->metadata_fd = memfd_create("tracectl-kernel-metadata", MFD_CLOEXEC);
		ret = trace->metadata_fd < 0 ? -errno
					     : tc_consumerd_output_append(trace->metadata_fd,
									  &trace->metadata_size, text,
									  len);
		free(text);
		return ret;
	}
	if (trace->relay) {
		/* Kept in memory too: metadata_fd marks an open trace. */
		trace->metadata_fd = memfd_create("tracectl-kernel-metadata", MFD_CLOEXEC);
		if (trace->metadata_fd < 0)
			ret = -errno;
		else
			ret = tc_consumerd_relay_stream_add(trace->relay, &trace->relay_metadata,
							    "metadata", trace->relay_path, true);
		if (ret == 0)
			ret = tc_consumerd_relay_send_metadata(trace->relay, &trace->relay_metadata,
							       text, len);
		free(text);
		return ret;
	}
	trace->metadata_fd = tc_consumerd_output_create_file(dir_fd, "metadata");
	ret = trace->metadata_fd < 0 ? trace->metadata_fd
				     : tc_consumerd_output_append(trace->metadata_fd,
								  &trace->metadata_size, text, len);
	free(text);
	return ret;
}

/* Appends TSDL to the trace's metadata, on disk, in memory or on the
 * relay. */
static int
append_metadata(struct tc_consumerd_kernel_trace *trace, const char *text, size_t len)
{
	if (trace->relay && !trace->flight)
		return tc_consumerd_relay_send_metadata(trace->relay, &trace->relay_metadata, text,
							len);
	return tc_consumerd_output_append(trace->metadata_fd, &trace->metadata_size, text, len);
}

static const struct {
	const char *system, *name;
	uint32_t flag;
} hideable[HIDDEN_MAX] = {
	{"sched", "sched_switch", TC_CONSUMER_KHIDE_SCHED_SWITCH},
	{"sched", "sched_wakeup_new", TC_CONSUMER_KHIDE_WAKEUP_NEW},
	{"task", "task_rename", TC_CONSUMER_KHIDE_TASK_RENAME},
	{"task", "task_newtask", TC_CONSUMER_KHIDE_TASK_NEWTASK},
};

static void
set_hidden(struct tc_consumerd_kernel_trace *trace, uint32_t flags)
{
	for (int i = 0; i < HIDDEN_MAX; i++) {
		struct tep_event *event =
			tep_find_event_by_name(trace->tep, hideable[i].system, hideable[i].name);

		trace->hidden_ids[i] = event && (flags & hideable[i].flag) ? event->id : -1;
	}
}

/* Finds ftrace:raw_data among the formats, once they include it. */
static void
find_raw_data(struct tc_consumerd_kernel_trace *trace)
{
	struct tep_event *event = tep_find_event_by_name(trace->tep, "ftrace", "raw_data");
	struct tep_format_field *id = event ? tep_find_field(event, "id") : NULL;
	struct tep_format_field *buf = event ? tep_find_field(event, "buf") : NULL;

	trace->raw_data_id = -1;
	if (!id || !buf || id->size != 4)
		return;
	trace->raw_data.id_offset = (uint32_t)id->offset;
	trace->raw_data.buf_offset = (uint32_t)buf->offset;
	trace->raw_data_id = event->id;
}

static bool
is_hidden(const struct tc_consumerd_kernel_trace *trace, int id)
{
	for (int i = 0; i < HIDDEN_MAX; i++)
		if (trace->hidden_ids[i] == id)
			return true;
	return false;
}

/* The events of tep not in the metadata yet: those with no class in
 * known (NULL-terminated, sorted by id). */
static struct tep_event **
new_events(struct tep_handle *tep, struct tep_event **known)
{
	struct tep_event **all = tep_list_events_copy(tep, TEP_EVENT_SORT_ID);
	int n = 0, k = 0;

	if (!all)
		return NULL;
	for (int i = 0; all[i]; i++) {
		while (known && known[k] && known[k]->id < all[i]->id)
			k++;
		if (!known || !known[k] || known[k]->id != all[i]->id)
			all[n++] = all[i];
	}
	all[n] = NULL;
	return all;
}

int
tc_consumerd_kernel_trace_update(struct tc_consumerd_kernel_trace *trace, int formats_fd,
				 uint32_t hide_flags)
{
	struct tep_event **known = NULL, **added = NULL;
	size_t len = 0;
	char *text = NULL;
	int ret = 0;

	if (formats_fd >= 0) {
		/* Drain first: what is in the buffers was recorded before. */
		tc_consumerd_kernel_trace_drain(trace);
		known = tep_list_events_copy(trace->tep, TEP_EVENT_SORT_ID);
		ret = known ? load_formats(trace->tep, formats_fd, false) : -ENOMEM;
	}
	if (ret > 0) {
		added = new_events(trace->tep, known);
		text = added ? tc_consumerd_kernel_metadata_events(added, &len) : NULL;
		ret = text ? append_metadata(trace, text, len) : -ENOMEM;
		if (trace->tasks)
			tc_consumerd_kernel_task_use_formats(trace->tasks, trace->tep);
	}
	free(text);
	free(added);
	free(known);
	if (ret >= 0) {
		set_hidden(trace, hide_flags);
		find_raw_data(trace);
	}
	return ret < 0 ? ret : 0;
}

static int
open_cpu_files(struct tc_consumerd_kernel_trace *trace, int dir_fd)
{
	char name[32];

	int ret;

	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		snprintf(name, sizeof(name), "kernel_%" PRIu32, cpu);
		c->packet = malloc(c->packet_max);
		if (!c->packet)
			return -ENOMEM;
		if (trace->flight)
			continue;
		if (trace->relay) {
			ret = tc_consumerd_relay_stream_add(trace->relay, &c->relay, name,
							    trace->relay_path, false);
			if (ret < 0)
				return ret;
			continue;
		}
		c->file_fd = tc_consumerd_output_create_file(dir_fd, name);
		if (c->file_fd < 0)
			return c->file_fd;
	}
	/* Live viewers see the kernel streams from now on. */
	if (trace->relay && !trace->flight)
		tc_consumerd_relay_streams_sent(trace->relay);
	return 0;
}

int
tc_consumerd_kernel_trace_open(const struct tc_consumerd_kernel_spec *spec,
			       struct tc_consumerd_kernel_trace **result)
{
	struct tc_consumerd_kernel_trace *trace;
	int dir_fd = -1, ret = -ENOMEM, tgids_fd = spec->tgids_fd;

	trace = calloc(1, sizeof(*trace) + spec->nr_cpus * sizeof(trace->cpus[0]));
	if (!trace) {
		for (uint32_t cpu = 0; cpu < spec->nr_cpus; cpu++) {
			close(spec->cpu_fds[cpu]);
			if (spec->stats_fds)
				close(spec->stats_fds[cpu]);
		}
		if (spec->tgids_fd >= 0)
			close(spec->tgids_fd);
		return -ENOMEM;
	}
	trace->nr_cpus = spec->nr_cpus;
	trace->session_id = spec->session_id;
	trace->contexts = spec->flags & TC_CONSUMER_KCTX_ALL;
	trace->metadata_fd = -1;
	for (int i = 0; i < HIDDEN_MAX; i++)
		trace->hidden_ids[i] = -1;
	memcpy(trace->uuid, spec->uuid, sizeof(trace->uuid));
	for (uint32_t cpu = 0; cpu < spec->nr_cpus; cpu++) {
		trace->cpus[cpu].fd = spec->cpu_fds[cpu];
		trace->cpus[cpu].stats_fd = spec->stats_fds ? spec->stats_fds[cpu] : -1;
		trace->cpus[cpu].file_fd = -1;
		trace->cpus[cpu].packet_max = PACKET_MAX;
	}
	trace->flight = spec->flight_subbuf_size != 0;
	for (uint32_t cpu = 0; cpu < spec->nr_cpus && trace->flight; cpu++) {
		/* A packet is a sub-buffer, the unit a snapshot keeps. */
		trace->cpus[cpu].packet_max = MIN(spec->flight_subbuf_size, PACKET_MAX);
		trace->cpus[cpu].flight = tc_consumerd_kernel_flight_new(
		    (uint64_t)spec->flight_subbuf_size * spec->flight_num_subbuf);
		if (!trace->cpus[cpu].flight)
			goto fail;
	}
	trace->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	trace->tep = tep_alloc();
	if (!trace->tep || load_formats(trace->tep, spec->formats_fd, true) < 0) {
		ret = trace->tep ? -EBADMSG : -ENOMEM;
		goto fail;
	}
	set_hidden(trace, spec->flags);
	find_raw_data(trace);
	if (trace->contexts) {
		trace->tasks = tc_consumerd_kernel_task_new(spec->nr_cpus, tgids_fd);
		tgids_fd = -1;
		if (!trace->tasks)
			goto fail;
		tc_consumerd_kernel_task_use_formats(trace->tasks, trace->tep);
	}
	/* The pages of this machine: 64-bit longs, little endian. */
	tep_set_long_size(trace->tep, sizeof(long));
	tep_set_page_size(trace->tep, (int)trace->page_size);
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		c->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					KBUFFER_ENDIAN_LITTLE);
		c->page = malloc(trace->page_size);
		if (!c->kbuf || !c->page)
			goto fail;
	}
	trace->dir = strdup(spec->dir);
	if (!trace->dir)
		goto fail;
	trace->relay = spec->relay;
	trace->clock_tsc = spec->clock.tsc != 0;
	if (trace->flight) {
		ret = 0;
	} else if (spec->relay) {
		trace->relay_path = strdup(spec->dir);
		ret = trace->relay_path ? 0 : -ENOMEM;
	} else {
		ret = tc_consumerd_output_open_dir(spec->dir);
		dir_fd = ret;
	}
	if (ret < 0)
		goto fail;
	ret = write_metadata(trace, dir_fd, &spec->clock);
	if (ret == 0)
		ret = open_cpu_files(trace, dir_fd);
	if (dir_fd >= 0)
		close(dir_fd);
	if (ret < 0)
		goto fail;
	*result = trace;
	return 0;

fail:
	if (tgids_fd >= 0)
		close(tgids_fd);
	tc_consumerd_kernel_trace_close(trace);
	return ret;
}

/* Appends len bytes to the packet, when they fit. */
static bool
put(struct kernel_cpu *c, const void *data, size_t len)
{
	if (len > c->packet_max - c->used)
		return false;
	memcpy(c->packet + c->used, data, len);
	c->used += (uint32_t)len;
	return true;
}

static bool
put_string(struct kernel_cpu *c, const char *text, size_t max)
{
	size_t len = strnlen(text, max);
	char nul = '\0';

	return put(c, text, len) && put(c, &nul, 1);
}

/* One field of a record of size bytes at data, as the metadata says. */
static bool
put_field(struct kernel_cpu *c, const struct tep_format_field *field, const uint8_t *data,
	  uint32_t size)
{
	uint32_t offset = field->offset, len = field->size;

	if (offset > size || len > size - offset)
		return false;
	if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (len != 4)
			return false;
		memcpy(&loc, data + offset, 4);
		len = loc >> 16;
		offset = loc & 0xffff;
		if (field->flags & TEP_FIELD_IS_RELATIVE)
			offset += field->offset + field->size;
		if (offset > size || len > size - offset)
			return false;
		if (tc_consumerd_kernel_metadata_field_is_string(field))
			return put_string(c, (const char *)data + offset, len);
		return put(c, &len, 4) && put(c, data + offset, len);
	}
	if (tc_consumerd_kernel_metadata_field_is_string(field))
		return put_string(c, (const char *)data + offset, len);
	return put(c, data + offset, len);
}

static bool
put_contexts(struct tc_consumerd_kernel_trace *trace, struct kernel_cpu *c, uint32_t cpu,
	     int32_t tid)
{
	struct tc_consumerd_kernel_task task;
	bool ok = true;

	tc_consumerd_kernel_task_lookup(trace->tasks, cpu, tid, &task);
	if (trace->contexts & TC_CONSUMER_KCTX_PID)
		ok = ok && put(c, &task.tgid, sizeof(task.tgid));
	if (trace->contexts & TC_CONSUMER_KCTX_TID)
		ok = ok && put(c, &tid, sizeof(tid));
	if (trace->contexts & TC_CONSUMER_KCTX_PROCNAME)
		ok = ok && put_string(c, task.has_comm ? task.comm : "", sizeof(task.comm));
	if (trace->contexts & TC_CONSUMER_KCTX_PRIO)
		ok = ok && put(c, &task.prio, sizeof(task.prio));
	return ok;
}

static void
find_repeated(struct event_fields *entry, const struct tep_event *event)
{
	size_t n = 0;

	for (int i = 0; entry->own[i] && n < CONSUMERD_KERNEL_LTTNG_REPEATED_MAX; i++)
		if (tc_consumerd_kernel_lttng_field_repeated(event->system, event->name,
							     entry->own[i]->name))
			entry->repeated[n++] = entry->own[i];
	entry->repeated[n] = NULL;
}

static void
find_user_text(struct event_fields *entry, const struct tep_event *event)
{
	entry->user_text = 0;
	for (int i = 0; entry->own[i] && i < 64; i++)
		if (!tc_consumerd_kernel_metadata_field_is_string(entry->own[i]) &&
		    tc_consumerd_kernel_lttng_user_text(event->system, entry->own[i]->type))
			entry->user_text |= UINT64_C(1) << i;
}

/* A user-space address, as tc_consumerd_kernel_lttng_user_text says. */
static bool
put_user_text(struct kernel_cpu *c, const struct tep_format_field *field, const uint8_t *data,
	      uint32_t size)
{
	uint32_t offset = field->offset, len = field->size;
	char text[CONSUMERD_KERNEL_USER_TEXT_MAX];
	uint64_t address = 0;
	int printed;

	if (offset > size || len > size - offset || len > sizeof(address))
		return false;
	memcpy(&address, data + offset, len); /* little-endian, as the metadata says */
	printed = snprintf(text, sizeof(text), "unknown (0x%" PRIx64 ")", address);
	return printed > 0 && put_string(c, text, (size_t)printed);
}

/* The field lists of an event class, from the cache; NULL when the id is
 * out of range or memory ran out. */
static const struct event_fields *
fields_of(struct tc_consumerd_kernel_trace *trace, const struct tep_event *event)
{
	uint32_t id = (uint32_t)event->id;
	struct event_fields *entry;

	if (event->id < 0 || id > UINT16_MAX)
		return NULL;
	if (id >= trace->nr_fields) {
		uint32_t count = id + 64;
		struct event_fields *grown = realloc(trace->fields, count * sizeof(*grown));

		if (!grown)
			return NULL;
		memset(grown + trace->nr_fields, 0, (count - trace->nr_fields) * sizeof(*grown));
		trace->fields = grown;
		trace->nr_fields = count;
	}
	entry = &trace->fields[id];
	if (!entry->known) {
		/* NULL only when memory ran out (no fields is an empty list):
		 * never cache that, or records would lose their fields. */
		entry->common = tep_event_common_fields((struct tep_event *)event);
		entry->own = tep_event_fields((struct tep_event *)event);
		if (!entry->common || !entry->own) {
			free(entry->common);
			free(entry->own);
			entry->common = entry->own = NULL;
			return NULL;
		}
		find_repeated(entry, event);
		find_user_text(entry, event);
		entry->known = true;
	}
	return entry;
}

static void
free_fields(struct tc_consumerd_kernel_trace *trace)
{
	for (uint32_t i = 0; i < trace->nr_fields; i++) {
		free(trace->fields[i].common);
		free(trace->fields[i].own);
	}
	free(trace->fields);
}

/* A state dump record (tc-consumerd-kernel-statedump.h) as its
 * lttng_statedump_* event; false when the packet is full. */
static bool
put_statedump(struct tc_consumerd_kernel_trace *trace, struct kernel_cpu *c, uint32_t cpu,
	      int32_t tid, uint32_t event_id, const uint8_t *payload, uint32_t len, uint64_t ts)
{
	struct tc_event_header header = {.id = event_id, .timestamp = ts};
	uint32_t start = c->used;
	bool ok = put(c, &header, sizeof(header));

	if (ok && trace->tasks)
		ok = put_contexts(trace, c, cpu, tid);
	ok = ok && put(c, payload, len);
	if (!ok)
		c->used = start;
	return ok;
}

/* The whole event, header included; false when the packet is full (or
 * the event's fields are not known). */
static bool
put_event(struct tc_consumerd_kernel_trace *trace, struct kernel_cpu *c, uint32_t cpu,
	  struct tep_event *event, int32_t tid, const uint8_t *data, uint32_t size, uint64_t ts)
{
	const struct event_fields *fields = fields_of(trace, event);
	struct tc_event_header header = {.id = (uint32_t)event->id, .timestamp = ts};
	uint32_t start = c->used;
	bool ok = fields && put(c, &header, sizeof(header));

	if (ok && trace->tasks)
		ok = put_contexts(trace, c, cpu, tid);
	for (int i = 0; ok && fields->common[i]; i++)
		ok = put_field(c, fields->common[i], data, size);
	for (int i = 0; ok && fields->own[i]; i++)
		ok = i < 64 && (fields->user_text >> i & 1)
			     ? put_user_text(c, fields->own[i], data, size)
			     : put_field(c, fields->own[i], data, size);
	for (int i = 0; ok && fields->repeated[i]; i++)
		ok = put_field(c, fields->repeated[i], data, size);
	if (!ok)
		c->used = start;
	return ok;
}

static void
write_packet_even_empty(struct tc_consumerd_kernel_trace *trace, uint32_t cpu)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	struct tc_packet_header *header = (struct tc_packet_header *)c->packet;

	header->magic = TC_CTF_MAGIC;
	memcpy(header->uuid, trace->uuid, sizeof(header->uuid));
	header->stream_id = 0;
	header->stream_instance_id = cpu;
	header->timestamp_begin = c->begin;
	header->timestamp_end = c->end;
	header->content_size = (uint64_t)c->used * 8;
	header->packet_size = (uint64_t)c->used * 8;
	header->packet_seq_num = c->seq++;
	/* Each chunk counts its own losses (see tc_consumerd_stream). */
	header->events_discarded = c->discarded - c->discarded_base;
	header->cpu_id = cpu;
	if (c->flight) {
		if (tc_consumerd_kernel_flight_put(c->flight, c->packet, c->used) < 0)
			tc_consumerd_warning("session=%" PRIu64 ": Failed to keep a kernel packet "
					     "of CPU %" PRIu32 " for snapshots",
					     trace->session_id, cpu);
		c->used = 0;
		return;
	}
	if (trace->relay) {
		/* Dropped packets are counted by the relay connection. */
		tc_consumerd_relay_send_packet(trace->relay, &c->relay, c->packet, c->used);
		c->used = 0;
		return;
	}
	if (tc_consumerd_output_append(c->file_fd, &c->file_size, c->packet, c->used) < 0)
		tc_consumerd_warning("session=%" PRIu64
				     ": Failed to write a kernel packet of CPU %" PRIu32,
				     trace->session_id, cpu);
	else
		tc_consumerd_output_write_behind(c->file_fd, &c->write_behind, c->file_size);
	c->used = 0;
}

static void
write_packet(struct tc_consumerd_kernel_trace *trace, uint32_t cpu)
{
	if (trace->cpus[cpu].used > sizeof(struct tc_packet_header))
		write_packet_even_empty(trace, cpu);
}

/* A CTF reader counts discarded events from one packet's count to the
 * next: losses in a stream's first packet have no count before them
 * (babeltrace2 warns that events "may have" been discarded). So a stream
 * that lost events before its first packet starts with an empty one,
 * at the time of the first record after the loss. */
static void
write_first_packet_before_loss(struct tc_consumerd_kernel_trace *trace, uint32_t cpu, uint64_t ts)
{
	struct kernel_cpu *c = &trace->cpus[cpu];

	if (c->seq != 0)
		return;
	c->used = sizeof(struct tc_packet_header);
	c->begin = c->end = ts;
	write_packet_even_empty(trace, cpu);
}

static void
begin_packet_if_empty(struct kernel_cpu *c, uint64_t ts)
{
	if (c->used == 0) {
		c->used = sizeof(struct tc_packet_header);
		c->begin = ts;
	}
}

/* Every record starts with common_type (2 bytes), common_flags,
 * common_preempt_count (1 byte each) and common_pid: the kernel's
 * struct trace_entry. */
#define COMMON_PID_OFFSET 4

static void
convert_statedump(struct tc_consumerd_kernel_trace *trace, uint32_t cpu, int32_t tid,
		  uint32_t event_id, const uint8_t *payload, uint32_t len, uint64_t ts)
{
	struct kernel_cpu *c = &trace->cpus[cpu];

	begin_packet_if_empty(c, ts);
	if (!put_statedump(trace, c, cpu, tid, event_id, payload, len, ts)) {
		write_packet(trace, cpu);
		begin_packet_if_empty(c, ts);
		if (!put_statedump(trace, c, cpu, tid, event_id, payload, len, ts))
			return; /* cannot happen: a payload is at most 3 KiB */
	}
	c->end = ts;
}

static void
convert_record(struct tc_consumerd_kernel_trace *trace, uint32_t cpu, const uint8_t *data,
	       uint32_t size, uint64_t ts)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	struct tep_event *event;
	const uint8_t *payload;
	uint32_t statedump_id, payload_len;
	uint16_t type;
	int32_t tid = -1;

	if (size < sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	event = tep_find_event(trace->tep, type);
	if (!event) {
		trace->unknown_records++;
		return;
	}
	if (size >= COMMON_PID_OFFSET + sizeof(tid))
		memcpy(&tid, data + COMMON_PID_OFFSET, sizeof(tid));
	if (trace->tasks)
		tc_consumerd_kernel_task_follow(trace->tasks, cpu, event->id, data, size);
	if (is_hidden(trace, event->id))
		return;
	if (event->id == trace->raw_data_id &&
	    tc_consumerd_kernel_statedump_decode(&trace->raw_data, data, size, &statedump_id,
						 &payload, &payload_len)) {
		convert_statedump(trace, cpu, tid, statedump_id, payload, payload_len, ts);
		return;
	}
	begin_packet_if_empty(c, ts);
	if (!put_event(trace, c, cpu, event, tid, data, size, ts)) {
		write_packet(trace, cpu);
		begin_packet_if_empty(c, ts);
		if (!put_event(trace, c, cpu, event, tid, data, size, ts))
			return; /* larger than a packet: dropped */
	}
	c->end = ts;
}

static void
log_unknown_loss(struct tc_consumerd_kernel_trace *trace, uint32_t cpu)
{
	uint64_t suppressed;

	if (!tc_consumerd_log_ratelimit_check(&trace->loss_limit, tc_rb_clock_now(), &suppressed))
		return;
	tc_consumerd_warning("session=%" PRIu64 ": The kernel overwrote events of CPU %" PRIu32
			     " before they were read; their number is not known (counted as one, "
			     "%" PRIu64 " such reports not logged)",
			     trace->session_id, cpu, suppressed);
}

/* The value of "name: N" in stats text; false when it is not there. */
static bool
stats_value(const char *text, const char *name, uint64_t *value)
{
	size_t len = strlen(name);

	for (const char *line = text; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			char *end;
			unsigned long long n = strtoull(line + len + 1, &end, 10);

			if (end == line + len + 1)
				return false;
			*value = n;
			return true;
		}
	}
	return false;
}

/* What the kernel lost on the CPU so far: its per_cpu stats file's
 * "overrun" (overwritten) plus "dropped events" (refused); false when the
 * file cannot be read or parsed. */
static bool
kernel_lost_so_far(const struct kernel_cpu *c, uint64_t *lost)
{
	char text[1024];
	uint64_t overrun, dropped;
	ssize_t len = c->stats_fd >= 0 ? pread(c->stats_fd, text, sizeof(text) - 1, 0) : -1;

	if (len <= 0)
		return false;
	text[len] = '\0';
	if (!stats_value(text, "overrun", &overrun) ||
	    !stats_value(text, "dropped events", &dropped) || overrun > UINT64_MAX - dropped)
		return false;
	*lost = overrun + dropped;
	return true;
}

void
tc_consumerd_kernel_trace_stats(const struct tc_consumerd_kernel_trace *trace,
				struct tc_consumerd_kernel_stats *stats)
{
	*stats = (struct tc_consumerd_kernel_stats){0};
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		const struct kernel_cpu *c = &trace->cpus[cpu];
		char text[1024];
		ssize_t len = c->stats_fd >= 0 ? pread(c->stats_fd, text, sizeof(text) - 1, 0) : -1;
		uint64_t lost, bytes;

		if (!kernel_lost_so_far(c, &lost))
			lost = c->discarded;
		stats->events_discarded += lost;
		if (len > 0) {
			text[len] = '\0';
			if (stats_value(text, "bytes", &bytes))
				stats->bytes_unread += bytes;
		}
		stats->packets_written += c->seq;
	}
}

/* A page says events were lost before it (missed: their count, or -1
 * when the page had no room for it). The CPU's stats give the exact
 * count: whatever the kernel lost so far and no earlier packet counted
 * (losses after this page but before the stats were read count here,
 * not in their own packet). Without stats, the page's count, or one. */
static uint64_t
lost_before_page(struct tc_consumerd_kernel_trace *trace, uint32_t cpu, int missed)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	uint64_t lost;

	if (kernel_lost_so_far(c, &lost)) {
		lost = lost > c->lost_counted ? lost - c->lost_counted : 0;
		c->lost_counted += lost;
		return lost;
	}
	if (missed > 0)
		return (uint64_t)missed;
	log_unknown_loss(trace, cpu);
	return 1;
}

/* The first record of the CPU's next page, skipping empty pages; false
 * when the kernel has nothing more now or the drain read enough. */
static bool
load_page(struct tc_consumerd_kernel_trace *trace, uint32_t cpu)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	int missed;

	c->record = NULL;
	while (!c->record && !c->caught_up && c->pages_read < PAGES_PER_DRAIN) {
		if (read(c->fd, c->page, trace->page_size) <= 0)
			return false;
		c->pages_read++;
		if (kbuffer_load_subbuffer(c->kbuf, c->page) < 0)
			continue;
		/* A page with room left, after the first read of a drain (which
		 * returns the rest of the page the last drain stopped in), is
		 * the one the kernel writes into: the next read would return
		 * the few records written since, one read per handful of
		 * records. The next drain goes on from there. */
		if (c->pages_read > 1 &&
		    kbuffer_subbuffer_size(c->kbuf) + PAGE_ROOM_CAUGHT_UP <
			    (int)trace->page_size - kbuffer_start_of_data(c->kbuf))
			c->caught_up = true;
		missed = kbuffer_missed_events(c->kbuf);
		c->record = kbuffer_read_event(c->kbuf, &c->record_ts);
		/* A flight recorder overwrites its oldest events on purpose: as
		 * in LTTng's overwrite mode, they are not discarded ones (the
		 * KERNEL_STATS figures still show the kernel's overruns). */
		if (missed != 0 && !c->flight) {
			/* Reported in the packet that holds what came after them. */
			write_packet(trace, cpu);
			write_first_packet_before_loss(
				trace, cpu, c->record ? c->record_ts : kbuffer_timestamp(c->kbuf));
			c->discarded += lost_before_page(trace, cpu, missed);
		}
	}
	return c->record != NULL;
}

static void
next_record(struct tc_consumerd_kernel_trace *trace, uint32_t cpu)
{
	struct kernel_cpu *c = &trace->cpus[cpu];

	c->record = kbuffer_next_event(c->kbuf, &c->record_ts);
	if (!c->record)
		load_page(trace, cpu);
}

/* The CPU whose next record is the oldest, or -1 when none has one. */
static int
oldest_cpu(const struct tc_consumerd_kernel_trace *trace)
{
	int oldest = -1;

	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++)
		if (trace->cpus[cpu].record &&
		    (oldest < 0 || trace->cpus[cpu].record_ts < trace->cpus[oldest].record_ts))
			oldest = (int)cpu;
	return oldest;
}

/* The CPUs' records in time order: what one CPU's records say about a
 * task (its switch-in, its creation) is known before its records on
 * another CPU are written. */
uint32_t
tc_consumerd_kernel_trace_drain(struct tc_consumerd_kernel_trace *trace)
{
	uint32_t most_pages = 0;
	int cpu;

	if (trace->tasks)
		tc_consumerd_kernel_task_new_drain(trace->tasks);
	for (uint32_t i = 0; i < trace->nr_cpus; i++) {
		trace->cpus[i].pages_read = 0;
		trace->cpus[i].caught_up = false;
		if (trace->cpus[i].fd >= 0)
			load_page(trace, i);
	}
	while ((cpu = oldest_cpu(trace)) >= 0) {
		struct kernel_cpu *c = &trace->cpus[cpu];
		int size = kbuffer_event_size(c->kbuf);

		if (size > 0 && (size_t)size <= trace->page_size)
			convert_record(trace, (uint32_t)cpu, c->record, (uint32_t)size,
				       c->record_ts);
		next_record(trace, (uint32_t)cpu);
	}
	for (uint32_t i = 0; i < trace->nr_cpus; i++) {
		write_packet(trace, i);
		if (trace->cpus[i].pages_read > most_pages)
			most_pages = trace->cpus[i].pages_read;
	}
	return most_pages;
}

void
tc_consumerd_kernel_trace_live_tick(struct tc_consumerd_kernel_trace *trace, uint64_t period_start)
{
	uint64_t now = trace->clock_tsc ? tc_rb_tsc() : tc_rb_clock_now();

	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		if (c->relay.packets_on_connection == 0 && c->used == 0) {
			c->used = sizeof(struct tc_packet_header);
			c->begin = c->end = now;
			write_packet_even_empty(trace, cpu);
		}
		if (c->relay.last_packet_ns < period_start)
			tc_consumerd_relay_send_beacon(trace->relay, &c->relay, 0, now);
	}
}

size_t
tc_consumerd_kernel_trace_poll_fds(const struct tc_consumerd_kernel_trace *trace,
				   struct pollfd *pfds, size_t max)
{
	size_t count = 0;

	for (uint32_t cpu = 0; cpu < trace->nr_cpus && count < max; cpu++)
		if (trace->cpus[cpu].fd >= 0)
			pfds[count++] = (struct pollfd){.fd = trace->cpus[cpu].fd, .events = POLLIN};
	return count;
}

void
tc_consumerd_kernel_trace_close(struct tc_consumerd_kernel_trace *trace)
{
	if (!trace)
		return;
	if (trace->tep && trace->metadata_fd >= 0)
		tc_consumerd_kernel_trace_drain(trace);
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		if (c->fd >= 0)
			close(c->fd);
		if (c->stats_fd >= 0)
			close(c->stats_fd);
		if (c->file_fd >= 0) {
			tc_consumerd_output_sync(c->file_fd);
			close(c->file_fd);
		}
		if (trace->relay && c->relay.path)
			tc_consumerd_relay_stream_remove(trace->relay, &c->relay);
		tc_consumerd_kernel_flight_free(c->flight);
		free(c->packet);
		free(c->page);
		if (c->kbuf)
			kbuffer_free(c->kbuf);
	}
	if (trace->unknown_records)
		tc_consumerd_warning("session=%" PRIu64 ": %" PRIu64 " kernel records of unknown "
				     "events were skipped",
				     trace->session_id, trace->unknown_records);
	if (trace->relay && trace->relay_metadata.path)
		tc_consumerd_relay_stream_remove(trace->relay, &trace->relay_metadata);
	free(trace->relay_path);
	if (trace->metadata_fd >= 0) {
		if (!trace->flight)
			tc_consumerd_output_sync(trace->metadata_fd);
		close(trace->metadata_fd);
	}
	tc_consumerd_kernel_task_free(trace->tasks);
	free(trace->dir);
	free_fields(trace);
	if (trace->tep)
		tep_free(trace->tep);
	free(trace);
}

const char *
tc_consumerd_kernel_trace_dir(const struct tc_consumerd_kernel_trace *trace)
{
	return trace->dir;
}

/* Closes the per-CPU files and the metadata file as they are. */
static void
close_files(struct tc_consumerd_kernel_trace *trace)
{
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		if (c->file_fd >= 0)
			close(c->file_fd);
		c->file_fd = -1;
		c->file_size = 0;
		c->write_behind = (struct tc_consumerd_write_behind){0};
	}
}

int
tc_consumerd_kernel_trace_reopen(struct tc_consumerd_kernel_trace *trace, int dir_fd)
{
	uint64_t size = 0;
	int old_metadata = trace->metadata_fd;
	int fd, ret;

	close_files(trace);
	fd = tc_consumerd_output_create_file(dir_fd, "metadata");
	if (fd < 0)
		return fd;
	/* The metadata is one text that grows: the new chunk starts with
	 * all of it, so that it is a complete trace on its own. */
	ret = tc_consumerd_output_copy(old_metadata, trace->metadata_size, fd, &size);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	close(old_metadata);
	trace->metadata_fd = fd;
	trace->metadata_size = size;
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		char name[32];
		struct kernel_cpu *c = &trace->cpus[cpu];

		snprintf(name, sizeof(name), "kernel_%" PRIu32, cpu);
		c->discarded_base = c->discarded;
		c->file_fd = tc_consumerd_output_create_file(dir_fd, name);
		if (c->file_fd < 0)
			return c->file_fd;
	}
	return 0;
}

int
tc_consumerd_kernel_trace_truncate(struct tc_consumerd_kernel_trace *trace)
{
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		if (c->file_fd < 0)
			continue;
		if (ftruncate(c->file_fd, 0) < 0)
			return -errno;
		c->file_size = 0;
		c->discarded_base = c->discarded;
		c->write_behind = (struct tc_consumerd_write_behind){0};
	}
	return 0;
}

uint64_t
tc_consumerd_kernel_trace_bytes(const struct tc_consumerd_kernel_trace *trace)
{
	uint64_t bytes = 0;

	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++)
		bytes += trace->cpus[cpu].file_size;
	return bytes;
}

/* The metadata so far, NUL-terminated, or NULL. */
static char *
read_metadata(const struct tc_consumerd_kernel_trace *trace)
{
	char *text;

	if (trace->metadata_size > FORMATS_MAX)
		return NULL;
	text = malloc(trace->metadata_size + 1);
	if (text && pread(trace->metadata_fd, text, trace->metadata_size, 0) !=
			    (ssize_t)trace->metadata_size) {
		free(text);
		return NULL;
	}
	if (text)
		text[trace->metadata_size] = '\0';
	return text;
}

int
tc_consumerd_kernel_trace_snapshot(struct tc_consumerd_kernel_trace *trace,
				   uint64_t max_stream_bytes,
				   const struct tc_consumerd_kernel_snapshot_sink *sink,
				   uint64_t *packets)
{
	char *metadata;
	int ret;

	if (!trace->flight)
		return -EINVAL;
	/* What the kernel recorded since the last snapshot joins the rings. */
	tc_consumerd_kernel_trace_drain(trace);
	metadata = read_metadata(trace);
	if (!metadata)
		return -EIO;
	ret = sink->metadata(sink->data, metadata, trace->metadata_size);
	free(metadata);
	for (uint32_t cpu = 0; cpu < trace->nr_cpus && ret == 0; cpu++) {
		ret = sink->stream(sink->data, cpu);
		if (ret == 0)
			ret = tc_consumerd_kernel_flight_walk(trace->cpus[cpu].flight,
							      max_stream_bytes, sink->packet,
							      sink->data, packets);
	}
	return ret;
}

uint32_t
tc_consumerd_kernel_trace_nr_cpus(const struct tc_consumerd_kernel_trace *trace)
{
	return trace->nr_cpus;
}
