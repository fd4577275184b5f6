#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The kernel half of a session is visible in `list`, `status` and over
the bus.

A session with a kernel channel of 4 x 4 KiB, the getppid system call, a
tracepoint, a uprobe (where the kernel has uprobe events) and the pid and
tid contexts: `list NAME` and `status` show its kernel domain (tracking,
the channel's geometry, contexts, probe, events, system calls named as
such), the Channels property has the kernel channel with domain "kernel",
and ChannelStatistics its figures. 100,000 getppid calls overflow the
buffer: the discarded count that list, status and ChannelStatistics give
after `stop` is exactly what the kernel lost (its per_cpu stats, overrun
plus dropped events) and what the trace's packets say (babeltrace2). bob
may read none of it."""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, TRACEFS, Service, check, kernel_instances, mount_tracefs, run
from tracelib import read_streams

CALLS = 100000


def busctl(svc, *args, user=None):
    return subprocess.run(svc._as(user) + ["busctl", "--system", *args], env=svc.env(user),
                          capture_output=True, text=True, timeout=60)


def kernel_lost():
    """overrun + dropped events over the CPUs of the only tracectl instance."""
    instances = kernel_instances()
    check(len(instances) == 1, f"tracectl instances: {instances}")
    per_cpu = os.path.join(TRACEFS, "instances", instances[0], "per_cpu")
    lost = 0
    for cpu in os.listdir(per_cpu):
        with open(os.path.join(per_cpu, cpu, "stats")) as f:
            values = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        lost += int(values["overrun"]) + int(values["dropped events"])
    return lost


def kernel_discarded_shown(text):
    """The discarded count of the kernel domain's channel in list/status."""
    kernel = text.split("=== Domain: Kernel ===", 1)
    check(len(kernel) == 2, f"no kernel domain shown: {text}")
    found = re.search(r"Events discarded: (\d+), packets written: (\d+)", kernel[1])
    check(found is not None, f"no kernel statistics shown: {kernel[1]}")
    return int(found.group(1))


def test():
    mount_tracefs()
    uprobes = os.path.exists(os.path.join(TRACEFS, "uprobe_events"))
    with Service() as svc:
        bob = svc.add_user("tctest-bob")
        out = os.path.join(svc.rundir, "visible")
        svc.cli("create", "kv", "--output", out)
        svc.cli("enable-channel", "-k", "channel0", "--subbuf-size", "4K", "--num-subbuf", "4")
        svc.cli("add-context", "-k", "-t", "pid", "-t", "tid")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("enable-event", "-k", "sched:sched_process_exit")
        if uprobes:
            svc.cli("enable-event", "-k", "--userspace-probe", f"{STRESS_APP}:stress_marker",
                    "marker")

        listing = svc.cli("list", "kv").stdout
        kernel = listing.split("=== Domain: Kernel ===", 1)
        check(len(kernel) == 2, f"list shows no kernel domain: {listing}")
        for text in ("Tracking:\n  every process", "- channel0:", "Sub-buffer size: 4096 bytes",
                     "Number of sub-buffers: 4", "Buffer per CPU: 16 KiB", "Contexts: pid, tid",
                     "syscalls:sys_enter_getppid (system call entry)",
                     "syscalls:sys_exit_getppid (system call exit)",
                     "sched:sched_process_exit", "Events discarded: 0"):
            check(text in kernel[1], f"list's kernel domain lacks {text!r}: {kernel[1]}")
        if uprobes:
            check(f"Probe: uprobe marker {STRESS_APP}:stress_marker" in kernel[1]
                  and ":marker" in kernel[1], f"list shows no probe: {kernel[1]}")

        svc.cli("start")
        caller = subprocess.Popen(["/usr/bin/python3", "-c",
                                   "import os\nos.sched_setaffinity(0, {0})\n"
                                   f"for _ in range({CALLS}): os.getppid()"])
        check(caller.wait(timeout=120) == 0, "the getppid loop failed")
        svc.cli("stop")
        lost = kernel_lost()
        check(lost > 0, "the kernel lost nothing: the buffer did not overflow")

        shown = kernel_discarded_shown(svc.cli("list", "kv").stdout)
        check(shown == lost, f"list: {shown} discarded, the kernel lost {lost}")
        shown = kernel_discarded_shown(svc.cli("status").stdout)
        check(shown == lost, f"status: {shown} discarded, the kernel lost {lost}")

        result = busctl(svc, "call", "org.tracectl.Tracing1", "/org/tracectl/Tracing1",
                        "org.tracectl.Tracing1.Manager", "FindSession", "s", "kv")
        check(result.returncode == 0, f"FindSession: {result.stderr}")
        path = result.stdout.split('"')[1]
        result = busctl(svc, "call", "org.tracectl.Tracing1", path,
                        "org.tracectl.Tracing1.Session", "ChannelStatistics", "--json=short")
        check(result.returncode == 0, f"ChannelStatistics: {result.stderr}")
        stats = [row for row in json.loads(result.stdout)["data"][0]
                 if row[0] == "kernel"]
        check(len(stats) == 1 and stats[0][1] == "channel0" and stats[0][5] == lost and
              stats[0][6] > 0, f"ChannelStatistics' kernel row {stats}, the kernel lost {lost}")
        result = busctl(svc, "get-property", "org.tracectl.Tracing1", path,
                        "org.tracectl.Tracing1.Session", "Channels")
        check(result.returncode == 0 and '"channel0" "kernel" 4096 4' in result.stdout,
              f"Channels: {result.stdout} {result.stderr}")
        for args in (("call", "org.tracectl.Tracing1", path, "org.tracectl.Tracing1.Session",
                      "ChannelStatistics"),
                     ("get-property", "org.tracectl.Tracing1", path,
                      "org.tracectl.Tracing1.Session", "Channels")):
            result = busctl(svc, *args, user=bob)
            check(result.returncode != 0 and "kernel" not in result.stdout,
                  f"bob read root's {args[-1]}: {result.stdout}")

        svc.cli("destroy", "kv")
        trace = read_streams(os.path.join(out, "kernel"))
        in_trace = sum(trace["discarded"].values())
        check(in_trace == lost, f"the trace says {in_trace} discarded, the kernel lost {lost}")


run(test)
