# SPDX-License-Identifier: LGPL-2.1-or-later
"""The root helper's own-process tier spoken to directly, as tracectld
speaks to it (common/abi/tc-kernel-abi.h): a helper on a socket pair, its
OWN_START and OWN_REMOVE requests, workloads started as a test user, and
the rings drained while they run."""

import os
import socket
import struct
import subprocess
import time

from tclib import BUILD, check

HELPER = os.path.join(BUILD, "service", "kernel-helper", "tracectl-kernel-helper")
MAGIC, REPLY, OWN_START, OWN_FD, OWN_REMOVE = 0x54434B31, 16, 21, 22, 23
MSG = struct.Struct("=IIIIQiI")
# The header, uid, events, quiet tgid, gid, then the entry and exit
# bitmaps of named system calls (8 words each).
OWN = struct.Struct("=IIIIQiIIIII8Q8Q")
ALL_EVENTS = 0x1ff
SYSCALL_ENTRY, SYSCALL_EXIT = 0x200, 0x400
NOT_SUPPORTED = -95


def start_paired():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    proc = subprocess.Popen([HELPER], close_fds=False,
                            preexec_fn=lambda: os.dup2(theirs.fileno(), 3),
                            stderr=None)
    theirs.close()
    return ours, proc


def bitmap(numbers):
    """The 8 words of a system call bitmap holding numbers."""
    words = [0] * 8
    for number in numbers:
        words[number // 64] |= 1 << (number % 64)
    return words


def own_start(sock, session, user, events, seq=1, uid=None, entries=(), exits=()):
    """OWN_START for user's tasks (or uid's, with user's gid), with the
    system calls numbered in entries and exits: the status, and the ring
    buffer's descriptor or None."""
    sock.send(OWN.pack(MAGIC, OWN_START, OWN.size, seq, session, 0, 0,
                       user.uid if uid is None else uid, events, 0, user.gid,
                       *bitmap(entries), *bitmap(exits)))
    fd = None
    while True:
        data, fds, _, _ = socket.recv_fds(sock, 256, 1)
        magic, rtype, _, rseq, _, status, _ = MSG.unpack(data)
        check(magic == MAGIC and rseq == seq, "malformed message")
        if rtype == OWN_FD:
            check(len(fds) == 1, "OWN_FD without a descriptor")
            fd = fds[0]
            continue
        check(rtype == REPLY, f"unexpected message {rtype}")
        return status, fd


def own_remove(sock, session, seq):
    """OWN_REMOVE: the status."""
    sock.send(MSG.pack(MAGIC, OWN_REMOVE, MSG.size, seq, session, 0, 0))
    return MSG.unpack(sock.recv(256))[5]


def as_user(user):
    """A preexec_fn that makes the child user's, with their account's
    group and no other."""
    def become():
        os.setgroups([])
        os.setgid(user.gid)
        os.setuid(user.uid)
    return become


def drain(rings, stop, out):
    """Reads every ring into out[name] until stop is set, then once more."""
    while not stop.is_set():
        for name, ring in rings.items():
            out[name] += ring.read()
        time.sleep(0.005)
    for name, ring in rings.items():
        out[name] += ring.read()
