#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng's analyses (python3-lttnganalyses) read a tracectl kernel trace
and give the right answers.

A kernel session records sched_switch, sched_wakeup, the process events,
the interrupts (hard and soft), the reader's page allocations and frees
and its openat, read, write and close system calls while two processes of
known behaviour run on one CPU: a spinner that keeps it busy until it has
used SPIN_S seconds of CPU time, and a reader that opened a FILE_SIZE file
before the session started, then opens another file N_OPENS times, reads
the first in CHUNK byte read() calls and writes WRITE_SIZE bytes to a new
file. Both wait for a go file (stat, no system call the analyses count)
so that all they do falls inside the recording. Then, through their
machine interface:

- lttng-cputop: the spinner's CPU usage times the analysed time range is
  the CPU time the spinner measured itself, within 10 %, all of it on the
  CPU it is pinned to;
- lttng-syscallstats: the reader made exactly N_OPENS + 1 openat,
  FILE_SIZE / CHUNK + 1 read (the last one at the end of the file) and
  N_OPENS + 2 close calls, and at least WRITE_SIZE / CHUNK + 1 writes
  (its line printed; the interpreter writes a few more at exit);
- lttng-iousagetop: the reader read FILE_SIZE bytes and wrote
  WRITE_SIZE and its line; the file it read is named by its path, which
  only the state dump gives (it was opened before the session);
- lttng-schedstats: the reader, woken by its polling, has wake-up
  latencies; lttng-schedtop reads the trace;
- lttng-irqstats: the timer softirq ran, at most as often as
  /proc/softirqs counted over the recording;
- lttng-memtop: the reader (the kmem events are filtered to it)
  allocated pages writing its new file.

A wrong figure fails the test unless the kernel skipped a sched_switch of
that workload's (kernel_skipped): then the workload is recorded again, up
to ATTEMPTS times. Skipped when the analyses are not installed."""

import itertools
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SYSTEM_PYTHON, Service, check, log, mount_tracefs, require, run

SPIN_S = 1.5
CHUNK = 64 * 1024
FILE_SIZE = 8 * 1024 * 1024
WRITE_SIZE = 4 * 1024 * 1024
N_OPENS = 37
# Counted in recordings, not seconds: one takes 3 to 5 s here, longer on
# a slow machine, which must not get fewer tries.
ATTEMPTS = 6

# Both on one CPU, which the spinner keeps busy: the reader is then
# switched in from the spinner rather than from the idle task, whose
# sched_switch is the one some kernels skip most (see kernel_skipped).
WAIT_FOR_GO = r"""
import os, sys, time
os.sched_setaffinity(0, {int(os.environ["TEST_CPU"])})
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

# The data file is opened before the session starts, so that only the
# state dump names it; after go, N_OPENS opens of another file, the read,
# then WRITE_SIZE bytes written to a new file.
READER = r"""
import os, sys, time
fd = os.open(sys.argv[2], os.O_RDONLY)
""" + WAIT_FOR_GO + r"""
chunk_size, opened = int(sys.argv[3]), sys.argv[4]
for _ in range(int(sys.argv[5])):
    os.close(os.open(opened, os.O_RDONLY))
total = 0
while True:
    chunk = os.read(fd, chunk_size)
    if not chunk:
        break
    total += len(chunk)
os.close(fd)
out = os.open(sys.argv[6], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
written, block = 0, b"w" * chunk_size
while written < int(sys.argv[7]):
    written += os.write(out, block)
os.close(out)
print(total, written, flush=True)
"""


