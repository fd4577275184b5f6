#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The own-process kernel tier's cost to the traced workload: CALLS
getppid() calls by an unprivileged user, with their system calls (entry
and exit) and scheduling (switches, wake-ups) recorded by the tier, against
`perf record -p PID` as root on the same events of the same process
(Debian's linux-perf, the anchor). Prints:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

kernel_own_slowdown   the workload's time traced over its time alone
kernel_own_trace_mb   the size of what was written: ours the kernel-own
                      trace, perf's its perf.data
"""

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import Service, check, require  # noqa: E402
from benchlib import figure  # noqa: E402

CALLS = int(os.environ.get("TRACECTL_BENCH_CALLS", "5000000"))
USER = "tcownbench"
OWN_EVENTS = "raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch,sched:sched_wakeup"
PERF_EVENTS = ["raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch",
               "sched:sched_wakeup"]
RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "org.tracectl.Tracing1.trace-kernel-own" && subject.user == "%s")
        return polkit.Result.YES;
});
""" % USER


def as_user(user):
    return ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups", "--"]


def gated(user, program):
    """The workload as user, waiting for a line on its stdin: its pid is
    known before it starts calling."""
    return subprocess.Popen(as_user(user) + ["/bin/sh", "-c", f'read _; exec "$0" {CALLS}',
                                             program],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/")


def release(proc):
    proc.stdin.write("\n")
    proc.stdin.close()
    out = proc.stdout.read()
    check(proc.wait() == 0, "the workload failed")
    return float(out)


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path)
               for f in files)


def measure_ours(svc, user, program):
    out = os.path.join(user.home, "bench-own")
    svc.cli("create", "own", "--output", out, user=user)
    svc.cli("enable-event", "-k", "--own", OWN_EVENTS, user=user)
    svc.cli("start", user=user)
    proc = gated(user, program)
    elapsed = release(proc)
    svc.cli("stop", user=user)
    size = dir_bytes(os.path.join(out, "kernel-own"))
    svc.cli("destroy", "own", user=user)
    return elapsed, size


def measure_perf(tmp, user, program):
    data = os.path.join(tmp, "perf.data")
    proc = gated(user, program)
    args = ["perf", "record", "-p", str(proc.pid), "-o", data]
    for event in PERF_EVENTS:
        args += ["-e", event]
    perf = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)  # perf is recording once its files are set up
    elapsed = release(proc)
    check(perf.wait(timeout=120) == 0, "perf record failed")
    return elapsed, os.path.getsize(data)


def main():
    require(os.geteuid() == 0, "needs root")
    require(subprocess.run(["which", "perf"], capture_output=True).returncode == 0,
            "perf is not installed (apt-get install linux-perf)")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(RULE)
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-own-bench.rules")
    with svc, tempfile.TemporaryDirectory(prefix="tracectl-bench-own-") as tmp:
        os.chmod(tmp, 0o755)
        user = svc.add_user(USER)
        program = os.path.join(tmp, "getppid-loop")
        subprocess.run(["cc", "-O2", "-o", program, os.path.join(HERE, "getppid-loop.c")],
                       check=True)
        alone = min(release(gated(user, program)) for _ in range(3))
        ours, ours_size = measure_ours(svc, user, program)
        perf, perf_size = measure_perf(tmp, user, program)
    figure("kernel_own_slowdown", ours / alone, perf / alone, "x")
    figure("kernel_own_trace_mb", ours_size / 1e6, perf_size / 1e6, "MB")


if __name__ == "__main__":
    main()
