/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An SSH tunnel to a relay (net+ssh://, TC_CONSUMER_RELAY_SSH): the
 * owner's ssh, run by the consumer, which runs as the owner, so that the
 * owner's configuration, known hosts and keys decide everything SSH does:
 *
 *   ssh -N -o ExitOnForwardFailure=yes -o BatchMode=yes
 *       -o ControlMaster=no -o ControlPath=none -o ForkAfterAuthentication=no
 *       -o ClearAllForwardings=no
 *       -L DIR/control:127.0.0.1:CTRL -L DIR/data:127.0.0.1:DATA
 *       [-p PORT] [-l USER] -- HOST
 *
 * With prefer_aes_gcm (the caller's choice where the CPU has AES
 * instructions, tc-consumerd-cpu.h), "-F DIR/config" comes before the
 * forwards: a file that includes the owner's ~/.ssh/config and
 * /etc/ssh/ssh_config, then sets "Ciphers ^aes128-gcm@openssh.com" for
 * every host. ssh keeps the first value it reads of an option, so
 * AES-GCM only comes first for a host whose configuration sets no
 * Ciphers; there, it costs ssh and sshd about half the CPU time of
 * OpenSSH's default, chacha20-poly1305. (Unlike without -F, a relative
 * Include in the system's file is taken from ~/.ssh.)
 *
 * The options given are only those the consumer needs to own the tunnel:
 * no prompt (it has no terminal), no tunnel without both forwards, no
 * connection shared with other ssh processes nor one that forks away
 * from the consumer, and no configuration that would drop the forwards.
 * Host key checking, keys, ciphers (when it sets them), proxies, and the
 * login and port when the URL gives none, stay the owner's ssh
 * configuration.
 *
 * DIR is a directory of the consumer's own, made by mkdtemp() (mode
 * 0700) under /tmp, where ssh binds the sockets with its
 * StreamLocalBindMask (0177 by default): no other local user can connect
 * to the tunnel's local end, which a TCP port on the loopback would let
 * anyone do. The far end connects to 127.0.0.1 of the SSH server, where
 * lttng-relayd listens on its loopback only.
 *
 * The ssh process is the consumer's: PR_SET_PDEATHSIG(SIGKILL) kills it
 * when the thread that started it ends, the session's thread, which
 * lives as long as the session, and with the consumer however it ends; a
 * pidfd tells its exit without SIGCHLD and signals it without racing
 * with the reuse of its pid. Its standard error is a non-blocking pipe:
 * what it writes is read at each look, only the last line kept (at most
 * CONSUMERD_TUNNEL_LINE_MAX bytes), and a write the pipe has no room for
 * is dropped by ssh, never waited for.
 *
 * Nothing here waits for ssh, but tc_consumerd_tunnel_reason() (20 ms)
 * and tc_consumerd_tunnel_stop() (100 ms at most for ssh to end on
 * SIGTERM): a relay's session thread looks at the tunnel at its ticks. Every function runs on the thread of the
 * tunnel's session.
 */
#ifndef TC_CONSUMERD_TUNNEL_H
#define TC_CONSUMERD_TUNNEL_H

#include <stdbool.h>
#include <stdint.h>

#define CONSUMERD_TUNNEL_LINE_MAX 200u
/* Room for a reason: "ssh: " and a line, or an exit status. */
#define CONSUMERD_TUNNEL_REASON_MAX (CONSUMERD_TUNNEL_LINE_MAX + 16u)

struct tc_consumerd_tunnel;

struct tc_consumerd_tunnel_spec {
	const char *host;		  /* the SSH server, of tc-ssh-names.h's alphabet */
	const char *user;		  /* NULL or "": the owner's ssh configuration */
	uint16_t port;			  /* 0: the owner's ssh configuration */
	uint16_t control_port, data_port; /* the relay's, on the far side's 127.0.0.1 */
	bool prefer_aes_gcm;		  /* AES-GCM first unless configured (below) */
};

/*
 * Starts ssh, without waiting for it. Returns 0 with *tunnel, or -errno:
 * -EINVAL for a host or login outside tc-ssh-names.h's alphabets, -ENOENT
 * when no ssh program is on the consumer's PATH.
 */
int tc_consumerd_tunnel_start(const struct tc_consumerd_tunnel_spec *spec,
			      struct tc_consumerd_tunnel **tunnel);

/*
 * Looks at ssh without waiting, reading what it wrote: 1 once both
 * sockets are there (ssh authenticated and listens), 0 while it is
 * connecting, -ECONNABORTED once it exited (tc_consumerd_tunnel_reason()
 * says why). What ssh wrote before it listened is forgotten once it does,
 * so that only what it writes after (a forward the far side refused) or
 * on its way out is a reason.
 */
int tc_consumerd_tunnel_check(struct tc_consumerd_tunnel *tunnel);

/* The socket forwarded to the relay's control port, or data port. */
const char *tc_consumerd_tunnel_path(const struct tc_consumerd_tunnel *tunnel, bool is_data);

/*
 * Why the tunnel failed, as far as ssh said, after reading what it
 * wrote: "ssh: " and its last line ("ssh: Permission denied
 * (publickey).", "ssh: Host key verification failed.", "ssh: channel 2:
 * open failed: connect failed: Connection refused"), else, once it
 * exited, its status ("ssh exited with status 255", "ssh was killed by
 * signal 9"); "" when it said nothing and runs. An ssh that runs is
 * given 20 ms to exit first: a connection through it ends as it exits,
 * before its exit can be seen. Control bytes are blanked. Valid until
 * the next call on tunnel.
 */
const char *tc_consumerd_tunnel_reason(struct tc_consumerd_tunnel *tunnel);

/* Whether ssh runs still (as of the last look). */
bool tc_consumerd_tunnel_is_running(const struct tc_consumerd_tunnel *tunnel);

/* Ends ssh (SIGTERM, then SIGKILL after 100 ms), reaps it, removes its
 * sockets and directory and frees tunnel. NULL does nothing. */
void tc_consumerd_tunnel_stop(struct tc_consumerd_tunnel *tunnel);

#endif /* TC_CONSUMERD_TUNNEL_H */
