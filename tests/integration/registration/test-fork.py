#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An application that forks after it registered: the child registers as a
process of its own before fork() returns in it, so every event it emits
from its first instruction on is recorded, under its own pid, and none of
it goes into the parent's buffers; the parent goes on recording. Without a
service, fork() does not wait."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import FORK_APP, Service, check, log, run
from tracelib import read_streams

COUNT = 1000


def parse(out):
    return {key: float(value) for key, value in (part.split("=") for part in out.split())}


def test_with_service():
    with Service() as svc:
        out = os.path.join(svc.rundir, "fork")
        svc.cli("create", "fork", "--output", out)
        svc.cli("add-context", "-u", "-t", "vpid")
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("start")
        app = svc.app(str(COUNT), program=FORK_APP)
        stdout, stderr = app.communicate(timeout=60)
        check(app.returncode == 0, f"fork app failed: {stdout} {stderr}")
        result = parse(stdout)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        events = read_streams(out)["events"]
        child = int(result["child"])
        for thread, pid in ((0, app.pid), (1, child), (2, app.pid)):
            mine = [e for e in events if e["thread"] == thread]
            check([e["seq"] for e in mine] == list(range(COUNT)),
                  f"thread {thread}: {len(mine)} of {COUNT} events, or out of order")
            check({e["ctx_vpid"] for e in mine} == {pid},
                  f"thread {thread}: vpids {sorted({e['ctx_vpid'] for e in mine})}, not {pid}")
        log(f"child {child}: fork() returned in it after {result['fork_child_ms']:.1f} ms")
        svc.cli("destroy", "fork")


def test_without_service():
    # No service at this address: the child's first connection fails at
    # once, and fork() must not wait for a registration that cannot come.
    env = dict(os.environ, TRACECTL_UST_REGISTER_TIMEOUT="10000",
               TRACECTL_RUNDIR="/nonexistent/tracectl-fork-test")
    proc = subprocess.run([FORK_APP, "10"], env=env, capture_output=True, text=True, timeout=60)
    check(proc.returncode == 0, f"fork app failed without a service: {proc}")
    took = parse(proc.stdout)["fork_child_ms"]
    log(f"without a service, fork() returned in the child after {took:.1f} ms")
    check(took < 2000, f"fork() took {took:.0f} ms in the child without a service")


def test():
    test_with_service()
    test_without_service()


run(test)
