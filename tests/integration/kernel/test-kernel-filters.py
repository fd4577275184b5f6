#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel event filters: the filter language translated to tracefs'.

close() on descriptors 987, 988 and 989, three times each, with
sys_enter_close filtered by 'fd == 987 || fd == 989': the trace holds
exactly the six closes of 987 and 989. execs of /usr/bin/true (twice) and
/usr/bin/false, with sched_process_exec filtered by the glob
'filename == "/usr/bin/tru*"': exactly the two of true. A filter the
kernel cannot express ($ctx.procname) is refused with NotSupported
before anything changes; one naming a field the events lack is refused
by the kernel, through the helper, while recording, and those events are
not enabled. The helper refuses a filter outside its alphabet (a
newline) on its own socket."""

import os
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, log, mount_tracefs, run
from tracelib import babeltrace_text, read_streams

DESCRIPTORS = (987, 988, 989)
HELPER = os.path.join(BUILD, "service", "kernel-helper", "tracectl-kernel-helper")
MAGIC, EVENT_FILTER, REPLY = 0x54434B31, 20, 16
MSG = struct.Struct("=IIIIQiI")


def helper_filter_status(sock, filter_text, seq):
    """EVENT_FILTER for sched:sched_switch of a session with no instance."""
    body = (b"sched".ljust(128, b"\0") + b"sched_switch".ljust(128, b"\0")
            + filter_text.ljust(256, b"\0"))
    sock.send(MSG.pack(MAGIC, EVENT_FILTER, MSG.size + len(body), seq, 777777, 0, 0) + body)
    magic, rtype, _, rseq, _, status, _ = MSG.unpack(sock.recv(256))
    check(magic == MAGIC and rtype == REPLY and rseq == seq, "malformed reply")
    return status


def check_helper_alphabet():
    """The helper's own checks, with a socket pair as tracectld gives it."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    proc = subprocess.Popen([HELPER], close_fds=False,
                            preexec_fn=lambda: os.dup2(theirs.fileno(), 3),
                            stderr=subprocess.PIPE, text=True)
    theirs.close()
    try:
        status = helper_filter_status(ours, b"prev_pid == 1\nnext_pid == 2", 1)
        check(status == -22, f"a filter with a newline got {status}, not -EINVAL")
        status = helper_filter_status(ours, b"prev_comm == \"a\\b\"", 2)
        check(status == -22, f"a filter with a backslash got {status}, not -EINVAL")
        status = helper_filter_status(ours, b"x" * 256, 3)
        check(status == -22, f"an unterminated filter got {status}, not -EINVAL")
        status = helper_filter_status(ours, b"prev_pid == 1", 4)
        check(status == -2, f"a valid filter of a session without instance got {status}")
    finally:
        ours.close()
        proc.wait(timeout=10)


def close_descriptors():
    for _ in range(3):
        for fd in DESCRIPTORS:
            os.dup2(0, fd)
            os.close(fd)


def test():
    mount_tracefs()
    check_helper_alphabet()
    with Service() as svc:
        out = os.path.join(svc.rundir, "kfilters")
        svc.cli("create", "kfilters", "--output", out)
        svc.cli("enable-event", "-k", "syscalls:sys_enter_close", "--filter",
                "fd == 987 || fd == 989")
        svc.cli("enable-event", "-k", "sched:sched_process_exec", "--filter",
                'filename == "/usr/bin/tru*"')
        result = svc.cli("enable-event", "-k", "sched:sched_switch", "--filter",
                         '$ctx.procname == "x"', check_ok=False)
        check(result.returncode != 0
              and "filter: '$ctx.procname' has no kernel equivalent at column 1" in result.stderr,
              f"a context filter was accepted for the kernel: {result}")
        result = svc.cli("enable-event", "-k", "sched:sched_switch", "--loglevel", "TRACE_INFO",
                         check_ok=False)
        check(result.returncode != 0 and "no log levels" in result.stderr,
              f"a kernel log level was accepted: {result}")
        svc.cli("start")
        # While recording the instance exists: the kernel checks the field.
        result = svc.cli("enable-event", "-k", "sched:sched_wakeup", "--filter", "nosuch == 1",
                         check_ok=False)
        check(result.returncode != 0 and "the kernel refused" in result.stderr,
              f"a filter on a missing field was accepted: {result}")
        close_descriptors()
        for program in ("/usr/bin/true", "/usr/bin/true", "/usr/bin/false"):
            subprocess.run([program])
        svc.cli("stop")
        listed = svc.cli("list", "kfilters").stdout
        check("sched_wakeup" not in listed and "sched_switch" not in listed,
              f"refused kernel events are listed: {listed}")
        # Each kernel event is listed with the tracefs filter it records with.
        close_line = [line for line in listed.splitlines() if "sys_enter_close" in line]
        check(len(close_line) == 1 and "[filter: " in close_line[0]
              and "987" in close_line[0] and "989" in close_line[0],
              f"the kernel filter is not listed: {listed}")
        kernel = [c for c in svc.session("kfilters")["channels"] if c["domain"] == "kernel"][0]
        filters = {e["pattern"]: e["filter"] for e in kernel["enablings"]}
        check("/usr/bin/tru" in (filters.get("sched:sched_process_exec") or ""),
              f"the kernel filter is not in the JSON: {kernel['enablings']}")
        check(svc.alive(), "tracectld died")

        events = read_streams(out)["events"]
        closes = sorted(e["fd"] for e in events if e["name"] == "syscall_entry_close")
        check(closes == [987, 987, 987, 989, 989, 989], f"closes recorded: {closes}")
        execs = sorted(e["filename"] for e in events if e["name"] == "sched_process_exec")
        check(execs == ["/usr/bin/true", "/usr/bin/true"], f"execs recorded: {execs}")
        # The state dump's events, in every kernel trace, are no tracefs
        # event's: they have no common_pid (and read_streams gives their
        # "name" field, a process' or an interface's, as their name).
        others = ({e["name"] for e in events if "common_pid" in e}
                  - {"syscall_entry_close", "sched_process_exec"})
        check(not others, f"other events recorded: {others}")
        babeltrace_text(out)
        log(f"kernel filters kept {len(closes)} closes and {len(execs)} execs")
        svc.cli("destroy", "kfilters")


run(test)
