#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Many instrumented processes registering at once while commands run
(TRACECTL_TEST_APPS of them, 200 by default; the benchmark uses 1000):
all are registered, all are gone after they exit, and the service's
memory comes back: after a first wave has warmed up the allocator, a
second wave leaves the service within 1 MiB of where the first left it
(malloc keeps some freed memory, so the very first baseline is not a fair
bar; a leak of a few hundred bytes per application would exceed it)."""

import os
import signal
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, is_sanitized, log, run, wait_for

APPS = int(os.environ.get("TRACECTL_TEST_APPS", "200"))
TOLERANCE_KB = 1024


def rss_anon_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon")


def listed(svc):
    return len(svc.listed_pids())


def commands(svc, stop, wave_number, errors):
    """Commands keep running while the applications register."""
    n = 0
    try:
        while not stop.is_set():
            name = f"busy{wave_number}-{n}"
            svc.cli("create", name, "--output", os.path.join(svc.rundir, name))
            svc.cli("enable-event", "-u", "example:*", "-s", name)
            svc.cli("destroy", name)
            n += 1
    except AssertionError as error:
        errors.append(error)
    errors.append(n)


def wave(svc, wave_number):
    stop = threading.Event()
    results = []
    worker = threading.Thread(target=commands, args=(svc, stop, wave_number, results))
    worker.start()
    try:
        apps = [svc.app("--pause") for _ in range(APPS)]
        wait_for(lambda: listed(svc) == APPS, 60, f"{APPS} applications to register")
    finally:
        stop.set()
        worker.join()
    errors = [r for r in results if isinstance(r, AssertionError)]
    check(not errors, f"a command failed while applications registered: {errors}")
    check(results[-1] > 0, "no command ran while applications registered")
    for app in apps:
        app.send_signal(signal.SIGKILL)
    for app in apps:
        app.wait()
    svc.apps.clear()
    wait_for(lambda: listed(svc) == 0, 20, "every application to be gone")


def test():
    with Service() as svc:
        pid = svc.proc.pid
        start = rss_anon_kb(pid)
        wave(svc, 1)
        after_first = rss_anon_kb(pid)
        wave(svc, 2)
        after_second = rss_anon_kb(pid)
        log(f"tracectld RssAnon: {start} kB at start, {after_first} kB after a first wave of "
            f"{APPS}, {after_second} kB after a second")
        if is_sanitized(pid):
            log("AddressSanitizer build: memory is not compared")
        else:
            check(after_second <= after_first + TOLERANCE_KB,
                  f"memory grew by {after_second - after_first} kB over a wave of {APPS}")
        check(svc.alive(), "tracectld died")


run(test)
