#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel and application events in one session and one timeline: with
sched_switch and the getppid system call enabled in the kernel and the
stress application's event in user space, each thread calls getppid()
right after emitting its event, and pauses 150 ms (more than the 2^27 ticks
a compact record header can span) every 50 events. babeltrace2 reads the session's output
(<output>/ust/... and <output>/kernel) as one merged timeline without a
warning; every application event is followed, on its thread, by the entry
of its getppid call, later in time; sched_switch events carry sane
command names; destroying the session, or killing the service while it
records, leaves no tracefs instance. Both trace clocks: the TSC (where the
kernel's clock source is the TSC) and CLOCK_MONOTONIC
(TRACECTL_TRACE_CLOCK=monotonic), declared alike in both traces."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import (STRESS_APP, TRACEFS, Service, check, kernel_instances, kernel_uses_tsc, log,
                   mount_tracefs, run, wait_for)
from tracelib import babeltrace_text, read_streams

COUNT = 200


def dynamic_events():
    """tracectl's kprobes and uprobes ("p:tracectl_1/name ..." lines)."""
    with open(os.path.join(TRACEFS, "dynamic_events")) as f:
        return [line for line in f.read().splitlines() if ":tracectl_" in line]


def instances():
    return kernel_instances()


def check_clock(out, description):
    for trace in ("ust/uid/0/64-bit", "kernel"):
        with open(os.path.join(out, trace, "metadata"), errors="replace") as f:
            text = f.read()
        check(f'description = "{description}";' in text,
              f"{trace}: the clock is not {description}")


def monotonic_timeline():
    """The same merged timeline on CLOCK_MONOTONIC."""
    with Service(daemon_env={"TRACECTL_TRACE_CLOCK": "monotonic"}) as svc:
        out = os.path.join(svc.rundir, "mono")
        svc.cli("create", "mono", "--output", out)
        svc.cli("add-context", "-u", "-t", "vtid")
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("start")
        svc.run_app("--threads", "2", "--count", "100", "--signals", "0", "--getppid",
                    program=STRESS_APP)
        svc.cli("stop")
        check_clock(out, "CLOCK_MONOTONIC")
        babeltrace_text(out)
        events = read_streams(out)["events"]
        tids = {e["ctx_vtid"] for e in events if e["name"] == "stress:thread"}
        for tid in tids:
            kinds = [e["name"] for e in events
                     if e.get("ctx_vtid") == tid or (e.get("common_pid") == tid and
                                                     e["name"].startswith("syscall_entry_"))]
            check(kinds == ["stress:thread", "syscall_entry_getppid"] * 100,
                  f"CLOCK_MONOTONIC, thread {tid}: not event, system call, ...: {kinds[:6]}")
        svc.cli("destroy", "mono")


