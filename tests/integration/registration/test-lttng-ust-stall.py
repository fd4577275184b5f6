#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An LTTng-UST application that stops answering (SIGSTOP after it
registered) holds back no session operation: alice's `tracectl start`
returns within the service's deadline (2 s) plus a margin, names the
application in the log, and alice's other application is recorded;
root's start, recording everyone's, is delayed by no more than the
deadline; bob's start, while both wait and an application of bob's
registers, is not delayed at all. The stalled
application is dropped when its command times out; once continued
(SIGCONT) it registers again by itself and alice's active session
records it. An application killed (SIGKILL) in the middle of a start
ends that start at once."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, require, run, wait_for
from lttnglib import require_served

LTTNG_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-lttng-app")
DEADLINE = 2.0  # TC_LTTNG_SESSION_DEADLINE_MS
MARGIN = 1.5


def spawn_app(svc, user=None):
    proc = subprocess.Popen(svc._as(user) + [LTTNG_APP, "60"], env=svc.env(user),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=user.home if user else "/")
    svc.apps.append(proc)
    return proc


def ready(proc):
    """proc once main() runs (LTTng-UST's constructor let it), its pid."""
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    proc.app_pid = int(line.split()[1])
    return proc


def start_app(svc, user=None):
    return ready(spawn_app(svc, user))


def timed(svc, *args, user=None):
    begin = time.monotonic()
    svc.cli(*args, user=user)
    return time.monotonic() - begin


def in_background(svc, *args, user=None):
    """tracectl args in a thread; .join() then .elapsed."""
    thread = threading.Thread(target=lambda: setattr(thread, "elapsed",
                                                     timed(svc, *args, user=user)))
    thread.start()
    return thread


def pids_recorded(out):
    """tick counts per vpid in the LTTng-UST trace under out."""
    text = subprocess.run(["babeltrace2", out], capture_output=True, text=True,
                          check=True).stdout
    ticks = {}
    for vpid, count in re.findall(r"vpid = (\d+) }, { count = (\d+) }", text):
        ticks.setdefault(int(vpid), []).append(int(count))
    return ticks


def log_text(svc):
    with open(svc.log_path, errors="replace") as f:
        return f.read()


def registrations(svc, pid):
    """how many times the application pid was registered (and listed)."""
    return len(re.findall(rf"(?<!un)registered: pid={pid} uid", log_text(svc)))


def session(svc, name, out, user=None):
    svc.cli("create", name, "--output", out, user=user)
    svc.cli("enable-event", "-u", "tc_lttng_test:tick", user=user)
    svc.cli("add-context", "-u", "-t", "vpid", user=user)


