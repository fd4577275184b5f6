/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel trace of a session: the records the root
 * helper's eBPF programs put in a BPF ring buffer (tc-kernel-own.h),
 * written as a CTF trace of its own, <output>/kernel-own, on
 * CLOCK_MONOTONIC. A thread reads the ring buffer every 20 ms and writes
 * what it finds as one packet; the commands drain it synchronously.
 */
#ifndef TC_CONSUMERD_KERNEL_OWN_H
#define TC_CONSUMERD_KERNEL_OWN_H

#include <stdint.h>

struct tc_consumerd_own_trace;

/* Creates dir (empty or new), its metadata and its stream file, maps the
 * ring buffer (ring_fd is taken, closed on failure too) and starts the
 * reading thread. 0 or -errno. */
int tc_consumerd_kernel_own_open(const char *dir, const uint8_t uuid[16], int ring_fd,
				 struct tc_consumerd_own_trace **result);
/* A new ring buffer (a restart of the session): the old one is drained
 * and let go. ring_fd is taken. */
int tc_consumerd_kernel_own_replace_ring(struct tc_consumerd_own_trace *trace, int ring_fd);
/* Writes out what the ring buffer holds now and syncs the files. */
int tc_consumerd_kernel_own_drain(struct tc_consumerd_own_trace *trace);
/* Stops the thread, drains, closes; NULL is ignored. */
void tc_consumerd_kernel_own_close(struct tc_consumerd_own_trace *trace);

#endif /* TC_CONSUMERD_KERNEL_OWN_H */
