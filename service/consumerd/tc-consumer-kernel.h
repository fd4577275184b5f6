/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel trace of a session: the per-CPU raw ring buffers of its
 * tracefs instance (trace_pipe_raw, opened by the root helper), decoded
 * with libtraceevent and written as CTF packets under <output>/kernel,
 * with CTF metadata generated from the tracefs format files.
 */
#ifndef TC_CONSUMER_KERNEL_H
#define TC_CONSUMER_KERNEL_H

#include <stddef.h>
#include <stdint.h>

struct consumerd_kernel_trace;

struct consumerd_kernel_spec {
	const char *dir;       /* absolute, created 0700 */
	int formats_fd;        /* the helper's sealed memfd, hostile text */
	const int *cpu_fds;    /* nr_cpus trace_pipe_raw descriptors, taken */
	uint32_t nr_cpus;
	uint8_t uuid[16];
	int64_t clock_offset_ns; /* the session's, as in the user-space metadata */
	uint64_t session_id;     /* for logs */
};

/* Returns 0 and *trace, or -errno (-EBADMSG for bad formats). On
 * failure the cpu descriptors are closed too. */
int consumerd_kernel_trace_open(const struct consumerd_kernel_spec *spec,
				struct consumerd_kernel_trace **trace);
/* Reads what the kernel buffers hold now and writes it out. */
void consumerd_kernel_trace_drain(struct consumerd_kernel_trace *trace);
/* Final drain, then closes everything. */
void consumerd_kernel_trace_close(struct consumerd_kernel_trace *trace);

/* tc-consumer-kernel-metadata.c: the TSDL of the formats in tep. */
struct tep_handle;
char *consumerd_kernel_metadata(struct tep_handle *tep, const uint8_t uuid[16],
				int64_t clock_offset_ns, size_t *len);
/* Whether a field is written as a string (char arrays, __data_loc char[]). */
struct tep_format_field;
int consumerd_kernel_field_is_string(const struct tep_format_field *field);

#endif /* TC_CONSUMER_KERNEL_H */
