/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The state dump's records written into a session's tracefs instance
 * (trace_marker_raw, tc-kernel-statedump.h), paced and bounded. Used from
 * the helper's one request thread.
 */
#ifndef TC_HELPER_STATEDUMP_WRITER_H
#define TC_HELPER_STATEDUMP_WRITER_H

#include <stdbool.h>
#include <stdint.h>

struct tc_kernel_statedump_record;

struct tc_helper_statedump_writer {
	int fd;             /* the instance's trace_marker_raw */
	int error;          /* the first write's failure (-errno), then nothing is written */
	uint32_t records;   /* written */
	uint64_t bytes;     /* written */
	uint64_t paced;     /* bytes at the last pause */
	int64_t deadline_ms; /* tc_helper_log_now_ms() past which the dump ends */
	bool is_cut;        /* the deadline passed or a bound was reached */
};

/* Opens the session's trace_marker_raw; 0 or -errno. */
int tc_helper_statedump_writer_open(struct tc_helper_statedump_writer *writer,
				    uint64_t session_id, int64_t deadline_ms);
void tc_helper_statedump_writer_close(struct tc_helper_statedump_writer *writer);
/* Writes one record; false once the writer failed or is cut (the caller
 * stops walking then). */
bool tc_helper_statedump_writer_put(struct tc_helper_statedump_writer *writer,
				    const struct tc_kernel_statedump_record *record);
/* Whether the dump should stop: failed, cut, or past its deadline. */
bool tc_helper_statedump_writer_is_done(struct tc_helper_statedump_writer *writer);

#endif /* TC_HELPER_STATEDUMP_WRITER_H */