def analysis(tool, path, *options):
    """The result tables of an analysis run through its -mi twin.

    Without MALLOC_PERTURB_, which meson sets: babeltrace 1's Python
    bindings read the trace's first and last timestamps from an event
    whose iterator they have just destroyed (TraceCollection's
    _timestamp_at_pos), which works only while the freed memory is left
    as it was. The fault handler names the place should they crash."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    proc = subprocess.run([SYSTEM_PYTHON, "-X", "faulthandler", shutil.which(f"{tool}-mi"),
                           *options, path], capture_output=True, text=True, timeout=120,
                          env=env)
    check(proc.returncode == 0, f"{tool}: exit {proc.returncode}: {proc.stdout[-500:]} "
          f"{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])["results"]


def table(results, class_name):
    found = [r for r in results if r["class"] == class_name]
    check(found, f"no {class_name} table in {[r['class'] for r in results]}")
    return found[0]


def record(svc, out, data):
    """The two workloads, inside a kernel session; returns their pids and
    the spinner's own CPU time in ns."""
    go = os.path.join(svc.rundir, "go")
    if os.path.exists(go):
        os.unlink(go)
    env = dict(os.environ, TEST_CPU=str(max(os.sched_getaffinity(0))))
    spinner = subprocess.Popen([SYSTEM_PYTHON, "-c", SPINNER, go, str(SPIN_S)],
                               stdout=subprocess.PIPE, text=True, env=env)
    written = os.path.join(svc.rundir, "written")
    reader = subprocess.Popen([SYSTEM_PYTHON, "-c", READER, go, data, str(CHUNK), go,
                               str(N_OPENS), written, str(WRITE_SIZE)],
                              stdout=subprocess.PIPE, text=True, env=env)
    svc.cli("create", "analyses", "--output", out)
    # The process events too: the analyses read sched_process_fork's
    # fields under LTTng's names, tids and pids both.
    svc.cli("enable-event", "-k", "sched:sched_switch,sched:sched_wakeup,"
            "sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit")
    # The reader's alone: the other processes' would only make the trace
    # longer to read. openat's path is a user address, which the trace
    # gives as a string lttng-iousagetop takes (an unknown file).
    svc.cli("enable-event", "-k", "--syscall", "openat,read,write,close", "--filter",
            f"common_pid == {reader.pid}")
    # lttng-irqstats: every interrupt; lttng-memtop: the reader's pages.
    svc.cli("enable-event", "-k", "irq:irq_handler_entry,irq:irq_handler_exit,"
            "irq:softirq_entry,irq:softirq_exit,irq:softirq_raise")
    svc.cli("enable-event", "-k", "kmem:mm_page_alloc,kmem:mm_page_free", "--filter",
            f"common_pid == {reader.pid}")
    time.sleep(0.5)  # the interpreters are started and polling
    svc.cli("start")
    with open(go, "w"):
        pass
    spin_ns = int(spinner.communicate(timeout=60)[0])
    read_bytes, written_bytes = (int(n) for n in reader.communicate(timeout=60)[0].split())
    check(read_bytes == FILE_SIZE and written_bytes == WRITE_SIZE,
          f"the reader read {read_bytes} bytes and wrote {written_bytes}")
    time.sleep(0.2)
    svc.cli("stop")
    svc.cli("destroy", "analyses")
    return spinner.pid, reader.pid, spin_ns


# For the spinner and the reader: the first of their events that happens
# on a CPU where the last sched_switch put another thread, or None.
FOLLOWED = r"""
import bt2, json, sys
spinner, reader = int(sys.argv[2]), int(sys.argv[3])
running, skipped = {}, {}
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    name = ev.name
    if name != "sched_switch" and not name.startswith("syscall_"):
        continue
    cpu = int(ev.packet.context_field["cpu_id"])
    fields = ev.payload_field
    pid = int(fields["common_pid"])
    ours = ((name == "sched_switch" and pid == spinner and int(fields["prev_state"]) & 0xff == 0)
            or (name != "sched_switch" and pid == reader))
    if ours and running.get(cpu) != pid and pid not in skipped:
        skipped[pid] = (f"{name} of {pid} on CPU {cpu}, where the last sched_switch says "
                        f"{running.get(cpu)} runs")
    if name == "sched_switch":
        running[cpu] = int(fields["next_tid"])
print(json.dumps({"spinner": skipped.get(spinner), "reader": skipped.get(reader)}))
"""


def kernel_skipped(out, spinner, reader):
    """Where the trace misses a switch to the spinner while it spins, or to
    the reader before one of its system calls, on that CPU: None for each
    that has all. The analyses know who runs where from sched_switch
    alone; some kernels (virtual machines here) skip a sched_switch now
    and then, most often the one out of the idle task, in tracefs' own
    text output too, and then a thread's CPU time or system calls go to
    another."""
    proc = subprocess.run([SYSTEM_PYTHON, "-c", FOLLOWED, os.path.join(out, "kernel"),
                           str(spinner), str(reader)],
                          capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"python3-bt2 could not read {out}: {proc.stderr[-2000:]}")
    skipped = json.loads(proc.stdout)
    return skipped["spinner"], skipped["reader"]


