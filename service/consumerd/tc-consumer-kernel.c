/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel raw buffers to CTF, one stream file per CPU ("kernel_<cpu>").
 *
 *   read a page of trace_pipe_raw (non-blocking)
 *     -> libtraceevent's kbuffer walks its records (time extends, padding,
 *        the missed-events count the kernel puts in the page header)
 *     -> each record is decoded once with its format (tep_find_event) and
 *        appended to the CPU's packet: our event header (id, timestamp),
 *        then the fields as the metadata describes them
 *     -> a packet is written when it is full or at the end of a drain;
 *        events the kernel lost count in the packet where they were
 *        reported, so babeltrace2 shows them there
 *
 * Everything that comes from the kernel's pages is bounds-checked against
 * the record's size: a format and a record that disagree cost that field,
 * never a read out of the page.
 */
#include "tc-consumer-kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>

#include "tc-consumer-log.h"
#include "tc-consumer-output.h"
#include "tc-rb.h"

#define PACKET_MAX (256u * 1024u)
#define FORMATS_MAX (64u << 20)
#define PAGES_PER_DRAIN 4096u

struct kernel_cpu {
	int fd;      /* trace_pipe_raw */
	int file_fd; /* kernel_<cpu> */
	uint64_t file_size;
	uint64_t seq;
	uint64_t discarded; /* free-running, as in packet contexts */
	uint64_t begin, end;
	uint32_t used; /* bytes in packet */
	uint8_t *packet;
};

struct consumerd_kernel_trace {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	uint64_t session_id;
	uint8_t uuid[16];
	uint32_t page_size;
	uint8_t *page;
	uint64_t unknown_records;
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

/* "== <system> <event>\n<text>" records, into tep. */
static int
parse_formats(struct tep_handle *tep, char *text, size_t len)
{
	char *record = text, *end = text + len;
	int formats = 0;

	if (strncmp(text, "== ", 3) != 0)
		return -EBADMSG;
	while (record < end) {
		char system[128], name[128], *body = strchr(record, '\n'), *next;

		if (!body || sscanf(record, "== %127s %127s", system, name) != 2)
			return -EBADMSG;
		body++;
		next = strstr(body, "\n== ");
		next = next ? next + 1 : end;
		if (strcmp(system, "header_page") == 0) {
			if (tep_parse_header_page(tep, body, (unsigned long)(next - body), 8) < 0)
				return -EBADMSG;
		} else if (tep_parse_event(tep, body, (unsigned long)(next - body), system) != 0) {
			return -EBADMSG;
		} else {
			formats++;
		}
		record = next;
	}
	return formats;
}

static struct tep_handle *
load_formats(int fd)
{
	struct tep_handle *tep = tep_alloc();
	size_t len = 0;
	char *text = read_formats(fd, &len);

	if (tep && text && parse_formats(tep, text, len) >= 0) {
		free(text);
		return tep;
	}
	free(text);
	if (tep)
		tep_free(tep);
	return NULL;
}

static int
write_metadata(struct consumerd_kernel_trace *trace, int dir_fd, int64_t clock_offset_ns)
{
	uint64_t size = 0;
	size_t len = 0;
	char *text = consumerd_kernel_metadata(trace->tep, trace->uuid, clock_offset_ns, &len);
	int fd, ret;

	if (!text)
		return -ENOMEM;
	fd = consumerd_output_create_file(dir_fd, "metadata");
	ret = fd < 0 ? fd : consumerd_output_append(fd, &size, text, len);
	if (fd >= 0)
		close(fd);
	free(text);
	return ret;
}

static int
open_cpu_files(struct consumerd_kernel_trace *trace, int dir_fd)
{
	char name[32];

	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		snprintf(name, sizeof(name), "kernel_%" PRIu32, cpu);
		c->file_fd = consumerd_output_create_file(dir_fd, name);
		c->packet = malloc(PACKET_MAX);
		if (c->file_fd < 0 || !c->packet)
			return c->file_fd < 0 ? c->file_fd : -ENOMEM;
	}
	return 0;
}

int
consumerd_kernel_trace_open(const struct consumerd_kernel_spec *spec,
			    struct consumerd_kernel_trace **result)
{
	struct consumerd_kernel_trace *trace;
	int dir_fd = -1, ret = -ENOMEM;

	trace = calloc(1, sizeof(*trace) + spec->nr_cpus * sizeof(trace->cpus[0]));
	if (!trace) {
		for (uint32_t cpu = 0; cpu < spec->nr_cpus; cpu++)
			close(spec->cpu_fds[cpu]);
		return -ENOMEM;
	}
	trace->nr_cpus = spec->nr_cpus;
	trace->session_id = spec->session_id;
	memcpy(trace->uuid, spec->uuid, sizeof(trace->uuid));
	for (uint32_t cpu = 0; cpu < spec->nr_cpus; cpu++) {
		trace->cpus[cpu].fd = spec->cpu_fds[cpu];
		trace->cpus[cpu].file_fd = -1;
	}
	trace->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	trace->page = malloc(trace->page_size);
	trace->tep = load_formats(spec->formats_fd);
	if (!trace->tep) {
		ret = -EBADMSG;
		goto fail;
	}
	/* The pages of this machine: 64-bit longs, little endian. */
	tep_set_long_size(trace->tep, sizeof(long));
	tep_set_page_size(trace->tep, (int)trace->page_size);
	trace->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				    KBUFFER_ENDIAN_LITTLE);
	if (!trace->page || !trace->kbuf)
		goto fail;
	ret = consumerd_output_open_dir(spec->dir);
	if (ret < 0)
		goto fail;
	dir_fd = ret;
	ret = write_metadata(trace, dir_fd, spec->clock_offset_ns);
	if (ret == 0)
		ret = open_cpu_files(trace, dir_fd);
	close(dir_fd);
	if (ret < 0)
		goto fail;
	*result = trace;
	return 0;

