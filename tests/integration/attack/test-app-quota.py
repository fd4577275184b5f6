#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user cannot take all of the service's application connections.
With --max-app-connections 20, bob registers 20 connections of his own
and his 21st is closed at once, with one line in the log; alice's
application still registers, and so does root's; once bob closes one of
his, he may connect again."""

import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for

LIMIT = 20
MAGIC = 0x54434131
REGISTER, EVENTS_END, EVENTS_DONE = 1, 3, 23
ABI_VERSION = 5  # TRACECTL_ABI_VERSION


def message(kind, body):
    return struct.pack("=IIII", MAGIC, kind, 16 + len(body), 0) + body


def flood(rundir, count):
    """Runs as bob: count registered connections, then one more; prints
    what became of the extra ones, then holds everything until stdin
    closes."""
    import socket

    def registered():
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.connect(os.path.join(rundir, "app.sock"))
        sock.settimeout(5)
        try:
            sock.send(message(REGISTER, struct.pack("=IIIIiI16s", ABI_VERSION, 64, 0, 1,
                                                    os.getpid(), os.getuid(), b"flood")))
            sock.send(message(EVENTS_END, struct.pack("=II", 1, 0)))
            while True:  # until EVENTS_DONE (no session: nothing else comes)
                data = sock.recv(8192)
                if not data:
                    return None
                if struct.unpack_from("=IIII", data)[1] == EVENTS_DONE:
                    return sock
        except OSError:
            return None

    held = [registered() for _ in range(count)]
    print("held", sum(1 for s in held if s), flush=True)
    print("extra", "refused" if registered() is None else "taken", flush=True)
    held.pop().close()
    time.sleep(0.5)  # the service sees the hang-up and frees the slot
    again = registered()
    print("again", "taken" if again else "refused", flush=True)
    sys.stdin.read()


def test():
    with Service(args=["--max-app-connections", str(LIMIT)]) as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        proc = subprocess.Popen(svc._as(bob) + [sys.executable, os.path.abspath(__file__),
                                                "--flood", svc.rundir, str(LIMIT)],
                                env={**svc.env(bob), "PYTHONDONTWRITEBYTECODE": "1"},
                                cwd=bob.home, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        try:
            held = proc.stdout.readline().split()
            check(held == ["held", str(LIMIT)], f"bob registered {held} connections")
            extra = proc.stdout.readline().split()
            check(extra == ["extra", "refused"], f"bob's connection over the limit: {extra}")
            again = proc.stdout.readline().split()
            check(again == ["again", "taken"], f"bob after closing one: {again}")
            for user in (alice, None):
                app = svc.app("--pause", user=user, wait_ready=True)
                wait_for(lambda: app.pid in svc.listed_pids(user=user), 5, f"{user.name if user else 'root'}'s application to register "
                         "while bob holds all of his")
                app.kill()
                app.wait()
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
        log = open(svc.log_path).read()
        check(log.count(f"uid={bob.uid}: by its uid {bob.uid}: User {bob.uid} would hold "
                        f"{LIMIT + 1} application connections, over the limit "
                        f"'MaxConnections' of {LIMIT}") == 1,
              "the refusal is not logged once, naming the limit")
        check(svc.alive(), "tracectld died")


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--flood":
    flood(sys.argv[2], int(sys.argv[3]))
    sys.exit(0)
run(test)