def cputop_wrong(out, spinner, spin_ns, cpu):
    """What lttng-cputop gets wrong about the spinner, or None."""
    results = analysis("lttng-cputop", out)
    per_process = table(results, "per-process")
    time_range = per_process["time-range"]
    duration_ns = time_range["end"]["value"] - time_range["begin"]["value"]
    rows = [row for row in per_process["data"] if row[0].get("tid") == spinner]
    usage = rows[0][-1]["value"] if rows else 0
    measured = usage * duration_ns
    log(f"cputop: spinner {usage * 100:.1f} % of {duration_ns / 1e9:.3f} s = "
        f"{measured / 1e9:.3f} s, it measured {spin_ns / 1e9:.3f} s")
    if abs(measured - spin_ns) > 0.1 * spin_ns:
        return (f"cputop: the spinner used {measured / 1e9:.3f} s of CPU, it measured "
                f"{spin_ns / 1e9:.3f} s")
    # On its CPU, where it is pinned, all of that time. (Whether it is the
    # busiest there is not the analysis' to say: the machine's own daemons
    # may outrun it on either CPU.)
    on_cpu = table(analysis("lttng-cputop", out, "--cpu", str(cpu)), "per-process")
    rows = [row for row in on_cpu["data"] if row[0].get("tid") == spinner]
    on_cpu_ns = (rows[0][-1]["value"] if rows else 0) * duration_ns
    if abs(on_cpu_ns - spin_ns) > 0.1 * spin_ns:
        return (f"cputop: the spinner used {on_cpu_ns / 1e9:.3f} s of CPU {cpu}, where it is "
                f"pinned, it measured {spin_ns / 1e9:.3f} s")
    return None


