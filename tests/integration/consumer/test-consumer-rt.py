#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectld --consumer-rt-priority N: the consumer that tracectld starts
for a user runs its main thread as SCHED_FIFO with priority N, after
dropping to that user, and its other threads with the normal policy (a
session thread takes the main thread's policy only where the user's
RLIMIT_RTPRIO allows it, which the service leaves at 0); the user's
trace is recorded as before. Without the option the consumer keeps
the normal policy, its session threads (named "tc-session", those that
wait for wake-ups) with a slice of 0.1 ms (reset on fork, its other
threads keep the kernel's) on kernels that have custom slices
(Linux 6.12), which the test finds out by asking for one itself; a
priority outside 0 to 99 is refused at start."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from schedlib import CONSUMER_SLICE_NS, kernel_has_custom_slices, thread_slice_ns
from tclib import TRACECTLD, Service, check, children, log, run
from tracelib import read_trace

PRIORITY = 7


def consumer_of(svc, uid):
    pids = [pid for pid in children(svc.proc.pid)
            if "consumerd" in open(f"/proc/{pid}/cmdline").read()
            and os.stat(f"/proc/{pid}").st_uid == uid]
    check(len(pids) == 1, f"one consumer of uid {uid} expected, found {pids}")
    return pids[0]


def trace_as(svc, user, name):
    """A session of user's, the example application's events recorded."""
    out = os.path.join(user.home, name)
    svc.cli("create", name, "--output", out, user=user)
    svc.cli("enable-event", "-u", "example:*", user=user)
    svc.cli("start", user=user)
    svc.run_app("--count", "3", user=user)
    return out


def check_recorded(svc, user, name, out):
    svc.cli("stop", name, user=user)
    names = [event for event, _ in read_trace(out)]
    check(names.count("example:all_types") == 3,
          f"{names.count('example:all_types')} example:all_types events, not 3")
    svc.cli("destroy", name, user=user)


def test():
    refused = subprocess.run([TRACECTLD, "--consumer-rt-priority", "100"], capture_output=True,
                             text=True, timeout=30)
    check(refused.returncode != 0 and "must be 0 to 99" in refused.stderr,
          f"priority 100 not refused: {refused.returncode} {refused.stderr!r}")

    with Service(args=["--consumer-rt-priority", str(PRIORITY)]) as svc:
        alice = svc.add_user("tctest-alice")
        out = trace_as(svc, alice, "rt")
        consumer = consumer_of(svc, alice.uid)
        policy = os.sched_getscheduler(consumer)
        check(policy == os.SCHED_FIFO | os.SCHED_RESET_ON_FORK,
              f"consumer main thread policy {policy:#x}, not SCHED_FIFO, reset on fork")
        check(os.sched_getparam(consumer).sched_priority == PRIORITY,
              f"priority {os.sched_getparam(consumer).sched_priority}, not {PRIORITY}")
        others = [int(tid) for tid in os.listdir(f"/proc/{consumer}/task") if int(tid) != consumer]
        for tid in others:
            # Reset on fork or not: a session thread that could not take
            # the realtime policy takes the short slice, reset on fork.
            check(os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK == os.SCHED_OTHER,
                  f"consumer thread {tid} kept the realtime policy")
        log(f"consumer {consumer}: main thread SCHED_FIFO {PRIORITY}, "
            f"{len(others)} other threads SCHED_OTHER")
        check_recorded(svc, alice, "rt", out)

    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        out = trace_as(svc, alice, "normal")
        consumer = consumer_of(svc, alice.uid)
        check(os.sched_getscheduler(consumer) & ~os.SCHED_RESET_ON_FORK == os.SCHED_OTHER,
              "the consumer runs as realtime without the option")
        if kernel_has_custom_slices():
            tids = [int(tid) for tid in os.listdir(f"/proc/{consumer}/task")]
            waiters = [tid for tid in tids
                       if open(f"/proc/{consumer}/task/{tid}/comm").read().strip() == "tc-session"]
            check(len(waiters) == 1, f"one session thread expected, found {waiters}")
            waiter = waiters[0]
            check(thread_slice_ns(waiter) == CONSUMER_SLICE_NS and
                  os.sched_getscheduler(waiter) & os.SCHED_RESET_ON_FORK,
                  f"consumer session thread slice {thread_slice_ns(waiter)} ns, policy "
                  f"{os.sched_getscheduler(waiter):#x}: not {CONSUMER_SLICE_NS} ns, reset on fork")
            others = [tid for tid in tids if tid != waiter]
            for tid in others:
                check(thread_slice_ns(tid) != CONSUMER_SLICE_NS,
                      f"consumer thread {tid} took the session thread's slice")
            log(f"consumer {consumer}: session thread slice {CONSUMER_SLICE_NS} ns, "
                f"{len(others)} other threads {[thread_slice_ns(t) for t in others]} ns")
        else:
            log("the kernel has no custom slices: not checked")
        check_recorded(svc, alice, "normal", out)


run(test)
