#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bad input gets a clear, named error and the service stays up while an
application keeps tracing: bad session names, unknown sessions, taken
names and trace directories, bad event patterns, and garbage written to
the registration socket."""

import os
import random
import re
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run
from tracelib import read_trace

INVALID = "org.tracectl.Tracing1.Error.InvalidArgument"
NOT_FOUND = "org.tracectl.Tracing1.Error.NotFound"
EXISTS = "org.tracectl.Tracing1.Error.AlreadyExists"
MANAGER = ["--object-path", "/org/tracectl/Tracing1"]


def create(svc, name, directory=""):
    return svc.gdbus(*MANAGER, "--method", "org.tracectl.Tracing1.Manager.CreateSession",
                     name, directory)


def garbage(rundir):
    """Messages a broken or hostile application could send."""
    path = os.path.join(rundir, "app.sock")
    magic, register = 0x54434131, 1
    header = struct.pack("=IIII", magic, register, 56, 0)
    samples = [
        b"",                                      # empty datagram
        header[:10],                              # truncated header
        header,                                   # truncated register
        struct.pack("=IIII", magic, register, 1 << 30, 0) + b"\0" * 40,  # lying size
        b"\xff" * 70000,                          # oversized
        struct.pack("=IIII", magic, 99, 16, 0),   # unknown type
        struct.pack("=IIII", 0xdeadbeef, 1, 56, 0) + b"\0" * 40,  # bad magic
    ]
    rng = random.Random(1234)
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5000)))
                for _ in range(50)]
    for data in samples:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
            sock.connect(path)
            try:
                sock.send(data)
            except OSError:
                pass  # the service may drop us at once: that is the point
    # A registration that stops half-way.
    half = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    half.connect(path)
    body = struct.pack("=IIIIiI16s", 1, 64, 0, 1, os.getpid(), 0, b"liar")
    half.send(struct.pack("=IIII", magic, register, 16 + len(body), 0) + body)
    return half


def check_recreated_at_once(svc):
    """The same name again within a second, with the default directory:
    a directory of its own, not an error."""
    directories = []
    for _ in range(3):
        path = create(svc, "again").stdout.strip().split("'")[1]
        result = svc.gdbus("--object-path", path, "--method",
                           "org.freedesktop.DBus.Properties.Get",
                           "org.tracectl.Tracing1.Session", "OutputDirectory")
        directories.append(result.stdout.strip().split("'")[1])
        svc.gdbus(*MANAGER, "--method", "org.tracectl.Tracing1.Manager.DestroySession", path)
    check(len(set(directories)) == 3, f"three sessions 'again' in a row got {directories}")
    # Within one second (the usual case) the stamps are the same.
    for earlier, later in zip(directories, directories[1:]):
        if later.startswith(earlier):
            check(re.fullmatch(r"-[23]", later[len(earlier):]) is not None,
                  f"directory {later} after {earlier}")


def test():
    with Service() as svc:
        for name in ("", "x" * 65, "a/b", ".hidden", "sp ace", "quo\"te"):
            result = create(svc, name)
            check(result.returncode != 0 and INVALID in result.stderr,
                  f"session name {name!r}: {result}")
            check("\n" not in result.stderr.strip(), "error is not one line")
        result = create(svc, "ok", "relative/dir")
        check(INVALID in result.stderr, f"relative output: {result}")
        result = svc.cli("create", "a/b", check_ok=False)
        check(result.returncode != 0 and result.stderr.count("\n") == 1,
              f"CLI error is not one line: {result}")
        for args in (["start", "nosuch"], ["stop", "nosuch"], ["destroy", "nosuch"]):
            result = svc.cli(*args, check_ok=False)
            check(result.returncode != 0, f"{args} succeeded")
        result = svc.gdbus(*MANAGER, "--method",
                           "org.tracectl.Tracing1.Manager.DestroySession",
                           "/org/tracectl/Tracing1/session/999")
        check(NOT_FOUND in result.stderr, f"unknown session: {result}")

        out = os.path.join(svc.rundir, "trace")
        svc.cli("create", "good", "--output", out)
        result = create(svc, "good")
        check(EXISTS in result.stderr, f"duplicate name: {result}")
        result = create(svc, "other", out)
        check(EXISTS in result.stderr, f"a directory holding a trace: {result}")
        check_recreated_at_once(svc)
        for pattern in ("", "a b", "x" * 200, "evil\";", "p:e/x"):
            result = svc.cli("enable-event", "-u", pattern, check_ok=False)
            check(result.returncode != 0, f"pattern {pattern!r} accepted")
        svc.cli("enable-event", "-u", "example:all_types")
        svc.cli("start")
        app = svc.app("--forever", "--interval-us", "1000")
        half = garbage(svc.rundir)
        check(svc.alive(), "tracectld died on garbage")
        check(app.pid in svc.listed_pids(), "the application was dropped")
        svc.cli("stop")
        half.close()
        app.kill()
        app.wait()
        count = sum(1 for n, _ in read_trace(out) if n == "example:all_types")
        check(count > 0, "nothing was recorded while garbage arrived")
        check(svc.alive(), "tracectld died")


run(test)
