/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flight recorder of one CPU of a snapshot session's kernel trace:
 * the newest CTF packets made from the kernel's pages, at most a
 * channel's worth of bytes, the oldest let go as new ones come. The
 * kernel's overwrite-mode buffer holds what was recorded since the last
 * read; this holds what was read of it, so that a snapshot never consumes
 * what the next one should show again (as LTTng's snapshots do not). On
 * the session's thread only; no lock.
 */
#ifndef TC_CONSUMERD_KERNEL_FLIGHT_H
#define TC_CONSUMERD_KERNEL_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

struct tc_consumerd_kernel_flight;

/* Keeps at most capacity bytes of packets. NULL when out of memory. */
struct tc_consumerd_kernel_flight *tc_consumerd_kernel_flight_new(uint64_t capacity);
void tc_consumerd_kernel_flight_free(struct tc_consumerd_kernel_flight *flight);
/* Appends a copy of the packet, letting go of the oldest ones until it
 * fits. A packet bigger than the capacity replaces them all. Returns 0 or
 * -ENOMEM (the packet is then lost, the ring as it was). */
int tc_consumerd_kernel_flight_put(struct tc_consumerd_kernel_flight *flight,
				   const uint8_t *packet, uint32_t size);
/* Calls put on the newest packets held, oldest first, as many as fit in
 * max_bytes (0: all), without letting any go. Stops at put's first
 * negative return, which it returns; 0 otherwise. *packets counts the
 * packets put. */
int tc_consumerd_kernel_flight_walk(const struct tc_consumerd_kernel_flight *flight,
				    uint64_t max_bytes,
				    int (*put)(void *data, const uint8_t *packet, uint32_t size),
				    void *data, uint64_t *packets);
/* Bytes of packets held. */
uint64_t tc_consumerd_kernel_flight_bytes(const struct tc_consumerd_kernel_flight *flight);

#endif /* TC_CONSUMERD_KERNEL_FLIGHT_H */
