#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Span benchmarks, tracectl (tracectl/span.h) side by side with BlkKin's
way of recording a span, LTTng-UST 2.13 tracepoints (span-lttng-tp.h), in
one run: the same program (span-loop.c) built for each, on CPU 0. Prints

  figure NAME ours=X anchor=Y ratio=X/Y unit=ns

span_sampled_ns    start + one integer attribute + end of a sampled root
                   span, recorded by a session with 8 x 1 MiB sub-buffers
                   per CPU (nothing discarded, checked); median of RUNS
                   loops of COUNT spans
span_unsampled_ns  the same span not sampled: ours decided by the sampler
                   (TRACECTL_SPAN_SAMPLE=1/1000000000000), the anchor's
                   three tracepoints disabled (no session), the least of
                   RUNS loops of UNSAMPLED_COUNT spans
export_spans_per_s the sampled spans of our trace converted to OTLP/HTTP
                   protobuf and POSTed by the exporter (sink.tracectl.otlp)
                   to a receiver on 127.0.0.1 that reads and drops them,
                   against the same trace read by babeltrace2 into its null
                   sink (sink.utils.dummy); the best of three each. A figure
                   to watch: the anchor does none of the exporter's work.

and notes: the CPU model, the clock source and the load average, which on
a shared machine move the figures more than anything measured here.
"""

import http.server
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from tclib import BUILD, SOURCE, Service, check, require  # noqa: E402
from benchlib import figure, machine  # noqa: E402

RUNS = int(os.environ.get("TRACECTL_BENCH_RUNS", "7"))
COUNT = 30000
UNSAMPLED_COUNT = 20000000
GEOMETRY = ["--subbuf-size", "1M", "--num-subbuf", "8"]
NEVER = "1/1000000000000"


def build(tmp):
    source = f"{HERE}/span-loop.c"
    probes = os.path.abspath(os.path.join(BUILD, "probes"))
    subprocess.run(["cc", "-O2", "-o", f"{tmp}/loop-ours", source, f"-I{SOURCE}/probes/include",
                    f"-L{probes}", "-ltracectl-span", "-ltracectl-ust", f"-Wl,-rpath,{probes}"],
                   check=True)
    subprocess.run(["cc", "-O2", "-DTRACER_LTTNG", "-o", f"{tmp}/loop-lttng", source, f"-I{HERE}",
                    "-llttng-ust", "-ldl", "-lpthread"], check=True)


def loop(program, env, count):
    out = subprocess.run([program, str(count)], env=env, check=True, capture_output=True,
                         text=True, timeout=600).stdout
    return float(re.search(r"ns_per_span=([\d.]+)", out).group(1))


def ours_figures(tmp):
    with Service() as svc:
        env = svc.env()
        svc.cli("create", "spans", "--output", f"{tmp}/ours")
        svc.cli("enable-channel", "-u", "c", *GEOMETRY)
        svc.cli("enable-event", "-u", "-c", "c", "tracectl_span:*")
        svc.cli("start")
        sampled = []
        for _ in range(RUNS):
            sampled.append(loop(f"{tmp}/loop-ours", env, COUNT))
            time.sleep(0.3)  # let the consumer empty the buffers
        unsampled = [loop(f"{tmp}/loop-ours", dict(env, TRACECTL_SPAN_SAMPLE=NEVER),
                          UNSAMPLED_COUNT) for _ in range(RUNS)]
        svc.cli("stop")
        status = svc.cli("list", "spans").stdout
        discarded = sum(int(n) for n in re.findall(r"Events discarded: (\d+)", status))
        check(discarded == 0, f"tracectl discarded {discarded} events")
        svc.cli("destroy", "spans")
    return statistics.median(sampled), min(unsampled)


def lttng(env, *args):
    return subprocess.run(["lttng", *args], env=env, capture_output=True, text=True,
                          check=True).stdout


def anchor_figures(tmp):
    home = f"{tmp}/lttng-home"
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, LTTNG_HOME=home, HOME=home)
    subprocess.run(["lttng-sessiond", "--no-kernel", "--daemonize"], env=env, check=True)
    try:
        unsampled = [loop(f"{tmp}/loop-lttng", env, UNSAMPLED_COUNT) for _ in range(RUNS)]
        lttng(env, "create", "spans", "--output", f"{tmp}/lttng")
        lttng(env, "enable-channel", "-u", "c", *GEOMETRY)
        lttng(env, "enable-event", "-u", "-c", "c", "zipkin:*")
        lttng(env, "start")
        sampled = []
        for _ in range(RUNS):
            sampled.append(loop(f"{tmp}/loop-lttng", env, COUNT))
            time.sleep(0.3)
        lttng(env, "stop")
        listing = lttng(env, "list", "spans")
        discarded = sum(int(n) for n in re.findall(r"Discarded events: (\d+)", listing))
        check(discarded == 0, f"LTTng discarded {discarded} events")
        lttng(env, "destroy", "spans")
    finally:
        # Only the daemon this run started: root's runs in /var/run/lttng
        # whatever LTTNG_HOME says.
        pid_file = ("/var/run/lttng/lttng-sessiond.pid" if os.getuid() == 0
                    else f"{home}/.lttng/lttng-sessiond.pid")
        if os.path.exists(pid_file):
            subprocess.run(["kill", open(pid_file).read().strip()], check=False)
    return statistics.median(sampled), min(unsampled)


class NullReceiver:
    """Reads each POST body whole and answers 200, counting the bytes."""

    def __init__(self):
        self.requests = self.bytes = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                receiver.bytes += len(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.requests += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def timed(args):
    start = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    check(out.returncode == 0, f"{' '.join(args)}: {out.stderr[-500:]}")
    return time.monotonic() - start


def export_figure(trace_root, spans):
    plugin_dir = os.path.join(BUILD, "exporter")
    require(os.path.exists(os.path.join(plugin_dir, "babeltrace-plugin-tracectl.so")),
            "the exporter plugin was not built")
    receiver = NullReceiver()
    ours = min(timed(["babeltrace2", f"--plugin-path={plugin_dir}", trace_root, "-c",
                      "sink.tracectl.otlp", "-p", f'url="{receiver.url}"']) for _ in range(3))
    anchor = min(timed(["babeltrace2", trace_root, "-c", "sink.utils.dummy"]) for _ in range(3))
    receiver.server.shutdown()
    check(receiver.requests >= 3 * spans // 512, f"{receiver.requests} requests for {spans} spans")
    figure("export_spans_per_s", spans / ours, spans / anchor, unit="spans/s")
    print(f"note export: {spans} spans in {receiver.requests // 3} requests of "
          f"{receiver.bytes // max(receiver.requests, 1)} bytes on average", flush=True)



def main():
    headers = ("/usr/include/x86_64-linux-gnu/lttng/tracepoint.h",
               "/usr/include/lttng/tracepoint.h")
    require(shutil.which("lttng-sessiond") and any(os.path.exists(h) for h in headers),
            "lttng-tools and liblttng-ust-dev are needed")
    with tempfile.TemporaryDirectory() as tmp:
        build(tmp)
        ours_sampled, ours_unsampled = ours_figures(tmp)
        anchor_sampled, anchor_unsampled = anchor_figures(tmp)
        figure("span_sampled_ns", ours_sampled, anchor_sampled, "ns")
        figure("span_unsampled_ns", ours_unsampled, anchor_unsampled, "ns")
        export_figure(f"{tmp}/ours", RUNS * COUNT)
    print(f"note machine={machine()!r} loadavg={os.getloadavg()[0]:.2f}", flush=True)


main()
