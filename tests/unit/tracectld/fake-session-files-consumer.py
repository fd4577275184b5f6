#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A consumer that answers TC_CONSUMER_SESSION_FILES as told by its first
argument, well or in one of the ways a hostile user's consumer could, for
tc-home-sessions-test. Its command socket is descriptor 3, as the real
one's (common/abi/tc-consumer-abi.h)."""

import array
import os
import socket
import struct
import sys

MAGIC = 0x54434331
SESSION_FILES, REPLY, SESSION_FILE = 21, 17, 22
NAME_MAX, PATH_MAX, ERROR_MAX = 256, 4096, 256
HEADER = "=IIII"
FILE = HEADER + "IiQQ256s"      # struct tc_consumer_session_file
REPLY_FMT = HEADER + "iI6Q256sIIQq256s"  # struct tc_consumer_reply

sock = socket.socket(fileno=3)
mode = sys.argv[1]
# The id of the request being answered, which every answer carries.
request_id = 0


def send_file(index, name, size, offset, data=b"", status=0, fds=None):
    head = struct.pack(FILE, MAGIC, SESSION_FILE, struct.calcsize(FILE) + len(data), request_id,
                       index, status, size, offset, name.encode())
    if fds:
        sock.sendmsg([head + data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                      array.array("i", fds))])
    else:
        sock.send(head + data)


def whole(index, name, data):
    send_file(index, name, len(data), 0, data)


def reply(status=0, message=b""):
    sock.send(struct.pack(REPLY_FMT, MAGIC, REPLY, struct.calcsize(REPLY_FMT), request_id,
                          status, 0, 0, 0, 0, 0, 0, 0, message, 0, 0, 0, 0, b""))


def other_request():
    """Answers as if for the request after this one."""
    global request_id
    request_id += 1
    whole(0, "a.lttng", b"x")
    reply()


def answer(home):
    if home != os.environ.get("HOME"):
        reply(-22, f"home {home!r} is not the password database's".encode())
    elif mode == "good":
        whole(0, "a.lttng", b"<sessions/>")
        send_file(1, "b.lttng", 6, 0, b"hel")
        send_file(1, "b.lttng", 6, 3, b"lo!")
        send_file(2, "c.lttng", 0, 0)
        reply()
    elif mode == "refusal":
        send_file(0, "a.lttng", 0, 0, b"Refusing 'a.lttng': not yours\0", status=-1)
        whole(1, "b.lttng", b"x")
        reply()
    elif mode == "order":
        whole(0, "b.lttng", b"x")
        whole(1, "a.lttng", b"x")
        reply()
    elif mode == "index":
        whole(1, "a.lttng", b"x")
        reply()
    elif mode == "gap":
        send_file(0, "a.lttng", 6, 0, b"hel")
        send_file(0, "a.lttng", 6, 4, b"lo")
        reply()
    elif mode == "overflow":
        send_file(0, "a.lttng", 2, 0, b"hello")
        reply()
    elif mode == "toobig":
        send_file(0, "a.lttng", 1024 * 1024 + 1, 0, b"x")
        reply()
    elif mode == "name":
        whole(0, "../a.lttng", b"x")
        reply()
    elif mode == "suffix":
        whole(0, "a.xml", b"x")
        reply()
    elif mode == "unterminated":
        send_file(0, "a.lttng", 0, 0, b"no end", status=-1)
        reply()
    elif mode == "truncated":
        send_file(0, "a.lttng", 6, 0, b"hel")
        reply()
    elif mode == "count":
        for i in range(65):
            whole(i, f"f{i:03}.lttng", b"x")
        reply()
    elif mode == "fds":
        send_file(0, "a.lttng", 1, 0, b"x", fds=[0])
        reply()
    elif mode == "short":
        sock.send(struct.pack(HEADER, MAGIC, SESSION_FILE, 16, request_id))
        reply()
    elif mode == "other-request":
        other_request()
    elif mode == "refused":
        reply(-1, b"Refusing '/home/x/.config': a symbolic link")


while True:
    msg = sock.recv(65536)
    if not msg:
        break
    magic, kind, size, request_id = struct.unpack_from(HEADER, msg)
    if kind == SESSION_FILES:
        max_files, max_bytes, home = struct.unpack_from("=II4096s", msg, 16)
        answer(home.split(b"\0", 1)[0].decode())
    else:
        reply(-95, b"not this fake's")