def test():
    require(os.path.exists(LTTNG_APP), f"{LTTNG_APP} is not built (no liblttng-ust)")
    require(shutil.which("babeltrace2"), "babeltrace2 is not installed")
    top = tempfile.mkdtemp(prefix="tctest-lttng-stall-")
    try:
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            alice, bob = svc.add_user("tctest-alice"), svc.add_user("tctest-bob")
            alice_out, bob_out = os.path.join(alice.home, "trace"), os.path.join(bob.home, "trace")
            root_out = os.path.join(top, "root")
            session(svc, "s", alice_out, alice)
            session(svc, "s", bob_out, bob)
            session(svc, "r", root_out)
            running, stalled = start_app(svc, alice), start_app(svc, alice)
            bobs = start_app(svc, bob)
            # main() runs once register_done came; the service lists the
            # events after that, on the owner's thread: stalled only once
            # registered, listed included.
            for app in (running, stalled, bobs):
                wait_for(lambda: registrations(svc, app.app_pid) == 1, 10,
                         f"the application pid={app.app_pid} registered")
            os.kill(stalled.app_pid, signal.SIGSTOP)

            # alice's start waits for the stalled one, at most the deadline;
            # root's, recording everyone's, queued behind alice's, at most
            # the deadline too, holding its op_lock meanwhile. bob's waits
            # for nobody, though an application of bob's registers then
            # (it must not block bob's thread on root's op_lock).
            alices = in_background(svc, "start", user=alice)
            time.sleep(0.3)
            roots = in_background(svc, "start")
            time.sleep(0.3)
            newcomer = spawn_app(svc, bob)
            time.sleep(0.2)
            bob_elapsed = timed(svc, "start", user=bob)
            alices.join()
            roots.join()
            root_elapsed = roots.elapsed
            ready(newcomer)
            log(f"start: alice {alices.elapsed:.2f} s, bob {bob_elapsed:.2f} s, "
                f"root {root_elapsed:.2f} s")
            check(alices.elapsed < DEADLINE + MARGIN,
                  f"alice's start took {alices.elapsed:.2f} s with a stalled application")
            check(bob_elapsed < 1.0, f"bob's start took {bob_elapsed:.2f} s while alice's waited")
            check(root_elapsed < DEADLINE + MARGIN,
                  f"root's start took {root_elapsed:.2f} s with a stalled application")
            check(re.search(rf"Session 's': the start not done in the LTTng-UST application "
                            rf"pid={stalled.app_pid} uid={alice.uid}", log_text(svc)),
                  "the stalled application is not named in the log")

            # The stalled one is dropped at its command's timeout; once
            # continued it registers again and is recorded.
            wait_for(lambda: re.search(rf"unregistered: pid={stalled.app_pid} ",
                                       log_text(svc)), 15, "the stalled application dropped")
            os.kill(stalled.app_pid, signal.SIGCONT)
            wait_for(lambda: registrations(svc, stalled.app_pid) == 2, 20,
                     "the continued application registered again")
            time.sleep(1.5)

            # SIGKILL in the middle of a start: the start ends at once.
            svc.cli("stop", user=alice)
            time.sleep(1)
            victim = start_app(svc, alice)
            os.kill(victim.app_pid, signal.SIGSTOP)
            again = in_background(svc, "start", user=alice)
            time.sleep(0.5)
            os.kill(victim.app_pid, signal.SIGKILL)
            again.join()
            log(f"start with an application killed in its middle: {again.elapsed:.2f} s")
            check(again.elapsed < DEADLINE, f"the start took {again.elapsed:.2f} s")
            time.sleep(1.5)
            for user, name in ((alice, "s"), (bob, "s"), (None, "r")):
                svc.cli("stop", user=user)
                svc.cli("destroy", name, user=user)
            check(svc.alive(), "tracectld died")

            mine = pids_recorded(alice_out)
            log(f"alice's trace: { {pid: len(c) for pid, c in mine.items()} }")
            check(len(mine.get(running.app_pid, [])) >= 20,
                  "alice's running application is not recorded")
            # Two runs: from its registration again to the stop (what the
            # registration applied), then after the start again.
            resumed = mine.get(stalled.app_pid, [])
            runs = sum(1 for a, b in zip([None] + resumed, resumed) if a is None or b != a + 1)
            check(len(resumed) >= 10 and runs == 2,
                  f"the continued application recorded {resumed}: " +
                  "\n".join(line for line in log_text(svc).splitlines()
                            if f"pid={stalled.app_pid}" in line or "Session 's'" in line))
            check(victim.app_pid not in mine or len(mine[victim.app_pid]) == 0,
                  "the killed application recorded")
            theirs = pids_recorded(bob_out)
            check(len(theirs.get(bobs.app_pid, [])) >= 20 and
                  len(theirs.get(newcomer.app_pid, [])) >= 20,
                  f"bob's applications are not recorded: {sorted(theirs)}")
            everyone = pids_recorded(root_out)
            check(len(everyone.get(running.app_pid, [])) >= 10 and
                  len(everyone.get(bobs.app_pid, [])) >= 10,
                  f"root's session recorded {sorted(everyone)}")
    finally:
        shutil.rmtree(top, ignore_errors=True)


run(test)
