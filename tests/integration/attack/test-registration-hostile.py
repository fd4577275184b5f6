#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Registrations that stall, lie, break the protocol or die half-way cost
nothing to anyone else: a normal application registers at once while 70
connections stall, a lying peer is known by its real pid and uid, bad
event descriptions end their connection, descriptors sent along messages
are closed, stalled ones are dropped at their deadline, and applications
killed while registering leave no trace. An application of the ABI's
previous version (4) is served; one of a version the service does not
speak is dropped with the reason logged."""

import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for

MAGIC = 0x54434131
REGISTER, EVENT, EVENTS_END = 1, 2, 3
FIELDS_MAX = 32
ABI_VERSION = 5  # TRACECTL_ABI_VERSION


def header(kind, size):
    return struct.pack("=IIII", MAGIC, kind, size, 0)


def register(pid, uid, version=ABI_VERSION):
    body = struct.pack("=IIIIiI16s", version, 64, 0, 1, pid, uid, b"liar")
    return header(REGISTER, 16 + len(body)) + body


def event(index, name, fields=(), nr_fields=None, loglevel=13):
    packed = b"".join(struct.pack("=48sII", n.encode(), t, s) for n, t, s in fields)
    packed += b"\0" * (56 * FIELDS_MAX - len(packed))
    body = struct.pack("=IiII128s", index, loglevel, len(fields) if nr_fields is None else nr_fields,
                       0, name.encode()) + packed
    return header(EVENT, 16 + len(body)) + body


def events_end(batch=1):
    return header(EVENTS_END, 24) + struct.pack("=II", batch, 0)


def connect(rundir):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sock.connect(os.path.join(rundir, "app.sock"))
    return sock


def is_dropped(sock, timeout=5.0):
    """The service closed the connection (or never answers)."""
    sock.settimeout(timeout)
    try:
        return sock.recv(8192) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True


def check_stalls_block_nobody(svc):
    stalled = [connect(svc.rundir) for _ in range(50)]
    half = []
    for _ in range(20):
        sock = connect(svc.rundir)
        sock.send(register(os.getpid(), 0))
        half.append(sock)
    started = time.monotonic()
    app = svc.app("--pause", wait_ready=True)
    # Application start and `tracectl list` polls included, on a slow machine
    # too; waiting for the stalled ones would take their 5 s deadline.
    wait_for(lambda: app.pid in svc.listed_pids(), 4,
             "a normal application to register while 70 connections stall")
    check(time.monotonic() - started < 4.0, "registration waited for the stalled ones")
    # Their deadline (5 s) passes: the service drops them.
    for sock in stalled[:3] + half[:3]:
        check(is_dropped(sock, 10), "a stalled registration was not dropped")
    for sock in stalled + half:
        sock.close()
    app.kill()


def check_liar(svc):
    bob = svc.add_user("tctest-bob")
    script = (
        "import socket,sys,time\n"
        "s=socket.socket(socket.AF_UNIX,socket.SOCK_SEQPACKET)\n"
        f"s.connect({os.path.join(svc.rundir, 'app.sock')!r})\n"
        f"for m in {[register(1, 0), event(0, 'liar:ev', [('x', 1, 8)]), events_end()]!r}:\n"
        "    s.send(m)\n"
        "s.recv(8192)\nprint('registered', flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen(["setpriv", f"--reuid={bob.uid}", f"--regid={bob.uid}",
                             "--clear-groups", "/usr/bin/python3", "-c", script],
                            stdout=subprocess.PIPE, text=True)
    check(proc.stdout.readline().strip() == "registered", "the liar did not register")
    listed = svc.applications()
    check({"pid": proc.pid, "uid": bob.uid} in
          [{"pid": a["pid"], "uid": a["uid"]} for a in listed],
          f"the liar is not known by its real pid and uid: {listed}")
    check(1 not in [a["pid"] for a in listed], "the service believed the claimed pid")
    proc.kill()
    proc.wait()


def check_bad_descriptions(svc):
    bad = [
        event(0, 'p:"quote', [("x", 1, 8)]),
        event(0, "nocolon", [("x", 1, 8)]),
        event(0, "p:e", [("_hidden", 1, 8)]),
        event(0, "p:e", [("x", 1, 8), ("x", 2, 4)]),
        event(0, "p:e", [("x", 1, 3)]),
        event(0, "p:e", [("x", 10, 8)]),
        # An enumeration field (uint8_t) naming an enumeration never sent.
        event(0, "p:e", [("x", 9 | 2 << 16 | 1 << 24, 0)]),
        event(0, "p:e", [("x", 1, 8)], nr_fields=FIELDS_MAX + 1),
        event(5, "p:e", [("x", 1, 8)]),
        # CTF readers refuse a negative log level and warn about one above 14.
        event(0, "p:e", [("x", 1, 8)], loglevel=-1),
        event(0, "p:e", [("x", 1, 8)], loglevel=15),
    ]
    for message in bad:
        sock = connect(svc.rundir)
        sock.send(register(os.getpid(), 0))
        sock.send(message)
        check(is_dropped(sock), f"a bad event description was accepted: {message[32:48]!r}")
        sock.close()


def check_versions(svc):
    sock = connect(svc.rundir)
    for message in (register(os.getpid(), 0, version=4), event(0, "old:ev", [("x", 1, 8)]),
                    events_end()):
        sock.send(message)
    sock.settimeout(5)
    check(sock.recv(8192) != b"", "a version 4 application was not answered")
    sock.close()
    for version, why in ((7, "refused: its libtracectl-ust speaks ABI version 7, newer than "
                             "this service's 6: update tracectld"),
                         (3, "refused: its libtracectl-ust speaks ABI version 3, older than "
                             "the versions 4 to 6")):
        offset = svc.log_offset()
        sock = connect(svc.rundir)
        sock.send(register(os.getpid(), 0, version=version))
        check(is_dropped(sock), f"a version {version} application was not dropped")
        sock.close()
        wait_for(lambda: why in svc.log_since(offset), 5,
                 f"the log to say why version {version} was refused")


def check_descriptors_closed(svc):
    """Descriptors sent along any message are the service's to close: an
    empty datagram (which reads like an end of file), a valid REGISTER
    and one too big, each with a pipe's write end. Its read end sees the
    end of file once no copy is open anywhere."""
    shapes = [b"", register(os.getpid(), 0), b"x" * 5000]
    for data in shapes:
        reader, writer = os.pipe()
        sock = connect(svc.rundir)
        socket.send_fds(sock, [data], [writer])
        os.close(writer)
        check(is_dropped(sock), f"a message of {len(data)} bytes with a descriptor was taken")
        ready, _, _ = select.select([reader], [], [], 5)
        check(ready and os.read(reader, 1) == b"",
              f"tracectld kept a descriptor sent with a message of {len(data)} bytes")
        os.close(reader)
        sock.close()


def check_killed_while_registering(svc):
    rng = random.Random(7)
    pids = []
    for _ in range(30):
        app = svc.app("--pause")
        time.sleep(rng.random() * 0.005)
        app.send_signal(signal.SIGKILL)
        app.wait()
        pids.append(app.pid)
    check(svc.alive(), "tracectld died")
    listed = svc.listed_pids()
    wait_for(lambda: not set(pids) & set(svc.listed_pids()),
             5, f"killed applications to be gone: {listed}")


def test():
    with Service() as svc:
        check_stalls_block_nobody(svc)
        check_liar(svc)
        check_bad_descriptions(svc)
        check_versions(svc)
        check_descriptors_closed(svc)
        check_killed_while_registering(svc)
        app = svc.app("--pause", wait_ready=True)
        wait_for(lambda: app.pid in svc.listed_pids(), 5,
                 "a normal application to register after all that")
        check(svc.alive(), "tracectld died")


run(test)
