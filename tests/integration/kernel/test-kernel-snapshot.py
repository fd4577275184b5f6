#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel events in snapshot sessions, the kernel flight recorder:

- a snapshot session with kernel and user events: nothing is written
  while it records; 'snapshot record' writes <snapshot>/kernel beside
  <snapshot>/ust/..., which babeltrace2 reads as one timeline without a
  warning, each application event followed on its thread by the entry of
  its getppid call; the same snapshot sent to lttng-relayd holds the same
  events, with <snapshot>/kernel on the relay; the kernel channel is
  listed in overwrite mode, a discard one is refused;
- overwrite keeps the newest: with kernel buffers of 16 KiB per CPU, a
  flood of getppid calls, then a marker (getsid of a number no process
  has): the snapshot holds the marker and only the flood's last calls,
  and reads without a warning (overwritten events are not discarded ones,
  as in LTTng's overwrite mode); a second
  snapshot after nothing new holds the same newest events again (a
  snapshot consumes nothing);
- --max-size: too small for one sub-buffer of each stream (the kernel's
  per-CPU streams counted) is refused naming the least; a bound that is
  enough cuts each kernel stream to its share, keeping its newest
  packets (the flood's last calls, the marker), and the cut snapshot is
  still readable;
- a trigger's snapshot-session action (on the application's event) writes
  the kernel trace too, every application event's getppid entry in it."""

import glob
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from tclib import (STRESS_APP, Service, check, kernel_instances, log, mount_tracefs, run,
                   wait_for)
from tracelib import babeltrace_text, read_streams

COUNT = 100
FLOOD = 20000
MARKER_PID = 987654321
CPUS = os.sysconf("SC_NPROCESSORS_CONF")


def kernel_files(snapshot):
    directory = os.path.join(snapshot, "kernel")
    return {name: os.path.getsize(os.path.join(directory, name))
            for name in os.listdir(directory)}


def thread_order(events):
    """Per application thread, its events and its getppid entries, in order."""
    tids = {e["ctx_vtid"] for e in events if e["name"] == "stress:thread"}
    order = [e for e in events
             if e["name"] == "stress:thread" or
             (e["name"] == "syscall_entry_getppid" and e["common_pid"] in tids)]
    return {tid: [e for e in order if e.get("ctx_vtid") == tid or e.get("common_pid") == tid]
            for tid in tids}


def relayed_snapshot(svc, relay):
    """The same snapshot sent to the relay, read from its copy."""
    sent = svc.cli_json("snapshot", "record", relay.url)["directory"]
    found = glob.glob(os.path.join(relay.output, socket.gethostname(), "timeline-*",
                                   "snapshot-*"))
    check(len(found) == 1 and os.path.exists(os.path.join(found[0], "kernel", "metadata")),
          f"relayed snapshot {sent}: {found}, "
          f"{[p for p, _, _ in os.walk(relay.output)]}")
    babeltrace_text(found[0])
    return read_streams(found[0])["events"]


def one_timeline(svc, relay):
    out = os.path.join(svc.rundir, "timeline")
    svc.cli("create", "timeline", "--snapshot", "--output", out)
    bad = svc.cli("enable-channel", "-k", "channel0", "--discard", check_ok=False)
    check(bad.returncode == 1 and "overwrite mode" in bad.stderr, f"discard kernel channel: {bad}")
    svc.cli("add-context", "-u", "-t", "vtid")
    svc.cli("enable-event", "-u", "stress:*")
    svc.cli("enable-event", "-k", "--syscall", "getppid")
    svc.cli("start")
    channels = svc.cli_json("list", "timeline")["channels"]
    kernel = [c for c in channels if c["domain"] == "kernel"]
    check(len(kernel) == 1 and kernel[0]["settings"]["overwrite"] is True and
          kernel[0]["settings"]["buffer_kb_per_cpu"] == 2048, f"kernel channel: {kernel}")
    text = svc.cli("list", "timeline").stdout
    kernel_text = text.partition("=== Domain: Kernel ===")[2]
    check("Mode: overwrite" in kernel_text and "Buffer per CPU: 2048 KiB" in kernel_text,
          f"list shows the kernel channel so: {text}")
    svc.run_app("--threads", "2", "--count", str(COUNT), "--signals", "0", "--getppid",
                program=STRESS_APP)
    check(not os.path.exists(os.path.join(out, "kernel")), "a snapshot session wrote a trace")
    snapshot = svc.cli_json("snapshot", "record")["directory"]
    check(os.path.exists(os.path.join(snapshot, "kernel", "metadata")),
          f"no kernel trace in the snapshot: {os.listdir(snapshot)}")
    babeltrace_text(snapshot)
    threads = thread_order(read_streams(snapshot)["events"])
    check(len(threads) == 2, f"application threads in the snapshot: {list(threads)}")
    for tid, seq in threads.items():
        kinds = [e["name"] for e in seq]
        check(kinds == ["stress:thread", "syscall_entry_getppid"] * COUNT,
              f"thread {tid}: not event, system call, event, ...: {len(kinds)} {kinds[:6]}")
    check(thread_order(relayed_snapshot(svc, relay)) == threads,
          "the relayed snapshot differs from the local one")
    svc.cli("destroy", "timeline")
    check(kernel_instances(svc.rundir) == [], "tracefs instance left")


def marker():
    """getsid() of a pid no process has: a system call of its own, with an
    argument that names it."""
    subprocess.run([sys.executable, "-c",
                    f"import os\ntry:\n os.getsid({MARKER_PID})\nexcept OSError:\n pass"],
                   check=True)


def getppids(events, tids):
    return [e for e in events if e["name"] == "syscall_entry_getppid" and e["common_pid"] in tids]


def app_tids(events):
    return {e["ctx_vtid"] for e in events if e["name"] == "stress:thread"}


def overwrite_keeps_newest(svc):
    out = os.path.join(svc.rundir, "flight")
    svc.cli("create", "flight", "--snapshot", "--output", out)
    svc.cli("enable-channel", "-u", "channel0", "--subbuf-size", "4096", "--num-subbuf", "4")
    svc.cli("enable-channel", "-k", "channel0", "--subbuf-size", "4096", "--num-subbuf", "4")
    svc.cli("add-context", "-u", "-t", "vtid")
    svc.cli("enable-event", "-u", "stress:*")
    svc.cli("enable-event", "-k", "--syscall", "getppid")
    svc.cli("enable-event", "-k", "--syscall", "getsid")
    svc.cli("start")
    app = subprocess.Popen([STRESS_APP, "--threads", "1", "--count", str(FLOOD),
                            "--signals", "0", "--getppid"], env=svc.env())
    check(app.wait(timeout=120) == 0, "the stress application failed")
    marker()
    first = svc.cli_json("snapshot", "record")["directory"]
    second = svc.cli_json("snapshot", "record")["directory"]
    svc.cli("stop")

    babeltrace_text(first)
    trace = read_streams(first)
    events = trace["events"]
    marks = [e for e in events if e["name"] == "syscall_entry_getsid" and
             e.get("pid") == MARKER_PID]
    tids = app_tids(events)
    flood = getppids(events, tids)
    log(f"first snapshot: marker {len(marks)}, {len(flood)} of {FLOOD} getppid entries, "
        f"discarded {trace.get('discarded')}, kernel files {kernel_files(first)}")
    check(len(marks) == 1, "the marker written after the flood is not in the snapshot")
    check(0 < len(flood) < FLOOD // 4, f"{len(flood)} of the flood's {FLOOD} calls kept")
    check(all(e["ts"] < marks[0]["ts"] for e in flood), "a flood event after the marker")
    streams = [size for name, size in kernel_files(first).items() if name != "metadata"]
    check(max(streams) <= 4 * 4096 and max(streams) >= 2 * 4096,
          f"kernel streams of {streams} bytes, not a flooded channel's worth (4 x 4096)")
    # Nothing was recorded between the snapshots: the same newest events.
    again = read_streams(second)["events"]
    check([e["ts"] for e in getppids(again, tids)] == [e["ts"] for e in flood],
          "the second snapshot does not hold the first one's newest events")
    check(any(e["name"] == "syscall_entry_getsid" and e.get("pid") == MARKER_PID for e in again),
          "the second snapshot lost the marker")
    return tids, flood


def by_cpu(events):
    """The events' timestamps, per CPU: each CPU is a stream of its own."""
    cpus = {}
    for e in events:
        cpus.setdefault(e["cpu"], []).append(e["ts"])
    return cpus


def max_size(svc, tids):
    streams = 2 * CPUS  # the user channel's per-CPU buffers and the kernel's
    # The reference is a whole snapshot taken now, after the stop: one taken
    # while recording may lack a CPU's last page, which the kernel gives
    # the reader only once it is full or recording stops.
    flood = getppids(read_streams(svc.cli_json("snapshot", "record")["directory"])["events"],
                     tids)
    refused = svc.cli("snapshot", "record", "--max-size", str(streams * 4096 - 1), check_ok=False)
    check(refused.returncode == 1 and f"{streams} streams" in refused.stderr,
          f"--max-size below a sub-buffer per stream: {refused}")
    cut = svc.cli_json("snapshot", "record", "--max-size", str(streams * 4096))["directory"]
    sizes = kernel_files(cut)
    log(f"snapshot of at most {streams * 4096} bytes: kernel files {sizes}")
    check(all(size <= 4096 for name, size in sizes.items() if name != "metadata"),
          f"a kernel stream above its share of 4096 bytes: {sizes}")
    babeltrace_text(cut)
    events = read_streams(cut)["events"]
    check(any(e["name"] == "syscall_entry_getsid" and e.get("pid") == MARKER_PID
              for e in events), "the cut snapshot lost the newest event, the marker")
    # Each CPU's newest packet: the flood's last calls there, nothing older.
    kept, newest = by_cpu(getppids(events, tids)), by_cpu(flood)
    log(f"the cut snapshot holds {[len(ts) for ts in kept.values()]} of the flood's newest "
        f"calls per CPU, {[len(ts) for ts in newest.values()]} before")
    check(kept and all(ts and ts == newest[cpu][-len(ts):] for cpu, ts in kept.items()),
          "the cut snapshot does not hold the flood's newest calls of each CPU")
    svc.cli("destroy", "flight")


def snapshots_with_kernel(out):
    return [os.path.join(out, name) for name in sorted(os.listdir(out))
            if os.path.exists(os.path.join(out, name, "kernel", "metadata"))] \
        if os.path.isdir(out) else []


def trigger_snapshot(svc):
    out = os.path.join(svc.rundir, "trig")
    svc.cli("create", "trig", "--snapshot", "--output", out)
    svc.cli("add-context", "-u", "-t", "vtid")
    svc.cli("enable-event", "-u", "stress:*")
    svc.cli("enable-event", "-k", "--syscall", "getppid")
    svc.cli("start")
    svc.cli("add-trigger", "--name", "on-stress", "--condition", "event-rule-matches",
            "--type", "user", "--name", "stress:thread", "--action", "snapshot-session")
    svc.run_app("--threads", "2", "--count", str(COUNT), "--signals", "0", "--getppid",
                program=STRESS_APP)
    wait_for(lambda: snapshots_with_kernel(out), 10, "the trigger's snapshot")
    snapshot = snapshots_with_kernel(out)[0]
    babeltrace_text(snapshot)
    threads = thread_order(read_streams(snapshot)["events"])
    counts = {tid: ([e["name"] for e in seq].count("stress:thread"),
                    [e["name"] for e in seq].count("syscall_entry_getppid"))
              for tid, seq in threads.items()}
    log(f"the trigger's snapshot: (events, getppid entries) per thread {counts}")
    check(counts and all(0 < user <= kernel for user, kernel in counts.values()),
          f"the trigger's snapshot lacks kernel events of the application: {counts}")
    svc.cli("remove-trigger", "on-stress")
    svc.cli("destroy", "trig")


def test():
    mount_tracefs()
    with Service() as svc, Relay(svc.rundir) as relay:
        one_timeline(svc, relay)
        tids, _ = overwrite_keeps_newest(svc)
        max_size(svc, tids)
        trigger_snapshot(svc)
        check(svc.alive(), "tracectld died")


run(test)
