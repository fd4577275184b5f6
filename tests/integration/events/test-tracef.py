#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""printf-style events (tracectl/tracef.h): tracectl_tracef() records its
formatted message, a long one whole; tracectl_tracelog() records the event
of its level with the call site, and --loglevel selects among them; levels
out of range record nothing; disabled, nothing is formatted and the
arguments are not evaluated; the application lists the events with their
fields; their ip context is the application's call, not the library's."""

import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, run, wait_for
from tracelib import read_streams, read_trace

TRACEF_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-tracef-app")
COUNT = 20
LONG_MESSAGE = 2000
LEVELS = ["TRACE_EMERG", "TRACE_ALERT", "TRACE_CRIT", "TRACE_ERR", "TRACE_WARNING",
          "TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG_SYSTEM", "TRACE_DEBUG_PROGRAM",
          "TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
          "TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE", "TRACE_DEBUG"]


def evaluations(out):
    lines = [line for line in out.splitlines() if line.startswith("evaluations ")]
    check(len(lines) == 1, f"the application did not say its evaluations: {out!r}")
    return int(lines[0].split()[1])


def check_listing(svc):
    app = svc.app(str(COUNT), "--pause", program=TRACEF_APP, wait_ready=True)
    wait_for(lambda: app.pid in svc.listed_pids(), 10, "the application to be listed")
    listed = [a for a in svc.applications() if a["pid"] == app.pid][0]
    events = {event["name"]: event for event in listed["events"]}
    check(set(events) == {"tracectl_tracef:event"} | {f"tracectl_tracelog:{level}"
                                                        for level in LEVELS},
          f"the application lists {sorted(events)}")
    tracef = events["tracectl_tracef:event"]
    check(tracef["fields"] == "string msg" and tracef["log_level"] == LEVELS.index("TRACE_DEBUG"),
          f"tracectl_tracef:event listed as {tracef}")
    for number, level in enumerate(LEVELS):
        event = events[f"tracectl_tracelog:{level}"]
        check(event["fields"] == "string file, int32 line, string func, string msg"
              and event["log_level"] == number, f"tracectl_tracelog:{level} listed as {event}")
    app.send_signal(signal.SIGUSR1)
    out, _ = app.communicate(timeout=60)
    check(app.returncode == 0 and evaluations(out) == COUNT, f"the paused run: {out!r}")


def check_tracef(events):
    messages = [fields["msg"] for name, fields in events if name == "tracectl_tracef:event"]
    expected = [f"message {i} of tracef-app, {i * 0.25:.2f}" for i in range(COUNT)]
    expected.append(f"long {'x' * LONG_MESSAGE} end")
    check(messages == expected,
          f"tracef messages {[m[:60] for m in messages]}, expected {[m[:60] for m in expected]}")


def check_tracelog(events, recorded_levels):
    logs = [(name.split(":")[1], fields) for name, fields in events
            if name.startswith("tracectl_tracelog:")]
    check([level for level, _ in logs] == recorded_levels,
          f"tracelog levels recorded {[level for level, _ in logs]}, expected {recorded_levels}")
    for level, fields in logs:
        check(fields["msg"] == f"level {LEVELS.index(level)}", f"{level}'s message: {fields}")
        check(fields["file"].endswith("tracef-app.c") and fields["func"] == "emit_levels"
              and fields["line"] > 0, f"{level}'s call site: {fields}")


def code_ranges(pid, path):
    """The executable mappings of the file at path in process pid."""
    path = os.path.realpath(path)
    ranges = []
    with open(f"/proc/{pid}/maps") as maps:
        for entry in maps:
            parts = entry.split()
            if len(parts) >= 6 and os.path.realpath(parts[5]) == path and "x" in parts[1]:
                ranges.append(tuple(int(x, 16) for x in parts[0].split("-")))
    check(ranges, f"no code of {path} in /proc/{pid}/maps")
    return ranges


def check_call_sites(svc):
    """ip: where the application called tracectl_tracef() or
    tracectl_tracelog(), inside its executable, not in libtracectl-tracef
    that records the events for it; two call sites, two addresses."""
    trace = os.path.join(svc.rundir, "sites")
    svc.cli("create", "sites", "--output", trace)
    svc.cli("add-context", "-u", "-t", "vpid", "-t", "ip")
    svc.cli("enable-event", "-u", "tracectl_tracef:event")
    svc.cli("enable-event", "-u", "tracectl_tracelog:*")
    svc.cli("start")
    app = svc.app(str(COUNT), "--pause", program=TRACEF_APP, wait_ready=True)
    own = code_ranges(app.pid, TRACEF_APP)
    library = code_ranges(app.pid, os.path.join(BUILD, "probes", "libtracectl-tracef.so"))
    app.send_signal(signal.SIGUSR1)
    app.communicate(timeout=60)
    svc.cli("destroy", "sites")
    ips = {}
    for event in read_streams(trace)["events"]:
        check(event["ctx_vpid"] == app.pid, f"an event of another process: {event}")
        ips.setdefault(event["name"].split(":")[0], set()).add(event["ctx_ip"])
    for kind, found in ips.items():
        check(all(any(a <= ip < b for a, b in own) for ip in found) and
              not any(a <= ip < b for ip in found for a, b in library),
              f"{kind}'s ip {[hex(ip) for ip in found]} outside the application's code "
              f"{[(hex(a), hex(b)) for a, b in own]}")
    check(len(ips) == 2 and ips["tracectl_tracef"].isdisjoint(ips["tracectl_tracelog"]),
          f"tracef and tracelog share their call sites: {ips}")


def test():
    with Service() as svc:
        # Disabled: neither formatted nor evaluated.
        out = svc.run_app(str(COUNT), program=TRACEF_APP)
        check(evaluations(out) == 0, f"disabled tracef evaluated its arguments: {out!r}")

        trace = os.path.join(svc.rundir, "trace")
        svc.cli("create", "printf", "--output", trace)
        svc.cli("enable-event", "-u", "tracectl_tracef:event")
        svc.cli("enable-event", "-u", "tracectl_tracelog:*", "--loglevel", "TRACE_WARNING")
        svc.cli("start")
        check_listing(svc)
        out = svc.run_app(str(COUNT), program=TRACEF_APP)
        check(evaluations(out) == COUNT, f"enabled tracef evaluations: {out!r}")
        svc.cli("stop")
        events = read_trace(trace)
        # Two runs of the application: the paused one and this one.
        half = len(events) // 2
        check(events[:half] == events[half:], "the two runs recorded different events")
        check_tracef(events[:half])
        check_tracelog(events[:half], LEVELS[:LEVELS.index("TRACE_WARNING") + 1])
        check(all(name != "<discarded>" for name, _ in events), "events were discarded")

        # One exact level.
        svc.cli("destroy", "printf")
        svc.cli("create", "exact", "--output", trace + "-exact")
        svc.cli("enable-event", "-u", "tracectl_tracelog:*", "--loglevel-only", "TRACE_INFO")
        svc.cli("start")
        out = svc.run_app(str(COUNT), program=TRACEF_APP)
        check(evaluations(out) == 0, f"tracef evaluated with only tracelog enabled: {out!r}")
        svc.cli("stop")
        check_tracelog(read_trace(trace + "-exact"), ["TRACE_INFO"])
        svc.cli("destroy", "exact")
        check_call_sites(svc)


run(test)
