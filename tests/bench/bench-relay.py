#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Streaming to lttng-relayd, tracectl side by side with LTTng 2.13
(Debian's lttng-tools and liblttng-ust-dev, the anchor, its session daemon
started by this benchmark) in one run: the same program (ust-loop.c) built
for each tracer, the same event (two 64-bit integers), the same channel
geometry, the same lttng-relayd on 127.0.0.1 (one per tracer, on ports of
its own). Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

relay_throughput_mb_per_s  trace bytes the relay stored per second of a
                           paced run, at each tracer's top lossless rate
                           (bisection on the rate asked for; a run counts
                           as lossless when it discarded nothing and
                           reached 99 % of the rate)
relay_consumer_cpu_s       CPU time (the scheduler's, all threads) of the
                           tracer's consumer daemons while CPU_EVENTS events are
                           streamed at a rate both tracers sustain; the
                           relay daemon's time is not counted
live_latency_ms            median delay from an event's timestamp to the
                           moment babeltrace2's live source prints it
                           (--clock-seconds, the trace clock's offset to
                           real time applied), live timer LIVE_TIMER_US
                           for both

TRACECTL_BENCH_QUICK=1 shortens every run (a check that the benchmark
works, not figures). Figure names as arguments measure only those
(e.g. live_latency_ms alone, which takes well under a minute).
TRACECTL_BENCH_RELAY_CPU_ONLY=RATE measures only relay_consumer_cpu_s,
at RATE events per second for both tracers (the full run takes half the
lower top lossless rate). docs/performance.md states the goals and the latest
figures.
"""

import mmap
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from relaylib import Relay  # noqa: E402
from tclib import BUILD, SOURCE, Service, check, children, require, wait_for  # noqa: E402
from benchlib import figure, thread_cpu_ns, top_lossless_rate, tree_bytes  # noqa: E402

QUICK = os.environ.get("TRACECTL_BENCH_QUICK") == "1"
PACED_SECONDS = 1.0 if QUICK else 2.0
RATE_LOW, RATE_HIGH = 100000.0, 20000000.0
BISECTION_STEP = 2.0 if QUICK else 1.4
CPU_EVENTS = 1000000 if QUICK else 5000000
WARM_UP_RATE, WARM_UP_SECONDS = 1000.0, 0.1  # 100 events before the CPU window
LIVE_TIMER_US = 100000
LIVE_RATE = 200          # events/s while the latency is measured
LIVE_SECONDS = 3.0 if QUICK else 5.0
GEOMETRY = ["--subbuf-size", "1M", "--num-subbuf", "8"]
CFLAGS = ["-O2"]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def build(tmp):
    source = f"{HERE}/ust-loop.c"
    subprocess.run(["cc", *CFLAGS, "-o", f"{tmp}/loop-ours", source,
                    f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                    f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes", "-lpthread"], check=True)
    subprocess.run(["cc", *CFLAGS, "-DTRACER_LTTNG", "-o", f"{tmp}/loop-lttng", source,
                    f"-I{HERE}", "-llttng-ust", "-ldl", "-lpthread"], check=True)


def run_paced(tracer, rate, seconds):
    out = subprocess.run([tracer.program, "paced", str(rate), str(seconds)], env=tracer.env,
                         check=True, capture_output=True, text=True, timeout=600).stdout
    values = {key: float(value) for key, value in (part.split("=") for part in out.split())}
    return values["rate"]


def cpu_seconds(pids):
    """CPU time of pids and their threads, in seconds: the scheduler's
    nanoseconds (schedstat), as the clock ticks of /proc/PID/stat are too
    coarse for a consumer that runs a few tens of milliseconds."""
    total = 0
    for pid in pids:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                pass  # a thread that ended meanwhile
    return total / 1e9


def packets_stored(path):
    """Packets in the index files under path (a CTF index: a 16-byte
    header whose last field is the entry length, then the entries)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            if name.endswith(".idx"):
                with open(os.path.join(root, name), "rb") as f:
                    header = f.read(16)
                    entry = int.from_bytes(header[12:16], "big")
                    total += (os.path.getsize(f.name) - 16) // entry if entry else 0
    return total


class Ours:
    name = "tracectl"

    def __init__(self, tmp, svc, relay):
        self.tmp, self.svc, self.relay = tmp, svc, relay
        self.program = f"{tmp}/loop-ours"
        self.env = svc.env()
        self.n = 0

    def session(self, live_timer_us=0):
        self.n += 1
        name = f"ours{self.n}"
        live = [f"--live={live_timer_us}"] if live_timer_us else []
        self.svc.cli("create", name, "--set-url", self.relay.url, *live)
        self.svc.cli("enable-channel", "-u", "c", *GEOMETRY)
        self.svc.cli("enable-event", "-u", "-c", "c", "bench:*")
        self.svc.cli("start")
        return name

    def consumer_pids(self):
        return [pid for pid in children(self.svc.proc.pid)
                if "consumerd" in open(f"/proc/{pid}/cmdline").read()]

    def end(self, name):
        """Stops and destroys the session; returns the events discarded."""
        self.svc.cli("stop", name)
        status = self.svc.cli("list", name).stdout
        self.svc.cli("destroy", name)
        return sum(int(n) for n in re.findall(r"Events discarded: (\d+)", status))


class Lttng:
    name = "lttng"

    def __init__(self, tmp, relay):
        self.tmp, self.relay = tmp, relay
        self.program = f"{tmp}/loop-lttng"
        home = f"{tmp}/lttng-home"
        os.makedirs(home, exist_ok=True)
        self.env = dict(os.environ, LTTNG_HOME=home, HOME=home)
        self.sessiond = subprocess.Popen(["lttng-sessiond", "--no-kernel"], env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: subprocess.run(["lttng", "list"], env=self.env,
                                        capture_output=True).returncode == 0,
                 30, "lttng-sessiond")
        self.n = 0

    def lttng(self, *args):
        return subprocess.run(["lttng", *args], env=self.env, capture_output=True, text=True,
                              check=True).stdout

    def session(self, live_timer_us=0):
        self.n += 1
        name = f"lttng{self.n}"
        live = [f"--live={live_timer_us}"] if live_timer_us else []
        self.lttng("create", name, "--set-url", self.relay.url, *live)
        self.lttng("enable-channel", "-u", "c", *GEOMETRY)
        self.lttng("enable-event", "-u", "-c", "c", "bench:*")
        self.lttng("start")
        return name

    def consumer_pids(self):
        return [pid for pid in children(self.sessiond.pid)
                if "lttng-consumerd" in open(f"/proc/{pid}/cmdline").read()]

    def end(self, name):
        self.lttng("stop", name)
        listing = self.lttng("list", name)
        self.lttng("destroy", name)
        return sum(int(n) for n in re.findall(r"Discarded events: (\d+)", listing))

    def close(self):
        self.sessiond.terminate()
        try:
            self.sessiond.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.sessiond.kill()
            self.sessiond.wait()


def session_dir(tracer, name):
    """The session's directory on the relay (<host>/<name>-<date>)."""
    root = os.path.join(tracer.relay.output, socket.gethostname())
    found = [d for d in os.listdir(root) if d.startswith(name + "-")]
    check(len(found) == 1, f"{tracer.name}: relay directories for {name}: {found}")
    return os.path.join(root, found[0])


def throughput(tracer):
    """Bisection on the paced rate: the trace bytes per second the relay
    stored in the best lossless run."""
    def trial(rate):
        name = tracer.session()
        reached = run_paced(tracer, rate, PACED_SECONDS)
        discarded = tracer.end(name)
        stored = tree_bytes(session_dir(tracer, name))
        # A run that fell behind its schedule took longer than asked.
        mb_per_s = stored / (PACED_SECONDS * rate / reached) / 1e6
        log(f"{tracer.name} relay: asked {rate / 1e6:.2f} M/s, reached {reached / 1e6:.2f} M/s, "
            f"discarded {discarded}, relay stored {mb_per_s:.1f} MB/s")
        return discarded == 0 and reached >= 0.99 * rate, mb_per_s

    return top_lossless_rate(trial, RATE_LOW, RATE_HIGH, BISECTION_STEP)


LOOPBACK_READER = """
import socket, sys
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
buf = bytearray(1 << 20)
while conn.recv_into(buf):
    pass
"""


def loopback_send_cpu(total_bytes, seconds):
    """CPU time of a thread that does nothing but send total_bytes over a
    loopback TCP connection, a sub-buffer (1 MiB) per sendmsg(), paced
    over seconds, to a process that reads them: the kernel's part of
    streaming, which any consumer pays (on the loopback, the receiving
    side's protocol work runs in the sender's context too)."""
    block = mmap.mmap(-1, 1 << 20)
    block.write(b"\x01" * len(block))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        reader = subprocess.Popen([sys.executable, "-c", LOOPBACK_READER,
                                   str(listener.getsockname()[1])])
        conn, _ = listener.accept()
    sends = max(1, total_bytes // len(block))
    start, cpu_start = time.monotonic(), time.thread_time()
    with conn:
        for i in range(sends):
            conn.sendall(block)
            delay = start + seconds * (i + 1) / sends - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        used = time.thread_time() - cpu_start
    reader.wait(timeout=60)
    block.close()
    return used


def consumer_cpu(tracer, rate):
    """The consumer's CPU time while CPU_EVENTS events are streamed at
    rate. Also logs the bytes the relay stored, and what sending as many
    bytes costs a thread that does only that."""
    name = tracer.session()
    # LTTng makes a user's buffers when that user's first application
    # registers, tracectl at start: a few events first, so that neither
    # tracer's window holds the making of its buffers.
    run_paced(tracer, WARM_UP_RATE, WARM_UP_SECONDS)
    pids = tracer.consumer_pids()
    check(pids, f"no {tracer.name} consumer")
    # Per thread: a consumer's session thread ends with its session, and
    # a sum over the threads still there afterwards would lose its time
    # (and could come out negative). A thread gone by then counts with
    # what it had used before the session ended.
    before = thread_cpu_ns(pids)
    run_paced(tracer, rate, CPU_EVENTS / rate)
    last_seen = thread_cpu_ns(pids)
    discarded = tracer.end(name)
    last_seen.update(thread_cpu_ns(pids))
    used = sum(ns - before.get(tid, 0) for tid, ns in last_seen.items()) / 1e9
    stored = tree_bytes(session_dir(tracer, name))
    floor = loopback_send_cpu(stored, CPU_EVENTS / rate)
    log(f"{tracer.name} consumer: {used:.3f} s of CPU for {CPU_EVENTS} events at "
        f"{rate / 1e6:.2f} M/s, discarded {discarded}; the relay stored {stored / 1e6:.1f} MB, "
        f"which a thread that only sends them over the loopback takes {floor:.3f} s to send")
    return used


class LiveViewer:
    """babeltrace2's lttng-live source on a session, each line with the
    real time it arrived."""

    def __init__(self, url):
        params = f'inputs=["{url}"],session-not-found-action="continue"'
        self.proc = subprocess.Popen(["babeltrace2", "--component=src.ctf.lttng-live",
                                      "--params", params, "--component=sink.text.pretty",
                                      "--params", "clock-seconds=true"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.lines = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append((time.time(), line))

    def delays_ms(self):
        """The delays of the events emitted once the viewer printed its
        first line: those before waited for the viewer to attach."""
        delays = []
        first = self.lines[0][0] if self.lines else 0
        for arrived, line in self.lines:
            match = re.match(r"\[(\d+\.\d+)\]", line)
            if match and "bench:event" in line and float(match.group(1)) > first:
                delays.append((arrived - float(match.group(1))) * 1e3)
        return delays

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.thread.join(timeout=5)


def live_latency(tracer):
    """The viewer attaches once the application runs (its events are in
    the metadata), and only what it emits after that counts."""
    name = tracer.session(LIVE_TIMER_US)
    url = (f"net://127.0.0.1:{tracer.relay.live_port}/host/{socket.gethostname()}/{name}")
    pids = tracer.consumer_pids()
    cpu_before = cpu_seconds(pids)
    app = subprocess.Popen([tracer.program, "paced", str(LIVE_RATE), str(LIVE_SECONDS + 1.0)],
                           env=tracer.env, stdout=subprocess.DEVNULL)
    viewer = None
    try:
        time.sleep(1.0)
        viewer = LiveViewer(url)
        app.wait(timeout=LIVE_SECONDS + 60)
        time.sleep(LIVE_TIMER_US / 1e6 + 1.0)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        if viewer:
            viewer.close()
        cpu = cpu_seconds(pids) - cpu_before
        tracer.end(name)
    delays = viewer.delays_ms()
    log(f"{tracer.name} live: {len(delays)} events seen, delays "
        f"{min(delays, default=0):.1f}..{max(delays, default=0):.1f} ms, consumer CPU "
        f"{cpu:.3f} s, relay stored {tree_bytes(session_dir(tracer, name)) / 1e3:.0f} kB in "
        f"{packets_stored(session_dir(tracer, name))} packets")
    check(len(delays) >= 0.5 * LIVE_RATE * LIVE_SECONDS,
          f"{tracer.name}: the live viewer saw {len(delays)} events")
    return statistics.median(delays)


FIGURES = ("relay_throughput_mb_per_s", "relay_consumer_cpu_s", "live_latency_ms")


def measure(tracer, wanted):
    """The figures of one tracer; the CPU one needs both top rates."""
    result = {}
    if wanted & {"relay_throughput_mb_per_s", "relay_consumer_cpu_s"}:
        result["throughput"], result["rate"] = throughput(tracer)
    if "live_latency_ms" in wanted:
        result["latency"] = live_latency(tracer)
    return result


def cpu_only(tmp, rate):
    """relay_consumer_cpu_s alone, at a rate given."""
    with Relay(f"{tmp}/lttng") as relay:
        lttng = Lttng(tmp, relay)
        try:
            anchor = consumer_cpu(lttng, rate)
        finally:
            lttng.close()
    with Service() as svc, Relay(f"{tmp}/ours-cpu") as relay:
        ours = consumer_cpu(Ours(tmp, svc, relay), rate)
    figure("relay_consumer_cpu_s", ours, anchor, "s")


def main():
    wanted = set(sys.argv[1:]) or set(FIGURES)
    require(wanted <= set(FIGURES), f"figures are {', '.join(FIGURES)}")
    require(shutil.which("lttng-sessiond") and shutil.which("lttng-relayd") and
            os.path.exists("/usr/include/x86_64-linux-gnu/lttng/tracepoint.h"),
            "LTTng 2.13 is not installed (apt-get install lttng-tools liblttng-ust-dev)")
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-relay-") as tmp:
        build(tmp)
        cpu_only_rate = os.environ.get("TRACECTL_BENCH_RELAY_CPU_ONLY")
        if cpu_only_rate:
            cpu_only(tmp, float(cpu_only_rate))
            return
        with Service() as svc, Relay(f"{tmp}/ours") as relay:
            ours = Ours(tmp, svc, relay)
            o = measure(ours, wanted)
        with Relay(f"{tmp}/lttng") as relay:
            lttng = Lttng(tmp, relay)
            try:
                a = measure(lttng, wanted)
                if "relay_consumer_cpu_s" in wanted:
                    cpu_rate = min(o["rate"], a["rate"]) / 2
                    a["cpu"] = consumer_cpu(lttng, cpu_rate)
            finally:
                lttng.close()
        if "relay_consumer_cpu_s" in wanted:
            with Service() as svc, Relay(f"{tmp}/ours-cpu") as relay:
                o["cpu"] = consumer_cpu(Ours(tmp, svc, relay), cpu_rate)
    for name, key, unit in (("relay_throughput_mb_per_s", "throughput", "MB/s"),
                            ("relay_consumer_cpu_s", "cpu", "s"),
                            ("live_latency_ms", "latency", "ms")):
        if name in wanted:
            figure(name, o[key], a[key], unit)


if __name__ == "__main__":
    main()
