/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The channel timers of the consumer, run from each session's thread for
 * that session's channels:
 *
 *   switch  -> close the sub-buffers being filled (tc_rb_flush()), so that
 *              a slow trickle of events reaches the trace within one period
 *   read    -> write out the complete sub-buffers; when a pass found half
 *              a buffer or more ready, the next pass comes sooner, so a
 *              burst does not fill the buffer before the consumer looks
 *   monitor -> sample how much of the buffers is in use, for statistics
 *
 * LTTng-UST channels have the read and monitor timers here too; their
 * switch timer is LTTng-UST's own (tc-consumerd-lttng.c).
 *
 * The applications never make a system call to wake the consumer: a full
 * sub-buffer waits at most one read period.
 */
#include "tc-consumerd-timer.h"

#include "tc-consumerd-lttng.h"
#include "tc-consumerd-stream.h"

#define BUSY_READ_DIVISOR 8
#define BUSY_READ_MIN_NS 1000000ull

/* Arms a timer not armed yet; returns its deadline, 0 when it is off. */
static uint64_t
timer_arm(uint64_t *deadline, uint64_t interval, uint64_t now)
{
	if (interval == 0)
		return *deadline = 0;
	if (*deadline == 0)
		*deadline = now + interval;
	return *deadline;
}

static bool
timer_is_due(uint64_t deadline, uint64_t now)
{
	return deadline != 0 && now >= deadline;
}

/* Drains every stream; true when one of them had half its buffer ready. */
static bool
channel_read(struct tc_consumerd_channel *channel)
{
	bool busy = false;

	for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
		uint32_t done = tc_consumerd_stream_drain(&channel->streams[cpu], channel->packet);

		if (done * 2 >= channel->num_subbuf)
			busy = true;
	}
	return busy;
}

static void
channel_switch(struct tc_consumerd_channel *channel)
{
	for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
		tc_consumerd_stream_close_current(&channel->streams[cpu], false);
}

static void
channel_monitor(struct tc_consumerd_channel *channel)
{
	uint64_t used = 0;

	for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
		used += tc_rb_bytes_used(&channel->streams[cpu].reader.rb);
	channel->bytes_used = used;
	if (used > channel->bytes_used_peak)
		channel->bytes_used_peak = used;
}