fail:
	consumerd_kernel_trace_close(trace);
	return ret;
}

/* Appends len bytes to the packet, when they fit. */
static bool
put(struct kernel_cpu *c, const void *data, size_t len)
{
	if (len > PACKET_MAX - c->used)
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
		if (consumerd_kernel_field_is_string(field))
			return put_string(c, (const char *)data + offset, len);
		return put(c, &len, 4) && put(c, data + offset, len);
	}
	if (consumerd_kernel_field_is_string(field))
		return put_string(c, (const char *)data + offset, len);
	return put(c, data + offset, len);
}

/* The whole event, header included; false when the packet is full. */
static bool
put_event(struct consumerd_kernel_trace *trace, struct kernel_cpu *c, struct tep_event *event,
	  const uint8_t *data, uint32_t size, uint64_t ts)
{
	struct tep_format_field **common = tep_event_common_fields(event);
	struct tep_format_field **fields = tep_event_fields(event);
	struct tc_event_header header = {.id = (uint32_t)event->id, .timestamp = ts};
	uint32_t start = c->used;
	bool ok = put(c, &header, sizeof(header));

	for (int i = 0; ok && common && common[i]; i++)
		ok = put_field(c, common[i], data, size);
	for (int i = 0; ok && fields && fields[i]; i++)
		ok = put_field(c, fields[i], data, size);
	free(common);
	free(fields);
	if (!ok)
		c->used = start;
	return ok;
}

static void
write_packet(struct consumerd_kernel_trace *trace, uint32_t cpu)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	struct tc_packet_header *header = (struct tc_packet_header *)c->packet;

	if (c->used <= sizeof(*header))
		return;
	header->magic = TC_CTF_MAGIC;
	memcpy(header->uuid, trace->uuid, sizeof(header->uuid));
	header->stream_id = 0;
	header->stream_instance_id = cpu;
	header->timestamp_begin = c->begin;
	header->timestamp_end = c->end;
	header->content_size = (uint64_t)c->used * 8;
	header->packet_size = (uint64_t)c->used * 8;
	header->packet_seq_num = c->seq++;
	header->events_discarded = c->discarded;
	header->cpu_id = cpu;
	if (consumerd_output_append(c->file_fd, &c->file_size, c->packet, c->used) < 0)
		consumerd_warning("session=%" PRIu64 ": Failed to write a kernel packet of CPU %"
				  PRIu32, trace->session_id, cpu);
	c->used = 0;
}

static void
begin_packet_if_empty(struct kernel_cpu *c, uint64_t ts)
{
	if (c->used == 0) {
		c->used = sizeof(struct tc_packet_header);
		c->begin = ts;
	}
}

static void
convert_record(struct consumerd_kernel_trace *trace, uint32_t cpu, const uint8_t *data,
	       uint32_t size, uint64_t ts)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	struct tep_event *event;
	uint16_t type;

	if (size < sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	event = tep_find_event(trace->tep, type);
	if (!event) {
		trace->unknown_records++;
		return;
	}
	begin_packet_if_empty(c, ts);
	if (!put_event(trace, c, event, data, size, ts)) {
		write_packet(trace, cpu);
		begin_packet_if_empty(c, ts);
		if (!put_event(trace, c, event, data, size, ts))
			return; /* larger than a packet: dropped */
	}
	c->end = ts;
}

/* One page: returns false when there is nothing more to read now. */
static bool
convert_page(struct consumerd_kernel_trace *trace, uint32_t cpu)
{
	struct kernel_cpu *c = &trace->cpus[cpu];
	unsigned long long ts;
	ssize_t n = read(c->fd, trace->page, trace->page_size);
	int missed;
	void *data;

	if (n <= 0)
		return false;
	if (kbuffer_load_subbuffer(trace->kbuf, trace->page) < 0)
		return true;
	missed = kbuffer_missed_events(trace->kbuf);
	if (missed > 0) {
		/* Reported in the packet that holds what came after them. */
		write_packet(trace, cpu);
		c->discarded += (uint64_t)missed;
	}
	for (data = kbuffer_read_event(trace->kbuf, &ts); data;
	     data = kbuffer_next_event(trace->kbuf, &ts)) {
		int size = kbuffer_event_size(trace->kbuf);

		if (size > 0 && (size_t)size <= trace->page_size)
			convert_record(trace, cpu, data, (uint32_t)size, ts);
	}
	return true;
}

void
consumerd_kernel_trace_drain(struct consumerd_kernel_trace *trace)
{
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		if (trace->cpus[cpu].fd < 0)
			continue;
		for (uint32_t pages = 0; pages < PAGES_PER_DRAIN && convert_page(trace, cpu); pages++)
			;
		write_packet(trace, cpu);
	}
}

void
consumerd_kernel_trace_close(struct consumerd_kernel_trace *trace)
{
	if (!trace)
		return;
	if (trace->tep && trace->kbuf && trace->page)
		consumerd_kernel_trace_drain(trace);
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		struct kernel_cpu *c = &trace->cpus[cpu];

		if (c->fd >= 0)
			close(c->fd);
		if (c->file_fd >= 0) {
			consumerd_output_sync(c->file_fd);
			close(c->file_fd);
		}
		free(c->packet);
	}
	if (trace->unknown_records)
		consumerd_warning("session=%" PRIu64 ": %" PRIu64 " kernel records of unknown "
				  "events were skipped", trace->session_id, trace->unknown_records);
	if (trace->kbuf)
		kbuffer_free(trace->kbuf);
	if (trace->tep)
		tep_free(trace->tep);
	free(trace->page);
	free(trace);
}
