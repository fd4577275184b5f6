#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A live session read by babeltrace2's lttng-live source while it
records, with its metadata growing: the events of an application
started after the viewer attached, then those of a kernel event enabled
while the kernel trace records, each appear within the live timer plus
a few seconds (not when the session ends), idle kernel CPUs and idle
user-space streams holding nothing back. The first kernel event of a live session that records user-space
events only starts its kernel trace at once: its events appear live
too. A sparse live session stores packets cut to their content (rounded
up to a page), not whole sub-buffers of padding each live period."""

import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Reader, Relay
from tclib import Service, check, log, mount_tracefs, run
from tracelib import babeltrace_text

LIVE_TIMER_US = 200000
# Room for a slow machine (one period takes a fraction of a second here);
# an event held back would show only when its session ends.
ARRIVAL_S = LIVE_TIMER_US / 1e6 + 3


def test():
    mount_tracefs()
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        svc.cli("create", "growing", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("enable-event", "-k", "sched:sched_switch")
        svc.cli("start")
        url = f"net://127.0.0.1:{relay.live_port}/host/{hostname}/growing"
        viewer = Reader(["babeltrace2", url], svc.env())
        try:
            viewer.wait_for("sched_switch", 10)
            # An application started now: new event classes, new metadata.
            started = time.monotonic()
            app = svc.app("--forever", "--interval-us", "50000")
            viewer.wait_for("example:all_types", ARRIVAL_S + 5)
            log(f"first application event after {time.monotonic() - started:.2f} s")
            # A kernel event enabled while recording: it shows once the
            # next process exits (the application, stopped now).
            svc.cli("enable-event", "-k", "sched:sched_process_exit")
            app.terminate()
            app.wait(timeout=10)
            stopped = time.monotonic()
            viewer.wait_for("sched_process_exit", ARRIVAL_S)
            delay = time.monotonic() - stopped
            log(f"sched_process_exit shown {delay:.2f} s after the exit")
            check(delay < ARRIVAL_S, f"the kernel event took {delay:.2f} s")
            check(viewer.proc.poll() is None, f"the viewer ended: {viewer.errors[-2000:]}")
        finally:
            viewer.kill()
        svc.cli("destroy", "growing")
        kernel_added_while_recording(svc, relay, hostname)
        sparse_packets_stay_small(svc, relay, hostname)
        check(svc.alive(), "tracectld died")


def kernel_added_while_recording(svc, relay, hostname):
    svc.cli("create", "userfirst", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    app = svc.app("--forever", "--interval-us", "50000")
    url = f"net://127.0.0.1:{relay.live_port}/host/{hostname}/userfirst"
    viewer = Reader(["babeltrace2", url], svc.env())
    try:
        viewer.wait_for("example:all_types", ARRIVAL_S + 5)
        svc.cli("enable-event", "-k", "sched:sched_process_exec")
        executed = time.monotonic()
        subprocess.run(["/bin/true"], check=True)
        viewer.wait_for("sched_process_exec", ARRIVAL_S)
        delay = time.monotonic() - executed
        log(f"first kernel event of a recording session shown after {delay:.2f} s")
        check(delay < ARRIVAL_S, f"the kernel event took {delay:.2f} s")
    finally:
        viewer.kill()
        app.terminate()
        app.wait(timeout=10)
    svc.cli("destroy", "userfirst")


def stream_files(trace_dir):
    """The relay's user-space stream files of a session: not its metadata,
    not its index files."""
    paths = []
    for root, dirs, files in os.walk(os.path.join(trace_dir, "ust")):
        dirs[:] = [d for d in dirs if d != "index"]
        paths += [os.path.join(root, f) for f in files if f != "metadata"]
    return paths


def sparse_packets_stay_small(svc, relay, hostname):
    """An event every 50 ms for 4 s in 512 KiB sub-buffers: each live
    period flushes a packet of a few hundred bytes, which must not cost
    the relay's disk a whole sub-buffer (about 10 MiB per stream)."""
    svc.cli("create", "sparse", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("start")
    app = svc.app("--forever", "--interval-us", "50000")
    time.sleep(4)
    app.terminate()
    app.wait(timeout=10)
    svc.cli("destroy", "sparse")
    dirs = [d for d in relay.trace_dirs(hostname) if os.path.basename(d).startswith("sparse-")]
    check(len(dirs) == 1, f"relay directories of sparse: {relay.trace_dirs(hostname)}")
    sizes = {os.path.basename(p): os.path.getsize(p) for p in stream_files(dirs[0])}
    log(f"sparse live session: stream files of {sizes} bytes")
    check(sizes and sum(sizes.values()) > 0, f"no stream data under {dirs[0]}")
    check(all(size < 1 << 20 for size in sizes.values()),
          f"stream files of a sparse live session: {sizes} bytes")
    text = babeltrace_text(dirs[0])
    check("example:all_types" in text, f"no events in the sparse trace: {text[-2000:]}")


run(test)
