#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The own-process kernel tier at the root helper: two users run the same
workload at once; the ring buffer the helper gives for each holds records
of that user's processes only (the pids the test started), no kernel
address, and cannot be written but for its consumer position; requests
that would widen the scope (uid 0, unknown event classes) are refused.
Scheduling records pass a per-CPU token bucket: a workload switching far
faster gets at most its rate, and the rest is counted as lost."""

import mmap
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import ownringlib
from ownhelperlib import (ALL_EVENTS, NOT_SUPPORTED, SYSCALL_ENTRY, as_user, drain, own_remove,
                          own_start, start_paired)
from tclib import User, check, require, run

SCHED_SWITCH = 0x04
SCHED_RATE, SCHED_BURST = 20000, 2000
# Two processes bouncing a byte through pipes: two switches a round trip,
# on one CPU so that every message is one however many CPUs there are and
# however slow: the switches outrun the rate limit.
PING_PONG = ("import os, time\n"
             "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
             "a, b = os.pipe(); c, d = os.pipe()\n"
             "if os.fork() == 0:\n"
             "    os.close(b); os.close(c)\n"
             "    while os.read(a, 1): os.write(d, b'x')\n"
             "    os._exit(0)\n"
             "os.close(a); os.close(d)\n"
             "end = time.monotonic() + 1\n"
             "while time.monotonic() < end:\n"
             "    os.write(b, b'x'); os.read(c, 1)\n"
             "os.close(b)\n"
             "os.wait()\n")
GETPPID = 110
WORKLOAD = ("import os, signal, time\n"
            "signal.signal(signal.SIGUSR1, lambda *_: None)\n"
            "os.kill(os.getpid(), signal.SIGUSR1)\n"
            "for _ in range(20):\n"
            "    for _ in range(500): os.getppid()\n"
            "    time.sleep(0.01)\n")


def check_rate_limit(sock, user):
    status, fd = own_start(sock, 3, user, SCHED_SWITCH, seq=30)
    check(status == 0, f"OWN_START of switches only: {status}")
    ring = ownringlib.Ring(fd)
    stop = threading.Event()
    out = {"ring": []}
    reader = threading.Thread(target=drain, args=({"ring": ring}, stop, out))
    reader.start()
    start = time.monotonic()
    proc = subprocess.Popen(["/usr/bin/python3", "-c", PING_PONG], preexec_fn=as_user(user),
                            cwd="/")
    check(proc.wait(timeout=30) == 0, "the ping-pong workload failed")
    elapsed = time.monotonic() - start
    stop.set()
    reader.join()
    switches = [r for r in out["ring"] if r["type"] in ("switch_in", "switch_out")]
    lost = sum(r["value"] for r in out["ring"] if r["type"] == "lost" and r["id"] == 0)
    bound = os.cpu_count() * (SCHED_RATE * elapsed + SCHED_BURST)
    check(len(switches) <= bound, f"{len(switches)} switch records in {elapsed:.2f} s, over "
          f"the bucket's {bound:.0f}")
    check(lost > 0, f"no scheduling record counted as lost ({len(switches)} recorded in "
          f"{elapsed:.2f} s)")
    print(f"rate limit: {len(switches)} switch records in {elapsed:.2f} s, {lost} refused")


def test():
    require(os.geteuid() == 0, "needs root")
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    users = {"alice": User("tcownalice"), "bob": User("tcownbob")}
    sock, helper = start_paired()
    try:
        status, _ = own_start(sock, 1, users["alice"], ALL_EVENTS, uid=0)
        require(status != NOT_SUPPORTED, "the helper was built without the own-process tier")
        check(status == -22, f"uid 0 was not refused: {status}")
        status, _ = own_start(sock, 1, users["alice"], 0x800, seq=2)
        check(status == -22, f"an unknown event class was not refused: {status}")
        # Named system calls: a class with no call, calls with no class.
        status, _ = own_start(sock, 1, users["alice"], SYSCALL_ENTRY, seq=2)
        check(status == -22, f"an empty system call set was not refused: {status}")
        status, _ = own_start(sock, 1, users["alice"], ALL_EVENTS, seq=2, exits=(110,))
        check(status == -22, f"system calls without their class were not refused: {status}")
        fds = {}
        for seq, (name, session) in enumerate((("alice", 1), ("bob", 2)), 3):
            status, fds[name] = own_start(sock, session, users[name], ALL_EVENTS, seq=seq)
            check(status == 0 and fds[name] is not None, f"OWN_START for {name}: {status}")
        status, _ = own_start(sock, 1, users["alice"], ALL_EVENTS, seq=9)
        check(status == -17, f"a second OWN_START of a session was not refused: {status}")
        # The records cannot be forged: only the consumer page is writable.
        try:
            mmap.mmap(fds["alice"], mmap.PAGESIZE, mmap.MAP_SHARED,
                      mmap.PROT_READ | mmap.PROT_WRITE, offset=mmap.PAGESIZE)
            check(False, "the ring buffer's data pages could be mapped writable")
        except PermissionError:
            pass
        rings = {name: ownringlib.Ring(fd) for name, fd in fds.items()}
        out = {name: [] for name in rings}
        stop = threading.Event()
        reader = threading.Thread(target=drain, args=(rings, stop, out))
        reader.start()
        procs = {name: [subprocess.Popen(["/usr/bin/python3", "-c", WORKLOAD],
                                         preexec_fn=as_user(user), cwd="/")
                        for _ in range(2)]
                 for name, user in users.items()}
        for group in procs.values():
            for proc in group:
                check(proc.wait(timeout=30) == 0, "a workload failed")
        stop.set()
        reader.join()
        for name, records in out.items():
            ours = {proc.pid for proc in procs[name]}
            theirs = {proc.pid for group in procs.values() for proc in group} - ours
            check(records, f"no records for {name}")
            kinds = {r["type"] for r in records}
            check({"sys_enter", "sys_exit", "switch_out", "switch_in", "page_fault",
                   "signal"} <= kinds,
                  f"{name}: record types {kinds}")
            for record in records:
                check(record["pid"] in ours and (record["tid"] in ours or record["type"] == "lost"),
                      f"{name}'s ring holds a record of pid {record['pid']} tid {record['tid']}"
                      f" (started: {ours}, the other's: {theirs}): {record}")
                check(not ownringlib.kernel_values(record),
                      f"{name}'s ring holds kernel addresses: {record}")
            for pid in ours:
                check(any(r["pid"] == pid and r["type"] == "signal" and r["id"] == 10
                          for r in records), f"{name}: SIGUSR1 of pid {pid} missing")
                check(any(r["pid"] == pid and r["type"] == "sys_enter" and r["id"] == GETPPID
                          for r in records), f"{name}'s getppid() of pid {pid} missing")
            print(f"{name}: {len(records)} records, types {sorted(kinds, key=str)}")
        check(own_remove(sock, 1, 20) == 0, "OWN_REMOVE failed")
        check(own_remove(sock, 1, 21) == -2, "OWN_REMOVE of a removed session")
        check_rate_limit(sock, users["alice"])
    finally:
        sock.close()
        helper.wait(timeout=10)
        for user in users.values():
            user.remove()


run(test)
