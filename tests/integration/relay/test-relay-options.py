#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Session output URLs through the CLI and D-Bus, without a relay daemon:
bad URLs and bad combinations are refused with an error naming the URL and
the position at fault, and no session is left behind; file:// is an output
directory; a relay nobody listens on fails the creation with an error
naming the URL; --live alone streams to net://127.0.0.1; local sessions
show their directory as before."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run

# (arguments of tracectl create, what stderr must say)
BAD = [
    (["--set-url", "net://ho st"], "Invalid URL 'net://ho st': unexpected ' ' at position 9"),
    (["--set-url", "net://host:70000"], "position 12; a port lies between 1 and 65535"),
    (["--set-url", "net://host:1:2:3"], "position 15; expected the end"),
    (["--set-url", "net6://[::1"], "ends at position 12; expected ']'"),
    (["--set-url", "ftp://host"], "expected file://, net://"),
    (["--set-url", "net://host/dir"], "position 11; tracectl does not send a trace"),
    (["--set-url", "tcp://host"], "are for the control and data URLs"),
    (["--ctrl-url", "tcp://host"], "The control URL 'tcp://host' needs a data URL too"),
    (["--ctrl-url", "tcp://a", "--data-url", "tcp://b"], "must name the same host"),
    (["--set-url", "net://a", "--ctrl-url", "tcp://a", "--data-url", "tcp://a"],
     "not both"),
    (["--set-url", "net://a", "--output", "/tmp/x"], "or a network URL, not both"),
    (["--set-url", "file:///tmp/a/../b"], "contains '..'"),
    (["--set-url", "file:///tmp/x", "--live"], "a live session streams to a relay"),
    (["--live=10"], "live timer of 10 us is out of range"),
]


def test():
    with Service() as svc:
        for args, message in BAD:
            result = svc.cli("create", "bad", *args, check_ok=False)
            check(result.returncode == 1 and message in result.stderr,
                  f"create {args}: expected '{message}', got {result}")
        usage = svc.cli("create", "bad", "--live=soon", check_ok=False)
        check(usage.returncode == 2 and "--live takes a timer" in usage.stderr, f"{usage}")
        check("No tracing sessions" in svc.cli("list").stdout, "a refused session remains")

        # D-Bus: an option of the wrong type is refused by name.
        result = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                           "org.tracectl.Tracing1.Manager.CreateSessionWithOptions",
                           "bad", "", "{'url': <uint32 1>}")
        check(result.returncode != 0 and "Unknown session option 'url' of type u"
              in result.stderr, f"{result}")

        # Nothing listens on port 1: the consumer cannot connect.
        result = svc.cli("create", "unreachable", "--set-url", "net://127.0.0.1:1:2",
                         check_ok=False)
        check(result.returncode == 1 and "'unreachable'" in result.stderr and
              result.stderr.count("net://127.0.0.1:1:2") == 1, f"unreachable relay: {result}")
        check("No tracing sessions" in svc.cli("list").stdout, "the unreachable session remains")

        # --live alone streams to lttng-relayd on this machine with a 1 s
        # timer, as lttng does; whether one listens there is not ours.
        default = "net://127.0.0.1:5342:5343"
        live = svc.cli("create", "live", "--live", check_ok=False)
        if live.returncode == 0:
            status = svc.cli("status").stdout
            check(f"Trace output: {default}" in status and
                  "Live timer interval: 1000000 us" in status, status)
            svc.cli("destroy", "live")
        else:
            check(default in live.stderr, f"--live: {live}")

        # file://PATH is an output directory.
        out = os.path.join(svc.rundir, "by-url")
        created = svc.cli("create", "local", "--set-url", "file://" + out).stdout
        check(f"Traces will be written in {out}" in created, created)
        status = svc.cli("status").stdout
        check(f"Trace output: {out}\n" in status and "Live timer" not in status, status)
        path = svc.cli("list").stdout
        check(f"local [inactive] ({out})" in path, path)
        found = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                          "org.tracectl.Tracing1.Manager.FindSession", "local")
        session_path = found.stdout.split("'")[1]
        props = svc.gdbus("--object-path", session_path, "--method",
                          "org.freedesktop.DBus.Properties.GetAll",
                          "org.tracectl.Tracing1.Session")
        check(f"'OutputUrl': <'file://{out}'>" in props.stdout and
              "'LiveTimer': <uint32 0>" in props.stdout and
              "'TraceHostname': <''>" in props.stdout, f"{props}")
        check(os.path.isdir(os.path.join(out, "ust")), "file:// made no trace directory")
        svc.cli("destroy", "local")


run(test)
