/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtracectl-span without a service: W3C Trace Context text against the
 * specification's rules (valid and invalid traceparent and tracestate
 * headers), the sampler's rates, id generation (no zero, no repeat, none
 * shared with a forked child), the sampling decision and the remote
 * tracestate carried to children.
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracectl/span.h>

#define TRACE_ID "4bf92f3577b34da6a3ce929d0e0e4736"
#define PARENT_ID "00f067aa0ba902b7"

static void
expect_valid(const char *header, uint64_t hi, uint64_t lo, uint64_t parent, uint8_t flags)
{
	struct tracectl_span_context remote;

	g_test_message("valid: '%s'", header);
	g_assert_cmpint(tracectl_span_extract(&remote, header, NULL), ==, 0);
	g_assert_cmphex(remote.trace_id_hi, ==, hi);
	g_assert_cmphex(remote.trace_id_lo, ==, lo);
	g_assert_cmphex(remote.span_id, ==, parent);
	g_assert_cmpuint(remote.flags, ==, flags);
}

static void
expect_invalid(const char *header)
{
	struct tracectl_span_context remote;

	g_test_message("invalid: '%s'", header ? header : "(null)");
	g_assert_cmpint(tracectl_span_extract(&remote, header, "a=b"), ==, -EINVAL);
	g_assert_cmphex(remote.trace_id_hi | remote.trace_id_lo | remote.span_id, ==, 0);
	g_assert_cmpstr(remote.tracestate, ==, "");
}

static void
test_traceparent_valid(void)
{
	const uint64_t hi = 0x4bf92f3577b34da6, lo = 0xa3ce929d0e0e4736, parent = 0x00f067aa0ba902b7;

	expect_valid("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		     0x0af7651916cd43dd, 0x8448eb211c80319c, 0xb7ad6b7169203331, 1);
	expect_valid("00-" TRACE_ID "-" PARENT_ID "-01", hi, lo, parent, 1);
	expect_valid("00-" TRACE_ID "-" PARENT_ID "-00", hi, lo, parent, 0);
	/* Unknown flags are ignored, the sampled bit is kept. */
	expect_valid("00-" TRACE_ID "-" PARENT_ID "-09", hi, lo, parent, 1);
	expect_valid("00-" TRACE_ID "-" PARENT_ID "-fe", hi, lo, parent, 0);
	/* A later version is read as version 00 as far as it goes. */
	expect_valid("01-" TRACE_ID "-" PARENT_ID "-01", hi, lo, parent, 1);
	expect_valid("cc-" TRACE_ID "-" PARENT_ID "-01-what-the-future-will-be-like", hi, lo,
		     parent, 1);
	/* Optional white space around a header value. */
	expect_valid(" \t00-" TRACE_ID "-" PARENT_ID "-01\t ", hi, lo, parent, 1);
	expect_valid("00-00000000000000000000000000000001-0000000000000001-01", 0, 1, 1, 1);
}

static void
test_traceparent_invalid(void)
{
	expect_invalid(NULL);
	expect_invalid("");
	expect_invalid("00");
	/* Version ff is forbidden; versions are hex. */
	expect_invalid("ff-" TRACE_ID "-" PARENT_ID "-01");
	expect_invalid("0g-" TRACE_ID "-" PARENT_ID "-01");
	expect_invalid("0-" TRACE_ID "-" PARENT_ID "-01");
	/* Version 00 is exactly 55 characters. */
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-01-");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-01-extra");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-1");
	/* A later version continues only after a dash. */
	expect_invalid("cc-" TRACE_ID "-" PARENT_ID "-01.what-the-future-will-be-like");
	expect_invalid("cc-" TRACE_ID "-" PARENT_ID "-0");
	/* Lower-case hex only. */
	expect_invalid("00-4BF92F3577B34DA6A3CE929D0E0E4736-" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "-00F067AA0BA902B7-01");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-0A");
	expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e473g-" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "-00f067aa0ba902bz-01");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-zz");
	/* All-zero ids. */
	expect_invalid("00-00000000000000000000000000000000-" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "-0000000000000000-01");
	/* Wrong lengths and delimiters. */
	expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e473-" PARENT_ID "-01");
	expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e47366-" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "-00f067aa0ba902b-01");
	expect_invalid("00-" TRACE_ID "-00f067aa0ba902b77-01");
	expect_invalid("00_" TRACE_ID "-" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "_" PARENT_ID "-01");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "_01");
	expect_invalid("00 " TRACE_ID " " PARENT_ID " 01");
	expect_invalid("00-" TRACE_ID "-" PARENT_ID "-01\n");
}

