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
import tempfile
import time

from tclib import Service, check, log, mount_tracefs, run, wait_for
from tracelib import read_streams

TIMER_US = 3600 * 1000000
SIZE = 1 << 30

SESSION = """<?xml version="1.0" encoding="UTF-8"?>
<sessions>
	<session>
		<name>{name}</name>
		<domains>
			<domain>
				<type>KERNEL</type>
				<buffer_type>GLOBAL</buffer_type>
				<channels>
					<channel>
						<name>channel0</name>
						<enabled>true</enabled>
						<subbuffer_size>262144</subbuffer_size>
						<subbuffer_count>4</subbuffer_count>
						<events>
							<event>
								<name>sched_switch</name>
								<enabled>true</enabled>
								<type>TRACEPOINT</type>
							</event>
							<event>
								<name>getppid</name>
								<enabled>true</enabled>
								<type>SYSCALL</type>
							</event>
						</events>
						<contexts>
							<context>
								<type>PID</type>
							</context>
						</contexts>
					</channel>
				</channels>
			</domain>
		</domains>
		<started>true</started>
		<attributes>
			<rotation_schedules>
				<periodic>
					<time_us>{timer}</time_us>
				</periodic>
				<size_threshold>
					<bytes>{size}</bytes>
				</size_threshold>
			</rotation_schedules>
		</attributes>
		<output>
			<consumer_output>
				<enabled>true</enabled>
				<destination>
					<path>{path}</path>
				</destination>
			</consumer_output>
		</output>
	</session>
</sessions>
"""


# The kernel domain's pid tracker, after its channels.
TRACKER = """</channels>
				<process_attr_trackers>
					<pid_process_attr_tracker>
						<process_attr_values>
							<pid>
								<id>{pid}</id>
							</pid>
						</process_attr_values>
					</pid_process_attr_tracker>
				</process_attr_trackers>"""


def write(directory, file_name, session, out, owner, tracked_pid=None):
    path = os.path.join(directory, file_name)
    text = SESSION.format(name=session, path=out, timer=TIMER_US, size=SIZE)
    if tracked_pid:
        text = text.replace("<started>true</started>", "<started>false</started>")
        text = text.replace("</channels>", TRACKER.format(pid=tracked_pid), 1)
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner, 0)
    os.chmod(path, 0o644)
    return path


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
            # Listed once created, but published (named, with its state)
            # only when every file is loaded.
            wait_for(lambda: "autokernel" in {s["name"] for s in svc.sessions()} and
                     svc.session("autokernel")["name"] == "autokernel",
                     timeout=30, what="root's auto-loaded kernel session")
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
