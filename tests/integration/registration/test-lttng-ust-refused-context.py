#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A trace whose only LTTng-UST application was refused a context is
readable: `add-context -u -t vtid -t perf:thread:cpu-cycles` on a
machine that cannot count cycles (this VM has no PMU for its guests)
leaves the application out of the session, with the refusal logged, and
the stream files of its buffers still hold the packets LTTng-UST began
in them. Their stream class is the one the service declared from the
channel's contexts when it made the trace (no application registered the
channel), so babeltrace2 reads the trace, which holds no event, rather
than stopping at "No stream class with ID 0". Checked for a per-UID
trace and a per-PID one, with a second channel that has no context.

The service checks at add-context that the machine can count the
counter, and refuses it here: it runs with tc-fake-pmu.so preloaded,
which lets it open any counter, so that the refusal comes from the
application, as on a machine where the service can count and the
application cannot (a seccomp filter, a container)."""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, SKIP, Service, check, log
from lttnglib import LTTNG_APP, hardware_cycles_open, require_served, require_tools
from tracelib import read_streams, sanitizer_preload

FAKE_PMU = os.path.join(BUILD, "tests", "integration", "lib", "libtc-fake-pmu.so")
TRACECTLD = os.path.join(BUILD, "service", "tracectld", "tracectld")

REFUSAL = ("Perf counter context 'perf:thread:cpu-cycles' refused by the application "
           "(it opens the counter itself: can this machine count it?)")


def trace_dirs(out):
    """The LTTng-UST traces under out: the directories holding metadata."""
    return sorted(root for root, _, files in os.walk(out)
                  if "metadata" in files and os.sep + "lttng-ust" + os.sep in root + os.sep)


def check_trace(out, name):
    """One LTTng-UST trace under out, whose stream files hold packets and
    whose metadata declares both channels' stream classes, the first with
    vtid and the cycles counter; babeltrace2 reads it, with no event."""
    traces = trace_dirs(out)
    check(len(traces) == 1, f"{name}: LTTng-UST traces {traces}")
    files = os.listdir(traces[0])
    streams = [f for f in files if re.fullmatch(r"(channel0|quiet)_\d+", f)]
    check(any(os.path.getsize(os.path.join(traces[0], f)) > 0 for f in streams),
          f"{name}: no packet in the stream files {files}: the case is not reproduced")
    events = read_streams(out)["events"]
    check(not events, f"{name}: {len(events)} events recorded without their cycles context")
    with open(os.path.join(traces[0], "metadata")) as f:
        metadata = f.read()
    classes = re.findall(r"stream \{\n\tid = (\d+);.*?\n\};", metadata, re.S)
    check(classes == ["0", "1"], f"{name}: stream classes {classes}")
    first = metadata[metadata.index("stream {\n\tid = 0;"):]
    first = first[:first.index("\n};")]
    check("_vtid;" in first and "_perf_thread_cpu_cycles;" in first,
          f"{name}: the first stream class does not declare the contexts asked:\n{first}")
    check("tc_lttng_test:" not in metadata, f"{name}: an event was described")


def record(svc, top, name, buffers):
    out = os.path.join(top, name)
    svc.cli("create", name, "--output", out)
    svc.cli("enable-channel", "-u", buffers, "channel0")
    svc.cli("enable-channel", "-u", buffers, "quiet")
    svc.cli("enable-event", "-u", "-c", "channel0", "tc_lttng_test:*")
    svc.cli("enable-event", "-u", "-c", "quiet", "tc_lttng_test:tick")
    svc.cli("add-context", "-u", "-c", "channel0", "-t", "vtid", "-t", "perf:thread:cpu-cycles")
    offset = svc.log_offset()
    svc.cli("start")
    app = subprocess.run([LTTNG_APP, "1"], env=svc.env(), capture_output=True, text=True,
                         timeout=60)
    check(app.returncode == 0, f"the LTTng-UST application failed: {app.stderr}")
    pid = int(app.stdout.split()[1])
    svc.cli("stop")
    with open(svc.log_path, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    message = f"Session '{name}' not applied to the LTTng-UST application pid={pid}: {REFUSAL}"
    check(message in text, f"{name}: no refusal of the cycles counter in the log:\n"
          f"{text[-3000:]}")
    check_trace(out, name)
    svc.cli("destroy", name)
    log(f"{name}: the application left out, its trace read by babeltrace2, no event")


def test():
    require_tools()
    if hardware_cycles_open():
        log("this machine counts cycles: the refusal cannot be reproduced")
        sys.exit(SKIP)
    top = tempfile.mkdtemp(prefix="tctest-lttng-refused-")
    # The preload reaches the service's children (dbus-daemon, polkitd)
    # too, so it is never sanitized; a sanitized service is told that a
    # library before its runtime is expected.
    env = {"LD_PRELOAD": FAKE_PMU}
    if sanitizer_preload(TRACECTLD):
        env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                     "verify_asan_link_order=0"]))
    with Service(args=["--lttng-ust"], daemon_env=env) as svc:
        require_served(svc)
        record(svc, top, "per-uid", "--buffers-uid")
        record(svc, top, "per-pid", "--buffers-pid")
        check(svc.alive(), "tracectld died")


if __name__ == "__main__":
    test()