def syscallstats_wrong(out, reader):
    """What lttng-syscallstats gets wrong about the reader, or None."""
    results = analysis("lttng-syscallstats", out)
    # A table per thread: its class inherits per-tid and titles it.
    tables = [t for t in results if isinstance(t["class"], dict)
              and t["class"].get("inherit") == "per-tid"
              and t["class"].get("title", "").endswith(f"TID: {reader})]")]
    if not tables:
        return f"syscallstats: no table for tid {reader}"
    counts = {row[0].get("name"): row[1]["value"] for row in tables[0]["data"]}
    expected = {"read": FILE_SIZE // CHUNK + 1, "openat": N_OPENS + 1,
                "write": WRITE_SIZE // CHUNK, "close": N_OPENS + 2}
    log(f"syscallstats: the reader's calls {counts}")
    # write: the file's, the line printed, and a few more the interpreter
    # makes at exit.
    writes = counts.pop("write", 0)
    del expected["write"]
    if counts != expected or writes < WRITE_SIZE // CHUNK + 1:
        return (f"syscallstats: the reader's calls {counts} and {writes} writes, expected "
                f"{expected} and at least {WRITE_SIZE // CHUNK + 1} writes")
    return None


def iousage_wrong(out, reader, data):
    """What lttng-iousagetop gets wrong about the reader, or None."""
    results = analysis("lttng-iousagetop", out)
    per_process = [t for t in results if isinstance(t["class"], dict)
                   and t["class"].get("inherit") == "per-process-top"
                   and t["class"].get("title", "").endswith("[read]")]
    check(per_process, f"iousagetop: no per-process read table: "
          f"{[t['class'] for t in results]}")
    rows = [row for row in per_process[0]["data"] if row[0].get("tid") == reader]
    read = rows[0][1]["value"] if rows else 0
    log(f"iousagetop: the reader read {read} bytes")
    if read != FILE_SIZE:
        return f"iousagetop: {read} bytes read, expected {FILE_SIZE}"
    written = top_value(results, "per-process-top", "[written]", reader)
    line = len(f"{FILE_SIZE} {WRITE_SIZE}\n")
    log(f"iousagetop: the reader wrote {written} bytes")
    if written != WRITE_SIZE + line:
        return f"iousagetop: {written} bytes written, expected {WRITE_SIZE} and {line}"
    # The data file was opened before the session: the state dump names it.
    files = [t for t in results if isinstance(t["class"], dict)
             and t["class"].get("inherit") == "per-file-top"
             and t["class"].get("title", "").endswith("[read]")]
    check(files, "iousagetop: no per-file read table")
    named = {row[0].get("path"): row[1]["value"] for row in files[0]["data"]}
    if named.get(data) != FILE_SIZE:
        return f"iousagetop: files read {named}, expected {FILE_SIZE} bytes of {data}"
    return None


def top_value(results, inherit, title_end, tid):
    """A per-process top table's value for tid (0 when not listed)."""
    tables = [t for t in results if isinstance(t["class"], dict)
              and t["class"].get("inherit") == inherit
              and t["class"].get("title", "").endswith(title_end)]
    check(tables, f"no {inherit} {title_end} table: {[t['class'] for t in results]}")
    rows = [row for row in tables[0]["data"] if row[0].get("tid") == tid]
    return rows[0][1]["value"] if rows else 0


def others_wrong(out, reader, timer_softirqs):
    """What lttng-schedstats, lttng-schedtop, lttng-irqstats and
    lttng-memtop get wrong, or None. Each must read the trace; the
    reader, woken by its polling timer, has wake-up latencies; the timer
    softirq ran, at most as often as /proc/softirqs counted over the
    recording; the reader's writes allocated pages (the kmem events are
    the reader's only)."""
    per_tid = table(analysis("lttng-schedstats", out), "per_tid_stats")
    wakeups = [row for row in per_tid["data"] if row[0].get("tid") == reader]
    if not wakeups or wakeups[0][1]["value"] < 1:
        return f"schedstats: no wake-up latency of the reader {reader}"
    table(analysis("lttng-schedtop", out), "top")
    soft = table(analysis("lttng-irqstats", out), "soft-stats")
    timers = [row[1]["value"] for row in soft["data"] if row[0].get("name") == "TIMER_SOFTIRQ"]
    log(f"irqstats: {timers} timer softirqs, /proc/softirqs {timer_softirqs}")
    if not timers or not 0 < timers[0] <= timer_softirqs:
        return f"irqstats: {timers} timer softirqs, /proc/softirqs counted {timer_softirqs}"
    allocated = table(analysis("lttng-memtop", out), "allocd")
    pages = {row[0].get("tid"): row[1]["value"] for row in allocated["data"]}
    log(f"memtop: pages allocated {pages}")
    if set(pages) != {reader} or pages[reader] < 1:
        return f"memtop: pages allocated {pages}, expected the reader {reader}'s"
    return None


def softirqs(name):
    """The machine's count of a softirq, all CPUs."""
    with open("/proc/softirqs") as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == f"{name}:":
                return sum(int(n) for n in fields[1:])
    check(False, f"no {name} in /proc/softirqs")


def test():
    require(shutil.which("lttng-cputop-mi") is not None,
            "lttng-analyses (python3-lttnganalyses) are not installed")
    mount_tracefs()
    with Service() as svc:
        data = os.path.join(svc.rundir, "data")
        with open(data, "wb") as f:
            f.write(os.urandom(FILE_SIZE))
        for attempt in itertools.count():
            out = os.path.join(svc.rundir, f"trace-{attempt}")
            timer_softirqs = softirqs("TIMER")
            spinner, reader, spin_ns = record(svc, out, data)
            timer_softirqs = softirqs("TIMER") - timer_softirqs
            spinner_skipped, reader_skipped = kernel_skipped(out, spinner, reader)
            spinner_wrong = cputop_wrong(out, spinner, spin_ns, max(os.sched_getaffinity(0)))
            reader_wrong = (syscallstats_wrong(out, reader) or iousage_wrong(out, reader, data)
                            or others_wrong(out, reader, timer_softirqs))
            # Wrong figures are the analyses' (or the trace's) fault but
            # where the kernel skipped a switch of that workload's.
            check(not spinner_wrong or spinner_skipped, spinner_wrong)
            check(not reader_wrong or reader_skipped, reader_wrong)
            if not spinner_wrong and not reader_wrong:
                break
            why = spinner_skipped if spinner_wrong else reader_skipped
            check(attempt + 1 < ATTEMPTS,
                  f"{spinner_wrong or reader_wrong}, in each of {attempt + 1} recordings; "
                  f"the last time: {why}")
            log(f"{spinner_wrong or reader_wrong}: the kernel skipped a sched_switch "
                f"({why}): recording again")
            shutil.rmtree(out)


if __name__ == "__main__":
    run(test)
    sys.exit(0)
