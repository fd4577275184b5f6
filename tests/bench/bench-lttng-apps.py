#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Unmodified LTTng-UST applications (Debian's liblttng-ust), served by
tracectld (`--lttng-ust`) side by side with LTTng 2.13's lttng-sessiond
(the anchor) in one run, as root, the same applications for both, a
session with their event enabled and started in each. Prints one line
per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

lttng_app_registration_us     median time from fork() to the first
                              instruction of main() with the session
                              daemon up and a session active (the
                              application's constructor waits until its
                              sessions are applied: its first event is
                              recordable), minus the same with no session
                              daemon (TRACECTL_BENCH_RUNS, 200 runs); each
                              run's event must be in the trace
lttng_app_service_kb_per_app  the session daemon's RSS growth per
                              registered application (TRACECTL_BENCH_APPS,
                              200, waiting), 3 s after the last listing
                              that counted them
lttng_app_consumer_cpu_s      CPU time of the consumer processes while an
                              application records TRACECTL_BENCH_EVENTS
                              (1,000,000) events in bursts of 1000 a
                              millisecond apart, until the session is
                              stopped; every event must be in the trace
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import Service, require, wait_for  # noqa: E402
from benchlib import figure, machine, require_lttng_ust  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_RUNS", "200"))
APPS = int(os.environ.get("TRACECTL_BENCH_APPS", "200"))
EVENTS = int(os.environ.get("TRACECTL_BENCH_EVENTS", "1000000"))
GLOBAL_SOCKET = "/var/run/lttng/lttng-ust-sock-8"


def build(tmp):
    cc = ["cc", "-O2", f"-I{HERE}", "-o"]
    subprocess.run(cc + [f"{tmp}/spawn-timer", f"{HERE}/spawn-timer.c"], check=True)
    subprocess.run(cc + [f"{tmp}/app", f"{HERE}/reg-app-lttng.c", "-llttng-ust", "-ldl"],
                   check=True)
    subprocess.run(cc + [f"{tmp}/burst", f"{HERE}/lttng-burst.c", "-llttng-ust", "-ldl"],
                   check=True)


def spawn_median_us(tmp, env):
    out = subprocess.run([f"{tmp}/spawn-timer", str(RUNS), f"{tmp}/app"], env=env,
                         check=True, capture_output=True, text=True).stdout
    return float(out)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])


def cpu_s(pids):
    """Time on a CPU of every thread of pids, in seconds (schedstat's
    nanoseconds: the consumers' work on a burst is tens of milliseconds,
    a few clock ticks). Threads are only counted while they live: both
    sides are measured before their sessions are destroyed."""
    ns = 0
    for pid in pids:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                ns += int(f.read().split()[0])
    return ns / 1e9


def pids_of(name, parent=None):
    parent = ["-P", str(parent)] if parent else []
    out = subprocess.run(["pgrep", *parent, "-x", name], capture_output=True,
                         text=True).stdout
    return [int(pid) for pid in out.split()]


def events_in(trace_dir):
    """The bench:event events babeltrace2 counts in trace_dir."""
    out = subprocess.run(["babeltrace2", trace_dir, "-c", "sink.utils.counter"],
                         capture_output=True, text=True, check=True).stdout
    # The counter prints its running totals as it goes: the last are all.
    found = re.findall(r"^\s*(\d+) Event messages$", out, re.MULTILINE)
    return int(found[-1]) if found else 0


def events_by_a(trace_dir):
    """How many bench:event events trace_dir holds for each value of a."""
    out = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                         check=True).stdout
    counts = {}
    for a in re.findall(r"bench:event: .*\{ a = (\d+),", out):
        counts[int(a)] = counts.get(int(a), 0) + 1
    return counts


def crowd_kb_per_app(tmp, env, count_listed, service_pid):
    before = rss_kb(service_pid)
    apps = [subprocess.Popen([f"{tmp}/app", "wait"], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL) for _ in range(APPS)]
    try:
        wait_for(lambda: count_listed() >= APPS, 300, f"{APPS} applications to register")
        # Settled: what a listing of APPS applications builds is a
        # transient, which each daemon frees once it is sent (tracectld
        # gives its pages back a second after the last one).
        time.sleep(3)
        return (rss_kb(service_pid) - before) / APPS
    finally:
        for proc in apps:
            proc.stdin.close()
        for proc in apps:
            proc.wait()


