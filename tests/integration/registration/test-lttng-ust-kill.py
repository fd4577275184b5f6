#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""SIGKILL of each party while an LTTng-UST application (Debian's
liblttng-ust, not tracectl's library) records:

- the application: every event it recorded until it died is in the
  trace (the per-UID buffers outlive it), ticks 0, 1, 2, ... without a
  gap; it is no longer listed;
- the session's consumer: the session says so in its Problem, the
  application runs on unharmed and exits normally, `stop` says the trace
  is cut when the consumer stopped, and a new session records a new
  application;
- tracectld itself: the application runs on unharmed, registers again
  with the service started anew (LTTng-UST's wait page wakes it), and a
  new session records its ticks from then on, consecutive."""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, require, run, wait_for
from lttnglib import require_served
from tracelib import read_trace

LTTNG_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-lttng-app")


def start_app(svc, seconds):
    proc = subprocess.Popen([LTTNG_APP, str(seconds)], env=svc.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    svc.apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    return proc


def ticks(out):
    return [fields["count"] for name, fields in read_trace(out)
            if name == "tc_lttng_test:tick"]


def consecutive(counts, first=None):
    return bool(counts) and counts == list(range(counts[0], counts[0] + len(counts))) and \
        (first is None or counts[0] == first)


def record(svc, name, out):
    svc.cli("create", name, "--output", out)
    svc.cli("enable-event", "-u", "tc_lttng_test:*")
    svc.cli("start")


def listed(svc, pid):
    return pid in svc.listed_pids()


def application_killed(svc, top):
    out = os.path.join(top, "app-killed")
    record(svc, "app", out)
    app = start_app(svc, 30)
    time.sleep(2)
    app.send_signal(signal.SIGKILL)
    app.wait()
    wait_for(lambda: not listed(svc, app.pid), 10, "the killed application to go")
    svc.cli("stop")
    svc.cli("destroy", "app")
    counts = ticks(out)
    log(f"application killed after 2 s: ticks {counts[0] if counts else None}.."
        f"{counts[-1] if counts else None}")
    check(consecutive(counts, first=0) and len(counts) >= 15,
          f"ticks of an application killed after 2 s: {counts}")


def consumer_killed(svc, top):
    record(svc, "consumer", os.path.join(top, "consumer-killed"))
    app = start_app(svc, 4)
    time.sleep(1)
    # This service's consumers only: other tests' run beside this one.
    consumers = subprocess.run(["pgrep", "-P", str(svc.proc.pid), "-x", "tracectl-consum"],
                               capture_output=True, text=True).stdout.split()
    check(consumers, "no consumer runs for the session")
    subprocess.run(["kill", "-KILL", *consumers], check=True)
    wait_for(lambda: "consumer" in (svc.session("consumer").get("problem") or ""), 10,
             "the session to say its consumer stopped")
    check(app.wait(timeout=30) == 0, f"the application exited with {app.returncode}")
    stop = svc.cli("stop", check_ok=False)
    check(stop.returncode != 0, "stop succeeded though the session's consumer was killed")
    check("trace is cut" in stop.stderr and "consumer writing this trace stopped" in stop.stderr
          and "No session" not in stop.stderr,
          f"stop did not say the consumer had stopped: {stop.stderr}")
    check(svc.alive(), "tracectld died with the consumer")
    svc.cli("destroy", "consumer")
    out = os.path.join(top, "after-consumer")
    record(svc, "after", out)
    start_app(svc, 2).wait(timeout=30)
    svc.cli("stop")
    svc.cli("destroy", "after")
    counts = ticks(out)
    check(consecutive(counts, first=0) and len(counts) >= 15,
          f"ticks recorded by a new session after the consumer was killed: {counts}")


def service_killed(svc, top):
    app = start_app(svc, 30)
    svc.restart(signal.SIGKILL)
    check(app.poll() is None, "the application died with the service")
    wait_for(lambda: listed(svc, app.pid), 30, "the application to register again")
    out = os.path.join(top, "after-service")
    record(svc, "again", out)
    time.sleep(2)
    svc.cli("stop")
    svc.cli("destroy", "again")
    counts = ticks(out)
    log(f"after the service's restart: ticks {counts[0] if counts else None}.."
        f"{counts[-1] if counts else None}")
    check(consecutive(counts) and counts[0] > 0 and len(counts) >= 15,
          f"ticks of the application registered again: {counts}")
    app.kill()
    app.wait()


def test():
    require(os.path.exists(LTTNG_APP), f"{LTTNG_APP} is not built (no liblttng-ust)")
    require(shutil.which("babeltrace2"), "babeltrace2 is not installed")
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        top = os.path.join(svc.rundir, "traces")
        os.makedirs(top)
        application_killed(svc, top)
        consumer_killed(svc, top)
        service_killed(svc, top)


run(test)
