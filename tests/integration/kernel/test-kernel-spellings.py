#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng's spellings of kernel events, and the kernel channel's refusals.

Bare names: `enable-event -k sched_switch,sched_process_e*` records
sched_switch and sched_process_exec as lttng-modules names them; `list`
shows the tracefs patterns they stood for and `list -k` LTTng's names
beside tracefs'. A name two events have (a uprobe of the session named
sched_switch) is refused naming both, an unknown one as unknown. The
kernel channel refuses what it cannot honour, with the reason.

--own --syscall getppid: alice's session records the getppid() calls of
a small program of hers, as syscall_entry_getppid and
syscall_exit_getppid, each call once, while bob runs the same program:
nothing of his, and no other call of hers. A system call the machine
does not have is refused.

--userspace-probe in LTTng's forms: sdt:PATH:example:all_types on the
example application built with SDT semaphores records each of its calls,
though no tracectl session records the application (the kernel raises
the probe's semaphore, which lets the tracepoint's arguments through);
elf:PATH:main records the program's main() once. An SDT probe the file
does not have is refused naming it."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, SOURCE, STRESS_APP, Service, check, log, mount_tracefs, require, run
from owntierlib import polkit_rule
from tracelib import read_streams

OWN_ACTION = "org.tracectl.Tracing1.trace-kernel-own"
CALLS = 50
SEMAPHORE_APP = os.path.join(BUILD, "tests", "integration", "apps",
                             "tracectl-example-app-sdt-semaphores")


def refused(svc, args, words, user=None):
    result = svc.cli(*args, check_ok=False, user=user)
    check(result.returncode != 0 and all(w in result.stderr for w in words),
          f"{args} was not refused naming {words}: {result}")


def check_channel_refusals(svc):
    """What one tracefs instance read as it fills cannot be, refused."""
    for args, words in ((["k2"], ["one channel, 'channel0'", "second kernel channel"]),
                        (["channel0", "--overwrite"], ["does not overwrite"]),
                        (["channel0", "--switch-timer", "100000"], ["no switch timer"]),
                        (["channel0", "--read-timer", "200000"], ["no read-timer"]),
                        (["channel0", "--monitor-timer", "1000000"], ["no monitor-timer"])):
        refused(svc, ["enable-channel", "-k"] + args, words)
    svc.cli("enable-channel", "-k", "channel0", "--discard", "--subbuf-size", "64K")
    log("kernel channels: a second one, overwrite and timers refused with their reasons")


def check_bare_names(svc, out):
    svc.cli("enable-event", "-k", "sched_switch,sched_process_e*")
    refused(svc, ["enable-event", "-k", "no_such_event_tc"],
            ["No kernel event named 'no_such_event_tc'"])
    listed = svc.cli("list", "spell").stdout
    check("sched:sched_switch" in listed and "sched:sched_process_e*" in listed,
          f"the patterns the names stood for are not listed: {listed}")
    svc.cli("enable-event", "-k", "--userspace-probe",
            f"{os.path.realpath(STRESS_APP)}:stress_marker", "sched_switch")
    svc.cli("start")
    # The session's uprobe exists now: two events are named sched_switch.
    refused(svc, ["enable-event", "-k", "sched_switch"],
            ["'sched_switch' is ambiguous", "sched:sched_switch",
             ":sched_switch", "name one as 'system:event'"])
    subprocess.run(["/usr/bin/true"], check=True)
    svc.cli("stop")
    events = read_streams(out)["events"]
    names = {e["name"] for e in events}
    check({"sched_switch", "sched_process_exec"} <= names, f"events recorded: {names}")
    execs = [e for e in events if e["name"] == "sched_process_exec"
             and e["filename"] == "/usr/bin/true"]
    check(execs, "the exec of /usr/bin/true is not in the trace")
    log(f"bare names recorded {sorted(names)}; ambiguous and unknown names refused")


def build_loop(directory):
    """The benchmarks' getppid() loop, built where every user may run it."""
    program = os.path.join(directory, "getppid-loop")
    subprocess.run(["cc", "-O2", "-o", program,
                    os.path.join(SOURCE, "tests", "bench", "getppid-loop.c")], check=True)
    os.chmod(directory, 0o755)
    return program


