/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel flight recorder's ring of packets (tc-consumerd-kernel-flight.c):
 * the newest kept within the capacity, through many wraps and growths of
 * its slots; a walk that keeps the newest under a bound, lets nothing go,
 * and stops at its sink's error; a packet bigger than the capacity.
 */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "tc-consumerd-kernel-flight.h"

struct walked {
	GArray *firsts; /* each packet's first byte */
	uint64_t bytes;
	guint fail_after; /* 0: never */
};

static int
collect(void *data, const uint8_t *packet, uint32_t size)
{
	struct walked *walked = data;

	if (walked->fail_after && walked->firsts->len == walked->fail_after)
		return -EIO;
	g_array_append_val(walked->firsts, packet[0]);
	walked->bytes += size;
	/* Every byte of a packet is its number: copies, not views. */
	for (uint32_t i = 0; i < size; i++)
		g_assert_cmpuint(packet[i], ==, packet[0]);
	return 0;
}

static void
put_numbered(struct tc_consumerd_kernel_flight *flight, guint8 number, uint32_t size)
{
	g_autofree uint8_t *packet = g_malloc(size);

	memset(packet, number, size);
	g_assert_cmpint(tc_consumerd_kernel_flight_put(flight, packet, size), ==, 0);
}

static struct walked
walk(struct tc_consumerd_kernel_flight *flight, uint64_t max_bytes, guint fail_after, int *ret,
     uint64_t *packets)
{
	struct walked walked = {.firsts = g_array_new(FALSE, FALSE, 1), .fail_after = fail_after};

	*packets = 0;
	*ret = tc_consumerd_kernel_flight_walk(flight, max_bytes, collect, &walked, packets);
	return walked;
}

static void
test_newest(void)
{
	struct tc_consumerd_kernel_flight *flight = tc_consumerd_kernel_flight_new(4 * 100);
	uint64_t packets;
	int ret;

	/* 250 packets of 100 bytes, 40 of them while the slots grow: the
	 * last four stay, oldest first. */
	for (guint i = 0; i < 250; i++)
		put_numbered(flight, (guint8)i, 100);
	g_assert_cmpuint(tc_consumerd_kernel_flight_bytes(flight), ==, 400);
	for (guint round = 0; round < 2; round++) {
		struct walked walked = walk(flight, 0, 0, &ret, &packets);

		/* A walk lets nothing go: the second one sees the same. */
		g_assert_cmpint(ret, ==, 0);
		g_assert_cmpuint(packets, ==, 4);
		g_assert_cmpuint(walked.firsts->len, ==, 4);
		for (guint i = 0; i < 4; i++)
			g_assert_cmpuint(g_array_index(walked.firsts, guint8, i), ==, 246 + i);
		g_array_unref(walked.firsts);
	}
	/* Smaller packets: as many of the newest as fit. */
	for (guint i = 0; i < 7; i++)
		put_numbered(flight, (guint8)i, 60);
	g_assert_cmpuint(tc_consumerd_kernel_flight_bytes(flight), ==, 6 * 60);
	tc_consumerd_kernel_flight_free(flight);
}

static void
test_bounded_walk(void)
{
	struct tc_consumerd_kernel_flight *flight = tc_consumerd_kernel_flight_new(1000);
	struct walked walked;
	uint64_t packets;
	int ret;

	for (guint i = 1; i <= 5; i++)
		put_numbered(flight, (guint8)i, 100 * i); /* 100 .. 500: 1500, the first three go */
	g_assert_cmpuint(tc_consumerd_kernel_flight_bytes(flight), ==, 400 + 500);
	tc_consumerd_kernel_flight_free(flight);

	flight = tc_consumerd_kernel_flight_new(10000);
	for (guint i = 1; i <= 5; i++)
		put_numbered(flight, (guint8)i, 100 * i);
	/* At most 950 bytes: 500 and 400, the newest, not 100 + 200 + 300. */
	walked = walk(flight, 950, 0, &ret, &packets);
	g_assert_cmpint(ret, ==, 0);
	g_assert_cmpuint(packets, ==, 2);
	g_assert_cmpuint(g_array_index(walked.firsts, guint8, 0), ==, 4);
	g_assert_cmpuint(g_array_index(walked.firsts, guint8, 1), ==, 5);
	g_assert_cmpuint(walked.bytes, ==, 900);
	g_array_unref(walked.firsts);
	/* Less than the newest packet: nothing. */
	walked = walk(flight, 499, 0, &ret, &packets);
	g_assert_cmpint(ret, ==, 0);
	g_assert_cmpuint(packets, ==, 0);
	g_array_unref(walked.firsts);
	/* The sink's error ends the walk and is returned. */
	walked = walk(flight, 0, 2, &ret, &packets);
	g_assert_cmpint(ret, ==, -EIO);
	g_assert_cmpuint(packets, ==, 2);
	g_array_unref(walked.firsts);
	tc_consumerd_kernel_flight_free(flight);
}

static void
test_oversized(void)
{
	struct tc_consumerd_kernel_flight *flight = tc_consumerd_kernel_flight_new(100);
	struct walked walked;
	uint64_t packets;
	int ret;

	put_numbered(flight, 1, 50);
	put_numbered(flight, 2, 150);
	walked = walk(flight, 0, 0, &ret, &packets);
	g_assert_cmpuint(packets, ==, 1);
	g_assert_cmpuint(g_array_index(walked.firsts, guint8, 0), ==, 2);
	g_array_unref(walked.firsts);
	put_numbered(flight, 3, 50);
	g_assert_cmpuint(tc_consumerd_kernel_flight_bytes(flight), ==, 50);
	tc_consumerd_kernel_flight_free(flight);
	tc_consumerd_kernel_flight_free(NULL);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd/kernel-flight/newest", test_newest);
	g_test_add_func("/tracectl/consumerd/kernel-flight/bounded-walk", test_bounded_walk);
	g_test_add_func("/tracectl/consumerd/kernel-flight/oversized", test_oversized);
	return g_test_run();
}