static char *
extracted_tracestate(const char *tracestate)
{
	struct tracectl_span_context remote;

	g_assert_cmpint(tracectl_span_extract(&remote, "00-" TRACE_ID "-" PARENT_ID "-01",
					      tracestate), ==, 0);
	g_assert_cmphex(remote.span_id, ==, 0x00f067aa0ba902b7);
	return g_strdup(remote.tracestate);
}

static void
expect_tracestate(const char *in, const char *out)
{
	g_autofree char *got = extracted_tracestate(in);

	g_test_message("tracestate '%s'", in);
	g_assert_cmpstr(got, ==, out);
}

static char *
members(unsigned int count, unsigned int value_length)
{
	GString *text = g_string_new(NULL);

	for (unsigned int i = 0; i < count; i++) {
		g_string_append_printf(text, "%sk%u=", i ? "," : "", i);
		for (unsigned int j = 0; j < value_length; j++)
			g_string_append_c(text, 'v');
	}
	return g_string_free(text, FALSE);
}

static void
test_tracestate(void)
{
	g_autofree char *max_members = members(32, 4);
	g_autofree char *too_many = members(33, 4);
	g_autofree char *too_long = members(32, 30);
	g_autofree char *key256 = g_strnfill(256, 'k');
	g_autofree char *key257 = g_strnfill(257, 'k');
	g_autofree char *value256 = g_strnfill(256, 'v');
	g_autofree char *value257 = g_strnfill(257, 'v');
	g_autofree char *long_key = g_strdup_printf("%s=1", key256);
	g_autofree char *longer_key = g_strdup_printf("%s=1", key257);
	g_autofree char *long_value = g_strdup_printf("a=%s", value256);
	g_autofree char *longer_value = g_strdup_printf("a=%s", value257);
	g_autofree char *truncated = NULL;

	expect_tracestate(NULL, "");
	expect_tracestate("", "");
	expect_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
			  "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
	expect_tracestate(" rojo=1 ,\tcongo=2 ", "rojo=1,congo=2");
	expect_tracestate("rojo=1,,congo=2, ,", "rojo=1,congo=2");
	expect_tracestate("foo@bar=1,1tenant@sys=2", "foo@bar=1,1tenant@sys=2");
	expect_tracestate("a_-*/9=x y!~", "a_-*/9=x y!~");
	expect_tracestate(max_members, max_members);
	expect_tracestate(long_key, long_key);
	expect_tracestate(long_value, long_value);
	/* Invalid: the whole tracestate goes, the traceparent stays. */
	expect_tracestate(too_many, "");
	expect_tracestate(longer_key, "");
	expect_tracestate(longer_value, "");
	expect_tracestate("Rojo=1", "");
	expect_tracestate("1rojo=1", "");
	expect_tracestate("foo@1bar=1", "");
	expect_tracestate("foo@barbarbarbarbar=1", "");
	expect_tracestate("a@b@c=1", "");
	expect_tracestate("rojo=1,rojo=2", "");
	expect_tracestate("rojo", "");
	expect_tracestate("rojo=", "");
	expect_tracestate("a=b=c", "");
	expect_tracestate("a=b\x01", "");
	expect_tracestate("a=\xc3\xa9", "");
	/* Longer than 512: members dropped from the end, whole. */
	truncated = extracted_tracestate(too_long);
	g_assert_cmpuint(strlen(truncated), <=, 512);
	g_assert_true(g_str_has_prefix(too_long, truncated));
	g_assert_true(too_long[strlen(truncated)] == ',');
	g_assert_cmpuint(strlen(truncated), >, 512 - 36);
}

