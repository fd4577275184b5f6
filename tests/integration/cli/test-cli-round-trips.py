#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Each everyday command costs the D-Bus calls it must, no more: a
dbus-monitor on the service's bus records every method call the CLI
sends (to the service and to the bus daemon) for status, list SESSION,
list, start and stop of a session with three channels and six events,
and each count is bounded. A listing asks the service once for the
session's whole state (DescribeSession: properties and statistics, one
polkit check), not once per channel or event; the CLI sends no match
rule, asks the bus daemon for nothing but Hello (no name owner: sd-bus
calls the service by its well-known name) and loads no property of the
manager. Before that, status waited for nine calls and sent six match
rules; through GDBus's proxies it still waited for four."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run, wait_for

# The calls the CLI makes, at most, per command: Hello, and the
# command's own calls: a session's whole state in one DescribeSession for
# status and list NAME, its lookup and the command's call for start and
# stop; status also reads who serves LTTng-UST applications (one Get of
# the manager's, sent before DescribeSession and waited for after it).
# No match rule at all: the CLI follows neither the service's owner nor
# its properties.
BOUNDS = {
    ("status",): 3,
    ("list", "s"): 2,
    ("list",): 2,
    ("start", "s"): 3,
    ("stop", "s"): 3,
}
MATCH_RULES = 0
# What the service itself must be asked for each: the calls polkit governs.
SERVICE_CALLS = {
    ("status",): {"DescribeSession"},
    ("list", "s"): {"DescribeSession"},
    ("list",): {"ListSessions"},
    ("start", "s"): {"FindSession", "Start"},
    ("stop", "s"): {"FindSession", "Stop"},
}
CALL = re.compile(r"^method call .* sender=(\S+) -> destination=(\S+) .*member=(\w+)")


class Monitor:
    """dbus-monitor of every method call on the service's bus."""

    def __init__(self, svc):
        self.path = os.path.join(svc.rundir, "monitor.txt")
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(["dbus-monitor", "--address", svc.address,
                                      "type='method_call'"], stdout=self.out,
                                     stderr=subprocess.STDOUT)
        wait_for(lambda: os.path.getsize(self.path) > 0, 10, "dbus-monitor to start")

    def calls(self):
        """[(sender, destination, member)] so far."""
        self.out.flush()
        with open(self.path) as f:
            return [m.groups() for m in map(CALL.match, f) if m]

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.out.close()


def owner(svc, name):
    reply = subprocess.run(["dbus-send", f"--bus={svc.address}", "--print-reply",
                            "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.GetNameOwner", f"string:{name}"],
                           capture_output=True, text=True, check=True).stdout
    return re.search(r'string "(\S+)"', reply).group(1)


def command_calls(svc, monitor, service, args):
    """The method calls of the connection(s) `tracectl ARGS` opened."""
    before = len(monitor.calls())
    svc.cli(*args)
    time.sleep(0.3)  # the monitor writes after the bus routes
    new = monitor.calls()[before:]
    clients = {sender for sender, _, member in new if member == "Hello"}
    check(len(clients) == 1, f"tracectl {' '.join(args)}: connections {clients}: {new}")
    return [(destination, member) for sender, destination, member in new
            if sender in clients], service


def test():
    with Service() as svc:
        svc.cli("create", "s", "--output", os.path.join(svc.rundir, "t"))
        for channel in ("a", "b", "c"):
            svc.cli("enable-channel", "-u", channel)
            svc.cli("enable-event", "-u", "-c", channel, "example:startup")
            svc.cli("enable-event", "-u", "-c", channel, "example:done")
        service = owner(svc, "org.tracectl.Tracing1")
        monitor = Monitor(svc)
        try:
            for args, bound in BOUNDS.items():
                calls, _ = command_calls(svc, monitor, service, args)
                to_service = [member for destination, member in calls
                              if destination in (service, "org.tracectl.Tracing1")
                              and member not in ("GetAll", "Get")]
                waited = [c for c in calls if c[1] not in ("AddMatch", "RemoveMatch")]
                rules = [c for c in calls if c[1] == "AddMatch"]
                log(f"tracectl {' '.join(args)}: {len(calls)} calls: "
                    f"{[member for _, member in calls]}")
                check(len(waited) <= bound,
                      f"tracectl {' '.join(args)}: {len(waited)} calls waited for, more "
                      f"than {bound}: {waited}")
                check(len(rules) <= MATCH_RULES,
                      f"tracectl {' '.join(args)}: {len(rules)} match rules: {calls}")
                check(set(to_service) == SERVICE_CALLS[args] and
                      len(to_service) == len(SERVICE_CALLS[args]),
                      f"tracectl {' '.join(args)}: the service was asked {to_service}, "
                      f"not once each {sorted(SERVICE_CALLS[args])}")
        finally:
            monitor.close()


run(test)