def check_own_syscalls(svc, loop):
    alice, bob = svc.add_user("tcspellalice"), svc.add_user("tcspellbob")
    out = os.path.join(alice.home, "ownsys")
    svc.cli("create", "ownsys", "-o", out, user=alice)
    result = svc.cli("enable-event", "-k", "--own", "--syscall", "getppid", user=alice,
                     check_ok=False)
    require(not (result.returncode != 0 and "was not built" in result.stderr),
            "tracectl-kernel-helper was built without the own-process tier")
    check(result.returncode == 0, f"--own --syscall getppid: {result}")
    refused(svc, ["enable-event", "-k", "--own", "--syscall", "no_such_call_tc"],
            ["syscalls:sys_enter_no_such_call_tc: no system call"], user=alice)
    svc.cli("start", user=alice)
    procs = [svc.app(str(CALLS), user=user, program=loop) for user in (alice, bob)]
    for proc in procs:
        _, err = proc.communicate(timeout=30)
        check(proc.returncode == 0, f"the loop failed: {err}")
    svc.cli("stop", user=alice)
    events = read_streams(os.path.join(out, "kernel-own"))["events"]
    names = {e["name"] for e in events}
    check(names <= {"syscall_entry_getppid", "syscall_exit_getppid"}, f"events: {names}")
    mine = [e for e in events if e["ctx_pid"] == procs[0].pid]
    entries = [e for e in mine if e["name"] == "syscall_entry_getppid"]
    rets = {e["ret"] for e in mine if e["name"] == "syscall_exit_getppid"}
    check(len(entries) == CALLS and len(mine) == 2 * CALLS and len(rets) == 1 and
          min(rets) > 0, f"{len(entries)} entries and {len(mine) - len(entries)} exits "
          f"(returning {rets}) of alice's {CALLS} getppid()")
    check(not [e for e in events if e["ctx_pid"] == procs[1].pid], "bob's calls recorded")
    log(f"--own --syscall getppid: alice's {CALLS} calls, each once, none of bob's")


def check_probe_locations(svc):
    require(os.path.exists(SEMAPHORE_APP), "no SDT build of the example application")
    app = os.path.realpath(SEMAPHORE_APP)
    out = os.path.join(svc.rundir, "sdt")
    svc.cli("create", "sdt", "--output", out)
    svc.cli("enable-event", "-k", "--userspace-probe", f"sdt:{app}:example:all_types",
            "alltypes")
    svc.cli("enable-event", "-k", "--userspace-probe", f"elf:{app}:main", "appmain")
    svc.cli("start")
    refused(svc, ["enable-event", "-k", "--userspace-probe", f"sdt:{app}:example:nope", "x"],
            ["has no SDT probe 'example:nope'"])
    refused(svc, ["enable-event", "-k", "--userspace-probe", f"sdt:{app}:example", "x"],
            ["sdt:/absolute/path:provider:name"])
    # No tracectl session records the application: only the kernel's
    # raising of the semaphore lets all_types through.
    env = dict(os.environ, TRACECTL_RUNDIR=os.path.join(svc.rundir, "nowhere"))
    result = subprocess.run([app, "--count", str(CALLS)], env=env, timeout=60,
                            capture_output=True, text=True)
    check(result.returncode == 0, f"the application failed: {result.stderr}")
    svc.cli("stop")
    events = read_streams(out)["events"]
    hits = {name: len([e for e in events if e["name"].endswith(":" + name)])
            for name in ("alltypes", "appmain")}
    check(hits == {"alltypes": CALLS, "appmain": 1}, f"probe hits: {hits}")
    svc.cli("destroy", "sdt")
    log(f"sdt: {CALLS} hits through the semaphore, elf: main once")


def test():
    mount_tracefs()
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(polkit_rule(OWN_ACTION, "tcspellalice"))
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-spell-test.rules")
    with svc, tempfile.TemporaryDirectory() as tmp:
        check_own_syscalls(svc, build_loop(tmp))
        check_probe_locations(svc)
        listing = svc.cli("list", "-k").stdout
        check("      sched_switch (sched:sched_switch)\n" in listing,
              f"list -k does not show LTTng's names: {listing[:300]}")
        out = os.path.join(svc.rundir, "spell")
        svc.cli("create", "spell", "--output", out)
        check_channel_refusals(svc)
        check_bare_names(svc, out)
        svc.cli("destroy", "spell")
        check(svc.alive(), "tracectld died")


run(test)
