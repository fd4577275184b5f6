/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workload of the span tests:
 *
 *   tracectl-span-app tree       one sampled request: a server root with an
 *                                attribute of each type and an annotation,
 *                                an internal child that fails, a client
 *                                grandchild with a remote endpoint
 *   tracectl-span-app roots N    N roots through the sampler, each with
 *                                one child and one attribute
 *   tracectl-span-app unsampled  a root the application chose not to
 *                                sample, with a child, attributes and ends
 *   tracectl-span-app unfinished a root whose child ends, then "ready" and
 *                                a wait for the signal that kills it
 *   tracectl-span-app remote TRACEPARENT TRACESTATE LINK_TRACEPARENT LINK_TRACESTATE
 *                                a server span continuing that remote
 *                                context, with a local child; both carry
 *                                the remote tracestate; the server links
 *                                to the second context with its
 *                                tracestate, the child to it without
 *
 * It prints what it did, one JSON object a line, for the test to compare
 * with the trace: {"span": id, "trace": "hex", "parent": id, ...} for each
 * sampled span it started (ids in decimal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracectl/span.h>

static void
print_span(const struct tracectl_span *span, const char *name)
{
	printf("{\"span\": %llu, \"trace\": \"%016llx%016llx\", \"parent\": %llu, "
	       "\"kind\": %u, \"name\": \"%s\"}\n",
	       (unsigned long long)span->span_id, (unsigned long long)span->trace_id_hi,
	       (unsigned long long)span->trace_id_lo, (unsigned long long)span->parent_span_id,
	       span->kind, name);
}

static void
tree(void)
{
	struct tracectl_span root, work, call;

	tracectl_span_set_endpoint("span-app", "127.0.0.1:7000");
	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "GET /items", 1);
	tracectl_span_set_int(&root, "http.status_code", -200);
	tracectl_span_set_double(&root, "load", 0.75);
	tracectl_span_set_string(&root, "http.route", "/items");
	tracectl_span_set_bool(&root, "cache.hit", 1);
	tracectl_span_annotate(&root, "request parsed");

	tracectl_span_start_child(&work, &root, TRACECTL_SPAN_KIND_INTERNAL, "compute");
	tracectl_span_set_error(&work, "division by zero");

	tracectl_span_start_child(&call, &work, TRACECTL_SPAN_KIND_CLIENT, "lookup");
	tracectl_span_set_remote_endpoint(&call, "back-end", "10.0.0.2:9000");
	tracectl_span_end(&call);
	tracectl_span_end(&work);
	tracectl_span_end(&root);
	print_span(&root, "GET /items");
	print_span(&work, "compute");
	print_span(&call, "lookup");
}

static void
roots(unsigned long count)
{
	for (unsigned long i = 0; i < count; i++) {
		struct tracectl_span root, child;

		tracectl_span_start_root(&root, TRACECTL_SPAN_KIND_SERVER, "root");
		tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_CLIENT, "child");
		tracectl_span_set_int(&child, "i", (int64_t)i);
		tracectl_span_end(&child);
		tracectl_span_end(&root);
		if (tracectl_span_is_sampled(&root)) {
			print_span(&root, "root");
			print_span(&child, "child");
		}
	}
}

static void
unsampled(void)
{
	struct tracectl_span root, child;
	char traceparent[TRACECTL_TRACEPARENT_SIZE];

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "unsampled", 0);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_CLIENT, "child");
	tracectl_span_set_int(&child, "n", 1);
	tracectl_span_set_string(&child, "s", "x");
	tracectl_span_annotate(&child, "nothing");
	tracectl_span_set_error(&child, "nothing");
	tracectl_span_inject(&child, traceparent, NULL, 0);
	tracectl_span_end(&child);
	tracectl_span_end(&root);
}

static void
unfinished(void)
{
	struct tracectl_span root, child;

	tracectl_span_set_endpoint("doomed", NULL);
	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "never ends", 1);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_INTERNAL, "ends");
	tracectl_span_annotate(&child, "last words");
	tracectl_span_end(&child);
	print_span(&root, "never ends");
	print_span(&child, "ends");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int
remote(char **args)
{
	struct tracectl_span_context context, linked, linked_bare;
	struct tracectl_span server, work;

	tracectl_span_set_endpoint("span-app", NULL);
	if (tracectl_span_extract(&context, args[0], args[1]) < 0 ||
	    tracectl_span_extract(&linked, args[2], args[3]) < 0 ||
	    tracectl_span_extract(&linked_bare, args[2], NULL) < 0) {
		fprintf(stderr, "invalid traceparent '%s' or '%s'\n", args[0], args[2]);
		return 1;
	}
	tracectl_span_start_remote(&server, &context, TRACECTL_SPAN_KIND_SERVER, "GET /remote");
	tracectl_span_link(&server, &linked);
	tracectl_span_start_child(&work, &server, TRACECTL_SPAN_KIND_INTERNAL, "remote work");
	tracectl_span_link(&work, &linked_bare);
	tracectl_span_end(&work);
	tracectl_span_end(&server);
	print_span(&server, "GET /remote");
	print_span(&work, "remote work");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "tree") == 0)
		tree();
	else if (argc == 3 && strcmp(argv[1], "roots") == 0)
		roots(strtoul(argv[2], NULL, 10));
	else if (argc == 2 && strcmp(argv[1], "unsampled") == 0)
		unsampled();
	else if (argc == 2 && strcmp(argv[1], "unfinished") == 0)
		unfinished();
	else if (argc == 6 && strcmp(argv[1], "remote") == 0)
		return remote(argv + 2);
	else {
		fprintf(stderr,
			"usage: %s tree | roots N | unsampled | unfinished | remote TRACEPARENT "
			"TRACESTATE LINK_TRACEPARENT LINK_TRACESTATE\n",
			argv[0]);
		return 2;
	}
	return 0;
}
