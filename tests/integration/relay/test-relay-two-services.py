#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Two tracectl services on one machine stream into one lttng-relayd, the
second with a host name of its own (a UTS namespace): both stream a
session of the same name and number, with user-space and kernel events,
at the same time, neither taking nor pruning the other's tracefs
instance; the relay files each trace under its host name, where
babeltrace2 reads both, merged by time, without a warning."""

import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from tclib import Service, check, log, mount_tracefs, require, run
from tracelib import babeltrace_text

SECOND_HOST = "tc-second-host"
COUNT = 200


def record(svc, relay):
    svc.cli("create", "fleet", "--set-url", relay.url)
    svc.cli("enable-event", "-u", "example:*")
    svc.cli("enable-event", "-k", "sched:sched_switch")
    svc.cli("start")


def finish(svc):
    svc.run_app("--count", str(COUNT))
    svc.cli("stop")
    svc.cli("destroy", "fleet")


def timestamps(text):
    return re.findall(r"^\[(\d\d:\d\d:\d\d\.\d{9})\]", text, re.MULTILINE)


def test():
    require(subprocess.run(["unshare", "--uts", "true"]).returncode == 0,
            "cannot make a UTS namespace")
    mount_tracefs()
    wrapper = ["unshare", "--uts", "sh", "-c", f'hostname {SECOND_HOST} && exec "$0" "$@"']
    first_host = socket.gethostname()
    with Service() as first, Service(wrapper=wrapper) as second, \
            Relay(first.rundir) as relay:
        record(first, relay)
        record(second, relay)
        check(f"(host {SECOND_HOST})" in second.cli("status").stdout, "second host name")
        finish(first)
        finish(second)

        dirs = relay.trace_dirs(first_host) + relay.trace_dirs(SECOND_HOST)
        log(f"relay output: {dirs}")
        check(len(dirs) == 2 and all(os.path.basename(d).startswith("fleet-") for d in dirs),
              f"expected one session directory per host: {dirs}")
        for path in dirs:
            check(sorted(os.listdir(path)) == ["kernel", "ust"], f"{path}: {os.listdir(path)}")
            text = babeltrace_text(path, allow_discards=True)
            check(text.count("example:all_types") == COUNT and "sched_switch" in text,
                  f"{path}: {text.count('example:all_types')} example events")
        proc = subprocess.run(["babeltrace2", *dirs], capture_output=True, text=True,
                              timeout=300)
        warnings = [line for line in proc.stderr.splitlines()
                    if not line.startswith("WARNING: Tracer discarded")]
        check(proc.returncode == 0 and warnings == [], f"merged: {proc.stderr}")
        merged = proc.stdout
        check(merged.count("example:all_types") == 2 * COUNT, "merged trace misses events")
        stamps = timestamps(merged)
        check(stamps and stamps == sorted(stamps), "the merged trace is not ordered by time")


run(test)