def test():
    mount_tracefs()
    has_kprobes = os.path.exists(os.path.join(TRACEFS, "kprobe_events"))
    # tests/system/test-kernel-vm.py runs this test on a kernel with kprobes.
    check(has_kprobes or not os.environ.get("TRACECTL_REQUIRE_KPROBES"),
          "kprobes are required but this kernel has no kprobe events")
    log(f"kernel {os.uname().release}, kprobe events: {has_kprobes}")
    monotonic_timeline()
    with Service() as svc:
        out = os.path.join(svc.rundir, "timeline")
        svc.cli("create", "timeline", "--output", out)
        svc.cli("add-context", "-u", "-t", "vtid")
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("enable-event", "-k", "sched:sched_switch")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        # Dynamic probes: the kernel function of getppid, and the stress
        # application's marker, called right after each getppid.
        probes = ["marker"]
        if has_kprobes:
            svc.cli("enable-event", "-k", "--probe", "__x64_sys_getppid", "ppid")
            svc.cli("enable-event", "-k", "--function", "__x64_sys_getppid", "ppidfn")
            probes += ["ppid", "ppidfn_entry", "ppidfn_return"]
        svc.cli("enable-event", "-k", "--userspace-probe",
                f"{os.path.realpath(STRESS_APP)}:stress_marker", "marker")

        bad = svc.cli("enable-event", "-k", "nosuch:thing", check_ok=False)
        check(bad.returncode == 0, "a pattern is only checked when the instance is made")
        svc.cli("disable-event", "-k", "nosuch:thing")
        svc.cli("start")
        check(len(instances()) == 1, f"tracefs instances while recording: {instances()}")
        for args in (["--userspace-probe", "relative/path:main", "x1"],
                     ["--userspace-probe", f"{os.path.realpath(STRESS_APP)}:no_such_function",
                      "x2"],
                     ["--probe", "no_such_kernel_symbol_tc", "x3"]):
            bad = svc.cli("enable-event", "-k", *args, check_ok=False)
            # 3 (not found) for a symbol or function that is not there.
            check(bad.returncode in (1, 3), f"bad probe {args} accepted: {bad}")
        if not has_kprobes:
            log("this kernel has no kprobe events: kprobes are refused, not tested")
        svc.run_app("--threads", "2", "--count", str(COUNT), "--signals", "0", "--getppid",
                    "--pace", "50", "--pause-ms", "150", program=STRESS_APP)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        check(os.path.exists(os.path.join(out, "kernel", "metadata")), "no kernel trace")
        check_clock(out, "x86 TSC" if kernel_uses_tsc() else "CLOCK_MONOTONIC")
        babeltrace_text(out)
        events = read_streams(out)["events"]
        app = [e for e in events if e["name"] == "stress:thread"]
        enters = [e for e in events if e["name"] == "syscall_entry_getppid"]
        switches = [e for e in events if e["name"] == "sched_switch"]
        tids = {e["ctx_vtid"] for e in app}
        log(f"{len(app)} application events, {len(enters)} getppid entries, "
            f"{len(switches)} sched_switch, threads {sorted(tids)}")
        check(len(app) == 2 * COUNT, f"{len(app)} application events")
        check(switches, "no sched_switch event")
        check(all(isinstance(e["prev_comm"], str) and isinstance(e["next_tid"], int)
                  for e in switches), "sched_switch fields")
        mine = [e for e in enters if e["common_pid"] in tids]
        check(len(mine) == 2 * COUNT, f"{len(mine)} getppid entries of the application threads")
        for probe in probes:
            hits = [e for e in events if e["name"].endswith(":" + probe)
                    and e["common_pid"] in tids]
            check(len(hits) == 2 * COUNT, f"{len(hits)} hits of probe {probe}")
        # The merged timeline: on each thread, event then its system call.
        order = [e for e in events
                 if (e["name"] == "stress:thread") or
                 (e["name"] == "syscall_entry_getppid" and e["common_pid"] in tids)]
        for tid in tids:
            seq = [e for e in order if e.get("ctx_vtid") == tid or e.get("common_pid") == tid]
            kinds = [e["name"] for e in seq]
            check(kinds == ["stress:thread", "syscall_entry_getppid"] * COUNT,
                  f"thread {tid}: not event, system call, event, ...: {kinds[:6]}")
            check(all(a["ts"] <= b["ts"] for a, b in zip(seq, seq[1:])), "time goes back")
        svc.cli("destroy", "timeline")
        check(instances() == [], f"tracefs instances left: {instances()}")
        check(dynamic_events() == [], f"dynamic events left: {dynamic_events()}")

        # The service killed while recording: its helper removes the
        # instance and the probes.
        svc.cli("create", "killed", "--output", os.path.join(svc.rundir, "killed"))
        svc.cli("enable-event", "-k", "sched:sched_switch")
        svc.cli("enable-event", "-k", "--userspace-probe",
                f"{os.path.realpath(STRESS_APP)}:stress_marker", "marker")
        if has_kprobes:
            svc.cli("enable-event", "-k", "--probe", "__x64_sys_getppid", "ppid")
        svc.cli("start")
        check(len(instances()) == 1, "no instance while recording")
        check(len(dynamic_events()) == 1 + has_kprobes, f"probes: {dynamic_events()}")
        svc.restart(signal.SIGKILL)
        wait_for(lambda: instances() == [] and dynamic_events() == [], 15,
                 "the instance and probes of the killed service to go")


run(test)
