#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cost of recording system calls with their arguments: CALLS rounds
of openat() + read() + close() of a file by an unprivileged user
(syscall-args-loop.c), recorded by the own-process tier with their
arguments (`enable-event -k --own --syscall openat,read,close`: the path
copied at entry, read's buffer at exit), against `perf record -e
'syscalls:sys_enter_*,syscalls:sys_exit_*' -p PID` as root on the same
process (Debian's linux-perf, the anchor: registers, no path), and
`strace -f -o FILE` beside them. Each run measures the workload's CPU
time, user and system: the programs and perf's tracepoints run in its
system calls, and a shared machine's other work delays it without
adding to it. The workload alone, ours and perf's run in turn, ROUNDS
times (3), and each figure takes the best of its runs; strace runs
once, timed by the loop's wall clock (it stops the task, which then
uses no CPU), against a run alone timed the same way. Prints:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

syscall_args_slowdown   the workload's CPU time traced over alone,
                        ours against perf's (goal: ratio <= 0.5 of the
                        overheads, printed as syscall_args_overhead)
syscall_args_overhead   the same less 1: the time tracing added
syscall_args_strace     strace's slowdown, against perf's
syscall_args_recorder_cpu_s  the recorder's CPU time, the least of its
                        runs: our consumer's (reading the ring, writing
                        CTF) against perf record's
syscall_args_events     system call events recorded by us (entries and
                        exits), against the loop's 6 a round
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
from tracelib import read_streams  # noqa: E402

CALLS = int(os.environ.get("TRACECTL_BENCH_CALLS", "1000000"))
ROUNDS = int(os.environ.get("TRACECTL_BENCH_ROUNDS", "3"))
USER = "tcargsbench"
RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "org.tracectl.Tracing1.trace-kernel-own" && subject.user == "%s")
        return polkit.Result.YES;
});
""" % USER


def as_user(user):
    return ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups", "--"]


def gated(user, program, path, prefix=()):
    """The workload as user, waiting for a line on its stdin: its pid is
    known before it starts calling."""
    return subprocess.Popen(list(prefix) + as_user(user) +
                            ["/bin/sh", "-c", f'read _; exec "$0" loop {path} {CALLS}', program],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/")


def release(proc, cpu=True):
    """Lets the workload run; its CPU time (user and system: the
    programs and perf's tracepoints run in its system calls), or with
    cpu False the loop's own wall time (strace stops the task, which
    then uses no CPU)."""
    proc.stdin.write("\n")
    proc.stdin.close()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    check(proc.returncode == 0, "the workload failed")
    return usage.ru_utime + usage.ru_stime if cpu else float(out)


def cpu_seconds(pid):
    """A process' user and system time so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def consumer_pid(user):
    pids = subprocess.run(["pgrep", "-u", str(user.uid), "^tracectl-consum"],
                          capture_output=True, text=True).stdout.split()
    check(len(pids) == 1, f"{user.name}'s consumer: {pids}")
    return int(pids[0])


def measure_ours(svc, user, program, path, round_):
    out = os.path.join(user.home, f"bench-args-{round_}")
    svc.cli("create", "args", "--output", out, user=user)
    svc.cli("enable-event", "-k", "--own", "--syscall", "openat,read,close", user=user)
    svc.cli("start", user=user)
    consumer = consumer_pid(user)
    cpu = cpu_seconds(consumer)
    proc = gated(user, program, path)
    elapsed = release(proc)
    svc.cli("stop", user=user)
    cpu = cpu_seconds(consumer) - cpu
    count = 0
    if round_ == 0:
        # Reading six million events takes a while: the first round's.
        events = read_streams(os.path.join(out, "kernel-own"))["events"]
        opened = [e for e in events
                  if e["name"] == "syscall_entry_openat" and e["filename"] == path]
        check(len(opened) >= CALLS * 0.99, f"{len(opened)} openat() of {path} recorded")
        count = len([e for e in events if e["name"].startswith("syscall_")])
    svc.cli("destroy", "args", user=user)
    return elapsed, count, cpu


def measure_perf(tmp, user, program, path):
    data = os.path.join(tmp, "perf.data")
    proc = gated(user, program, path)
    perf = subprocess.Popen(["perf", "record", "-e", "syscalls:sys_enter_*,syscalls:sys_exit_*",
                             "-p", str(proc.pid), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)  # perf is recording once its ~700 events are open
    elapsed = release(proc)
    _, status, usage = os.wait4(perf.pid, 0)
    perf.returncode = os.waitstatus_to_exitcode(status)
    check(perf.returncode == 0, "perf record failed")
    return elapsed, usage.ru_utime + usage.ru_stime


def measure_strace(tmp, user, program, path):
    proc = gated(user, program, path, ["strace", "-f", "-o", os.path.join(tmp, "strace.out")])
    return release(proc, cpu=False)


def main():
    require(os.geteuid() == 0, "needs root")
    for tool in ("perf", "strace"):
        require(subprocess.run(["which", tool], capture_output=True).returncode == 0,
                f"{tool} is not installed")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(RULE)
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-args-bench.rules")
    with svc, tempfile.TemporaryDirectory(prefix="tracectl-bench-args-") as tmp:
        os.chmod(tmp, 0o755)
        user = svc.add_user(USER)
        program = os.path.join(tmp, "syscall-args-loop")
        subprocess.run(["cc", "-O2", "-o", program, os.path.join(HERE, "syscall-args-loop.c")],
                       check=True)
        path = os.path.join(tmp, "read-me")
        with open(path, "wb") as f:
            f.write(os.urandom(4096))
        os.chmod(path, 0o644)
        runs = {"alone": [], "ours": [], "ours_cpu": [], "perf": []}
        count = 0
        for round_ in range(ROUNDS):
            runs["alone"].append(release(gated(user, program, path)))
            ours, events, ours_cpu = measure_ours(svc, user, program, path, round_)
            runs["ours"].append(ours)
            runs["ours_cpu"].append(ours_cpu)
            count = events or count
            runs["perf"].append(measure_perf(tmp, user, program, path))
            print(f"round {round_}: alone {runs['alone'][-1]:.3f} s, ours {ours:.3f} s "
                  f"(consumer {ours_cpu:.2f} s of CPU), perf {runs['perf'][-1][0]:.3f} s "
                  f"(perf record {runs['perf'][-1][1]:.2f} s of CPU)", flush=True)
        strace = measure_strace(tmp, user, program, path)
        wall = release(gated(user, program, path), cpu=False)
    alone, ours = min(runs["alone"]), min(runs["ours"])
    perf = min(elapsed for elapsed, _ in runs["perf"])
    ours_cpu = min(runs["ours_cpu"])
    perf_cpu = min(cpu for _, cpu in runs["perf"])
    print(f"best CPU times: alone {alone:.3f} s, ours {ours:.3f} s, perf {perf:.3f} s; "
          f"wall times: strace {strace:.3f} s, alone {wall:.3f} s; "
          f"for {CALLS} openat+read+close", flush=True)
    figure("syscall_args_slowdown", ours / alone, perf / alone, "x")
    figure("syscall_args_overhead", ours / alone - 1, perf / alone - 1, "x", may_be_zero=True)
    figure("syscall_args_strace", strace / wall, perf / alone, "x")
    figure("syscall_args_recorder_cpu_s", ours_cpu, perf_cpu, "s")
    figure("syscall_args_events", count, 6 * CALLS, "events")


if __name__ == "__main__":
    main()
