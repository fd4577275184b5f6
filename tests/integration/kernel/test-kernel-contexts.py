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
everything without a warning. That second run is given the ids of the
first run's threads again (ns_last_pid), so that the kernel's saved_tgids
map still names the first run's process for them until they are
scheduled: the pid context must be the new thread group all the same.
Bad contexts, and contexts after the first start, are refused."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, mount_tracefs, run
from tracelib import babeltrace_text, read_streams

COUNT = 100


def run_app_niced(svc):
    """Runs the application under nice 5; returns its pid."""
    proc = svc.app("-n", "5", STRESS_APP, "--threads", "2", "--count", str(COUNT), "--signals",
                   "0", "--getppid", program="/usr/bin/nice")
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 0 and err == "", f"application failed ({proc.returncode}): {err}")
    return proc.pid


def run_again_with_ids_of(svc, first):
    """Runs the application with the next pid after first's (when no other
    process takes it in between: tried three times), so that its threads
    get the ids the first run's threads had. Returns the pids of the runs."""
    pids = []
    for _ in range(3):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(first))
        pids.append(run_app_niced(svc))
        if first < pids[-1] <= first + 2:
            break
    return pids


def runs_of(app):
    """The application's runs in time order: (start, pid, {tid: event})."""
    runs = {}
    for e in app:
        start, pid, threads = runs.setdefault(e["ctx_vpid"], (e["ts"], e["ctx_vpid"], {}))
        threads[e["ctx_vtid"]] = e
        runs[pid] = (min(start, e["ts"]), pid, threads)
    return sorted(runs.values())


def own_thread(runs, e):
    """The application's event of the thread that recorded kernel event e,
    from the run going on at the time (thread ids are reused), or None."""
    current = [r for r in runs if r[0] <= e["ts"]]
    return current[-1][2].get(e["ctx_tid"]) if current else None


def check_contexts(events, nr_runs):
    app = [e for e in events if e["name"] == "stress:thread"]
    check(len(app) == 2 * nr_runs * COUNT, f"{len(app)} application events")
    runs = runs_of(app)
    check(len(runs) == nr_runs and all(len(r[2]) == 2 for r in runs),
          f"application runs and threads: {[(r[1], sorted(r[2])) for r in runs]}")
    enters = [(e, own_thread(runs, e)) for e in events
              if e["name"] == "syscall_entry_getppid"]
    enters = [(e, mine) for e, mine in enters if mine]
    check(len(enters) == 2 * nr_runs * COUNT, f"{len(enters)} getppid entries of the "
          "application")
    for e, mine in enters:
        check(e["ctx_tid"] == e["common_pid"], f"tid context {e['ctx_tid']} of "
              f"common_pid {e['common_pid']}")
        check(e["ctx_pid"] == mine["ctx_vpid"], f"pid context {e['ctx_pid']}, the "
              f"application says {mine['ctx_vpid']}")
        check(e["ctx_procname"] == mine["ctx_procname"], f"procname {e['ctx_procname']!r}, "
              f"the application says {mine['ctx_procname']!r}")
        check(e["ctx_prio"] == 25, f"prio {e['ctx_prio']} under nice 5: {e}")
    others = [e for e in events if e["name"].startswith("syscall_")
              and not own_thread(runs, e)]
    check(all(e["ctx_tid"] == e["common_pid"] for e in others), "tid of other processes")
    log(f"{len(enters)} getppid entries with pid, tid, procname and prio of the application; "
        f"{len(others)} of other tasks")
    return runs


def check_ids_reused(runs):
    """The last run's threads had ids of the first run's tasks."""
    first, last = runs[0], runs[-1]
    reused = (set(last[2]) | {last[1]}) & (set(first[2]) | {first[1]})
    check(reused, f"thread ids not reused: first run {first[1]} {sorted(first[2])}, last "
          f"{last[1]} {sorted(last[2])}")
    log(f"ids {sorted(reused)} of the first run reused by the last")


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
        first = run_app_niced(svc)
        svc.cli("enable-event", "-k", "sched:sched_process_exit")
        again = run_again_with_ids_of(svc, first)
        svc.cli("stop")
        check(svc.alive(), "tracectld died")

        babeltrace_text(out)
        events = read_streams(out)["events"]
        names = {e["name"] for e in events}
        check("sched_switch" not in names and "task:task_newtask" not in names,
              f"internal events in the trace: {sorted(names)}")
        runs = check_contexts(events, 1 + len(again))
        check_ids_reused(runs)
        exits = [e for e in events if e["name"] == "sched_process_exit"
                 and own_thread(runs, e)]
        # Only the later runs' threads exit while the event is enabled.
        check(len(exits) >= 2 * len(again), f"{len(exits)} exits of the application's threads")
        check(all(e["ctx_prio"] == 25 for e in exits), "prio of exiting threads")
        log(f"{len(exits)} sched_process_exit of application threads, enabled while recording")
        svc.cli("destroy", "kctx")


run(test)
