#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The kernel flight recorder's snapshot, against LTTng-UST's snapshot of
the user-space part alone through lttng-sessiond (LTTng 2.13, the anchor),
in one run. Prints:

  figure kernel_snapshot_ms ours=X anchor=Y ratio=X/Y unit=ms

kernel_snapshot_ms  wall-clock time of `snapshot record`, from the
                    command's start to its end (both tools answer once the
                    files are complete and synced), median of RUNS: ours
                    for a snapshot session holding user-space buffers
                    (ust-loop's bench:event, channel SUBBUF x NUM per CPU)
                    and the kernel's (getppid entries and exits, the same
                    geometry), both filled by a workload first; the
                    anchor for lttng's snapshot of the same user-space
                    buffers, filled the same way (lttng-sessiond runs
                    with --no-kernel: the kernel part is ours alone).
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
from tclib import BUILD, SOURCE, Service, check, require, wait_for  # noqa: E402
from benchlib import figure, machine, require_lttng_ust, tree_bytes  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_RUNS", "5"))
SUBBUF, NUM = "256k", "4"
GEOMETRY = ["--subbuf-size", SUBBUF, "--num-subbuf", NUM]
EVENTS = 200000   # user-space events a thread, per run: more than the buffers hold
CALLS = 200000    # getppid() calls per run: more than the kernel's buffers hold


def build(tmp):
    subprocess.run(["cc", "-O2", "-o", f"{tmp}/loop-ours", f"{HERE}/ust-loop.c",
                    f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                    f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes", "-lpthread"], check=True)
    subprocess.run(["cc", "-O2", "-DTRACER_LTTNG", "-o", f"{tmp}/loop-lttng",
                    f"{HERE}/ust-loop.c", f"-I{HERE}", "-llttng-ust", "-ldl", "-lpthread"],
                   check=True)
    subprocess.run(["cc", "-O2", "-o", f"{tmp}/getppid-loop", f"{HERE}/getppid-loop.c"],
                   check=True)


def fill(tmp, program, env, with_kernel):
    subprocess.run([f"{tmp}/{program}", "loop", "2", str(EVENTS)], env=env, check=True,
                   capture_output=True, timeout=600)
    if with_kernel:
        subprocess.run([f"{tmp}/getppid-loop", str(CALLS)], check=True, capture_output=True)


def timed(command, env):
    started = time.monotonic()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    took = (time.monotonic() - started) * 1000
    check(proc.returncode == 0, f"{' '.join(command)}: {proc.stderr}")
    return took


def ours(tmp):
    times, sizes = [], []
    with Service() as svc:
        env = svc.env()
        out = f"{tmp}/ours"
        svc.cli("create", "flight", "--snapshot", "--output", out)
        svc.cli("enable-channel", "-u", "channel0", *GEOMETRY)
        svc.cli("enable-channel", "-k", "channel0", *GEOMETRY)
        svc.cli("enable-event", "-u", "bench:*")
        svc.cli("enable-event", "-k", "--syscall", "getppid")
        svc.cli("start")
        for _ in range(RUNS):
            fill(tmp, "loop-ours", env, True)
            times.append(timed([f"{BUILD}/client/tracectl", "snapshot", "record"], env))
            last = max(os.listdir(out), key=lambda name: os.path.getmtime(f"{out}/{name}"))
            check(os.path.exists(f"{out}/{last}/kernel/metadata"), "no kernel trace")
            sizes.append(tree_bytes(f"{out}/{last}"))
            shutil.rmtree(f"{out}/{last}")
        svc.cli("destroy", "flight")
    return times, sizes


def lttng(tmp):
    times, sizes = [], []
    home = f"{tmp}/lttng-home"
    os.makedirs(home)
    env = dict(os.environ, LTTNG_HOME=home, HOME=home)
    # A child of ours, ended by its pid, never by name.
    sessiond = subprocess.Popen(["lttng-sessiond", "--no-kernel"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: subprocess.run(["lttng", "list"], env=env,
                                        capture_output=True).returncode == 0,
                 20, "lttng-sessiond to answer")
        out = f"{tmp}/lttng"

        def run(*args):
            subprocess.run(["lttng", *args], env=env, capture_output=True, check=True)

        run("create", "flight", "--snapshot", "--output", out)
        run("enable-channel", "-u", "channel0", "--overwrite", *GEOMETRY)
        run("enable-event", "-u", "-c", "channel0", "bench:*")
        run("start")
        for _ in range(RUNS):
            fill(tmp, "loop-lttng", env, False)
            times.append(timed(["lttng", "snapshot", "record"], env))
            last = max(os.listdir(out), key=lambda name: os.path.getmtime(f"{out}/{name}"))
            sizes.append(tree_bytes(f"{out}/{last}"))
            shutil.rmtree(f"{out}/{last}")
        run("destroy", "flight")
    finally:
        sessiond.terminate()
        sessiond.wait(timeout=60)
    return times, sizes


def main():
    require_lttng_ust()
    require(os.path.exists("/sys/kernel/tracing/instances"), "no tracefs")
    print(f"machine: {machine()}, load average {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="tc-bench-ksnap-") as tmp:
        build(tmp)
        mine, my_sizes = ours(tmp)
        anchor, anchor_sizes = lttng(tmp)
    print(f"note: ours {[round(t, 1) for t in mine]} ms for {my_sizes} bytes; "
          f"lttng {[round(t, 1) for t in anchor]} ms for {anchor_sizes} bytes", flush=True)
    figure("kernel_snapshot_ms", statistics.median(mine), statistics.median(anchor), "ms")


main()
