/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user's own session files (TC_CONSUMER_SESSION_FILES in
 * common/abi/tc-consumer-abi.h), read with the consumer's rights, which
 * are its user's: the service, which may read no home, gets their bytes.
 */
#ifndef TC_CONSUMERD_SESSION_FILES_H
#define TC_CONSUMERD_SESSION_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "tc-consumer-abi.h"

/*
 * Walks from msg->home to its TC_CONSUMER_SESSION_FILES_DIR and sends
 * one TC_CONSUMER_SESSION_FILE answer per listed file on fd, as the ABI
 * says; the caller sends the reply. msg's fields are checked here.
 *
 * Returns 0 (also when a component does not exist: no file then), or
 * -errno with reason (reason_size bytes) set for the reply: -EACCES,
 * -ELOOP, -ENOTDIR or -EPERM when a component is refused, -EINVAL for a
 * bad request. *socket_broken
 * is set when sending failed: the service is gone.
 */
int tc_consumerd_session_files_send(int fd, const struct tc_consumer_session_files *msg,
				    char *reason, size_t reason_size, bool *socket_broken);

#endif /* TC_CONSUMERD_SESSION_FILES_H */
