/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the service's checks of outside input and its metadata. */
#include <glib.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tc-app.h"
#include "tc-channel.h"
#include "tc-error.h"
#include "tc-metadata.h"
#include "tc-perf-counter.h"
#include "tc-rb.h"
#include "tc-registry.h"
#include "tc-session.h"
#include "tc-trace-clock.h"
#include "tc-kernel-names.h"
#include "tc-validate.h"

static void
test_names(void)
{
	const char *good[] = {"a", "my-session_1.2", "x" "123456789012345678901234567890123456789012345678901234567890123"};
	const char *bad[] = {"", ".hidden", "a/b", "sp ace", "quo\"te", "tab\t", "é",
			     "12345678901234567890123456789012345678901234567890123456789012345"};

	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_true(tc_validate_name("session", good[i], &error));
		g_assert_no_error(error);
	}
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(tc_validate_name("session", bad[i], &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_null(strchr(error->message, '\n'));
	}
}

static void
test_patterns(void)
{
	const char *good[] = {"*", "example:*", "a.b-c:d_e", "*:x*"};
	const char *bad[] = {"", "a b", "x\";", "p:e/x", "a?b"};

	for (guint i = 0; i < G_N_ELEMENTS(good); i++)
		g_assert_true(tc_validate_pattern(good[i], NULL));
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++)
		g_assert_false(tc_validate_pattern(bad[i], NULL));
}

static void
test_output_directory(void)
{
	g_assert_true(tc_validate_output_directory("/home/alice/traces", NULL));
	g_assert_false(tc_validate_output_directory("relative", NULL));
	g_assert_false(tc_validate_output_directory("/a/../etc", NULL));
	g_assert_false(tc_validate_output_directory("/a/./b", NULL));
}

/* The strings that reach the kernel helper (tc-kernel-names.h). */
static void
test_kernel_strings(void)
{
	static const char *const good_uprobes[] = {
		"/usr/bin/true:main", "/home/a/lib/libx-1.2+b@c.so:_ZN3foo3barEv",
		"/a/b:foo.cold", "/a/b:memcpy@GLIBC_2.14", "/a/b:_ZN4core3fmt$LT$T$GT$",
	};
	static const struct {
		const char *location;
		size_t position;
	} bad_uprobes[] = {
		{"/d/a:0x0\np:evil/pw /bin/true:0x0 #/p:f", 8}, /* the newline */
		{"/d/a\n:main", 4}, {"/d/a b:main", 4}, {"/d/a#:main", 4}, {"/d/a;:main", 4},
		{"/d/../e:main", 3}, {"/d/./e:main", 3}, {"//d:main", 1}, {"/d/:main", 3},
		{"d/a:main", 0}, {"/d/a", 4}, {"/d/a:", 5}, {"/d/a:ma in", 7}, {"/d/a:f(0x1)", 6},
		{"/d/\xc3\xa9:main", 3},
	};
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(good_uprobes); i++)
		g_assert_true(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "p", good_uprobes[i],
						       NULL));
	for (guint i = 0; i < G_N_ELEMENTS(bad_uprobes); i++) {
		size_t position = 99;

		g_assert_nonnull(tc_kernel_check_uprobe_location(bad_uprobes[i].location, &position));
		g_assert_cmpuint(position, ==, bad_uprobes[i].position);
		g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "p",
							bad_uprobes[i].location, NULL));
	}
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "p", "/d/a\n:main", &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "'\\n' (0x0a) at position 4"));
	g_assert_true(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "do_sys_open+0x10", NULL));
	g_assert_true(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "0xffffffff81000000",
					       NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "a b", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "+1", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "a+1+2", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_KPROBE, "p", "mod:sym", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "1p", "/a:b", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "p-q", "/a:b", NULL));
	g_assert_false(tc_validate_kernel_probe(TC_KERNEL_PROBE_UPROBE, "", "/a:b", NULL));
	g_assert_true(tc_validate_kernel_event("sched:sched_*", NULL));
	g_assert_false(tc_validate_kernel_event("sched:sched switch", NULL));
	g_assert_false(tc_validate_kernel_event("sched:a\n-:x/y", NULL));
	g_assert_false(tc_validate_kernel_event("a:b:c", NULL));
	g_assert_false(tc_validate_kernel_event(":b", NULL));
	g_assert_true(tc_validate_kernel_event("sched_switch", NULL));
	g_assert_true(tc_validate_kernel_event("sched_*", NULL));
	g_assert_false(tc_validate_kernel_event("sched switch", NULL));
	g_assert_false(tc_validate_kernel_event("", NULL));
}