static void
test_inject_extract(void)
{
	struct tracectl_span root, child, again;
	struct tracectl_span_context remote;
	char traceparent[TRACECTL_TRACEPARENT_SIZE], first[TRACECTL_TRACEPARENT_SIZE];
	char tracestate[TRACECTL_TRACESTATE_SIZE], small[4];

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "root", 1);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_CLIENT, "child");
	g_assert_cmpint(tracectl_span_inject(&child, traceparent, tracestate, sizeof(tracestate)),
			==, 0);
	g_assert_cmpuint(strlen(traceparent), ==, 55);
	g_assert_cmpstr(tracestate, ==, "");
	g_assert_cmpint(tracectl_span_extract(&remote, traceparent, "vendor=x"), ==, 0);
	g_assert_cmphex(remote.trace_id_hi, ==, root.trace_id_hi);
	g_assert_cmphex(remote.trace_id_lo, ==, root.trace_id_lo);
	g_assert_cmphex(remote.span_id, ==, child.span_id);
	g_assert_cmpuint(remote.flags, ==, TRACECTL_SPAN_FLAG_SAMPLED);

	/* The next hop: same trace, the remote span as parent, tracestate on. */
	tracectl_span_start_remote(&again, &remote, TRACECTL_SPAN_KIND_SERVER, "server");
	g_assert_true(tracectl_span_is_sampled(&again));
	g_assert_cmphex(again.trace_id_lo, ==, root.trace_id_lo);
	g_assert_cmphex(again.parent_span_id, ==, child.span_id);
	g_assert_cmphex(again.span_id, !=, child.span_id);
	g_assert_cmpint(tracectl_span_inject(&again, traceparent, tracestate, sizeof(tracestate)),
			==, 0);
	g_assert_cmpstr(tracestate, ==, "vendor=x");
	g_assert_cmpint(tracectl_span_inject(&again, traceparent, small, sizeof(small)), ==,
			-ENOSPC);
	g_assert_cmpstr(small, ==, "");

	/* Unsampled: flags 00, valid ids drawn once and kept. */
	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "root", 0);
	g_assert_false(tracectl_span_is_sampled(&root));
	g_assert_cmpint(tracectl_span_inject(&root, first, NULL, 0), ==, 0);
	g_assert_true(g_str_has_suffix(first, "-00"));
	g_assert_cmpint(tracectl_span_extract(&remote, first, NULL), ==, 0);
	g_assert_cmpint(tracectl_span_inject(&root, traceparent, NULL, 0), ==, 0);
	g_assert_cmpstr(traceparent, ==, first);
	tracectl_span_start_remote(&again, &remote, TRACECTL_SPAN_KIND_SERVER, "server");
	g_assert_false(tracectl_span_is_sampled(&again));
}

static void
test_children_follow(void)
{
	struct tracectl_span root, child, grandchild;

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "root", 1);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_INTERNAL, "child");
	tracectl_span_start_child(&grandchild, &child, TRACECTL_SPAN_KIND_CLIENT, "grandchild");
	g_assert_true(tracectl_span_is_sampled(&grandchild));
	g_assert_cmphex(grandchild.trace_id_hi, ==, root.trace_id_hi);
	g_assert_cmphex(grandchild.parent_span_id, ==, child.span_id);
	g_assert_cmphex(child.parent_span_id, ==, root.span_id);
	g_assert_cmpuint(root.parent_span_id, ==, 0);
	g_assert_cmpuint(grandchild.kind, ==, TRACECTL_SPAN_KIND_CLIENT);
	tracectl_span_set_error(&grandchild, "failed");
	g_assert_cmpuint(grandchild.status, ==, TRACECTL_SPAN_STATUS_ERROR);
	tracectl_span_end(&grandchild);

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "root", 0);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_INTERNAL, "child");
	g_assert_false(tracectl_span_is_sampled(&child));
}

