#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A crowd of LTTng-UST applications (Debian's liblttng-ust), each with a
provider of 256 more events preloaded so that a listing of one is 512
round trips long, started at once while `tracectl list -u` runs in a
loop: each application's
constructor waits for its session at most LTTNG_UST_REGISTER_TIMEOUT
(3 s), and every one of them gets it in time, so every application's
ticks are in the trace from its first one. The listings neither hold the
registrations back: an application is listed when a listing is asked
for, not at its registration, and the listings asked for while one is
queued join it. A listing made once the crowd runs shows every
application, and those listed within its deadline with their events."""

import os
import re
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, run
from lttnglib import LTTNG_APP, require_served, require_tools

WIDE = os.path.join(BUILD, "tests", "integration", "apps", "libtc-lttng-wide.so")

CROWD = 80
SECONDS = 6
TICK = re.compile(r"tc_lttng_test:tick: .*\{ vpid = (\d+) \}, \{ count = (\d+) \}$", re.MULTILINE)


def list_in_a_loop(svc, stop, listings):
    while not stop.is_set():
        svc.cli("list", "-u")
        listings.append(1)


def ticks_by_pid(trace_dir):
    proc = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {trace_dir}: {proc.stderr[-2000:]}")
    ticks = {}
    for pid, count in TICK.findall(proc.stdout):
        ticks.setdefault(int(pid), []).append(int(count))
    return ticks


def test():
    require_tools()
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        out = os.path.join(svc.rundir, "crowd")
        for args in (["create", "crowd", "--output", out],
                     ["enable-event", "-u", "tc_lttng_test:tick"],
                     ["add-context", "-u", "-t", "vpid"],
                     ["start"]):
            svc.cli(*args)
        stop, listings = threading.Event(), []
        lister = threading.Thread(target=list_in_a_loop, args=(svc, stop, listings))
        lister.start()
        try:
            env = dict(svc.env(), LD_PRELOAD=WIDE)
            crowd = [subprocess.Popen([LTTNG_APP, str(SECONDS)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True) for _ in range(CROWD)]
            pids = [int(proc.stdout.readline().split()[1]) for proc in crowd]
            listed = svc.cli("list", "-u").stdout
        finally:
            stop.set()
            lister.join()
        for proc in crowd:
            check(proc.wait(timeout=60) == 0, f"an application exited with {proc.returncode}")
        svc.cli("stop")
        svc.cli("destroy", "crowd")
        ticks = ticks_by_pid(out)
        late = {pid: sorted(ticks.get(pid, []))[:3] for pid in pids
                if sorted(ticks.get(pid, [])) != list(range(SECONDS * 10))}
        log(f"{CROWD} applications, {len(listings)} listings meanwhile; "
            f"{len(late)} without all their ticks")
        check(not late, f"applications whose first ticks are missing (pid: first ticks): {late}")
        # Listed when asked: each one is there; those its owner's thread
        # listed within the listing's deadline (2 s) with their events.
        present = [pid for pid in pids if f"PID: {pid} " in listed]
        shown = [pid for pid in pids if re.search(rf"PID: {pid} .*\n(\s+\S.*\n)*\s+"
                                                  r"tc_lttng_test:tick ", listed)]
        log(f"a listing while they ran: {len(present)} applications, {len(shown)} with "
            "their events")
        check(len(present) == CROWD and shown,
              f"{len(present)} of the {CROWD} applications listed, {len(shown)} with events")
        check("tc_lttng_wide:e377 " in listed, "the preloaded provider is not listed")
        check(svc.alive(), "tracectld died")


run(test)
