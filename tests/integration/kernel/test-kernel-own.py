#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The own-process kernel tier through tracectld: alice and bob, granted
org.tracectl.Tracing1.trace-kernel-own, each record `enable-event -k
--own` while both run the same workload (getppid() in a loop, and sleeps)
at the same time. Each one's <output>/kernel-own, read with babeltrace2,
holds events of the processes that user started only (their pids and
tids), with no field of the other's tasks and no value in the kernel's
address range; a member of 'tracing' recording the whole machine sees
both. Events the tier cannot scope, patterns that try to widen it and
users without the action are refused, naming the event or the action.
A setuid program alice starts is not recorded after its execve(): its
uids are not all hers (test-kernel-own-ptrace checks the rest of the rule:
dumpability, capabilities, gids)."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, mount_tracefs, require, run
from owntierlib import cli_pid, kernel_addresses, polkit_rule
from tracelib import babeltrace_text, read_streams

ACTION = "org.tracectl.Tracing1.trace-kernel-own"
OWN_EVENTS = "raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch,sched:sched_wakeup"
GETPPID = 110
EXECVE = 59
SETUID_PROGRAM = "/usr/bin/passwd"
WORKLOAD = ("import os, time\n"
            "for _ in range(10):\n"
            "    for _ in range(300): os.getppid()\n"
            "    time.sleep(0.02)\n")


def consumer_pid(user):
    pids = subprocess.run(["pgrep", "-u", str(user.uid), "^tracectl-consum"],
                          capture_output=True, text=True).stdout.split()
    check(len(pids) == 1, f"{user.name}'s consumer: {pids}")
    return int(pids[0])


def run_setuid(svc, user):
    """Runs the setuid-root program as user; its pid."""
    proc = subprocess.Popen(svc._as(user) + [SETUID_PROGRAM, "-S", user.name],
                            env=svc.env(user), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=user.home)
    proc.wait(timeout=30)
    return proc.pid


def check_setuid_left_out(path, pid):
    """Nothing of the setuid program's process after its execve(): its last
    system call recorded, if any, is the entry of its execve() (it may still
    be scheduled as alice's while the kernel loads the program, before its
    credentials change). setpriv, root until it switched to alice just
    before, is not dumpable, so alice could not trace it: often nothing of
    the process is there at all."""
    events = sorted((e for e in read_streams(path)["events"] if e.get("ctx_pid") == pid
                     and e["name"].startswith("raw_syscalls:")), key=lambda e: e["ts"])
    check(not events or (events[-1]["name"] == "raw_syscalls:sys_enter" and
                         events[-1]["id"] == EXECVE),
          f"{SETUID_PROGRAM} (pid {pid}) was recorded after its execve(): {events[-1:]}")
    log(f"{SETUID_PROGRAM}: nothing recorded after its execve() ({len(events)} events before)")


# How far the two traces' clocks (the TSC, CLOCK_MONOTONIC) may be apart on
# babeltrace2's one time line: it aligns them from one reading of each
# taken at the start, so the alignment drifts by the TSC's measured
# frequency's error, microseconds over the test, where a wrong clock or
# offset is seconds away.
CLOCK_SLACK_NS = 200000