static uint64_t
earliest(uint64_t a, uint64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

static uint64_t
channel_run_timers(struct tc_consumerd_channel *channel, uint64_t now)
{
	struct tc_consumerd_timers *t = &channel->timers;
	uint64_t next = 0;

	if (timer_is_due(t->next_switch, now)) {
		channel_switch(channel);
		t->next_switch = now + t->switch_ns;
		/* What the switch closed is read right away. */
		t->next_read = t->read_ns ? now : 0;
	}
	if (timer_is_due(t->next_read, now)) {
		uint64_t interval = t->read_ns;

		if (channel_read(channel)) {
			interval /= BUSY_READ_DIVISOR;
			if (interval < BUSY_READ_MIN_NS)
				interval = BUSY_READ_MIN_NS;
		}
		t->next_read = now + interval;
	}
	if (timer_is_due(t->next_monitor, now)) {
		channel_monitor(channel);
		t->next_monitor = now + t->monitor_ns;
	}
	next = earliest(next, timer_arm(&t->next_switch, t->switch_ns, now));
	next = earliest(next, timer_arm(&t->next_read, t->read_ns, now));
	next = earliest(next, timer_arm(&t->next_monitor, t->monitor_ns, now));
	return next;
}

#define KERNEL_READ_NS 100000000ull
/* A drain that found this many pages on a CPU (64 KiB) means the kernel
 * writes fast: the next one comes after KERNEL_BUSY_READ_NS, so that a
 * buffer of a few MiB does not overflow between two drains (the kernel
 * overwrites the oldest events of a full buffer). */
#define KERNEL_BUSY_PAGES 16u
#define KERNEL_BUSY_READ_NS 2000000ull

/* The kernel buffers: read every KERNEL_READ_NS or when the kernel
 * wakes the consumer (tc-consumerd-wake.c), and every KERNEL_BUSY_READ_NS
 * while they fill fast. After a wake-up they are polled again only once a
 * timed drain found them quiet: a kernel without buffer_percent, or a
 * buffer of a few pages, polls readable at its first page, and would
 * otherwise wake the consumer for every few records. */
static uint64_t
kernel_run_timer(struct tc_consumerd_session *session, uint64_t now)
{
	if (!session->kernel)
		return 0;
	if (timer_is_due(session->kernel_next_read, now)) {
		uint32_t pages = tc_consumerd_kernel_trace_drain(session->kernel);

		session->kernel_busy = pages >= KERNEL_BUSY_PAGES || session->kernel_woken;
		session->kernel_woken = false;
		session->kernel_next_read = session->kernel_busy ? now + KERNEL_BUSY_READ_NS : 0;
	}
	return timer_arm(&session->kernel_next_read, KERNEL_READ_NS, now);
}

/* The stream's clock now, as its packets' timestamps count. */
static uint64_t
channel_clock_now(const struct tc_consumerd_channel *channel)
{
	return (channel->flags & TC_CONSUMER_CHANNEL_CLOCK_TSC) ? tc_rb_tsc() : tc_rb_clock_now();
}

/*
 * One live period of a stream: what the writers put in it goes to the
 * relay now. A stream the relay has no packet of yet gets an empty one
 * (the relay only lets viewers skip a stream that has sent data), and a
 * stream with nothing new gets a beacon: idle until now, so viewers
 * move past it instead of waiting for it.
 */
static void
stream_live_tick(struct tc_consumerd_channel *channel, struct tc_consumerd_stream *stream,
		 uint64_t period_start)
{
	tc_consumerd_stream_close_current(stream, false);
	tc_consumerd_stream_drain(stream, channel->packet);
	if (stream->relay.packets_on_connection == 0 &&
	    tc_rb_close_empty_packet(&stream->reader.rb))
		tc_consumerd_stream_drain(stream, channel->packet);
	if (stream->relay.last_packet_ns < period_start)
		tc_consumerd_relay_send_beacon(stream->relay_conn, &stream->relay,
					       channel->stream_id, channel_clock_now(channel));
}

/*
 * Between two live ticks the consumer looks LIVE_POLLS_PER_PERIOD times
 * for streams that got events: those go to the relay at once, so that an
 * event waits a fraction of the period for its packet instead of up to a
 * whole one (the period stays the bound the user asked for). A look finds
 * nothing in an idle session, and then costs one load per stream; a flush
 * and a packet are spent only on a stream with new events.
 */
#define LIVE_POLLS_PER_PERIOD 10u
#define LIVE_POLL_MIN_NS 1000000ull

static bool
stream_has_new_events(const struct tc_consumerd_stream *stream)
{
	return tc_rb_bytes_used(&stream->reader.rb) != 0;
}

static bool
session_has_new_events(const struct tc_consumerd_session *session)
{
	for (const struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
			if (stream_has_new_events(&channel->streams[cpu]))
				return true;
	}
	return false;
}

/*
 * Sends the streams with new events, then a beacon on the others: a
 * viewer merges the streams by time, and only moves past an event once
 * every other stream has reached its time, with a packet or a beacon. A
 * beacon's time is read before its stream is found idle, so that an event
 * reserved before that look is never older than the beacon (only a writer
 * stopped between reading the clock and reserving can be, as at the
 * tick). A stream the relay has no packet of yet waits for the tick,
 * which sends it an empty one.
 */
static void
session_live_poll(struct tc_consumerd_session *session, uint64_t now)
{
	struct tc_consumerd_channel *channel;

	if (!session_has_new_events(session) || !tc_consumerd_relay_is_up(session->relay, now))
		return;
	for (channel = session->channels; channel; channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			struct tc_consumerd_stream *stream = &channel->streams[cpu];

			if (!stream_has_new_events(stream))
				continue;
			tc_consumerd_stream_close_current(stream, false);
			tc_consumerd_stream_drain(stream, channel->packet);
		}
	}
	for (channel = session->channels; channel; channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			struct tc_consumerd_stream *stream = &channel->streams[cpu];
			uint64_t idle_until;

			if (stream->relay.packets_on_connection == 0)
				continue;
			idle_until = channel_clock_now(channel);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (stream_has_new_events(stream))
				continue;
			tc_consumerd_relay_send_beacon(stream->relay_conn, &stream->relay,
						       channel->stream_id, idle_until);
		}
	}
}

static uint64_t
live_poll_interval(uint64_t live_ns)
{
	uint64_t interval = live_ns / LIVE_POLLS_PER_PERIOD;

	return interval < LIVE_POLL_MIN_NS ? LIVE_POLL_MIN_NS : interval;
}

/* The looks between ticks; only for sessions without kernel streams,
 * whose pages are read on their own timer and would hold the viewer back
 * until the tick anyway. */
