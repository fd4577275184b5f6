#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Registration and registry benchmarks, tracectl side by side
with LTTng 2.13 (Debian's lttng-tools and liblttng-ust-dev, the anchor) in
one run, the same tiny application built for each tracer, a session with
its event enabled and started in each. Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

registration_us      median time from fork() to the first instruction of
                     main() with the service up and a session active, minus
                     the same with no service to register with: what
                     registering costs the application (200 runs each)
registry_kb_per_app  service RSS growth per registered application (1000)
register_1000_s      1000 applications started at once, until all listed
idle_wakeups_per_s   service context switches per second, over 10 s idle
                     with the 1000 applications registered, counted by
                     perf for every thread, those that exit included
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
from tclib import BUILD, SOURCE, Service, require, wait_for  # noqa: E402
from benchlib import figure, require_lttng_ust  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_RUNS", "200"))
APPS = int(os.environ.get("TRACECTL_BENCH_APPS", "1000"))


def build(tmp):
    cc = ["cc", "-O2", "-o"]
    subprocess.run(cc + [f"{tmp}/spawn-timer", f"{HERE}/spawn-timer.c"], check=True)
    subprocess.run(cc + [f"{tmp}/app-ours", f"{HERE}/reg-app-tracectl.c",
                         f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                         f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes"], check=True)
    subprocess.run(cc + [f"{tmp}/app-lttng", f"{HERE}/reg-app-lttng.c", f"-I{HERE}",
                         "-llttng-ust", "-ldl"], check=True)


def spawn_median_us(tmp, app, env):
    out = subprocess.run([f"{tmp}/spawn-timer", str(RUNS), app], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])


def context_switches_per_s(pid, seconds):
    """Context switches of every thread of pid over seconds. perf's
    per-task counters are inherited and fold an exiting thread's count
    into its parent's, so threads that end within the window still count
    (summing /proc/PID/task/*/status loses them and can go negative)."""
    out = subprocess.run(["perf", "stat", "-x,", "-e", "context-switches", "-p", str(pid),
                          "--", "sleep", str(seconds)],
                         capture_output=True, text=True, check=True).stderr
    for line in out.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] == "context-switches":
            # "<not counted>": no thread of pid ran in the window at all.
            count = 0 if fields[0] == "<not counted>" else int(fields[0])
            return count / seconds
    raise AssertionError(f"no context-switches line in perf's output: {out!r}")


def crowd(app, env, count_listed, service_pid):
    """Starts APPS waiting applications at once; returns the time until all
    are listed, the service's RSS growth per app, its idle wake-ups/s."""
    before = rss_kb(service_pid)
    started = time.monotonic()
    apps = [subprocess.Popen([app, "wait"], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL) for _ in range(APPS)]
    wait_for(lambda: count_listed() >= APPS, 300, f"{APPS} applications to register")
    elapsed = time.monotonic() - started
    time.sleep(1)
    per_app = (rss_kb(service_pid) - before) / APPS
    wakeups = context_switches_per_s(service_pid, 10)
    for proc in apps:
        proc.stdin.close()
    for proc in apps:
        proc.wait()
    return elapsed, per_app, wakeups


def measure_ours(tmp):
    app = f"{tmp}/app-ours"
    alone = dict(os.environ, TRACECTL_RUNDIR=f"{tmp}/no-service")
    unregistered = spawn_median_us(tmp, app, alone)
    with Service() as svc:
        svc.cli("create", "bench", "--output", f"{tmp}/ours-trace")
        svc.cli("enable-event", "-u", "bench:*")
        svc.cli("start")
        env = svc.env()
        registered = spawn_median_us(tmp, app, env)

        def listed():
            return svc.cli("list", "-u").stdout.count("PID: ")
        crowd_figures = crowd(app, env, listed, svc.proc.pid)
        svc.cli("stop")
    return registered - unregistered, crowd_figures


def lttng(*args, env):
    return subprocess.run(["lttng", *args], env=env, capture_output=True, text=True)


def measure_lttng(tmp):
    app = f"{tmp}/app-lttng"
    home = f"{tmp}/lttng-home"
    os.makedirs(home)
    env = dict(os.environ, LTTNG_HOME=home)
    unregistered = spawn_median_us(tmp, app, env)
    subprocess.run(["lttng-sessiond", "--no-kernel", "--daemonize"], env=env, check=True)
    try:
        sessiond = int(subprocess.run(["pgrep", "-n", "-x", "lttng-sessiond"],
                                      capture_output=True, text=True).stdout.split()[0])
        lttng("create", "bench", "--output", f"{tmp}/lttng-trace", env=env)
        lttng("enable-event", "-u", "bench:*", env=env)
        lttng("start", env=env)
        registered = spawn_median_us(tmp, app, env)

        def listed():
            return len(set(re.findall(r"PID: (\d+)", lttng("list", "-u", env=env).stdout)))
        crowd_figures = crowd(app, env, listed, sessiond)
        lttng("destroy", "-a", env=env)
    finally:
        subprocess.run(["pkill", "-x", "lttng-sessiond"], check=False)
        subprocess.run(["pkill", "-x", "lttng-consumerd"], check=False)
    return registered - unregistered, crowd_figures


def main():
    require_lttng_ust()
    require(os.geteuid() == 0, "the benchmark starts services: run it as root")
    require(shutil.which("perf"), "perf is not installed (apt-get install linux-perf)")
    tmp = tempfile.mkdtemp(prefix="tracectl-bench-")
    os.chmod(tmp, 0o755)
    try:
        build(tmp)
        ours_reg, (ours_s, ours_kb, ours_wake) = measure_ours(tmp)
        lttng_reg, (lttng_s, lttng_kb, lttng_wake) = measure_lttng(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    figure("registration_us", ours_reg, lttng_reg, "us")
    figure("registry_kb_per_app", ours_kb, lttng_kb, "kB")
    figure("register_1000_s", ours_s, lttng_s, "s")
    figure("idle_wakeups_per_s", ours_wake, lttng_wake, "wakeups/s", may_be_zero=True)


main()
