#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""System calls with their arguments, in lttng-modules' names, through the
own-process tier: alice records `enable-event -k --own --syscall
openat,read,write,pipe2,socket,connect,close` while a program of hers
(tests/bench/syscall-args-loop.c) opens a file of known path, reads and
writes known byte counts, makes a pipe and connects a TCP socket to a
port of 127.0.0.1 the test listens on. babeltrace2 must show
syscall_entry_openat with that filename (the text, not its address),
syscall_exit_read with ret equal to the bytes read and the buffer's
address, syscall_entry_write with its count, syscall_exit_pipe2 with the
two descriptors the program got, and syscall_entry_connect with the
family, port and address; bob's run of the same program is not in her
trace."""

import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import SOURCE, Service, check, log, mount_tracefs, require, run
from owntierlib import polkit_rule
from tracelib import babeltrace_text, read_streams

ACTION = "org.tracectl.Tracing1.trace-kernel-own"
CALLS = "openat,read,write,pipe2,socket,connect,close"
TO_READ, TO_WRITE = 100, 333
AT_FDCWD = -100


def build_program(directory):
    program = os.path.join(directory, "syscall-args-loop")
    subprocess.run(["cc", "-O2", "-o", program,
                    os.path.join(SOURCE, "tests", "bench", "syscall-args-loop.c")], check=True)
    os.chmod(directory, 0o755)
    return program


def run_calls(svc, user, program, path, port):
    """The program's calls, as user; its pid and the lines it printed."""
    proc = svc.app("calls", path, str(TO_READ), str(TO_WRITE), str(port), user=user,
                   program=program)
    out, err = proc.communicate(timeout=30)
    check(proc.returncode == 0, f"the program failed: {out} {err}")
    words = dict((line.split()[0], line.split()[1:]) for line in out.splitlines())
    return proc.pid, words


def one(events, name, what, **fields):
    """The one event named name whose fields have the values given."""
    found = [e for e in events if e["name"] == name and
             all(e.get(k) == v for k, v in fields.items())]
    check(len(found) == 1, f"{what}: {len(found)} {name} with {fields} among "
          f"{[e for e in events if e['name'] == name]}")
    return found[0]


def check_trace(out, pid, words, path, port):
    events = [e for e in read_streams(out)["events"] if e.get("ctx_pid") == pid]
    names = {e["name"] for e in events}
    check(names <= {f"syscall_{side}_{call}" for side in ("entry", "exit")
                    for call in CALLS.split(",")}, f"events: {names}")
    opened = one(events, "syscall_entry_openat", "the file's openat()", filename=path)
    check(opened["dfd"] == AT_FDCWD and opened["flags"] == os.O_RDONLY,
          f"openat()'s other arguments: {opened}")
    read = one(events, "syscall_exit_read", "the file's read()", ret=TO_READ)
    check(read["buf"] != 0, f"read()'s buffer at exit: {read}")
    one(events, "syscall_entry_read", "the file's read()", count=TO_READ)
    one(events, "syscall_entry_write", "the write()", count=TO_WRITE)
    one(events, "syscall_exit_write", "the write()", ret=TO_WRITE)
    fds = [int(fd) for fd in words["pipe"]]
    one(events, "syscall_exit_pipe2", "the pipe", ret=0, fildes=fds)
    one(events, "syscall_entry_socket", "the socket", family=socket.AF_INET,
        type=socket.SOCK_STREAM)
    connect = one(events, "syscall_entry_connect", "the connection", dport=port)
    check(connect["family"] == socket.AF_INET and connect["v4addr"] == [127, 0, 0, 1] and
          connect["v6addr"] == [] and connect["addrlen"] == 16, f"connect(): {connect}")
    text = babeltrace_text(out)
    check(any("syscall_entry_openat" in line and f'filename = "{path}"' in line
              for line in text.splitlines()),
          f"babeltrace2 does not show openat's filename {path!r}")
    log(f"openat({path!r}), read {TO_READ}, write {TO_WRITE}, pipe2 {fds}, "
        f"connect 127.0.0.1:{port}: each with its arguments")


def test():
    mount_tracefs()
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(polkit_rule(ACTION, "tcargsalice"))
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-args-test.rules")
    with svc, tempfile.TemporaryDirectory() as tmp, socket.socket() as listener:
        program = build_program(tmp)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        alice, bob = svc.add_user("tcargsalice"), svc.add_user("tcargsbob")
        path = os.path.join(alice.home, "known-file")
        with open(path, "wb") as f:
            f.write(os.urandom(4096))
        os.chmod(path, 0o644)
        out = os.path.join(alice.home, "args")
        svc.cli("create", "args", "-o", out, user=alice)
        result = svc.cli("enable-event", "-k", "--own", "--syscall", CALLS, user=alice,
                         check_ok=False)
        require(not (result.returncode != 0 and "was not built" in result.stderr),
                "tracectl-kernel-helper was built without the own-process tier")
        check(result.returncode == 0, f"--own --syscall {CALLS}: {result}")
        svc.cli("start", user=alice)
        pid, words = run_calls(svc, alice, program, path, port)
        bob_pid, _ = run_calls(svc, bob, program, path, port)
        svc.cli("stop", user=alice)
        check(int(words["read"][0]) == TO_READ, f"the program read {words['read']}")
        check_trace(out, pid, words, path, port)
        check(not [e for e in read_streams(out)["events"] if e.get("ctx_pid") == bob_pid],
              "bob's calls are in alice's trace")
        check(svc.alive(), "tracectld died")


run(test)
