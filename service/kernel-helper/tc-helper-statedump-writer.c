/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing the state dump's records into the instance's ring buffer.
 *
 * The kernel timestamps each record on the instance's clock and puts it
 * in the buffer of the CPU the helper runs on, where the consumer reads it
 * with the session's other events. A buffer that fills faster than the
 * consumer reads it overwrites its oldest records, so the writer pauses
 * PAUSE_MS after every PACE_BYTES: the consumer is woken when a CPU's
 * buffer is a quarter full and drains every 2 ms while the kernel writes
 * fast (docs/kernel.md), well above PACE_BYTES / PAUSE_MS. What a full
 * buffer lost all the same shows as discarded events, as for any other
 * event.
 */
#include "tc-helper-statedump-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tc-helper-log.h"
#include "tc-helper-pids.h"
#include "tc-kernel-statedump.h"

#define PACE_BYTES (128u * 1024u)
#define PAUSE_MS 2
/* What one dump may write at most, whatever the machine holds. */
#define DUMP_BYTES_MAX (256ull << 20)

int
tc_helper_statedump_writer_open(struct tc_helper_statedump_writer *writer, uint64_t session_id,
				int64_t deadline_ms)
{
	char path[4096];

	memset(writer, 0, sizeof(*writer));
	tc_helper_pids_instance_path(session_id, "trace_marker_raw", path, sizeof(path));
	writer->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	writer->deadline_ms = deadline_ms;
	return writer->fd < 0 ? -errno : 0;
}

void
tc_helper_statedump_writer_close(struct tc_helper_statedump_writer *writer)
{
	if (writer->fd >= 0)
		close(writer->fd);
	writer->fd = -1;
}

static void
pace(struct tc_helper_statedump_writer *writer)
{
	struct timespec pause = {.tv_nsec = PAUSE_MS * 1000000L};

	if (writer->bytes - writer->paced < PACE_BYTES)
		return;
	writer->paced = writer->bytes;
	nanosleep(&pause, NULL);
}

bool
tc_helper_statedump_writer_put(struct tc_helper_statedump_writer *writer,
			       const struct tc_kernel_statedump_record *record)
{
	uint8_t buf[sizeof(record->id) + sizeof(record->payload)];
	size_t len = sizeof(record->id) + record->len;
	ssize_t written;

	bool is_end = (record->id & ~TC_KERNEL_STATEDUMP_MARKER_MASK) == TC_KERNEL_STATEDUMP_END;

	/* The end is written even after a cut, so that readers see the dump
	 * closed. */
	if (writer->error || (writer->is_cut && !is_end))
		return false;
	if (!is_end && writer->bytes + len > DUMP_BYTES_MAX) {
		writer->is_cut = true;
		return false;
	}
	/* The id first, in the CPU's order: tracefs' raw_data "id" field. */
	memcpy(buf, &record->id, sizeof(record->id));
	memcpy(buf + sizeof(record->id), record->payload, record->len);
	do
		written = write(writer->fd, buf, len);
	while (written < 0 && errno == EINTR);
	if (written != (ssize_t)len) {
		writer->error = written < 0 ? -errno : -EIO;
		return false;
	}
	writer->records++;
	writer->bytes += len;
	pace(writer);
	return true;
}

bool
tc_helper_statedump_writer_is_done(struct tc_helper_statedump_writer *writer)
{
	if (!writer->error && !writer->is_cut && tc_helper_log_now_ms() > writer->deadline_ms)
		writer->is_cut = true;
	return writer->error || writer->is_cut;
}
