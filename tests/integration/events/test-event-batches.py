#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""EVENTS_DONE answers come in batch order, each once the consumer has
what the batch needs.

A peer speaking the registration protocol itself sends, back to back, a
batch with a new event class that a recording session enables, an empty
batch, another new class and another empty batch. The service answers a
batch with new classes only after the consumer has written their
metadata (so that the application's events never wait in a sub-buffer
for it), and an empty batch at once, unless an earlier answer is still
waiting: the answers must come 1, 2, 3, 4, and when the answer to a batch
with a new class arrives, the trace's metadata already describes it."""

import array
import glob
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run

MAGIC = 0x54434131
REGISTER, EVENT, EVENTS_END, REPLY = 1, 2, 3, 4
EVENTS_DONE = 23
FIELDS_MAX = 32
ABI_VERSION = 5  # TRACECTL_ABI_VERSION
UNSIGNED = 2
HEADER = struct.Struct("=IIII")


def message(kind, body, seq=0):
    return HEADER.pack(MAGIC, kind, HEADER.size + len(body), seq) + body


def register():
    return message(REGISTER, struct.pack("=IIIIiI16s", ABI_VERSION, 64, 0, 1, os.getpid(),
                                         os.getuid(), b"batches"))


def event(index, name):
    fields = struct.pack("=48sII", b"value", UNSIGNED, 8).ljust(56 * FIELDS_MAX, b"\0")
    return message(EVENT, struct.pack("=IiII128s", index, 13, 1, 0, name.encode()) + fields)


def events_end(batch):
    return message(EVENTS_END, struct.pack("=II", batch, 0))


def receive(sock):
    """One message from the service: (type, seq, body); its descriptors
    (STREAM_ADD's memfd) are closed at once."""
    fds = array.array("i")
    data, ancillary, _, _ = sock.recvmsg(8192, socket.CMSG_SPACE(16 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    for fd in fds:
        os.close(fd)
    check(len(data) >= HEADER.size, f"the service closed the connection or sent {data!r}")
    magic, kind, size, seq = HEADER.unpack_from(data)
    check(magic == MAGIC and size == len(data), f"bad message from the service: {data!r}")
    return kind, seq, data[HEADER.size:]


def described(trace_dir, name):
    """Whether a metadata file of the trace has the event class name."""
    for path in glob.glob(os.path.join(trace_dir, "**", "metadata"), recursive=True):
        with open(path, "rb") as f:
            if f'name = "{name}";'.encode() in f.read():
                return True
    return False


def answers(sock, trace_dir, new_classes, count):
    """Reads until count EVENTS_DONE came, answering the service's commands;
    returns the batches in the order answered."""
    order = []
    while len(order) < count:
        kind, seq, body = receive(sock)
        if seq:
            sock.send(message(REPLY, struct.pack("=iI", 0, 0), seq))
        if kind != EVENTS_DONE:
            continue
        batch = struct.unpack_from("=I", body)[0]
        order.append(batch)
        for name in new_classes.get(batch, []):
            check(described(trace_dir, name),
                  f"EVENTS_DONE {batch} came before the metadata of {name}")
    return order


def test():
    with Service() as svc:
        out = os.path.join(svc.rundir, "batches")
        svc.cli("create", "batches", "--output", out)
        svc.cli("enable-event", "-u", "batch:*")
        svc.cli("start")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.connect(os.path.join(svc.rundir, "app.sock"))
        sock.settimeout(10)
        new_classes = {1: ["batch:first"], 3: ["batch:second"]}
        for m in [register(), event(0, "batch:first"), events_end(1), events_end(2),
                  event(1, "batch:second"), events_end(3), events_end(4)]:
            sock.send(m)
        order = answers(sock, out, new_classes, 4)
        check(order == [1, 2, 3, 4], f"EVENTS_DONE in the order {order}")
        log(f"EVENTS_DONE in batch order {order}, each after the metadata it needed")
        sock.close()
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        svc.cli("destroy", "batches")


run(test)
