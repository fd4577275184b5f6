#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The kernel benchmark: a system-call-heavy workload (CALLS
getppid() calls, two events each) traced with the getppid system call and
sched_switch enabled, by tracectl and by `perf record` (Debian's
linux-perf, the anchor) with the same events and the same buffer size per
CPU (4 MiB), in one run. Prints:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

kernel_lost_events        events the kernel dropped: ours from the packet
                          contexts of the kernel trace, perf's from its
                          LOST records (perf report --stats)
kernel_consumer_cpu_s     CPU time of the recorder itself: our consumer's
                          (utime + stime over the run), perf record's
kernel_workload_slowdown  the workload's time traced over its time alone
kernel_recorded_events    getppid entry and exit events in the trace (a
                          sanity figure: both must hold 2 x CALLS minus
                          what they lost)
"""

import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import Service, check, children, require  # noqa: E402
from benchlib import figure  # noqa: E402

CALLS = int(os.environ.get("TRACECTL_BENCH_CALLS", "5000000"))
TRACEFS = "/sys/kernel/tracing"
EVENTS = ["syscalls:sys_enter_getppid", "syscalls:sys_exit_getppid", "sched:sched_switch"]
PACKET_HEADER = struct.Struct("<I16sIQQQQQQQI")


def workload(program):
    out = subprocess.run([program, str(CALLS)], capture_output=True, text=True, check=True)
    return float(out.stdout)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def kernel_lost(trace_dir):
    """The events_discarded of the last packet of each CPU's stream."""
    lost = 0
    for name in os.listdir(trace_dir):
        if not name.startswith("kernel_"):
            continue
        last, offset = 0, 0
        with open(os.path.join(trace_dir, name), "rb") as f:
            data = f.read()
        while offset + PACKET_HEADER.size <= len(data):
            fields = PACKET_HEADER.unpack_from(data, offset)
            packet_bytes = fields[7] // 8
            last = fields[9]
            if packet_bytes <= 0:
                break
            offset += packet_bytes
        lost += last
    return lost


def count_ours(trace_dir):
    """getppid events babeltrace2 reads from our kernel trace."""
    text = subprocess.Popen(["babeltrace2", trace_dir], stdout=subprocess.PIPE)
    count = sum(1 for line in text.stdout if b"getppid" in line)
    check(text.wait() == 0, "babeltrace2 could not read our kernel trace")
    return count


def measure_ours(tmp, program):
    with Service() as svc:
        out = os.path.join(tmp, "ours")
        svc.cli("create", "k", "--output", out)
        svc.cli("enable-channel", "-k", "channel0", "--subbuf-size", "1M", "--num-subbuf", "4")
        for event in EVENTS:
            svc.cli("enable-event", "-k", event)
        svc.cli("start")
        consumers = [pid for pid in children(svc.proc.pid)
                     if "consumerd" in open(f"/proc/{pid}/cmdline").read()]
        check(len(consumers) == 1, f"consumer processes: {consumers}")
        before = cpu_seconds(consumers[0])
        elapsed = workload(program)
        svc.cli("stop")
        consumer_cpu = cpu_seconds(consumers[0]) - before
        svc.cli("destroy", "k")
        kernel_dir = os.path.join(out, "kernel")
        return kernel_lost(kernel_dir), count_ours(out), consumer_cpu, elapsed


def measure_perf(tmp, program):
    data = os.path.join(tmp, "perf.data")
    args = ["perf", "record", "-a", "-m", "1024", "-o", data]
    for event in EVENTS:
        args += ["-e", event]
    perf = subprocess.Popen(args + ["--", "sleep", "3600"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(2)  # perf is recording once its files are set up
    elapsed = workload(program)
    time.sleep(0.5)
    perf.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(perf.pid, 0)
    perf.returncode = status
    perf_cpu = usage.ru_utime + usage.ru_stime
    stats = subprocess.run(["perf", "report", "-i", data, "--stats"], capture_output=True,
                           text=True).stdout
    lost = sum(int(n) for n in re.findall(r"LOST\s+events:\s+(\d+)", stats))
    lost += sum(int(n) for n in re.findall(r"LOST_SAMPLES\s+events:\s+(\d+)", stats))
    recorded = sum(int(n) for n in re.findall(
        r"syscalls:sys_(?:enter|exit)_getppid stats:\s+SAMPLE events:\s+(\d+)", stats))
    return lost, recorded, perf_cpu, elapsed


def main():
    require(subprocess.run(["which", "perf"], capture_output=True).returncode == 0,
            "perf is not installed (apt-get install linux-perf)")
    if not os.path.exists(os.path.join(TRACEFS, "instances")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=False)
    require(os.path.exists(os.path.join(TRACEFS, "instances")), "no tracefs")
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-kernel-") as tmp:
        program = os.path.join(tmp, "getppid-loop")
        subprocess.run(["cc", "-O2", "-o", program, os.path.join(HERE, "getppid-loop.c")],
                       check=True)
        alone = min(workload(program) for _ in range(3))
        ours_lost, ours_recorded, ours_cpu, ours_time = measure_ours(tmp, program)
        perf_lost, perf_recorded, perf_cpu, perf_time = measure_perf(tmp, program)
    figure("kernel_lost_events", ours_lost, perf_lost, "events", may_be_zero=True)
    figure("kernel_consumer_cpu_s", ours_cpu, perf_cpu, "s")
    figure("kernel_workload_slowdown", ours_time / alone, perf_time / alone, "x")
    figure("kernel_recorded_events", ours_recorded, perf_recorded, "events")
    # Lost counts include sched_switch, so they bound the getppid loss.
    check(ours_recorded + ours_lost >= 2 * CALLS, f"ours recorded only {ours_recorded}")
    check(perf_recorded + perf_lost >= 2 * CALLS, f"perf recorded only {perf_recorded}")


if __name__ == "__main__":
    main()
