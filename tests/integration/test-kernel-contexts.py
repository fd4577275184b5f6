#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel contexts and events enabled while recording.

`add-context -k -t pid -t tid -t procname -t prio` puts the thread group,
the thread, its command name and its scheduler priority in every kernel
event. The stress application runs under `nice -n 5` with 2 threads that
call getppid() after each of their events; each getppid entry must carry
the pid, tid and procname the application's own events report (UST
contexts vpid, vtid, procname) and prio 25 (nice 5). The contexts need
sched_switch and task_newtask, which tracectl enables for itself: neither
may be in the trace, since the user did not enable them.

Then, while recording, sched:sched_process_exit is enabled and the
application runs again: its threads' exits are in the trace (the consumer
got the new format before the event was enabled) and babeltrace2 reads
everything without a warning. Bad contexts, and contexts after the first
start, are refused."""

import os

from tclib import STRESS_APP, Service, babeltrace_text, check, log, mount_tracefs, read_streams, run

COUNT = 100


def run_app_niced(svc):
    svc.run_app("-n", "5", STRESS_APP, "--threads", "2", "--count", str(COUNT), "--signals",
                "0", "--getppid", program="/usr/bin/nice")


def check_contexts(events):
    app = [e for e in events if e["name"] == "stress:thread"]
    check(len(app) == 4 * COUNT, f"{len(app)} application events")
    threads = {e["ctx_vtid"]: e for e in app}
    check(len(threads) == 4, f"application threads: {sorted(threads)}")
    enters = [e for e in events if e["name"] == "syscalls:sys_enter_getppid"
              and e["ctx_tid"] in threads]
    check(len(enters) == 4 * COUNT, f"{len(enters)} getppid entries of the application")
    for e in enters:
        mine = threads[e["ctx_tid"]]
        check(e["ctx_tid"] == e["common_pid"], f"tid context {e['ctx_tid']} of "
              f"common_pid {e['common_pid']}")
        check(e["ctx_pid"] == mine["ctx_vpid"], f"pid context {e['ctx_pid']}, the "
              f"application says {mine['ctx_vpid']}")
        check(e["ctx_procname"] == mine["ctx_procname"], f"procname {e['ctx_procname']!r}, "
              f"the application says {mine['ctx_procname']!r}")
        check(e["ctx_prio"] == 25, f"prio {e['ctx_prio']} under nice 5: {e}")
    others = [e for e in events if e["name"].startswith("syscalls:")
              and e["ctx_tid"] not in threads]
    check(all(e["ctx_tid"] == e["common_pid"] for e in others), "tid of other processes")
    log(f"{len(enters)} getppid entries with pid, tid, procname and prio of the application; "
        f"{len(others)} of other tasks")
    return threads


def test():
    mount_tracefs()
    with Service() as svc:
        out = os.path.join(svc.rundir, "contexts")
        svc.cli("create", "kctx", "--output", out)
        bad = svc.cli("add-context", "-k", "-t", "vtid", check_ok=False)
        check(bad.returncode != 0 and "pid, tid, procname, prio" in bad.stderr,
              f"unknown kernel context accepted: {bad}")
        bad = svc.cli("add-context", "-k", "-c", "other", "-t", "pid", check_ok=False)
        check(bad.returncode != 0 and "one channel" in bad.stderr, f"kernel channel: {bad}")
        svc.cli("add-context", "-k", "-t", "pid", "-t", "tid", "-t", "procname", "-t", "prio")
        svc.cli("add-context", "-u", "-t", "vpid", "-t", "vtid", "-t", "procname")
        svc.cli("enable-event", "-u", "stress:*")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("start")
        late = svc.cli("add-context", "-k", "-t", "pid", check_ok=False)
        check(late.returncode != 0 and "before it is first started" in late.stderr,
              f"kernel context after start: {late}")
        run_app_niced(svc)
        svc.cli("enable-event", "-k", "sched:sched_process_exit")
        run_app_niced(svc)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        babeltrace_text(out)
        events = read_streams(out)["events"]
        names = {e["name"] for e in events}
        check("sched:sched_switch" not in names and "task:task_newtask" not in names,
              f"internal events in the trace: {sorted(names)}")
        threads = check_contexts(events)
        exits = [e for e in events if e["name"] == "sched:sched_process_exit"
                 and e["ctx_tid"] in threads]
        # Only the second run's threads exit while the event is enabled.
        check(len(exits) >= 2, f"{len(exits)} exits of the application's threads")
        check(all(e["ctx_prio"] == 25 for e in exits), "prio of exiting threads")
        log(f"{len(exits)} sched_process_exit of application threads, enabled while recording")
        svc.cli("destroy", "kctx")


run(test)