static void
test_application_names(void)
{
	g_assert_true(tc_validate_event_name("provider:event"));
	g_assert_false(tc_validate_event_name("noprovider"));
	g_assert_false(tc_validate_event_name(":event"));
	g_assert_false(tc_validate_event_name("p:"));
	g_assert_false(tc_validate_event_name("p:\"inject"));
	g_assert_true(tc_validate_field_name("count_2"));
	g_assert_false(tc_validate_field_name("_hidden"));
	g_assert_false(tc_validate_field_name("2x"));
	g_assert_false(tc_validate_field_name("a-b"));
}

static void
test_metadata_event(void)
{
	g_autofree TcAppEvent *event =
		g_malloc0(sizeof(TcAppEvent) + 3 * sizeof(struct tracectl_abi_field));
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree char *signature = NULL;

	strcpy(event->name, "p:e");
	event->loglevel = 13;
	event->nr_fields = 3;

	strcpy(event->fields[0].name, "count");
	event->fields[0].type = TRACECTL_FIELD_SIGNED;
	event->fields[0].size = 2;
	strcpy(event->fields[1].name, "msg");
	event->fields[1].type = TRACECTL_FIELD_STRING;
	strcpy(event->fields[2].name, "raw");
	event->fields[2].type = TRACECTL_FIELD_BYTES;
	signature = tc_metadata_signature(event);
	g_assert_cmpstr(signature, ==, "int16 count, string msg, bytes raw");
	tc_metadata_append_event(out, 2, 7, event);
	g_assert_nonnull(strstr(out->str, "name = \"p:e\";"));
	g_assert_nonnull(strstr(out->str, "id = 7;"));
	g_assert_nonnull(strstr(out->str, "stream_id = 2;"));
	g_assert_nonnull(strstr(out->str, "size = 16; align = 8; signed = true;"));
	g_assert_nonnull(strstr(out->str, "_count;"));
	g_assert_nonnull(strstr(out->str, "string { encoding = UTF8; } _msg;"));
	g_assert_nonnull(strstr(out->str, "uint32_t __raw_length;"));
	g_assert_nonnull(strstr(out->str, "_raw[__raw_length];"));
}

/* A stream's event.context: the contexts in the order of their bits,
 * whatever the order asked, with LTTng-UST 2.13's types (ids unsigned
 * 32-bit, namespaces and ip unsigned 64-bit, in base 10), then the perf
 * counters (unsigned 64-bit) and the application contexts (a tag and a
 * variant each) in the order added. */
static void
test_metadata_stream_contexts(void)
{
	g_autoptr(GArray) counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	g_autoptr(GPtrArray) app_contexts = g_ptr_array_new_with_free_func(g_free);
	TcChannel channel = {.stream_id = 3,
			     .contexts = TRACECTL_CONTEXT_IP | TRACECTL_CONTEXT_NET_NS |
					 TRACECTL_CONTEXT_VUID | TRACECTL_CONTEXT_VPID,
			     .perf_counters = counters,
			     .app_contexts = app_contexts};
	const char *order = G_BYTE_ORDER == G_LITTLE_ENDIAN ? "le" : "be";
	const struct {
		const char *type, *name;
	} expected[] = {{"size = 32; align = 8; signed = true;", "vpid"},
			{"size = 32; align = 8; signed = false;", "vuid"},
			{"size = 64; align = 8; signed = false;", "net_ns"},
			{"size = 64; align = 8; signed = false;", "ip"},
			{"size = 64; align = 8; signed = false;", "perf_thread_task_clock"},
			{"size = 64; align = 8; signed = false;", "none"},
			{"size = 64; align = 8; signed = true;", "int64"}};
	g_autoptr(GString) out = g_string_new(NULL);
	struct tc_perf_counter task_clock;
	const char *previous;

	g_assert_cmpint(tc_perf_counter_parse("perf:thread:task-clock", &task_clock), ==, 0);
	g_array_append_val(counters, task_clock);
	g_ptr_array_add(app_contexts, g_strdup("myprov:request_id"));
	tc_metadata_append_stream(out, &channel);
	g_assert_nonnull(strstr(out->str, "{ _none = 0, _int64 = 1, _uint64 = 2, _double = 3 } "
					  "_app_myprov_request_id_tag;\n"
					  "\t\tvariant <_app_myprov_request_id_tag> {"));
	g_assert_nonnull(strstr(out->str, "} _app_myprov_request_id;\n\t} align(8);"));
	previous = out->str;
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
		g_autofree char *member = g_strdup_printf("%s byte_order = %s; } _%s;",
							  expected[i].type, order, expected[i].name);
		const char *found = strstr(out->str, member);

		g_assert_nonnull(found);
		g_assert_true(found > previous);
		previous = found;
	}
	g_assert_null(strstr(out->str, "base = 16; byte_order"));
}

