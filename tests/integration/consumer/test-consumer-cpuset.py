#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A consumer confined by a cpuset to CPUs other than an application's.

To close the sub-buffer that writers are filling, the consumer locks the
writers' plain moves of that buffer out and runs on the buffer's CPU for a
moment (tc_rb_flush_status()). A cpuset can forbid the visit, as for
daemons kept off the CPUs isolated for a workload. The switch timer's
close is then skipped with a warning, and the stop flush waits instead of
visiting. Nothing may be lost: every event of an application on the
forbidden CPU, all of them in a sub-buffer that the writer never filled,
is in the trace.

The lock-out, and so the visit, is for buffers on CLOCK_MONOTONIC, whose
writers move the position with a plain store: the service runs with
TRACECTL_TRACE_CLOCK=monotonic. Buffers on the TSC clock (the default
where the kernel's clock source is the TSC) are moved with a locked swap
only and need no visit: on such a machine a second service, on its
default clock, must close CPU 1's sub-buffer on the switch timer, while
the application's session runs, without the warning.

The service is moved into a cpuset of CPU 0 (cgroup v1, or v2 with the
cpuset controller) before the session exists, so its consumer starts
there; the application runs on CPU 1, outside."""

import contextlib
import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, kernel_uses_tsc, log, require, run, wait_for
from tracelib import read_streams

COUNT = 1000
V1 = "/sys/fs/cgroup/cpuset"
V2 = "/sys/fs/cgroup"


def write(path, value):
    with open(path, "w") as f:
        f.write(value)


def make_cpuset(name):
    """A cpuset of CPU 0: its path, the cgroup.procs to move processes
    back to, and whether the cpuset controller was turned on for it (v2),
    or None when this machine has no cpuset to use."""
    if os.access(os.path.join(V1, "cpuset.cpus"), os.W_OK):
        path = os.path.join(V1, name)
        os.makedirs(path, exist_ok=True)
        write(os.path.join(path, "cpuset.cpus"), "0")
        write(os.path.join(path, "cpuset.mems"), "0")
        return path, os.path.join(V1, "cgroup.procs"), False
    with contextlib.suppress(OSError):
        with open(os.path.join(V2, "cgroup.controllers")) as f:
            if "cpuset" in f.read().split():
                with open(os.path.join(V2, "cgroup.subtree_control")) as f:
                    turned_on = "cpuset" not in f.read().split()
                if turned_on:
                    write(os.path.join(V2, "cgroup.subtree_control"), "+cpuset")
                path = os.path.join(V2, name)
                os.makedirs(path, exist_ok=True)
                write(os.path.join(path, "cpuset.cpus"), "0")
                return path, os.path.join(V2, "cgroup.procs"), turned_on
    return None


def remove_cpuset(path, parent_procs, turned_on):
    with contextlib.suppress(OSError):
        with open(os.path.join(path, "cgroup.procs")) as f:
            for pid in f.read().split():
                with contextlib.suppress(OSError):
                    write(parent_procs, pid)
    wait_for(lambda: not open(os.path.join(path, "cgroup.procs")).read().strip(), 10,
             "the cpuset to empty")
    os.rmdir(path)
    if turned_on:
        with contextlib.suppress(OSError):
            write(os.path.join(V2, "cgroup.subtree_control"), "-cpuset")


def cpu1_stream_size(out):
    return sum(os.path.getsize(path) for path in glob.glob(f"{out}/ust/uid/*/*-bit/c_1"))


def trace_on_cpu1(cpuset_path, daemon_env, expect_warning):
    """One session whose application runs on CPU 1, outside the consumer's
    cpuset; with expect_warning, the switch timer's close is refused with
    a warning, otherwise it closes CPU 1's sub-buffer before the stop.
    Every event is in the trace either way."""
    with Service(daemon_env=daemon_env) as svc:
        write(os.path.join(cpuset_path, "cgroup.procs"), str(svc.proc.pid))
        out = os.path.join(svc.rundir, "cpuset")
        svc.cli("create", "cpuset", "--output", out)
        svc.cli("enable-channel", "-u", "c", "--switch-timer", "50000")
        svc.cli("enable-event", "-u", "-c", "c", "stress:*")
        svc.cli("start")
        env = svc.env()
        env["TRACECTL_UST_REGISTER_TIMEOUT"] = "5000"
        app = subprocess.run(["taskset", "-c", "1", STRESS_APP, "--threads", "1",
                              "--count", str(COUNT), "--signals", "0"], env=env,
                             capture_output=True, text=True, timeout=60)
        check(app.returncode == 0, f"stress app failed: {app}")
        def warned():
            with open(svc.log_path, "rb") as log_file:
                return b"Cannot close the sub-buffer being filled" in log_file.read()

        if expect_warning:
            # Two switch-timer periods and more: the close is tried, refused.
            wait_for(warned, 10, "the consumer's warning")
        else:
            wait_for(lambda: cpu1_stream_size(out) > 0, 10,
                     "the switch timer to close CPU 1's sub-buffer")
            time.sleep(0.2)  # a few more periods: none may warn
            check(not warned(), "the consumer could not close a TSC buffer's sub-buffer")
        svc.cli("stop")
        check(svc.alive(), "tracectld died")
        events = read_streams(out)["events"]
        seqs = [e["seq"] for e in events if e["name"] == "stress:thread"]
        log(f"{len(seqs)} of {COUNT} events recorded from CPU 1 "
            f"({daemon_env or 'default clock'})")
        check(seqs == list(range(COUNT)), f"{len(seqs)} of {COUNT} events, or out of order")
        svc.cli("destroy", "cpuset")


def test():
    require(os.cpu_count() >= 2, "two CPUs are needed")
    cpuset = make_cpuset(f"tracectl-test-{os.getpid()}")
    require(cpuset is not None, "no cpuset controller to confine the consumer with")
    path, parent_procs, turned_on = cpuset
    try:
        trace_on_cpu1(path, {"TRACECTL_TRACE_CLOCK": "monotonic"}, expect_warning=True)
        if kernel_uses_tsc():
            trace_on_cpu1(path, {}, expect_warning=False)
        else:
            log("the kernel's clock source is not the TSC: no TSC buffers to check")
    finally:
        remove_cpuset(path, parent_procs, turned_on)


run(test)