def check_timeline(out):
    """Each event of the application comes, on its thread, next to the
    entry of its getppid() in the kernel-own trace: one timeline for both.
    The loop emits event n, then calls getppid(), then emits event n + 1:
    the n-th getppid() entry of a thread lies between its n-th and
    (n + 1)-th events, to within CLOCK_SLACK_NS (the thread may be
    preempted anywhere: the order holds, not the distance)."""
    events = read_streams(out, with_ns=True)["events"]
    tids = {e["ctx_vtid"] for e in events if e["name"] == "stress:thread"}
    check(len(tids) == 2, f"application threads: {tids}")
    worst = 0
    for tid in tids:
        marks = [e["ns"] for e in events
                 if e.get("ctx_vtid") == tid and e["name"] == "stress:thread"]
        calls = [e["ns"] for e in events
                 if e.get("ctx_tid") == tid and e["name"] == "raw_syscalls:sys_enter" and
                 e["id"] == GETPPID]
        check(len(marks) == 50 and len(calls) == 50,
              f"thread {tid}: {len(marks)} events, {len(calls)} getppid() entries")
        for n, call in enumerate(calls):
            early = marks[n] - call
            late = call - marks[n + 1] if n + 1 < len(marks) else 0
            check(early <= CLOCK_SLACK_NS and late <= CLOCK_SLACK_NS,
                  f"thread {tid}: getppid() {n} is {early} ns before its event or {late} ns "
                  "after the next one")
            worst = max(worst, early, late)
    log("application events and their system calls in one timeline (the clocks at most "
        f"{max(worst, 0)} ns out of order)")


def check_limit(svc, user):
    """Four sessions of a user may use the tier (MaxKernelOwnSessions): the
    one already recorded and three more; the fifth is refused at start."""
    for i in range(2, 6):
        svc.cli("create", f"own{i}", "-o", os.path.join(user.home, f"own{i}"), user=user)
        svc.cli("enable-event", "-k", "--own", "raw_syscalls:sys_enter", user=user)
        result = svc.cli("start", user=user, check_ok=False)
        if i < 5:
            check(result.returncode == 0, f"own-tier session {i} of {user.name}: {result}")
        else:
            check(result.returncode != 0 and "MaxKernelOwnSessions" in result.stderr,
                  f"the fifth own-tier session was not refused naming the limit: {result}")
    log("the fifth own-tier session of a user is refused (MaxKernelOwnSessions)")


def refused(svc, user, pattern, words):
    result = svc.cli("enable-event", "-k", "--own", pattern, user=user, check_ok=False)
    check(result.returncode != 0 and all(w in result.stderr for w in words),
          f"{user.name}: --own {pattern!r} was not refused naming {words}: {result}")


def check_own_trace(name, path, ours, also_ours, theirs):
    """ours: the workload's pids; also_ours: the user's other processes
    (their consumer, their tracectl commands), which may be in the trace;
    theirs: the other user's workload."""
    trace = read_streams(path)
    events = trace["events"]
    babeltrace_text(path)
    check(events, f"{name}: no events in {path}")
    for e in events:
        mine = (e.get("ctx_pid") in ours and e.get("ctx_tid") in ours) or \
            e.get("ctx_pid") in also_ours
        check(mine, f"{name}'s trace holds an event of pid {e.get('ctx_pid')} tid "
              f"{e.get('ctx_tid')} (started: {sorted(ours)} and {sorted(also_ours)}, the "
              f"other's: {sorted(theirs)}): {e}")
        check(not any(v in theirs for k, v in e.items() if k.startswith("ctx_")),
              f"{name}'s trace names the other's task: {e}")
        bad = kernel_addresses(e)
        check(not bad, f"{name}'s trace holds kernel addresses {bad}: {e}")
    names = {e["name"] for e in events}
    check({"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch_out",
           "sched:sched_switch_in"} <= names, f"{name}: events {names}")
    for pid in ours:
        check(any(e["name"] == "raw_syscalls:sys_enter" and e["id"] == GETPPID
                  and e["ctx_pid"] == pid for e in events),
              f"{name}: no getppid() of pid {pid}")
    log(f"{name}: {len(events)} events, all of their own processes (workload {sorted(ours)}), "
        f"names {sorted(names)}")