static void
test_metadata_header(void)
{
	g_autoptr(TcSession) session = tc_session_new("s1", 1000, "/tmp/x");
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree char *freq = NULL;

	tc_metadata_append_header(out, session, 1000, session->uuid);
	g_assert_true(g_str_has_prefix(out->str, "/* CTF 1.8 */"));
	g_assert_nonnull(strstr(out->str, "trace_name = \"s1\";"));
	g_assert_nonnull(strstr(out->str, "uid = 1000;"));
	freq = g_strdup_printf("freq = %" G_GUINT64_FORMAT ";", session->clock.freq);
	g_assert_nonnull(strstr(out->str, freq));
	g_assert_nonnull(strstr(out->str, session->clock.tsc ? "\"x86 TSC\"" : "\"CLOCK_MONOTONIC\""));
	g_assert_cmpstr(session->trace_dir, ==, "/tmp/x/ust/uid/1000/64-bit");
	/* RFC 4122 version 4 uuid. */
	g_assert_cmpuint(session->uuid[6] >> 4, ==, 4);
}

static gboolean
can_own_host_name(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUTS) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* A host named with quotes, a backslash and a newline: the metadata stays
 * one well-formed TSDL string (babeltrace2 would refuse the trace). */
static void
test_metadata_host_name(void)
{
	if (g_test_subprocess()) {
		static const char name[] = "evil\"host\\\n";
		g_autoptr(TcSession) session = tc_session_new("s1", 1000, "/tmp/x");
		g_autoptr(GString) out = g_string_new(NULL);

		g_assert_cmpint(unshare(CLONE_NEWUTS), ==, 0);
		g_assert_cmpint(sethostname(name, strlen(name)), ==, 0);
		tc_metadata_append_header(out, session, 1000, session->uuid);
		g_assert_nonnull(strstr(out->str, "\thostname = \"evil_host__\";\n"));
		return;
	}
	if (!can_own_host_name()) {
		g_test_skip("no UTS namespace of our own here (needs root)");
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_test_trap_assert_passed();
}

/* Unix time in seconds that a clock reading stands for, by the clock's
 * description. */
static double
clock_to_unix(const TcTraceClock *clock, guint64 ticks)
{
	return (double)clock->offset_s +
	       ((double)clock->offset_ticks + (double)ticks) / (double)clock->freq;
}

static double
now_unix(void)
{
	return (double)g_get_real_time() / G_USEC_PER_SEC;
}

/* Two readings count as simultaneous when the reference clock moved less
 * than this around them; a preempted attempt is taken again. */
#define BRACKET_US 20
#define BRACKET_ATTEMPTS 1000

static uint64_t
monotonic_ticks(void)
{
	struct timespec mono;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (uint64_t)mono.tv_sec * 1000000000 + (uint64_t)mono.tv_nsec;
}

/* The trace clock's reading (read_ticks) and the monotonic time in µs
 * taken together: of the attempts, the one with the tightest bracket of
 * monotonic readings, stopping at the first within BRACKET_US, so that
 * being preempted between two reads does not look like a wrong clock. */
static void
read_with_monotonic(uint64_t (*read_ticks)(void), guint64 *ticks, gint64 *mono_us)
{
	gint64 best = G_MAXINT64;

	for (int i = 0; i < BRACKET_ATTEMPTS && best >= BRACKET_US; i++) {
		gint64 before = g_get_monotonic_time();
		guint64 reading = read_ticks();
		gint64 after = g_get_monotonic_time();

		if (after - before < best) {
			best = after - before;
			*ticks = reading;
			*mono_us = before + (after - before) / 2;
		}
	}
}

/* How far the trace clock's reading (read_ticks) is from Unix time, in
 * seconds, from the attempt whose Unix time readings around it are the
 * closest (the same bracketing as read_with_monotonic). */
static double
unix_error(const TcTraceClock *clock, uint64_t (*read_ticks)(void))
{
	double best = G_MAXDOUBLE, error = G_MAXDOUBLE;

	for (int i = 0; i < BRACKET_ATTEMPTS && best >= BRACKET_US / 1e6; i++) {
		double before = now_unix();
		double reading = clock_to_unix(clock, read_ticks());
		double after = now_unix();

		if (after - before < best) {
			best = after - before;
			error = fabs(reading - (before + after) / 2);
		}
	}
	return error;
}

/*
 * The trace clock: CLOCK_MONOTONIC when asked for; otherwise the TSC
 * where the kernel's clock source is the TSC, with a frequency that
 * matches the kernel's clock and an offset that makes its readings Unix
 * time.
 */
static void
test_trace_clock(void)
{
	g_autofree char *source = NULL;
	TcTraceClock clock;
	guint64 tsc0, tsc1;
	gint64 t0, t1;

	g_setenv("TRACECTL_TRACE_CLOCK", "monotonic", TRUE);
	tc_trace_clock_init(&clock);
	g_unsetenv("TRACECTL_TRACE_CLOCK");
	g_assert_cmpuint(clock.tsc, ==, 0);
	g_assert_cmpuint(clock.freq, ==, 1000000000);
	g_assert_cmpuint(clock.offset_ticks, <, clock.freq);
	g_assert_cmpfloat(unix_error(&clock, monotonic_ticks), <, 0.01);

	tc_trace_clock_init(&clock);
	g_file_get_contents("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			    &source, NULL, NULL);
#ifdef __x86_64__
	g_assert_cmpuint(clock.tsc, ==, source && g_str_has_prefix(source, "tsc\n"));
#else
	g_assert_cmpuint(clock.tsc, ==, 0);
#endif
	if (!clock.tsc) {
		g_test_message("the kernel's clock source is not the TSC: %s", source);
		return;
	}
	g_assert_cmpuint(clock.offset_ticks, <, clock.freq);
	read_with_monotonic(tc_rb_tsc, &tsc0, &t0);
	g_usleep(100000);
	read_with_monotonic(tc_rb_tsc, &tsc1, &t1);
	/* Within 0.1 %, as measured by this test in 100 ms (each end within
	 * BRACKET_US, a fifth of the tolerance). */
	g_assert_cmpfloat(fabs((double)(tsc1 - tsc0) / (double)(t1 - t0) * 1e6 /
				       (double)clock.freq - 1.0),
			  <, 0.001);
	g_assert_cmpfloat(unix_error(&clock, tc_rb_tsc), <, 0.01);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	rcu_register_thread();
	tc_registry_init();
	g_test_add_func("/tracectl/service/names", test_names);
	g_test_add_func("/tracectl/service/patterns", test_patterns);
	g_test_add_func("/tracectl/service/output-directory", test_output_directory);
	g_test_add_func("/tracectl/service/application-names", test_application_names);
	g_test_add_func("/tracectl/service/kernel-strings", test_kernel_strings);
	g_test_add_func("/tracectl/service/metadata-event", test_metadata_event);
	g_test_add_func("/tracectl/service/metadata-stream-contexts",
			test_metadata_stream_contexts);
	g_test_add_func("/tracectl/service/metadata-header", test_metadata_header);
	g_test_add_func("/tracectl/service/metadata-host-name", test_metadata_host_name);
	g_test_add_func("/tracectl/service/trace-clock", test_trace_clock);
	return g_test_run();
}