/* The tracestate a span continues, which its start records: the remote
 * parent's, borrowed by every local descendant; none for a root's tree. */
static void
test_tracestate_carried(void)
{
	struct tracectl_span_context remote;
	struct tracectl_span server, child, grandchild, root, root_child;

	g_assert_cmpint(tracectl_span_extract(&remote, "00-" TRACE_ID "-" PARENT_ID "-01",
					      "hv=1,other=x"),
			==, 0);
	tracectl_span_start_remote(&server, &remote, TRACECTL_SPAN_KIND_SERVER, "server");
	tracectl_span_start_child(&child, &server, TRACECTL_SPAN_KIND_INTERNAL, "child");
	tracectl_span_start_child(&grandchild, &child, TRACECTL_SPAN_KIND_CLIENT, "grandchild");
	g_assert_true(server.tracestate == remote.tracestate);
	g_assert_true(child.tracestate == remote.tracestate);
	g_assert_true(grandchild.tracestate == remote.tracestate);
	g_assert_cmpstr(grandchild.tracestate, ==, "hv=1,other=x");
	tracectl_span_end(&grandchild);
	tracectl_span_end(&child);
	tracectl_span_end(&server);

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "root", 1);
	tracectl_span_start_child(&root_child, &root, TRACECTL_SPAN_KIND_CLIENT, "child");
	g_assert_null(root.tracestate);
	g_assert_null(root_child.tracestate);
	tracectl_span_end(&root_child);
	tracectl_span_end(&root);
}

static void
test_sampler_spec(void)
{
	const char *valid[] = { "1/1", "1/10", "1/1000000", "100/s", "0.5/s", "1/s", "1e3/s" };
	const char *invalid[] = { "", "1", "1/0", "1/-3", "2/10", "1/x", "1/10x", "-5/s",
				  "0/s", "inf/s", "nan/s", "x/s", "5/m", "5/s ", " 1/10" };

	for (size_t i = 0; i < G_N_ELEMENTS(valid); i++)
		g_assert_cmpint(tracectl_span_sampler_configure(valid[i]), ==, 0);
	for (size_t i = 0; i < G_N_ELEMENTS(invalid); i++) {
		g_test_message("sampler '%s'", invalid[i]);
		g_assert_cmpint(tracectl_span_sampler_configure(invalid[i]), ==, -EINVAL);
	}
	g_assert_cmpint(tracectl_span_sampler_configure(NULL), ==, -EINVAL);
}

static unsigned int
sampled_roots(unsigned int count)
{
	unsigned int sampled = 0;

	for (unsigned int i = 0; i < count; i++) {
		struct tracectl_span span;

		tracectl_span_start_root(&span, TRACECTL_SPAN_KIND_SERVER, "root");
		sampled += tracectl_span_is_sampled(&span);
	}
	return sampled;
}

static void
test_sampler_probability(void)
{
	const unsigned int n = 100000;
	/* Five standard deviations of the binomial: fails once in ~2 million runs. */
	const double bound = 5 * sqrt(n * 0.1 * 0.9);
	unsigned int sampled;

	g_assert_cmpint(tracectl_span_sampler_configure("1/10"), ==, 0);
	sampled = sampled_roots(n);
	g_test_message("1/10: %u of %u", sampled, n);
	g_assert_cmpfloat(fabs(sampled - n * 0.1), <=, bound);
	g_assert_cmpint(tracectl_span_sampler_configure("1/1"), ==, 0);
	g_assert_cmpuint(sampled_roots(1000), ==, 1000);
	g_assert_cmpint(tracectl_span_sampler_configure("1/1000000000000"), ==, 0);
	g_assert_cmpuint(sampled_roots(1000), ==, 0);
	tracectl_span_sampler_configure("1/1");
}