def test():
    mount_tracefs()
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(polkit_rule(ACTION, 'tcownalice', 'tcownbob'))
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-own-test.rules")
    with svc:
        users = {name: svc.add_user(f"tcown{name}") for name in ("alice", "bob")}
        carol = svc.add_user("tcowncarol")
        tracer = svc.add_user("tcowntracer", groups=("tracing",))
        # carol has no rule: refused, naming the action.
        svc.cli("create", "own", user=carol)
        refused(svc, carol, "raw_syscalls:sys_enter", [ACTION])
        outputs = {}
        for name, user in users.items():
            outputs[name] = os.path.join(user.home, "own-trace")
            svc.cli("create", "own", "-o", outputs[name], user=user)
            svc.cli("enable-event", "-u", "stress:*", user=user)
            svc.cli("add-context", "-u", "-t", "vtid", user=user)
            result = svc.cli("enable-event", "-k", "--own", OWN_EVENTS, user=user,
                             check_ok=False)
            require(not (result.returncode != 0 and "was not built" in result.stderr),
                    "tracectl-kernel-helper was built without the own-process tier")
            check(result.returncode == 0, f"{name}: enable-event -k --own: {result}")
            # What the tier cannot scope, and attempts to widen it.
            refused(svc, user, "sched:sched_process_exec",
                    ["sched:sched_process_exec: not available in the own-process tier"])
            refused(svc, user, "syscalls:sys_enter_no_such_call", ["no system call"])
            refused(svc, user, "block:block_rq_issue", ["not available"])
            # The whole machine stays for the tracing group.
            result = svc.cli("enable-event", "-k", "raw_syscalls:sys_enter", user=user,
                             check_ok=False)
            check(result.returncode != 0 and "'tracing' group" in result.stderr,
                  f"{name} got the whole machine's kernel events: {result}")
            refused(svc, user, "raw_syscalls:sys_enter if common_pid>0", ["raw_syscalls"])
        # A tracing member's whole-machine session sees both users.
        machine = os.path.join(tracer.home, "machine")
        svc.cli("create", "machine", "-o", machine, user=tracer)
        svc.cli("enable-event", "-k", "raw_syscalls:sys_enter", user=tracer)
        also = {}
        for name, user in users.items():
            also[name] = {cli_pid(svc, user, "start"), consumer_pid(user)}
        svc.cli("start", user=tracer)
        procs = {name: [svc.app("-c", WORKLOAD, user=user, program="/usr/bin/python3")
                        for _ in range(2)]
                 for name, user in users.items()}
        for group in procs.values():
            for proc in group:
                out, err = proc.communicate(timeout=30)
                check(proc.returncode == 0, f"workload failed: {err}")
        # An instrumented application of alice's: its events and its
        # system calls in one timeline.
        app = svc.app("--threads", "2", "--count", "50", "--signals", "0", "--getppid",
                      user=users["alice"], program=STRESS_APP)
        _, err = app.communicate(timeout=30)
        check(app.returncode == 0, f"the application failed: {err}")
        also["alice"].add(app.pid)
        setuid_pid = run_setuid(svc, users["alice"])
        also["alice"].add(setuid_pid)
        for name, user in users.items():
            also[name].add(cli_pid(svc, user, "stop"))
        svc.cli("stop", user=tracer)
        pids = {name: {p.pid for p in group} for name, group in procs.items()}
        for name in users:
            theirs = set().union(*(p for n, p in pids.items() if n != name))
            theirs |= set().union(*(p for n, p in also.items() if n != name)) | {os.getpid()}
            check_own_trace(name, os.path.join(outputs[name], "kernel-own"), pids[name],
                            also[name], theirs)
            # tracectl view: the session's traces read as one timeline.
            babeltrace_text(outputs[name])
        check_timeline(outputs["alice"])
        check_setuid_left_out(os.path.join(outputs["alice"], "kernel-own"), setuid_pid)
        seen = {e.get("common_pid") for e in read_streams(os.path.join(machine, "kernel"))["events"]
                if e["name"] == "raw_syscalls:sys_enter" and e.get("id") == GETPPID}
        for name in users:
            check(pids[name] <= seen, f"the tracing member's session misses {name}'s "
                  f"getppid() (pids {sorted(pids[name])})")
        log("the tracing member's session sees both users' getppid()")
        check_limit(svc, users["alice"])
        for user in list(users.values()) + [tracer, carol]:
            svc.cli("destroy", "-a", user=user, check_ok=False)


run(test)
