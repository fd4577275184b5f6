/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One request followed across three processes: a client calls a front-end,
 * which calls a back-end, each passing its span context as W3C
 * traceparent/tracestate text over a Unix stream socket.
 *
 *   tracectl-span-trio back-end  SOCKET COUNT
 *   tracectl-span-trio front-end SOCKET BACKEND_SOCKET COUNT
 *   tracectl-span-trio client    FRONTEND_SOCKET COUNT
 *
 * The servers print "ready" once they listen and serve COUNT requests, one
 * connection each. A request is one line "traceparent tracestate item"
 * ("-" for an empty tracestate), the reply one line. With a session that
 * enabled tracectl_span:* the three programs' spans form one tree per
 * request: client "fetch" (client) -> front-end "GET /item" (server) ->
 * "backend call" (client) -> back-end "lookup" (server).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <tracectl/span.h>

#define LINE_MAX_BYTES 1024

static int
unix_address(struct sockaddr_un *address, const char *path)
{
	memset(address, 0, sizeof(*address));
	address->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(address->sun_path))
		return -ENAMETOOLONG;
	strcpy(address->sun_path, path);
	return 0;
}

static int
listen_on(const char *path)
{
	struct sockaddr_un address;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || unix_address(&address, path) < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0 || listen(fd, 16) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
connect_to(const char *path)
{
	struct sockaddr_un address;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || unix_address(&address, path) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads one line (without its newline) into line; -1 on error or EOF. */
static int
read_line(int fd, char *line, size_t size)
{
	size_t used = 0;

	while (used + 1 < size) {
		ssize_t n = read(fd, line + used, 1);

		if (n <= 0)
			return -1;
		if (line[used] == '\n')
			break;
		used++;
	}
	line[used] = '\0';
	return 0;
}

static int
write_all(int fd, const char *text)
{
	size_t length = strlen(text);

	while (length > 0) {
		ssize_t n = write(fd, text, length);

		if (n < 0)
			return -1;
		text += n;
		length -= (size_t)n;
	}
	return 0;
}

/* Sends "traceparent tracestate item" for span and reads the reply. */
static int
call(const char *path, struct tracectl_span *span, const char *item, char *reply,
     size_t reply_size)
{
	char traceparent[TRACECTL_TRACEPARENT_SIZE], tracestate[TRACECTL_TRACESTATE_SIZE];
	char request[LINE_MAX_BYTES];
	int fd, ret;

	tracectl_span_inject(span, traceparent, tracestate, sizeof(tracestate));
	snprintf(request, sizeof(request), "%s %s %s\n", traceparent,
		 *tracestate ? tracestate : "-", item);
	fd = connect_to(path);
	if (fd < 0)
		return -1;
	ret = write_all(fd, request) < 0 ? -1 : read_line(fd, reply, reply_size);
	close(fd);
	return ret;
}

/* Splits a request line; the server span continues the caller's trace. */
static int
start_server_span(struct tracectl_span *span, struct tracectl_span_context *remote,
		  char *line, const char *name, char **item)
{
	char *traceparent = strtok(line, " ");
	char *tracestate = strtok(NULL, " ");

	*item = strtok(NULL, " ");
	if (!traceparent || !tracestate || !*item)
		return -1;
	if (tracectl_span_extract(remote, traceparent,
				  strcmp(tracestate, "-") ? tracestate : NULL) == 0)
		tracectl_span_start_remote(span, remote, TRACECTL_SPAN_KIND_SERVER, name);
	else
		tracectl_span_start_root(span, TRACECTL_SPAN_KIND_SERVER, name);
	return 0;
}

typedef int (*handler_fn)(const char *item, struct tracectl_span *server, const char *peer,
			  char *reply, size_t reply_size);

static int
serve(const char *path, long count, const char *span_name, handler_fn handle, const char *peer)
{
	int listen_fd = listen_on(path);

	if (listen_fd < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (long i = 0; i < count; i++) {
		struct tracectl_span_context remote;
		struct tracectl_span server;
		char line[LINE_MAX_BYTES], reply[LINE_MAX_BYTES];
		char *item;
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return 1;
		if (read_line(fd, line, sizeof(line)) < 0 ||
		    start_server_span(&server, &remote, line, span_name, &item) < 0) {
			close(fd);
			continue;
		}
		tracectl_span_set_string(&server, "item", item);
		if (handle(item, &server, peer, reply, sizeof(reply)) < 0) {
			tracectl_span_set_error(&server, "back-end unreachable");
			snprintf(reply, sizeof(reply), "error");
		}
		/* The span ends before the reply leaves, so that it lies within the
		 * caller's span on a common clock. */
		tracectl_span_end(&server);
		strcat(reply, "\n");
		write_all(fd, reply);
		close(fd);
	}
	close(listen_fd);
	unlink(path);
	return 0;
}

static int
handle_lookup(const char *item, struct tracectl_span *server, const char *peer, char *reply,
	      size_t reply_size)
{
	tracectl_span_annotate(server, "cache miss");
	tracectl_span_set_int(server, "rows", (int64_t)strlen(item));
	snprintf(reply, reply_size, "value-of-%s", item);
	return 0;
}

static int
handle_get(const char *item, struct tracectl_span *server, const char *backend, char *reply,
	   size_t reply_size)
{
	struct tracectl_span backend_call;
	int ret;

	tracectl_span_start_child(&backend_call, server, TRACECTL_SPAN_KIND_CLIENT, "backend call");
	tracectl_span_set_remote_endpoint(&backend_call, "back-end", backend);
	ret = call(backend, &backend_call, item, reply, reply_size);
	if (ret < 0)
		tracectl_span_set_error(&backend_call, "connection failed");
	tracectl_span_end(&backend_call);
	return ret;
}

static int
run_client(const char *frontend, long count)
{
	int failures = 0;

	for (long i = 0; i < count; i++) {
		struct tracectl_span fetch;
		char item[32], reply[LINE_MAX_BYTES];

		snprintf(item, sizeof(item), "item%ld", i);
		tracectl_span_start_root(&fetch, TRACECTL_SPAN_KIND_CLIENT, "fetch");
		tracectl_span_set_string(&fetch, "item", item);
		tracectl_span_set_bool(&fetch, "retry", 0);
		if (call(frontend, &fetch, item, reply, sizeof(reply)) < 0) {
			tracectl_span_set_error(&fetch, "front-end unreachable");
			failures++;
		} else {
			tracectl_span_annotate(&fetch, "reply received");
			printf("%s\n", reply);
		}
		tracectl_span_end(&fetch);
	}
	return failures ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "back-end") == 0) {
		tracectl_span_set_endpoint("back-end", argv[2]);
		return serve(argv[2], atol(argv[3]), "lookup", handle_lookup, NULL);
	}
	if (argc == 5 && strcmp(argv[1], "front-end") == 0) {
		tracectl_span_set_endpoint("front-end", argv[2]);
		return serve(argv[2], atol(argv[4]), "GET /item", handle_get, argv[3]);
	}
	if (argc == 4 && strcmp(argv[1], "client") == 0) {
		tracectl_span_set_endpoint("client", NULL);
		return run_client(argv[2], atol(argv[3]));
	}
	fprintf(stderr,
		"usage: %s back-end SOCKET COUNT | front-end SOCKET BACKEND COUNT | client FRONTEND COUNT\n",
		argv[0]);
	return 2;
}
