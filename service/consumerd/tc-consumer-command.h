/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The service's requests (common/abi/tc-consumer-abi.h): receiving,
 * checking, dispatching and answering them.
 */
#ifndef TC_CONSUMER_COMMAND_H
#define TC_CONSUMER_COMMAND_H

#include "tc-consumer-session.h"

/*
 * Receives one request on the command socket fd, checks every field of it,
 * does the work and answers with the TC_CONSUMER_STREAM messages it calls
 * for and exactly one TC_CONSUMER_REPLY (status 0 or -errno, and a message
 * for a person on failure). A malformed request only gets an error reply.
 *
 * Returns 0 when a request was served (whatever its status), -EAGAIN when
 * nothing was there to read, or -EPIPE when the socket is closed or broken:
 * the caller then writes out everything and exits.
 */
int consumerd_command_handle(int fd, struct consumerd_registry *registry);

#endif /* TC_CONSUMER_COMMAND_H */
