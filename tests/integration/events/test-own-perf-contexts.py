#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-thread perf counters in tracectl's own applications:

- `add-context -u -t perf:thread:task-clock` (a software counter, which
  any machine has): every event of the example application's three
  threads holds its thread's count, as LTTng-UST declares it (unsigned
  64-bit), never decreasing within a thread, growing across the run,
  and smaller in a thread started later than in the main thread;
- a hardware counter the machine cannot count (this VM has no PMU for
  guests: no `cpu` in /sys/bus/event_source/devices) is refused at
  add-context, naming the reason, and nothing is added; where the machine
  counts it, it is taken.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run
from tracelib import babeltrace_text, read_streams

FIELD = "ctx_perf_thread_task_clock"


def check_refusal(svc):
    svc.cli("create", "cycles")
    result = svc.cli("add-context", "-u", "-t", "vtid", "-t", "perf:thread:cpu-cycles",
                     check_ok=False)
    if os.path.exists("/sys/bus/event_source/devices/cpu"):
        log("this machine has a hardware PMU: cpu-cycles is not refused here")
        check(result.returncode == 0, f"cpu-cycles refused on a machine with a PMU: {result}")
    else:
        check(result.returncode == 1 and
              "Perf counter 'perf:thread:cpu-cycles' cannot be counted on this machine: the "
              "kernel has no such counter" in result.stderr and
              "no 'cpu' in /sys/bus/event_source/devices" in result.stderr,
              f"cpu-cycles without a PMU: {result}")
        channels = svc.session("cycles")["channels"]
        check(not channels or not channels[0]["settings"]["contexts"],
              f"the refused call added contexts: {channels}")
    svc.cli("destroy", "cycles")


def test():
    with Service() as svc:
        check_refusal(svc)
        out = os.path.join(svc.rundir, "perf")
        svc.cli("create", "perf", "--output", out)
        svc.cli("add-context", "-u", "-t", "vtid", "-t", "perf:thread:task-clock")
        svc.cli("enable-event", "-u", "example:*")
        settings = svc.session("perf")["channels"][0]["settings"]
        check(settings["contexts"] == ["vtid", "perf:thread:task-clock"] and
              settings["lttng_ust_only_contexts"] == [], f"settings: {settings}")
        svc.cli("start")
        # Paced, so that each thread emits some of the events under any load.
        app = svc.app("--threads", "3", "--count", "3000", "--interval-us", "200")
        _, err = app.communicate(timeout=120)
        check(app.returncode == 0 and err == "", f"example app failed: {err}")
        svc.cli("stop")

        events = read_streams(out)["events"]
        check(len(events) == 3002, f"{len(events)} events, expected 3002")
        by_thread = {}
        for e in events:
            check(FIELD in e, f"no {FIELD} in {e}")
            by_thread.setdefault(e["ctx_vtid"], []).append((e["ts"], e[FIELD]))
        check(len(by_thread) == 3, f"threads: {sorted(by_thread)}")
        for vtid, values in by_thread.items():
            counts = [count for _, count in sorted(values)]
            check(all(a <= b for a, b in zip(counts, counts[1:])),
                  f"thread {vtid}'s task-clock went back: {counts[:20]}")
            check(counts[-1] > counts[0] > 0 or (len(counts) == 1 and counts[0] > 0),
                  f"thread {vtid}'s task-clock did not grow: {counts[0]}, {counts[-1]}")
        main = by_thread[app.pid]
        workers = [v for tid, v in by_thread.items() if tid != app.pid]
        check(all(min(c for _, c in w) < max(c for _, c in main) for w in workers),
              "a later thread's first count is not below the main thread's last one")
        text = babeltrace_text(out)
        check("perf_thread_task_clock = " in text, text[:800])
        svc.cli("destroy", "perf")


run(test)
