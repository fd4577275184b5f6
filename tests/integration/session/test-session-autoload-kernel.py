#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto-loading of what needs more than a user's own rights: a session
file of root's with a kernel domain (sched_switch, the getppid system
call, the pid context) becomes a recording root session whose kernel
trace holds sched_switch records, and the rotation schedule of the file
(a timer and a size) is the session's, shown by `list`; a kernel pid
tracker of root's file is the kernel domain's. The same kernel
domain in a file of alice's is refused with a log line saying why (no
caller to ask polkit), and no session comes of it."""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import sessionxmllib
from tclib import Service, check, log, mount_tracefs, run, wait_for
from tracelib import read_streams

TIMER_US = 3600 * 1000000
SIZE = 1 << 30

KERNEL_CHANNEL = sessionxmllib.channel(
    [sessionxmllib.event("sched_switch"), sessionxmllib.event("getppid", kind="SYSCALL")],
    name="channel0", contexts=["PID"])


def write(directory, file_name, session, out, owner, tracked_pid=None):
    """A kernel session; with tracked_pid, not started and recording only
    that process."""
    trackers = sessionxmllib.pid_tracker([tracked_pid]) if tracked_pid else None
    text = sessionxmllib.session(session, [sessionxmllib.kernel_domain([KERNEL_CHANNEL], trackers)],
                              started=not tracked_pid, output=out,
                              rotation_timer_us=TIMER_US, rotation_size=SIZE)
    return sessionxmllib.install(directory, file_name, text, owner)


def test():
    mount_tracefs()
    top = tempfile.mkdtemp(prefix="tracectl-autoload-kernel-")
    try:
        os.chmod(top, 0o755)
        directory = os.path.join(top, "sessions")
        os.mkdir(directory, 0o755)
        out = os.path.join(top, "out")
        svc = Service(args=["--session-dir", directory])
        alice = svc.add_user("tctest-akalice")
        write(directory, "root.lttng", "autokernel", out, 0)
        write(directory, "tracked.lttng", "autotracked", os.path.join(top, "t"), 0,
              tracked_pid=4242)
        refused = write(directory, "alice.lttng", "alicekernel", os.path.join(top, "a"),
                        alice.uid)
        with svc:
            # Listed, and found by name, as soon as auto-load creates it,
            # which is before its file has been applied and it started.
            wait_for(lambda: "autokernel" in {s["name"] for s in svc.sessions()} and
                     svc.session("autokernel")["state"] == "active",
                     timeout=30, what="root's auto-loaded kernel session to record")
            session = svc.session("autokernel")
            check(session["owner_uid"] == 0 and session["state"] == "active",
                  f"root's auto-loaded session: {session}")
            listing = svc.cli("list", "autokernel").stdout
            for text in (f"Rotation: every {TIMER_US} us", f"Rotation: at {SIZE} bytes",
                         "=== Domain: Kernel ===", "Contexts: pid",
                         "syscalls:sys_enter_getppid"):
                check(text in listing, f"list lacks {text!r}: {listing}")
            tracked = svc.cli("list", "autotracked").stdout.split("=== Domain: Kernel ===", 1)
            check(len(tracked) == 2 and "pid: 4242\n" in tracked[1] and
                  "pid: 4242" not in tracked[0],
                  f"the kernel tracker is not the kernel domain's: {tracked}")
            time.sleep(0.5)
            svc.cli("stop", "autokernel")
            events = read_streams(out)["events"]
            switches = [e for e in events if e["name"].endswith("sched_switch")]
            check(switches, f"no sched_switch in root's kernel trace "
                            f"({sorted({e['name'] for e in events})})")
            check(svc.sessions(user=alice) == [], "alice's kernel file made a session")
            with open(svc.log_path, errors="replace") as f:
                logged = f.read()
            why = ("session 'alicekernel' not loaded: auto-loading sets up the kernel domain "
                   f"of root's files only: there is no caller to ask polkit whether uid "
                   f"{alice.uid} may trace the kernel")
            check(refused in logged and why in logged, f"no refusal of {refused} logged")
            log(f"root's kernel session loaded: {len(switches)} sched_switch records, "
                "rotation schedule set; alice's kernel file refused")
            svc.cli("destroy", "autokernel")
            svc.cli("destroy", "autotracked")
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
