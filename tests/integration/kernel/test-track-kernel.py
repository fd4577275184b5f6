#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl track -k --pid: the kernel records only the tracked process.

Two processes wait, then call getppid() COUNT times each; the tracked one
also starts a thread (after the tracking was set) that calls it COUNT
times more. Every getppid entry in the kernel trace is the tracked
process' (the pid context), all 2 x COUNT of them: its threads created
later are followed. bob may not change root's kernel tracking."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, mount_tracefs, run
from tracelib import read_streams

COUNT = 50
WORKER = f"""
import os, sys, threading
sys.stdin.readline()
def calls():
    for _ in range({COUNT}):
        os.getppid()
t = threading.Thread(target=calls)
t.start()
calls()
t.join()
"""


def busctl(svc, *args, user=None):
    return subprocess.run(svc._as(user) + ["busctl", "--system", *args], env=svc.env(user),
                          capture_output=True, text=True, timeout=60)


def worker():
    return subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, text=True)


def release(*procs):
    for proc in procs:
        proc.stdin.write("\n")
        proc.stdin.flush()
    for proc in procs:
        proc.wait(timeout=30)
        check(proc.returncode == 0, f"worker {proc.pid} failed")


def test():
    mount_tracefs()
    with Service() as svc:
        bob = svc.add_user("tctest-bob")
        out = os.path.join(svc.rundir, "kernel")
        svc.cli("create", "k", "--output", out)
        svc.cli("add-context", "-k", "-t", "pid")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        tracked, other = worker(), worker()
        result = svc.cli("track", "-k", f"--pid={tracked.pid}")
        check(f"Kernel pid {tracked.pid} tracked in session k" in result.stdout, result.stdout)
        # bob, over the bus, on root's session: refused before anything.
        path = busctl(svc, "call", "org.tracectl.Tracing1", "/org/tracectl/Tracing1",
                      "org.tracectl.Tracing1.Manager", "FindSession", "s", "k").stdout
        path = path.split('"')[1]
        for method, signature, args in (("Track", "ssau", ["kernel", "pid", "1", "1"]),
                                        ("UntrackAll", "ss", ["kernel", "pid"])):
            refused = busctl(svc, "call", "org.tracectl.Tracing1", path,
                             "org.tracectl.Tracing1.Session", method, signature, *args,
                             user=bob)
            check(refused.returncode != 0 and ("another user" in refused.stderr or
                                               "Tracing the kernel is for" in refused.stderr),
                  f"bob's {method} on root's session: {refused.stderr}")
        listing = svc.cli("list", "k").stdout
        check(f"pid: {tracked.pid}\n" in listing, f"bob changed the tracking: {listing}")
        svc.cli("start")
        release(tracked, other)
        svc.cli("stop")
        listing = svc.cli("list", "k").stdout
        check(f"pid: {tracked.pid}" in listing, f"list does not show the kernel pid: {listing}")

        events = read_streams(out)["events"]
        enters = [e for e in events if e["name"] == "syscall_entry_getppid"]
        pids = {e["ctx_pid"] for e in enters}
        check(pids == {tracked.pid}, f"getppid entries of pids {pids}, only {tracked.pid} "
              f"is tracked ({other.pid} is not)")
        check(len(enters) >= 2 * COUNT, f"{len(enters)} getppid entries, expected "
              f"{2 * COUNT} or more (its thread's too)")
        tids = {e["common_pid"] for e in enters}
        check(len(tids) == 2, f"entries of threads {tids}: the thread started later is missing")
        svc.cli("destroy", "k")


run(test)
