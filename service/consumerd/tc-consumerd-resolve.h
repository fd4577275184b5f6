/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A host name resolved without holding the consumer's loop. A resolver
 * that does not answer makes getaddrinfo() wait its timeout times its
 * attempts, for each address family (10 s and more by default): the loop
 * would drain no other session meanwhile, and the service, waiting for a
 * reply, would end the consumer. glibc's getaddrinfo_a() runs the lookup
 * on a helper thread of its own, created with every signal blocked; the
 * loop looks at the answer when it has time, waiting at most as long as
 * it chooses.
 */
#ifndef TC_CONSUMERD_RESOLVE_H
#define TC_CONSUMERD_RESOLVE_H

#include <netdb.h>

struct tc_consumerd_lookup;

/* Starts resolving host for TCP; family is AF_INET, AF_INET6 or AF_UNSPEC
 * (either). A numeric address is resolved at once, without the resolver.
 * Returns 0 or -errno. */
int tc_consumerd_resolve_start(const char *host, int family, struct tc_consumerd_lookup **lookup);

/* Waits up to timeout_ms (0: only looks) for the answer. Returns 1 when
 * resolved, 0 while pending, -EHOSTUNREACH when the lookup failed
 * (tc_consumerd_resolve_error() says why). */
int tc_consumerd_resolve_wait(struct tc_consumerd_lookup *lookup, int timeout_ms);

/* Why the lookup failed, as the resolver says it. */
const char *tc_consumerd_resolve_error(const struct tc_consumerd_lookup *lookup);

/* The addresses found (ports 0), NULL until resolved. */
const struct addrinfo *tc_consumerd_resolve_addresses(const struct tc_consumerd_lookup *lookup);

/* Cancels the lookup if pending, and frees it. */
void tc_consumerd_resolve_free(struct tc_consumerd_lookup *lookup);

#endif
