/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-trace-clock.h"

#include <string.h>
#include <time.h>

#include "tc-clock-offset.h"
#include "tc-rb.h"

#define NSEC_PER_SEC G_GUINT64_CONSTANT(1000000000)
#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"
/* The frequency is measured over this long: a pairing error of ~10 ns
 * makes it 1 ppm off, which only shows in absolute dates. */
#define CALIBRATION_US 10000
#define PAIRING_TRIES 8

#ifdef __x86_64__
static gboolean
kernel_uses_tsc(void)
{
	g_autofree char *source = NULL;

	if (g_strcmp0(g_getenv("TRACECTL_TRACE_CLOCK"), "monotonic") == 0)
		return FALSE;
	if (!g_file_get_contents(CLOCKSOURCE_PATH, &source, NULL, NULL))
		return FALSE;
	return strcmp(g_strchomp(source), "tsc") == 0;
}

/* A TSC value and the reading of clock id taken at the same instant, to
 * within the shortest of a few tries. */
static void
pair_with_tsc(clockid_t id, guint64 *tsc, guint64 *ns)
{
	guint64 best = G_MAXUINT64;

	*tsc = 0;
	*ns = 0;
	for (int i = 0; i < PAIRING_TRIES; i++) {
		struct timespec now;
		guint64 before = tc_rb_tsc();
		guint64 after;

		clock_gettime(id, &now);
		after = tc_rb_tsc();
		if (after - before < best) {
			best = after - before;
			*tsc = before + (after - before) / 2;
			*ns = (guint64)now.tv_sec * NSEC_PER_SEC + (guint64)now.tv_nsec;
		}
	}
}

/* Ticks per second, measured once per process; 0 when implausible. */
static guint64
tsc_frequency(void)
{
	static gsize once;
	static guint64 freq;

	if (g_once_init_enter(&once)) {
		guint64 tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0;

		pair_with_tsc(CLOCK_MONOTONIC_RAW, &tsc0, &ns0);
		g_usleep(CALIBRATION_US);
		pair_with_tsc(CLOCK_MONOTONIC_RAW, &tsc1, &ns1);
		if (tsc1 > tsc0 && ns1 > ns0)
			freq = (guint64)((unsigned __int128)(tsc1 - tsc0) * NSEC_PER_SEC /
					 (ns1 - ns0));
		if (freq < TC_CONSUMER_CLOCK_FREQ_MIN || freq > TC_CONSUMER_CLOCK_FREQ_MAX)
			freq = 0;
		g_once_init_leave(&once, 1);
	}
	return freq;
}

/* Unix time at TSC 0, as seconds and ticks. */
static void
tsc_offset(TcTraceClock *clock)
{
	guint64 tsc = 0, real_ns = 0, tsc_ns, offset_ns;

	pair_with_tsc(CLOCK_REALTIME, &tsc, &real_ns);
	tsc_ns = (guint64)((unsigned __int128)tsc * NSEC_PER_SEC / clock->freq);
	/* The TSC counts from boot or so: far less than the time since 1970. */
	offset_ns = real_ns > tsc_ns ? real_ns - tsc_ns : 0;
	clock->offset_s = (gint64)(offset_ns / NSEC_PER_SEC);
	clock->offset_ticks =
		(guint64)((unsigned __int128)(offset_ns % NSEC_PER_SEC) * clock->freq / NSEC_PER_SEC);
}
#endif

static void
monotonic_offset(TcTraceClock *clock)
{
	gint64 offset_ns = tc_clock_offset_monotonic_ns();
	gint64 remainder = offset_ns % (gint64)NSEC_PER_SEC;

	clock->offset_s = offset_ns / (gint64)NSEC_PER_SEC;
	if (remainder < 0) {
		remainder += (gint64)NSEC_PER_SEC;
		clock->offset_s--;
	}
	clock->offset_ticks = (guint64)remainder;
}

void
tc_trace_clock_init(TcTraceClock *clock)
{
	memset(clock, 0, sizeof(*clock));
#ifdef __x86_64__
	if (kernel_uses_tsc() && (clock->freq = tsc_frequency()) != 0) {
		clock->tsc = 1;
		tsc_offset(clock);
		return;
	}
#endif
	clock->freq = NSEC_PER_SEC;
	monotonic_offset(clock);
}

#ifdef __x86_64__
static gpointer
calibrate_thread(gpointer unused)
{
	tsc_frequency();
	return NULL;
}
#endif

void
tc_trace_clock_prepare(void)
{
#ifdef __x86_64__
	if (kernel_uses_tsc())
		g_thread_unref(g_thread_new("tc-clock", calibrate_thread, NULL));
#endif
}
