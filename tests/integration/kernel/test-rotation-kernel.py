#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Rotation of a session that records the kernel and user space: each
archive holds ust/uid/0/64-bit and kernel, both read by babeltrace2
without a warning, and the archives together hold every user-space event
and every getppid system call of the application exactly once."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, mount_tracefs, run, wait_for
from tracelib import babeltrace_text, read_streams

COUNT = 3000


def test():
    mount_tracefs()
    with Service() as svc:
        out = os.path.join(svc.rundir, "krot")
        svc.cli("create", "krot", "--output", out)
        svc.cli("add-context", "-u", "-t", "vtid")
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("start")
        app = svc.app("--threads", "1", "--count", str(COUNT), "--signals", "0", "--getppid",
                      "--pace", "10", "--pause-ms", "2", program=STRESS_APP)
        # Registered (its user's buffers exist) before the first rotation,
        # which must then hold the user-space part, however slow the start.
        wait_for(lambda: app.pid in svc.listed_pids() or app.poll() is not None, 30,
                 "the stress application to register")
        archives = []
        for _ in range(2):
            time.sleep(0.2)
            archives.append(svc.cli("rotate").stdout.split()[-1])
        _, err = app.communicate(timeout=60)
        check(app.returncode == 0, f"stress app failed: {err}")
        svc.cli("stop")
        archives.append(svc.cli("rotate").stdout.split()[-1])

        user_seqs, kernel_events, tids = [], [], set()
        for archive in archives:
            for part in ("ust/uid/0/64-bit", "kernel"):
                check(os.path.exists(os.path.join(archive, part, "metadata")),
                      f"{archive} has no {part}")
            babeltrace_text(archive)
            events = read_streams(archive)["events"]
            mine = [e for e in events if e["name"] == "stress:thread"]
            tids |= {e["ctx_vtid"] for e in mine}
            user_seqs += [e["seq"] for e in mine]
            kernel_events += [e for e in events if e["name"] == "syscall_entry_getppid"]
            log(f"{os.path.basename(archive)}: {len(mine)} user-space events, "
                f"{sum(1 for e in events if e['name'].startswith('syscall_'))} system calls")
        calls = [e for e in kernel_events if e.get("common_pid") in tids]
        check(sorted(user_seqs) == list(range(COUNT)),
              f"{len(user_seqs)} user-space events across the archives for {COUNT}")
        check(len(calls) == COUNT, f"{len(calls)} getppid calls across the archives for {COUNT}")
        svc.cli("destroy", "krot")


run(test)
