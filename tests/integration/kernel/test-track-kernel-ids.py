#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl track -k --uid/--gid: the kernel records only the processes of
the tracked users or groups.

Root's session records getppid() system calls with the pid context while
its kernel uid set holds alice's uid: alice's worker (started before the
tracking) records, bob's and a root worker do not; a worker that starts
as root and setuid()s to alice records once the helper's rescan found it;
a child alice's worker starts records from its first call; all of this
after the kernel helper was killed and started again. Tracking every
uid again while recording lets bob's next worker record. A second session
tracks bob's group and root's: bob's worker records and alice's does not,
and a root worker that setgid()s to alice's group stops recording once the
rescan saw it; saved and loaded, the session keeps its kernel gid set. A
third session tracks a uid and a vuid: only the process in a user
namespace that maps that uid to the vuid records."""

import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import (TRACEFS, Service, check, children, is_running, kernel_instances, log,
                   mount_tracefs, run, wait_for)
from tracelib import read_streams

COUNT = 50
# Serves lines: "switch UID GID" becomes UID:GID (setresgid, then
# setresuid); "calls" calls getppid() COUNT times; "fork" has a child do
# that; each answers a line when done (the child's pid for "fork").
WORKER = f"""
import os, sys
def calls():
    for _ in range({COUNT}):
        os.getppid()
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "switch":
        uid, gid = int(cmd[1]), int(cmd[2])
        os.setresgid(gid, gid, gid)
        os.setgroups([])
        os.setresuid(uid, uid, uid)
        print("switched", flush=True)
    elif cmd[0] == "calls":
        calls()
        print("done", flush=True)
    elif cmd[0] == "fork":
        child = os.fork()
        if child == 0:
            calls()
            os._exit(0)
        os.waitpid(child, 0)
        print(child, flush=True)
"""
RESCAN_S = 0.25
# A rescan round reads a few processes a tick: on a slow machine it can
# take many ticks, never forever (which is what the tests catch).
RESCAN_WAIT_S = 40 * RESCAN_S


class Worker:
    def __init__(self, svc, user=None, wrapper=()):
        self.proc = subprocess.Popen(svc._as(user) + [*wrapper, sys.executable, "-c", WORKER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = self.proc.pid

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        check(answer != "", f"worker {self.pid}: no answer to {line}")
        return answer

    def switch(self, user):
        """Becomes user (real, effective and saved ids)."""
        self.ask(f"switch {user.uid} {user.gid}")

    def end(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        check(self.proc.returncode == 0, f"worker {self.pid} failed")


def busctl(svc, *args):
    proc = subprocess.run(["busctl", "--system", *args], env=svc.env(), capture_output=True,
                          text=True, timeout=60)
    check(proc.returncode == 0, f"busctl {args}: {proc.stderr}")
    return proc.stdout


def comm(pid):
    """The process' name as the kernel keeps it (15 characters)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def getppid_pids(out):
    events = read_streams(out)["events"]
    enters = [e for e in events if e["name"] == "syscall_entry_getppid"]
    pids = {}
    for e in enters:
        pids[e["ctx_pid"]] = pids.get(e["ctx_pid"], 0) + 1
    return pids


def filtered_pids():
    """The pids in the set_event_pid of the service's kernel instances."""
    pids = set()
    for name in kernel_instances():
        with open(os.path.join(TRACEFS, "instances", name, "set_event_pid")) as f:
            pids |= {int(pid) for pid in f.read().split()}
    return pids


def instances_recording():
    """Whether every kernel instance of the service records: a removal
    pauses its instance while it rewrites set_event_pid."""
    for name in kernel_instances():
        with open(os.path.join(TRACEFS, "instances", name, "tracing_on")) as f:
            if f.read().strip() != "1":
                return False
    return True


def wait_settled(condition, what):
    """Waits for condition, then for it to hold again after two more
    rescans: the round that adds a process may end by removing others
    from the list, with the instance paused meanwhile (events of every
    process are lost then); once the rounds find nothing to change, the
    list and the recording stay."""
    wait_for(condition, RESCAN_WAIT_S, what)
    time.sleep(2 * RESCAN_S)
    wait_for(condition, RESCAN_WAIT_S, what)


def new_session(svc, name, rundir):
    out = os.path.join(rundir, name)
    svc.cli("create", name, "--output", out)
    svc.cli("add-context", "-k", "-s", name, "-t", "pid")
    svc.cli("enable-event", "-k", "-s", name, "--syscall", "getppid")
    return out