static gint64
thread_cpu_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return (gint64)now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

static void
test_sampler_rate(void)
{
	gint64 start, elapsed, cpu_start, ran;
	unsigned int sampled = 0;

	g_assert_cmpint(tracectl_span_sampler_configure("1000/s"), ==, 0);
	start = g_get_monotonic_time();
	cpu_start = thread_cpu_us();
	while (g_get_monotonic_time() - start < 300000)
		sampled += sampled_roots(100);
	elapsed = g_get_monotonic_time() - start;
	ran = thread_cpu_us() - cpu_start;
	g_test_message("1000/s: %u in %" G_GINT64_FORMAT " us, %" G_GINT64_FORMAT " us on a CPU",
		       sampled, elapsed, ran);
	/* One per ms, the first at once. The sampler does not catch up on the
	 * milliseconds the thread spent waiting for a CPU (a loaded machine),
	 * so the floor counts those it ran, less a few missed at the edges. */
	g_assert_cmpuint(sampled, <=, elapsed / 1000 + 1);
	g_assert_cmpuint(sampled, >=, ran / 1000 * 7 / 10);
	tracectl_span_sampler_configure("1/1");
}

static int
compare_ids(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_ids(void)
{
	const size_t n = 1000000;
	g_autofree uint64_t *ids = g_new(uint64_t, 2 * n);

	for (size_t i = 0; i < n; i++) {
		struct tracectl_span span;

		tracectl_span_start_root_decided(&span, TRACECTL_SPAN_KIND_INTERNAL, "id", 1);
		g_assert_cmphex(span.span_id, !=, 0);
		g_assert_cmphex(span.trace_id_hi | span.trace_id_lo, !=, 0);
		ids[2 * i] = span.span_id;
		ids[2 * i + 1] = span.trace_id_lo;
	}
	qsort(ids, 2 * n, sizeof(*ids), compare_ids);
	for (size_t i = 1; i < 2 * n; i++)
		g_assert_cmphex(ids[i], !=, ids[i - 1]);
}

static uint64_t
next_span_id(void)
{
	struct tracectl_span span;

	tracectl_span_start_root_decided(&span, TRACECTL_SPAN_KIND_INTERNAL, "id", 1);
	return span.span_id;
}

/* A forked child shares its parent's memory, generator state included: it
 * must draw from a new seed. */
static void
test_ids_after_fork(void)
{
	int fds[2];
	uint64_t child_id = 0, parent_id;
	pid_t pid;
	int status;

	next_span_id();
	g_assert_cmpint(pipe(fds), ==, 0);
	pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		uint64_t id = next_span_id();

		_exit(write(fds[1], &id, sizeof(id)) == sizeof(id) ? 0 : 1);
	}
	parent_id = next_span_id();
	g_assert_cmpint(read(fds[0], &child_id, sizeof(child_id)), ==, sizeof(child_id));
	g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
	g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	g_assert_cmphex(child_id, !=, parent_id);
	close(fds[0]);
	close(fds[1]);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/span/traceparent-valid", test_traceparent_valid);
	g_test_add_func("/tracectl/span/traceparent-invalid", test_traceparent_invalid);
	g_test_add_func("/tracectl/span/tracestate", test_tracestate);
	g_test_add_func("/tracectl/span/inject-extract", test_inject_extract);
	g_test_add_func("/tracectl/span/children-follow", test_children_follow);
	g_test_add_func("/tracectl/span/tracestate-carried", test_tracestate_carried);
	g_test_add_func("/tracectl/span/sampler-spec", test_sampler_spec);
	g_test_add_func("/tracectl/span/sampler-probability", test_sampler_probability);
	g_test_add_func("/tracectl/span/sampler-rate", test_sampler_rate);
	g_test_add_func("/tracectl/span/ids", test_ids);
	g_test_add_func("/tracectl/span/ids-after-fork", test_ids_after_fork);
	return g_test_run();
}
