#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectld --consumer-rt-priority N: the consumer that tracectld starts
for a user runs its main thread as SCHED_FIFO with priority N, after
dropping to that user, and its session threads (named "tc-session"),
which inherit it (the user's RLIMIT_RTPRIO, 0, would not let them take
it), with the same policy and priority, reset on fork, so that its other
threads keep the normal policy; the user's trace is recorded as before.
Without the option the consumer keeps
the normal policy, its session threads (named "tc-session", those that
wait for wake-ups) with a slice of 0.1 ms (reset on fork, its other
threads keep the kernel's) on kernels that have custom slices
(Linux 6.12), which the test finds out by asking for one itself; a
priority outside 0 to 99 is refused at start."""

import os
import subprocess

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


def thread_name(pid, tid):
    with open(f"/proc/{pid}/task/{tid}/comm") as f:
        return f.read().strip()


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
        check(policy == os.SCHED_FIFO,
              f"consumer main thread policy {policy:#x}, not SCHED_FIFO")
        check(os.sched_getparam(consumer).sched_priority == PRIORITY,
              f"priority {os.sched_getparam(consumer).sched_priority}, not {PRIORITY}")
        tids = [int(tid) for tid in os.listdir(f"/proc/{consumer}/task") if int(tid) != consumer]
        waiters = [tid for tid in tids if thread_name(consumer, tid) == "tc-session"]
        check(len(waiters) == 1, f"one session thread expected, found {waiters}")
        waiter = waiters[0]
        policy = os.sched_getscheduler(waiter)
        check(policy == os.SCHED_FIFO | os.SCHED_RESET_ON_FORK,
              f"consumer session thread policy {policy:#x}, not SCHED_FIFO, reset on fork")
        check(os.sched_getparam(waiter).sched_priority == PRIORITY,
              f"session thread priority {os.sched_getparam(waiter).sched_priority}, "
              f"not {PRIORITY}")
        others = [tid for tid in tids if tid != waiter]
        for tid in others:
            check(os.sched_getscheduler(tid) & ~os.SCHED_RESET_ON_FORK == os.SCHED_OTHER,
                  f"consumer thread {tid} ({thread_name(consumer, tid)}) took the realtime "
                  "policy")
        log(f"consumer {consumer}: main thread and session thread {waiter} SCHED_FIFO "
            f"{PRIORITY}, {len(others)} other threads SCHED_OTHER")
        check_recorded(svc, alice, "rt", out)

    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        out = trace_as(svc, alice, "normal")
        consumer = consumer_of(svc, alice.uid)
        check(os.sched_getscheduler(consumer) & ~os.SCHED_RESET_ON_FORK == os.SCHED_OTHER,
              "the consumer runs as realtime without the option")
        if kernel_has_custom_slices():
            tids = [int(tid) for tid in os.listdir(f"/proc/{consumer}/task")]
            waiters = [tid for tid in tids if thread_name(consumer, tid) == "tc-session"]
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