def by_uid(svc, alice, bob):
    out = new_session(svc, "kuid", svc.rundir)
    before = Worker(svc, alice)
    other, root = Worker(svc, bob), Worker(svc)
    switcher = Worker(svc)
    result = svc.cli("track", "-k", "-s", "kuid", f"--uid={alice.uid}")
    check(f"Kernel uid {alice.uid} tracked in session kuid" in result.stdout, result.stdout)
    listing = svc.cli("list", "kuid").stdout
    check(f"uid: {alice.uid}\n" in listing, f"list does not show the kernel uid: {listing}")
    path = busctl(svc, "call", "org.tracectl.Tracing1", "/org/tracectl/Tracing1",
                  "org.tracectl.Tracing1.Manager", "FindSession", "s", "kuid").split('"')[1]
    tracking = busctl(svc, "get-property", "org.tracectl.Tracing1", path,
                      "org.tracectl.Tracing1.Session", "Tracking")
    check(f'"kernel" "uid" false 1 {alice.uid}' in tracking,
          f"the Tracking property lacks the kernel uid: {tracking}")
    svc.cli("start", "kuid")
    # A helper killed and started again by the next kernel request
    # follows the tracked ids again.
    helpers = [pid for pid in children(svc.proc.pid) if comm(pid) == "tracectl-kernel"]
    check(len(helpers) == 1, f"kernel helpers {helpers}")
    os.kill(helpers[0], signal.SIGKILL)
    wait_for(lambda: not is_running(helpers[0]), what="the helper's end")
    svc.cli("enable-event", "-k", "-s", "kuid", "--syscall", "getpid")
    switcher.switch(alice)
    wait_settled(lambda: switcher.pid in filtered_pids() and instances_recording(),
                 "the rescan to find the worker that became alice")
    child = int(before.ask("fork"))
    for worker in (before, other, root, switcher):
        worker.ask("calls")
        worker.end()
    # Every uid again, while recording: bob's next worker records.
    svc.cli("track", "-k", "-s", "kuid", "--all", "--uid")
    after = Worker(svc, bob)
    after.ask("calls")
    after.end()
    svc.cli("stop", "kuid")

    pids = getppid_pids(out)
    log(f"getppid entries per pid: {pids}")
    for name, pid in (("alice's worker", before.pid), ("alice's worker's child", child),
                      ("the worker that became alice", switcher.pid),
                      ("bob's worker once every uid is tracked", after.pid)):
        check(pids.get(pid, 0) == COUNT, f"{name} ({pid}): {pids.get(pid, 0)} getppid entries, "
              f"{COUNT} expected ({pids})")
    for name, pid in (("bob's worker", other.pid), ("root's worker", root.pid)):
        check(pid not in pids, f"{name} ({pid}) recorded {pids.get(pid)} getppid entries "
              f"while only uid {alice.uid} is tracked")
    svc.cli("destroy", "kuid")


def by_gid(svc, alice, bob):
    out = new_session(svc, "kgid", svc.rundir)
    svc.cli("track", "-k", "-s", "kgid", f"--gid={bob.gid},0")
    saved = os.path.join(svc.rundir, "saved")
    svc.cli("save", "kgid", "-o", saved)
    text = open(os.path.join(saved, "kgid.lttng")).read()
    kernel = text[text.index("<type>KERNEL</type>"):]
    check("<gid_process_attr_tracker>" in kernel.split("</domain>")[0] and
          f"<id>{bob.gid}</id>" in kernel.split("</domain>")[0],
          f"the saved kernel domain lacks the gid tracker:\n{text}")
    svc.cli("destroy", "kgid")
    shutil.rmtree(out, ignore_errors=True)
    svc.cli("load", "kgid", "-i", saved)
    listing = svc.cli("list", "kgid").stdout
    check(f"gid: 0, {bob.gid}\n" in listing, f"the loaded session lacks the kernel gid: {listing}")
    kept, other, leaving = Worker(svc, bob), Worker(svc, alice), Worker(svc)
    svc.cli("start", "kgid")
    for worker in (kept, other, leaving):
        worker.ask("calls")
    # Root's worker leaves group 0 for alice's: the rescan drops it.
    leaving.switch(alice)

    def dropped():
        pids = filtered_pids()
        return leaving.pid not in pids and kept.pid in pids and instances_recording()
    # The whole removal done: the list rewritten and the instance recording again.
    wait_settled(dropped, "the rescan to drop the worker that left group 0")
    for worker in (kept, other, leaving):
        worker.ask("calls")
        worker.end()
    svc.cli("stop", "kgid")
    pids = getppid_pids(out)
    log(f"getppid entries per pid: {pids}")
    check(pids.get(kept.pid, 0) == 2 * COUNT, f"bob's worker ({kept.pid}): {pids}")
    check(other.pid not in pids, f"alice's worker ({other.pid}) recorded: {pids}")
    check(pids.get(leaving.pid, 0) == COUNT,
          f"the worker that left group 0 ({leaving.pid}): {pids.get(leaving.pid, 0)} "
          f"getppid entries, {COUNT} expected (those before it left)")
    svc.cli("destroy", "kgid")


def by_vuid(svc, alice):
    """uid and vuid sets together: alice's process in a user namespace of
    its own that maps alice to 0 has vuid 0 and records; alice's process
    outside (vuid = uid) and root's (uid 0) do not."""
    out = new_session(svc, "kvuid", svc.rundir)
    svc.cli("track", "-k", "-s", "kvuid", f"--uid={alice.uid}", "--vuid=0")
    inside = Worker(svc, alice, wrapper=("unshare", "--user", "--map-root-user"))
    outside, root = Worker(svc, alice), Worker(svc)
    svc.cli("start", "kvuid")
    for worker in (inside, outside, root):
        worker.ask("calls")
        worker.end()
    svc.cli("stop", "kvuid")
    pids = getppid_pids(out)
    log(f"getppid entries per pid: {pids}")
    check(pids.get(inside.pid, 0) == COUNT,
          f"alice's worker with vuid 0 ({inside.pid}): {pids}")
    for name, pid in (("alice's worker with vuid %d" % alice.uid, outside.pid),
                      ("root's worker", root.pid)):
        check(pid not in pids, f"{name} ({pid}) recorded: {pids}")
    svc.cli("destroy", "kvuid")


def test():
    mount_tracefs()
    with Service() as svc:
        alice = svc.add_user("tctest-kalice")
        bob = svc.add_user("tctest-kbob")
        for user in (alice, bob):
            user.gid = pwd.getpwnam(user.name).pw_gid
        check(alice.gid != bob.gid, "the test users share their group")
        by_uid(svc, alice, bob)
        by_gid(svc, alice, bob)
        by_vuid(svc, alice)


run(test)
