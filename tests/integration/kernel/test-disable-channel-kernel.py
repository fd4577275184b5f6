#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""disable-channel -k: the session's tracefs instance stops recording
while the session records, enable-channel -k starts it again; the
application's getppid calls of the run in between are not in the trace,
those before and after are. Kernel channels other than channel0, a
session without kernel events, twice in a row, and another user over the
bus are refused."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from busctllib import session_call, session_path
from tclib import STRESS_APP, Service, check, mount_tracefs, run
from tracelib import read_streams

COUNT = 50


def run_app(svc):
    proc = svc.app("--threads", "1", "--count", str(COUNT), "--signals", "0", "--getppid",
                   program=STRESS_APP)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 0 and err == "", f"application failed ({proc.returncode}): {err}")
    return proc.pid


def test():
    mount_tracefs()
    with Service() as svc:
        bob = svc.add_user("tctest-bob")
        svc.cli("create", "none")
        bad = svc.cli("disable-channel", "-k", "channel0", check_ok=False)
        check(bad.returncode == 3 and "has no kernel channel" in bad.stderr, f"{bad}")
        svc.cli("destroy")

        svc.cli("create", "kdc")
        svc.cli("add-context", "-k", "-t", "pid")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("start")
        pids = [run_app(svc)]
        out = svc.cli("disable-channel", "-k", "channel0").stdout
        check("Kernel channel channel0 disabled for session kdc" in out, out)
        skipped = run_app(svc)
        bad = svc.cli("disable-channel", "-k", "channel0", check_ok=False)
        check(bad.returncode == 1 and "disabled already" in bad.stderr, f"{bad}")
        bad = svc.cli("disable-channel", "-k", "other", check_ok=False)
        check(bad.returncode == 3 and "one channel, 'channel0'" in bad.stderr, f"{bad}")
        path = session_path(svc, "kdc")
        bad = session_call(svc, path, "DisableChannel", "ss", "kernel", "channel0", user=bob)
        check(bad.returncode != 0, f"bob's DisableChannel: {bad}")
        svc.cli("enable-channel", "-k", "channel0")
        pids.append(run_app(svc))
        # Over the bus as the owner, then a restart with the channel off.
        ok = session_call(svc, path, "DisableChannel", "ss", "kernel", "channel0")
        check(ok.returncode == 0, f"DisableChannel: {ok}")
        svc.cli("stop")
        svc.cli("start")
        skipped_too = run_app(svc)
        svc.cli("stop")

        events = read_streams(svc.cli("view", "--trace-path").stdout.strip())["events"]
        enters = {}
        for e in events:
            if e["name"] == "syscall_entry_getppid":
                enters[e["ctx_pid"]] = enters.get(e["ctx_pid"], 0) + 1
        for pid in pids:
            check(enters.get(pid, 0) >= COUNT, f"run {pid} recorded {enters.get(pid, 0)}")
        for pid in (skipped, skipped_too):
            check(pid not in enters, f"run {pid} recorded while the channel was disabled")
        svc.cli("destroy")


run(test)
