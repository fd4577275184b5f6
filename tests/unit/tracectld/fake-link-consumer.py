#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A consumer that answers several requests at once, as told by its first
argument, well or in one of the ways a broken or hostile one could, for
tc-consumer-link-test. Its command socket is descriptor 3, as the real
one's (common/abi/tc-consumer-abi.h). A SESSION_FILES request is tagged by
its home field, a session request by its session id."""

import os
import socket
import struct
import sys
import threading
import time

MAGIC = 0x54434331
FLUSH, RELAY_STATUS, SESSION_FILES = 4, 15, 21
STREAM, REPLY, SESSION_FILE = 16, 17, 22
HEADER = "=IIII"
FILE = HEADER + "IiQQ256s"               # struct tc_consumer_session_file
REPLY_FMT = HEADER + "iI6Q256sIIQq256s"  # struct tc_consumer_reply
STREAM_FMT = HEADER + "QIIQ"             # struct tc_consumer_stream

sock = socket.socket(fileno=3)
mode = sys.argv[1]
send_lock = threading.Lock()
waiting = []  # (request id, tag) of the requests held, in arrival order


def send(data):
    with send_lock:
        sock.send(data)


def reply(request_id, status=0):
    send(struct.pack(REPLY_FMT, MAGIC, REPLY, struct.calcsize(REPLY_FMT), request_id, status,
                     0, 0, 0, 0, 0, 0, 0, b"", 0, 0, 0, 0, b""))


def answer(request_id, index, name):
    send(struct.pack(FILE, MAGIC, SESSION_FILE, struct.calcsize(FILE) + 1, request_id, index, 0,
                     1, 0, name.encode()) + b"x")


def later(seconds, request_id):
    time.sleep(seconds)
    reply(request_id)


def serve(request_id, tag):
    if mode == "slow":
        # Session 1's answer waits; every other one comes at once.
        if tag == "1":
            threading.Thread(target=later, args=(3, request_id)).start()
        else:
            reply(request_id)
        return
    waiting.append((request_id, tag))
    if len(waiting) < 2:
        return
    (a, tag_a), (b, tag_b) = waiting[:2]
    if mode == "interleave":
        answer(a, 0, tag_a + "0")
        answer(b, 0, tag_b + "0")
        answer(a, 1, tag_a + "1")
        reply(b)
        answer(a, 2, tag_a + "2")
        reply(a)
    elif mode == "misroute":
        # b's answer with a's id.
        answer(a, 0, tag_b + "0")
    elif mode == "unknown":
        reply(max(a, b) + 1000)
    elif mode == "stream":
        # A stream, without its descriptors, for a request of answers.
        send(struct.pack(STREAM_FMT, MAGIC, STREAM, struct.calcsize(STREAM_FMT), a, 0, 0, 0, 0))
    elif mode == "die":
        os._exit(0)
    # "silent": never answers.


while True:
    msg = sock.recv(65536)
    if not msg:
        break
    magic, kind, size, request_id = struct.unpack_from(HEADER, msg)
    if kind == SESSION_FILES:
        home = struct.unpack_from("=II4096s", msg, 16)[2]
        serve(request_id, home.split(b"\0", 1)[0].decode())
    else:
        serve(request_id, str(struct.unpack_from("=Q", msg, 16)[0]))
