/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public span header in a C++ program: it compiles without warnings
 * (-Wall -Wextra, C++17) and its functions link and behave as in C.
 */
#include <cstdio>
#include <cstring>

#include <tracectl/span.h>

int
main()
{
	tracectl_span root, child;
	tracectl_span_context remote;
	char traceparent[TRACECTL_TRACEPARENT_SIZE];
	int failures = 0;

	tracectl_span_start_root_decided(&root, TRACECTL_SPAN_KIND_SERVER, "cxx", 1);
	tracectl_span_start_child(&child, &root, TRACECTL_SPAN_KIND_CLIENT, "call");
	tracectl_span_set_int(&child, "n", 1);
	tracectl_span_set_double(&child, "x", 0.5);
	tracectl_span_set_string(&child, "s", "v");
	tracectl_span_set_bool(&child, "b", true);
	tracectl_span_annotate(&child, "sent");
	tracectl_span_set_remote_endpoint(&child, "peer", "127.0.0.1:1");
	tracectl_span_set_error(&child, "oops");
	if (tracectl_span_inject(&child, traceparent, nullptr, 0) != 0 ||
	    tracectl_span_extract(&remote, traceparent, "k=v") != 0 ||
	    remote.span_id != child.span_id || std::strcmp(remote.tracestate, "k=v") != 0) {
		std::fprintf(stderr, "FAIL: round trip of %s\n", traceparent);
		failures++;
	}
	tracectl_span_end(&child);
	tracectl_span_end(&root);
	return failures ? 1 : 0;
}
