#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng's spellings of kernel events, and the kernel channel's refusals.

Bare names: `enable-event -k sched_switch,sched_process_e*` records
sched_switch and sched_process_exec as lttng-modules names them; `list`
shows the tracefs patterns they stood for and `list -k` LTTng's names
beside tracefs'. A name two events have (a uprobe of the session named
sched_switch) is refused naming both, an unknown one as unknown. The
kernel channel refuses what it cannot honour, with the reason."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import STRESS_APP, Service, check, log, mount_tracefs, run
from tracelib import read_streams


def refused(svc, args, words):
    result = svc.cli(*args, check_ok=False)
    check(result.returncode != 0 and all(w in result.stderr for w in words),
          f"{args} was not refused naming {words}: {result}")


def check_channel_refusals(svc):
    """What one tracefs instance read as it fills cannot be, refused."""
    for args, words in ((["k2"], ["one channel, 'channel0'", "second kernel channel"]),
                        (["channel0", "--overwrite"], ["does not overwrite"]),
                        (["channel0", "--switch-timer", "100000"], ["no switch timer"]),
                        (["channel0", "--read-timer", "200000"], ["no read-timer"]),
                        (["channel0", "--monitor-timer", "1000000"], ["no monitor-timer"])):
        refused(svc, ["enable-channel", "-k"] + args, words)
    svc.cli("enable-channel", "-k", "channel0", "--discard", "--subbuf-size", "64K")
    log("kernel channels: a second one, overwrite and timers refused with their reasons")


def check_bare_names(svc, out):
    svc.cli("enable-event", "-k", "sched_switch,sched_process_e*")
    refused(svc, ["enable-event", "-k", "no_such_event_tc"],
            ["No kernel event named 'no_such_event_tc'"])
    listed = svc.cli("list", "spell").stdout
    check("sched:sched_switch" in listed and "sched:sched_process_e*" in listed,
          f"the patterns the names stood for are not listed: {listed}")
    svc.cli("enable-event", "-k", "--userspace-probe",
            f"{os.path.realpath(STRESS_APP)}:stress_marker", "sched_switch")
    svc.cli("start")
    # The session's uprobe exists now: two events are named sched_switch.
    refused(svc, ["enable-event", "-k", "sched_switch"],
            ["'sched_switch' is ambiguous", "sched:sched_switch",
             ":sched_switch", "name one as 'system:event'"])
    subprocess.run(["/usr/bin/true"], check=True)
    svc.cli("stop")
    events = read_streams(out)["events"]
    names = {e["name"] for e in events}
    check({"sched_switch", "sched_process_exec"} <= names, f"events recorded: {names}")
    execs = [e for e in events if e["name"] == "sched_process_exec"
             and e["filename"] == "/usr/bin/true"]
    check(execs, "the exec of /usr/bin/true is not in the trace")
    log(f"bare names recorded {sorted(names)}; ambiguous and unknown names refused")


def test():
    mount_tracefs()
    with Service() as svc:
        listing = svc.cli("list", "-k").stdout
        check("      sched_switch (sched:sched_switch)\n" in listing,
              f"list -k does not show LTTng's names: {listing[:300]}")
        out = os.path.join(svc.rundir, "spell")
        svc.cli("create", "spell", "--output", out)
        check_channel_refusals(svc)
        check_bare_names(svc, out)
        svc.cli("destroy", "spell")
        check(svc.alive(), "tracectld died")


run(test)
