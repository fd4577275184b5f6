/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One process of the state dump: its threads with their names and
 * namespaces, its open descriptors with their paths, its memory maps, as
 * lttng-modules' lttng_statedump_* records.
 */
#ifndef TC_HELPER_STATEDUMP_PROCESS_H
#define TC_HELPER_STATEDUMP_PROCESS_H

#include <stdint.h>

struct tc_helper_statedump_writer;

/* Bounds of one process, far above what ordinary processes have: the rest
 * is left out of the dump. */
#define TC_HELPER_STATEDUMP_THREADS_MAX 4096u
#define TC_HELPER_STATEDUMP_FDS_MAX 4096u
#define TC_HELPER_STATEDUMP_MAPS_MAX 16384u

/* The process whose /proc directory proc_dir_fd is (pid its number),
 * read through that descriptor so that a pid reused meanwhile mixes
 * nothing of another process in. A process or thread that exits during
 * the dump is skipped, whatever part of it was not written yet.
 * own_user_ns: the helper's user namespace's inode, to tell the tasks of
 * other user namespaces. */
void tc_helper_statedump_process(struct tc_helper_statedump_writer *writer, int proc_dir_fd,
				 int32_t pid, uint64_t own_user_ns);

#endif /* TC_HELPER_STATEDUMP_PROCESS_H */
