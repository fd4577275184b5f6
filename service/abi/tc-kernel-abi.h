/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol between tracectld and tracectl-kernel-helper, the only code
 * of tracectl that runs as root and the only one that touches tracefs.
 *
 * AF_UNIX SOCK_SEQPACKET: /run/tracectl/kernel-helper.sock on a systemd
 * machine (socket-activated, so the helper runs only while needed), or a
 * socket pair (descriptor 3 of the helper) when tracectld starts it
 * itself. The helper serves only peers whose uid (SO_PEERCRED) is root or
 * the tracectl service account. Requests are answered in order, one reply
 * each; every size and name is checked, a malformed request gets
 * -EINVAL and the connection goes on.
 */
#ifndef TC_KERNEL_ABI_H
#define TC_KERNEL_ABI_H

#include <stdint.h>
#include <assert.h>

#define TC_KERNEL_MAGIC 0x54434b31u /* "TCK1" */
#define TC_KERNEL_VERSION 1u
#define TC_KERNEL_COMMAND_FD 3
#define TC_KERNEL_SOCKET_NAME "kernel-helper.sock"
/* Every tracefs instance the helper creates is named with this prefix and
 * the session id, so leftovers of a crash are found and removed. */
#define TC_KERNEL_INSTANCE_PREFIX "tracectl-"

enum tc_kernel_msg_type {
	TC_KERNEL_PING = 1,            /* -> reply.value = TC_KERNEL_VERSION */
	TC_KERNEL_INSTANCE_CREATE = 2, /* session_id -> creates the instance */
	TC_KERNEL_INSTANCE_REMOVE = 3, /* session_id -> removes it */
	TC_KERNEL_REPLY = 16,
};

struct tc_kernel_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t size; /* sizeof(struct tc_kernel_msg) */
	uint32_t seq;
	uint64_t session_id;
	int32_t status; /* replies: 0 or -errno */
	uint32_t value; /* replies: PING's version */
};

static_assert(sizeof(struct tc_kernel_msg) == 32, "ABI size changed");

#endif /* TC_KERNEL_ABI_H */
