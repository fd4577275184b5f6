#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Everyday commands, tracectl side by side with LTTng 2.13's lttng (the
anchor) in one run, as root, each service with a session "bench" whose
event is enabled and one application registered (the same tiny
application built for each tracer). Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

cli_version_ms       `tracectl --version` against `lttng --version`: the
                     CLI's start, no bus nor session daemon
cli_status_ms        `status` of the current session
cli_list_session_ms  `list bench`
cli_start_stop_ms    `start bench` then `stop bench`

Each figure is the median of TRACECTL_BENCH_CLI_RUNS (20) runs after two
warm-ups, ours and the anchor's alternated, timed around the process from
this script (its fork and exec included on both sides).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import BUILD, SOURCE, TRACECTL, Service, require, wait_for  # noqa: E402
from benchlib import figure  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_CLI_RUNS", "20"))
WARM_UPS = 2


def build(tmp):
    cc = ["cc", "-O2", "-o"]
    subprocess.run(cc + [f"{tmp}/app-ours", f"{HERE}/reg-app-tracectl.c",
                         f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                         f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes"], check=True)
    subprocess.run(cc + [f"{tmp}/app-lttng", f"{HERE}/reg-app-lttng.c", f"-I{HERE}",
                         "-llttng-ust", "-ldl"], check=True)


def timed_ms(commands, env):
    """Runs each command of commands (a list of argv), which must succeed;
    the milliseconds all of them took."""
    start = time.perf_counter()
    for argv in commands:
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
    return (time.perf_counter() - start) * 1000


def alternated(ours, anchor):
    """Medians of (ours, anchor), each a (commands, env), alternated."""
    times = ([], [])
    for run in range(WARM_UPS + RUNS):
        for side, (commands, env) in enumerate((ours, anchor)):
            took = timed_ms(commands, env)
            if run >= WARM_UPS:
                times[side].append(took)
    return statistics.median(times[0]), statistics.median(times[1])


def registered_app(argv, env, listed):
    app = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    wait_for(lambda: listed(app.pid), 20, f"{argv[0]} to register")
    return app


def start_lttng(tmp):
    home = f"{tmp}/lttng-home"
    os.makedirs(home)
    env = dict(os.environ, LTTNG_HOME=home)
    subprocess.run(["lttng-sessiond", "--no-kernel", "--daemonize"], env=env, check=True)
    subprocess.run(["lttng", "create", "bench", "--output", f"{tmp}/lttng-trace"], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["lttng", "enable-event", "-u", "bench:*"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return env


def lttng_lists(env, pid):
    out = subprocess.run(["lttng", "list", "-u"], env=env, capture_output=True,
                         text=True).stdout
    return f"PID: {pid}" in out


def main():
    require(shutil.which("lttng-sessiond"), "LTTng 2.13 is not installed (apt-get install "
            "lttng-tools liblttng-ust-dev)")
    require(os.geteuid() == 0, "the benchmark starts services: run it as root")
    tmp = tempfile.mkdtemp(prefix="tracectl-bench-")
    os.chmod(tmp, 0o755)
    apps = []
    try:
        build(tmp)
        lttng_env = start_lttng(tmp)
        apps.append(registered_app([f"{tmp}/app-lttng", "wait"], lttng_env,
                                   lambda pid: lttng_lists(lttng_env, pid)))
        with Service() as svc:
            ours_env = svc.env()
            svc.cli("create", "bench", "--output", f"{tmp}/ours-trace")
            svc.cli("enable-event", "-u", "bench:*")
            apps.append(registered_app([f"{tmp}/app-ours", "wait"], ours_env,
                                       lambda pid: pid in svc.listed_pids()))
            ours = [TRACECTL]
            anchor = ["lttng"]
            figures = [
                ("cli_version_ms", [["--version"]]),
                ("cli_status_ms", [["status"]]),
                ("cli_list_session_ms", [["list", "bench"]]),
                ("cli_start_stop_ms", [["start", "bench"], ["stop", "bench"]]),
            ]
            for name, commands in figures:
                mine, theirs = alternated(([ours + c for c in commands], ours_env),
                                          ([anchor + c for c in commands], lttng_env))
                figure(name, mine, theirs, "ms")
    finally:
        for app in apps:
            app.kill()
            app.wait()
        subprocess.run(["pkill", "-x", "lttng-sessiond"], check=False)
        subprocess.run(["pkill", "-x", "lttng-consumerd"], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


main()