class Ours:
    name = "tracectl"
    must_keep_crowd = True

    def __init__(self, tmp):
        self.tmp = tmp
        self.svc = Service(args=["--lttng-ust"])

    def __enter__(self):
        self.svc.__enter__()
        wait_for(lambda: os.path.exists(GLOBAL_SOCKET), 20, "tracectld's LTTng-UST socket")
        return self

    def __exit__(self, *exc):
        return self.svc.__exit__(*exc)

    def env(self):
        return dict(os.environ)

    def cli(self, *args):
        self.svc.cli(*args)

    def listed(self):
        return self.svc.cli("list", "-u").stdout.count("PID: ")

    def service_pid(self):
        return self.svc.proc.pid

    def consumers(self):
        # The service's own (the kernel keeps 15 bytes of a name).
        return pids_of("tracectl-consum", parent=self.svc.proc.pid)


class Anchor:
    name = "lttng-sessiond"
    must_keep_crowd = False

    def __init__(self, tmp):
        self.home = f"{tmp}/lttng-home"
        os.makedirs(self.home)

    def __enter__(self):
        subprocess.run(["lttng-sessiond", "--no-kernel", "--daemonize"], env=self.env(),
                       check=True)
        wait_for(lambda: os.path.exists(GLOBAL_SOCKET), 20, "lttng-sessiond's socket")
        return self

    def __exit__(self, *exc):
        subprocess.run(["pkill", "-x", "lttng-sessiond"], check=False)
        wait_for(lambda: not pids_of("lttng-sessiond"), 30, "lttng-sessiond to exit")
        subprocess.run(["pkill", "-x", "lttng-consumerd"], check=False)
        return False

    def env(self):
        return dict(os.environ, LTTNG_HOME=self.home)

    def cli(self, *args):
        subprocess.run(["lttng", *args], env=self.env(), check=True, capture_output=True)

    def listed(self):
        out = subprocess.run(["lttng", "list", "-u"], env=self.env(), capture_output=True,
                             text=True).stdout
        return len(set(re.findall(r"PID: (\d+)", out)))

    def service_pid(self):
        return pids_of("lttng-sessiond")[0]

    def consumers(self):
        return pids_of("lttng-consumerd")


def measure(side, tmp, unregistered):
    """(registration µs, kB per application, consumer CPU s) of one side."""
    out = f"{tmp}/{side.name}-registration"
    with side:
        side.cli("create", "reg", "--output", out)
        side.cli("enable-event", "-u", "bench:*")
        side.cli("start")
        registered = spawn_median_us(tmp, side.env())
        kb = crowd_kb_per_app(tmp, side.env(), side.listed, side.service_pid())
        side.cli("stop")
        side.cli("destroy", "reg")
        # spawn-timer's runs (a = 1), then the crowd's applications (a = 2):
        # one event each, all of them recordable once registered.
        recorded = events_by_a(out)
        if recorded.get(1, 0) != RUNS:
            sys.exit(f"{side.name}: {recorded.get(1, 0)} of the timed runs' {RUNS} "
                     "events recorded")
        lost = APPS - recorded.get(2, 0)
        if lost and side.must_keep_crowd:
            sys.exit(f"{side.name}: {lost} of the crowd's {APPS} events lost")
        if lost:
            # lttng-sessiond applies its sessions to a crowd one application
            # after another: the last ones' constructors stop waiting for it
            # (LTTNG_UST_REGISTER_TIMEOUT) and their first event comes first.
            print(f"note: {side.name} lost {lost} of the crowd's {APPS} first events "
                  "(their applications stopped waiting for it)", flush=True)
        out = f"{tmp}/{side.name}-burst"
        side.cli("create", "burst", "--output", out)
        side.cli("enable-event", "-u", "bench:*")
        side.cli("start")
        pids = side.consumers()
        if not pids:
            sys.exit(f"{side.name}: no consumer process found")
        before = cpu_s(pids)
        subprocess.run([f"{tmp}/burst", str(EVENTS)], env=side.env(), check=True)
        side.cli("stop")
        spent = cpu_s(pids) - before
        side.cli("destroy", "burst")
    recorded = events_in(out)
    if recorded != EVENTS:
        sys.exit(f"{side.name}: {recorded} of the burst's {EVENTS} events recorded")
    return registered - unregistered, kb, spent


def main():
    require_lttng_ust()
    require(os.geteuid() == 0, "the benchmark starts services: run it as root")
    require(not pids_of("lttng-sessiond"), "an lttng-sessiond runs: stop it first")
    tmp = tempfile.mkdtemp(prefix="tracectl-bench-")
    os.chmod(tmp, 0o755)
    try:
        build(tmp)
        # No session daemon: the application's constructor gives up at once.
        unregistered = spawn_median_us(tmp, dict(os.environ))
        ours = measure(Ours(tmp), tmp, unregistered)
        anchor = measure(Anchor(tmp), tmp, unregistered)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"machine: {machine()}", flush=True)
    figure("lttng_app_registration_us", ours[0], anchor[0], "us")
    figure("lttng_app_service_kb_per_app", ours[1], anchor[1], "kB")
    figure("lttng_app_consumer_cpu_s", ours[2], anchor[2], "s")


main()
