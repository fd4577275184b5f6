#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng-UST applications (Debian's liblttng-ust) in a session streamed
to lttng-relayd (create --set-url): their per-UID trace is on the relay,
every tick in it, read by babeltrace2 from the relay's copy, and nothing
is written locally; with per-PID buffers, each application's trace is
there too, every tick of it; a rotation's archive and last chunk hold
every tick once; and a live viewer (tracectl view --live) attached
once the application registered prints its ticks as it records them."""

import glob
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import TRACECTL, Service, check, log, run, wait_for
from lttnglib import require_served, require_tools, start_lttng_app, tick_counts
from relaylib import Reader, Relay

def streamed(svc, relay, alice, name, seconds, *channel_args):
    """A session of alice streamed to relay, one application recorded for
    seconds; the relay's session directory."""
    def cli(*args):
        return svc.cli(*args, user=alice)

    cli("create", name, "--set-url", relay.url)
    cli("enable-channel", "-u", "ch", *channel_args)
    cli("enable-event", "-u", "-c", "ch", "tc_lttng_test:tick")
    cli("start")
    apps = [start_lttng_app(svc, alice, seconds) for _ in range(2)]
    for app in apps:
        check(app.wait(timeout=60) == 0, f"the application exited with {app.returncode}")
    cli("stop")
    cli("destroy", name)
    return relay.session_dir(socket.gethostname(), name, closed=True), apps


def rotated(svc, relay, alice):
    """A streamed session rotated while an application records: the
    relay's archives and its last chunk hold every tick once."""
    def cli(*args):
        return svc.cli(*args, user=alice)

    cli("create", "rot", "--set-url", relay.url)
    cli("enable-event", "-u", "tc_lttng_test:tick")
    cli("start")
    app = start_lttng_app(svc, alice, 4)
    time.sleep(1.5)
    cli("rotate")
    check(app.wait(timeout=60) == 0, f"the application exited with {app.returncode}")
    cli("stop")
    cli("destroy", "rot")
    where = relay.session_dir(socket.gethostname(), "rot", closed=True)
    parts = sorted(glob.glob(os.path.join(where, "**", "lttng-ust", "uid", str(alice.uid),
                                          "64-bit"), recursive=True))
    ticks = [tick_counts(part) for part in parts]
    log(f"rotated on the relay: {[(os.path.relpath(p, where), len(t)) for p, t in zip(parts, ticks)]}")
    check(len(parts) >= 2 and all(ticks) and sorted(sum(ticks, [])) == list(range(40)),
          f"the rotated traces on the relay: {[(os.path.relpath(p, where), t[:2], len(t)) for p, t in zip(parts, ticks)]}")


def live(svc, relay, alice):
    """A live session: a viewer attached once the application registered
    prints its ticks while it records, and ends when the session is
    destroyed."""
    def cli(*args):
        return svc.cli(*args, user=alice)

    cli("create", "live", "--set-url", relay.url, "--live=200000")
    cli("enable-event", "-u", "tc_lttng_test:tick")
    cli("start")
    app = start_lttng_app(svc, alice, 30)
    reader = Reader(svc._as(alice) + [TRACECTL, "view", "--live", "--live-port",
                                      str(relay.live_port), "live"], svc.env(alice))
    attached = time.monotonic()
    reader.wait_for("tc_lttng_test:tick", 30)
    wait_for(lambda: sum("tc_lttng_test:tick" in line for _, line in reader.lines) >= 20, 30,
             "20 ticks from the live viewer")
    log(f"live: the first tick shown {reader.lines[0][0] - attached:.2f} s after the viewer "
        f"started, {len(reader.lines)} lines")
    app.kill()
    app.wait()
    cli("destroy", "live")
    status = reader.finish(30)
    check(status == 0, f"the live viewer ended with {status}: {reader.errors[-2000:]}")
    counts = [int(re.search(r"count = (\d+)", line)[1]) for _, line in reader.lines
              if "tc_lttng_test:tick" in line]
    check(len(counts) >= 20 and counts == list(range(counts[0], counts[0] + len(counts))),
          f"the live viewer's ticks: {counts[:5]}..{counts[-5:]} ({len(counts)})")


def test():
    require_tools()
    with Service(args=["--lttng-ust"]) as svc, Relay(svc.rundir) as relay:
        require_served(svc)
        alice = svc.add_user("tctest-alice")
        before = set(os.listdir(alice.home))

        where, _ = streamed(svc, relay, alice, "net", 3)
        path = os.path.join(where, "lttng-ust", "uid", str(alice.uid), "64-bit")
        check(os.path.isfile(os.path.join(path, "metadata")),
              f"no LTTng-UST trace on the relay under {where}: "
              f"{[p for p, _, _ in os.walk(where)]}")
        ticks = tick_counts(path)
        log(f"per-UID trace on the relay: {len(ticks)} ticks of two applications")
        check(ticks == sorted(list(range(30)) * 2),
              f"the relay's trace holds {len(ticks)} ticks: {ticks[:5]}..{ticks[-5:]}")

        where, apps = streamed(svc, relay, alice, "netpid", 2, "--buffers-pid")
        traces = sorted(glob.glob(os.path.join(where, "lttng-ust", "pid", "*")))
        check(len(traces) == 2 and
              sorted(int(os.path.basename(t).rsplit("-", 3)[1]) for t in traces) ==
              sorted(app.app_pid for app in apps),
              f"the relay's per-PID traces: {traces}, the applications "
              f"{[app.app_pid for app in apps]}")
        for trace in traces:
            ticks = tick_counts(trace)
            check(ticks == list(range(20)), f"{trace} holds {len(ticks)} ticks")
        log(f"per-PID traces on the relay: {[os.path.basename(t) for t in traces]}")
        # The CLI's own files (the current session) aside.
        written = {name for name in set(os.listdir(alice.home)) - before
                   if not name.startswith(".tracectl")}
        check(not written, f"written locally: {written}")
        rotated(svc, relay, alice)
        live(svc, relay, alice)
        check(svc.alive(), "tracectld died")


run(test)