static uint64_t
relay_run_poll(struct tc_consumerd_session *session, uint64_t now)
{
	uint64_t live_ns = (uint64_t)tc_consumerd_relay_live_timer_us(session->relay) * 1000;

	if (live_ns == 0 || session->kernel) {
		session->relay_next_poll = 0;
		return 0;
	}
	if (timer_is_due(session->relay_next_poll, now)) {
		session->relay_next_poll = now + live_poll_interval(live_ns);
		session_live_poll(session, now);
	}
	return timer_arm(&session->relay_next_poll, live_poll_interval(live_ns), now);
}

#define RELAY_RETRY_TICK_NS 250000000ull
/* While a relay's first connection is made (tc_consumerd_relay_is_connecting()),
 * its probe is looked at this often: a relay that is up is reached within
 * a few round trips, and the packets held meanwhile go out soon; each
 * look costs a poll() of one socket. */
#define RELAY_FIRST_PROBE_TICK_NS 5000000ull

/* Streaming sessions: reconnect to a relay that went away, and the live
 * timer. */
static uint64_t
relay_run_timer(struct tc_consumerd_session *session, uint64_t now)
{
	uint64_t live_ns, period;
	bool was_connecting;

	if (!session->relay)
		return 0;
	live_ns = (uint64_t)tc_consumerd_relay_live_timer_us(session->relay) * 1000;
	period = live_ns ? live_ns : RELAY_RETRY_TICK_NS;
	was_connecting = tc_consumerd_relay_is_connecting(session->relay);
	if (was_connecting)
		period = RELAY_FIRST_PROBE_TICK_NS;
	if (!timer_is_due(session->relay_next_tick, now))
		return timer_arm(&session->relay_next_tick, period, now);
	session->relay_next_tick = now + period;
	if (!tc_consumerd_relay_is_up(session->relay, now)) {
		if (tc_consumerd_relay_is_connecting(session->relay))
			session->relay_next_tick = now + RELAY_FIRST_PROBE_TICK_NS;
		else if (period > RELAY_RETRY_TICK_NS || was_connecting)
			session->relay_next_tick = now + RELAY_RETRY_TICK_NS;
		return session->relay_next_tick;
	}
	if (live_ns == 0)
		return session->relay_next_tick;
	/* The tick does what a look would do now. */
	session->relay_next_poll = now + live_poll_interval(live_ns);
	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
			stream_live_tick(channel, &channel->streams[cpu], now - live_ns);
	}
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
	     lttng = *tc_consumerd_lttng_channel_next(lttng))
		tc_consumerd_lttng_channel_live_tick(lttng, now - live_ns);
	if (session->kernel) {
		tc_consumerd_kernel_trace_drain(session->kernel);
		tc_consumerd_kernel_trace_live_tick(session->kernel, now - live_ns);
	}
	return session->relay_next_tick;
}

/* An LTTng-UST channel's read and monitor timers. Its writers wake the
 * session thread when they close a sub-buffer (tc-consumerd-wake.c), and
 * LTTng-UST runs its switch timer itself: the read timer drains what a
 * missed or not yet seen wake-up left, as tracectl's own channels' does. */
static uint64_t
lttng_run_timers(struct tc_consumerd_lttng_channel *channel, uint64_t now)
{
	struct tc_consumerd_timers *t = tc_consumerd_lttng_channel_timers(channel);
	uint64_t next = 0;

	if (timer_is_due(t->next_read, now)) {
		tc_consumerd_lttng_channel_drain(channel);
		t->next_read = now + t->read_ns;
	}
	if (timer_is_due(t->next_monitor, now)) {
		tc_consumerd_lttng_channel_sample(channel);
		t->next_monitor = now + t->monitor_ns;
	}
	next = earliest(next, timer_arm(&t->next_read, t->read_ns, now));
	next = earliest(next, timer_arm(&t->next_monitor, t->monitor_ns, now));
	return next;
}

uint64_t
tc_consumerd_timer_run(struct tc_consumerd_registry *registry, uint64_t now)
{
	uint64_t next = 0;

	for (struct tc_consumerd_session *session = registry->sessions; session;
	     session = session->next) {
		next = earliest(next, relay_run_timer(session, now));
		if (session->relay)
			next = earliest(next, relay_run_poll(session, now));
		next = earliest(next, kernel_run_timer(session, now));
		for (struct tc_consumerd_channel *channel = session->channels; channel;
		     channel = channel->next)
			next = earliest(next, channel_run_timers(channel, now));
		for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
		     lttng = *tc_consumerd_lttng_channel_next(lttng))
			next = earliest(next, lttng_run_timers(lttng, now));
	}
	return next;
}
