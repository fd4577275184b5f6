#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng's analyses (python3-lttnganalyses) read a tracectl kernel trace
and give the right answers.

A kernel session records sched_switch, sched_wakeup, the process events
and the read system call while two processes of known behaviour run: a spinner that keeps a
CPU busy until it has used SPIN_S seconds of CPU time, and a reader that
reads a FILE_SIZE file in CHUNK byte read() calls. Both wait for a go file
(stat, no system call the analyses count) so that all they do falls inside
the recording. Then, through their machine interface:

- lttng-cputop: the spinner's CPU usage times the analysed time range is
  the CPU time the spinner measured itself, within 10 %;
- lttng-syscallstats: the reader made exactly FILE_SIZE / CHUNK + 1 read
  calls (the last one at the end of the file);
- lttng-iousagetop: the reader read FILE_SIZE bytes through read().

Skipped when the analyses are not installed."""

import json
import os
import shutil
import subprocess
import sys
import time

from tclib import SYSTEM_PYTHON, Service, check, log, mount_tracefs, require, run
from tracelib import read_streams

SPIN_S = 1.5
CHUNK = 64 * 1024
FILE_SIZE = 8 * 1024 * 1024
ATTEMPTS = 10  # each takes about 3 s

WAIT_FOR_GO = r"""
import os, sys, time
go = sys.argv[1]
while not os.path.exists(go):
    time.sleep(0.01)
"""

SPINNER = WAIT_FOR_GO + r"""
start = time.process_time()
while time.process_time() - start < float(sys.argv[2]):
    pass
print(int((time.process_time() - start) * 1e9), flush=True)
"""

READER = WAIT_FOR_GO + r"""
fd = os.open(sys.argv[2], os.O_RDONLY)
total = 0
while True:
    chunk = os.read(fd, int(sys.argv[3]))
    if not chunk:
        break
    total += len(chunk)
