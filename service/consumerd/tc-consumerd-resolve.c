/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-resolve.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct tc_consumerd_lookup {
	/* Read and written by glibc's helper thread until the lookup is
	 * done or cancelled, with hints and host it points to. */
	struct gaicb request;
	struct addrinfo hints;
	struct addrinfo *numeric; /* a numeric host's, resolved at once */
	int status;		  /* 0 resolved, EAI_INPROGRESS pending, else the failure */
	char host[];
};

int
tc_consumerd_resolve_start(const char *host, int family, struct tc_consumerd_lookup **result)
{
	size_t len = strlen(host);
	struct tc_consumerd_lookup *lookup = calloc(1, sizeof(*lookup) + len + 1);
	struct gaicb *list[1];
	int ret;

	if (!lookup)
		return -ENOMEM;
	memcpy(lookup->host, host, len + 1);
	lookup->hints = (struct addrinfo){
	    .ai_flags = AI_NUMERICHOST, .ai_family = family, .ai_socktype = SOCK_STREAM};
	if (getaddrinfo(host, NULL, &lookup->hints, &lookup->numeric) == 0 && lookup->numeric) {
		*result = lookup;
		return 0;
	}
	lookup->hints.ai_flags = 0;
	lookup->request.ar_name = lookup->host;
	lookup->request.ar_request = &lookup->hints;
	lookup->status = EAI_INPROGRESS;
	list[0] = &lookup->request;
	ret = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);
	if (ret != 0) {
		ret = ret == EAI_MEMORY ? -ENOMEM : ret == EAI_SYSTEM ? -errno : -EAGAIN;
		free(lookup);
		return ret;
	}
	*result = lookup;
	return 0;
}

static uint64_t
monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits for the helper thread's answer until deadline_ms (monotonic),
 * through the signals that interrupt gai_suspend(). */
static void
suspend_until(struct tc_consumerd_lookup *lookup, uint64_t deadline_ms)
{
	const struct gaicb *list[1] = {&lookup->request};
	uint64_t now;

	while (gai_error(&lookup->request) == EAI_INPROGRESS &&
	       (now = monotonic_ms()) < deadline_ms) {
		uint64_t left = deadline_ms - now;
		struct timespec ts = {.tv_sec = (time_t)(left / 1000u),
				      .tv_nsec = (long)(left % 1000u) * 1000000L};

		gai_suspend(list, 1, &ts);
	}
}

int
tc_consumerd_resolve_wait(struct tc_consumerd_lookup *lookup, int timeout_ms)
{
	if (lookup->status == EAI_INPROGRESS) {
		if (timeout_ms > 0)
			suspend_until(lookup, monotonic_ms() + (uint64_t)timeout_ms);
		lookup->status = gai_error(&lookup->request);
		if (lookup->status == 0 && !lookup->request.ar_result)
			lookup->status = EAI_NONAME;
	}
	if (lookup->status == EAI_INPROGRESS)
		return 0;
	return lookup->status == 0 ? 1 : -EHOSTUNREACH;
}

const char *
tc_consumerd_resolve_error(const struct tc_consumerd_lookup *lookup)
{
	if (lookup->status == EAI_INPROGRESS)
		return "no answer yet";
	return gai_strerror(lookup->status);
}

const struct addrinfo *
tc_consumerd_resolve_addresses(const struct tc_consumerd_lookup *lookup)
{
	if (lookup->numeric)
		return lookup->numeric;
	return lookup->status == 0 ? lookup->request.ar_result : NULL;
}

void
tc_consumerd_resolve_free(struct tc_consumerd_lookup *lookup)
{
	if (!lookup)
		return;
	if (lookup->numeric) {
		freeaddrinfo(lookup->numeric);
	} else if (gai_cancel(&lookup->request) == EAI_NOTCANCELED) {
		/* The helper thread is inside the lookup and writes into the
		 * request when it ends: left to it, deliberately leaked (one
		 * small block per relay closed while its resolver hangs),
		 * since waiting for it is what this file avoids. */
		return;
	} else if (gai_error(&lookup->request) == 0 && lookup->request.ar_result) {
		freeaddrinfo(lookup->request.ar_result);
	}
	free(lookup);
}