os.close(fd)
print(total, flush=True)
"""


def analysis(tool, path):
    """The result tables of an analysis run through its -mi twin.

    Without MALLOC_PERTURB_, which meson sets: babeltrace 1's Python
    bindings read the trace's first and last timestamps from an event
    whose iterator they have just destroyed (TraceCollection's
    _timestamp_at_pos), which works only while the freed memory is left
    as it was. The fault handler names the place should they crash."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    proc = subprocess.run([SYSTEM_PYTHON, "-X", "faulthandler", shutil.which(f"{tool}-mi"),
                           path], capture_output=True, text=True, timeout=120, env=env)
    check(proc.returncode == 0, f"{tool}: exit {proc.returncode}: {proc.stdout[-500:]} "
          f"{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])["results"]


def table(results, class_name):
    found = [r for r in results if r["class"] == class_name]
    check(found, f"no {class_name} table in {[r['class'] for r in results]}")
    return found[0]


def process_row(rows, tid):
    """The row whose first cell is the process tid."""
    for row in rows:
        if row[0].get("tid") == tid:
            return row
    raise AssertionError(f"no row for tid {tid}: {rows[:5]}")


def record(svc, out, data):
    """The two workloads, inside a kernel session; returns their pids and
    the spinner's own CPU time in ns."""
    go = os.path.join(svc.rundir, "go")
    if os.path.exists(go):
        os.unlink(go)
    spinner = subprocess.Popen([SYSTEM_PYTHON, "-c", SPINNER, go, str(SPIN_S)],
                               stdout=subprocess.PIPE, text=True)
    reader = subprocess.Popen([SYSTEM_PYTHON, "-c", READER, go, data, str(CHUNK)],
                              stdout=subprocess.PIPE, text=True)
    svc.cli("create", "analyses", "--output", out)
    # The process events too: the analyses read sched_process_fork's
    # fields under LTTng's names, tids and pids both.
    svc.cli("enable-event", "-k", "sched:sched_switch,sched:sched_wakeup,"
            "sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit")
    svc.cli("enable-event", "-k", "--syscall", "read")
    time.sleep(0.5)  # the interpreters are started and polling
    svc.cli("start")
    with open(go, "w"):
        pass
    spin_ns = int(spinner.communicate(timeout=60)[0])
    read_bytes = int(reader.communicate(timeout=60)[0])
    check(read_bytes == FILE_SIZE, f"the reader read {read_bytes} bytes")
    time.sleep(0.2)
    svc.cli("stop")
    svc.cli("destroy", "analyses")
    return spinner.pid, reader.pid, spin_ns


def kernel_followed(out, spinner, reader):
    """Whether the trace shows the spinner switched in before each time it
    is preempted (while it spins) and the reader switched in before each
    of its system calls, on that CPU. The analyses know who runs where
    from sched_switch alone; some kernels (virtual machines here) skip a
    sched_switch now and then, most often the one out of the idle task,
    in tracefs' own text output too, and then a thread's CPU time or
    system calls go to another."""
    running = {}
    for e in read_streams(out)["events"]:
        preempted = e["name"] == "sched_switch" and e["prev_tid"] == spinner and \
            e["prev_state"] & 0xff == 0
        reading = e["name"].startswith("syscall_") and e["common_pid"] == reader
        if (preempted or reading) and running.get(e["cpu"]) != e["common_pid"]:
            log(f"{e['name']} of {e['common_pid']} on CPU {e['cpu']}, where the last "
                f"sched_switch says {running.get(e['cpu'])} runs")
            return False
        if e["name"] == "sched_switch":
            running[e["cpu"]] = e["next_tid"]
    return True


def check_cputop(out, spinner, spin_ns):
    results = analysis("lttng-cputop", out)
    per_process = table(results, "per-process")
    time_range = per_process["time-range"]
    duration_ns = time_range["end"]["value"] - time_range["begin"]["value"]
    row = process_row(per_process["data"], spinner)
    usage = row[-1]["value"]
    measured = usage * duration_ns
    log(f"cputop: spinner {usage * 100:.1f} % of {duration_ns / 1e9:.3f} s = "
        f"{measured / 1e9:.3f} s, it measured {spin_ns / 1e9:.3f} s")
    check(abs(measured - spin_ns) <= 0.1 * spin_ns,
          f"cputop: the spinner used {measured / 1e9:.3f} s of CPU, it measured "
          f"{spin_ns / 1e9:.3f} s")


def check_syscallstats(out, reader):
    results = analysis("lttng-syscallstats", out)
    # A table per thread: its class inherits per-tid and titles it.
    tables = [t for t in results if isinstance(t["class"], dict)
              and t["class"].get("inherit") == "per-tid"
              and t["class"].get("title", "").endswith(f"TID: {reader})]")]
    check(tables, f"syscallstats: no table for tid {reader}")
    reads = [row for row in tables[0]["data"] if row[0].get("name") == "read"]
    check(reads, f"syscallstats: no read row for tid {reader}: {tables[0]['data']}")
    count = reads[0][1]["value"]
    log(f"syscallstats: the reader made {count} read calls")
    check(count == FILE_SIZE // CHUNK + 1,
          f"syscallstats: {count} read calls, expected {FILE_SIZE // CHUNK + 1}")


def check_iousage(out, reader):
    results = analysis("lttng-iousagetop", out)
    per_process = [t for t in results if isinstance(t["class"], dict)
                   and t["class"].get("inherit") == "per-process-top"
                   and t["class"].get("title", "").endswith("[read]")]
    check(per_process, f"iousagetop: no per-process read table: "
          f"{[t['class'] for t in results]}")
    row = process_row(per_process[0]["data"], reader)
    read = row[1]["value"]
    log(f"iousagetop: the reader read {read} bytes")
    check(read == FILE_SIZE, f"iousagetop: {read} bytes read, expected {FILE_SIZE}")


def test():
    require(shutil.which("lttng-cputop-mi") is not None,
            "lttng-analyses (python3-lttnganalyses) are not installed")
    mount_tracefs()
    with Service() as svc:
        data = os.path.join(svc.rundir, "data")
        with open(data, "wb") as f:
            f.write(os.urandom(FILE_SIZE))
        for attempt in range(ATTEMPTS):
            out = os.path.join(svc.rundir, f"trace-{attempt}")
            spinner, reader, spin_ns = record(svc, out, data)
            if kernel_followed(out, spinner, reader):
                break
            log("the kernel skipped a sched_switch of the workload's: recording again")
        else:
            raise AssertionError(f"the kernel skipped a sched_switch in {ATTEMPTS} recordings")
        check_cputop(out, spinner, spin_ns)
        check_syscallstats(out, reader)
        check_iousage(out, reader)


if __name__ == "__main__":
    run(test)
    sys.exit(0)
