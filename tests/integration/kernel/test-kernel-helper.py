#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The root kernel helper's boundary: it answers its protocol (and
nothing else) to root and the tracectl account only, creates and removes
one tracefs instance per session under names it builds itself, removes
the leftovers of sessions that are gone when tracectld tells it which ones
live (PRUNE), and nothing else; tracectld starts it on demand for
authorized kernel requests, and bob is refused before it is involved."""

import os
import shutil
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, Service, check, require, run, wait_for

HELPER = os.path.join(BUILD, "service", "kernel-helper", "tracectl-kernel-helper")
TRACEFS = "/sys/kernel/tracing"
MAGIC, PING, CREATE, REMOVE, REPLY, PRUNE, PIDS = 0x54434B31, 1, 2, 3, 16, 18, 19
MSG = struct.Struct("=IIIIQiI")
PRUNE_MAX = 1024
PIDS_MAX, PIDS_ALL = 1024, 1


def request(sock, kind, session=0, seq=1, value=0):
    sock.send(MSG.pack(MAGIC, kind, MSG.size, seq, session, 0, value))
    data = sock.recv(256)
    check(len(data) == MSG.size, f"reply of {len(data)} bytes")
    magic, rtype, size, rseq, rsession, status, value = MSG.unpack(data)
    check(magic == MAGIC and rtype == REPLY and rseq == seq, "malformed reply")
    return status, value


def prune(sock, keep, seq=1, scope=0, expect=0):
    """PRUNE: the sessions in keep live, the others' leftovers in scope go."""
    body = struct.pack("=II", len(keep), scope) + struct.pack(f"={PRUNE_MAX}Q",
                                                              *(list(keep) + [0] * (PRUNE_MAX - len(keep))))
    size = MSG.size + len(body)
    sock.send(MSG.pack(MAGIC, PRUNE, size, seq, 0, 0, 0) + body)
    magic, rtype, _, rseq, _, status, removed = MSG.unpack(sock.recv(256))
    check(magic == MAGIC and rtype == REPLY and rseq == seq and status == expect,
          f"PRUNE: status {status}, expected {expect}")
    return removed


def set_pids(sock, session, pids, flags=0, count=None, seq=1, size=None):
    """PIDS: the processes the instance records; returns the status."""
    count = len(pids) if count is None else count
    body = struct.pack("=II", count, flags) + struct.pack(
        f"={PIDS_MAX}i", *(list(pids) + [0] * (PIDS_MAX - len(pids))))
    size = MSG.size + len(body) if size is None else size
    sock.send(MSG.pack(MAGIC, PIDS, size, seq, session, 0, 0) + body)
    magic, rtype, _, rseq, _, status, _ = MSG.unpack(sock.recv(256))
    # A size that is not the message's is refused before its seq is read.
    check(magic == MAGIC and rtype == REPLY and rseq == (seq if size == MSG.size + len(body)
                                                         else 0), "PIDS: malformed reply")
    return status


def check_pids(sock, instance, session):
    """PIDS refuses what is malformed and writes set_event_pid."""
    def read(name):
        with open(os.path.join(instance, name)) as f:
            return f.read().split()
    for what, args in (("count over the limit", dict(pids=[1], count=PIDS_MAX + 1)),
                       ("unknown flags", dict(pids=[1], flags=2)),
                       ("every pid and a pid", dict(pids=[1], flags=PIDS_ALL)),
                       ("pid 0", dict(pids=[0])),
                       ("a negative pid", dict(pids=[-5])),
                       ("a wrong size", dict(pids=[1], size=MSG.size + 8))):
        check(set_pids(sock, session, **args) == -22, f"PIDS with {what} was not refused")
    check(set_pids(sock, session, [os.getpid()]) == 0, "PIDS refused our pid")
    check(read("set_event_pid") == [str(os.getpid())] and read("options/event-fork") == ["1"],
          f"set_event_pid {read('set_event_pid')}")
    check(set_pids(sock, session, []) == 0, "PIDS refused the empty set")
    check(read("set_event_pid") == ["0"] and read("set_event_notrace_pid") == ["0"],
          "the empty set does not record nothing")
    check(set_pids(sock, session, [], flags=PIDS_ALL) == 0, "PIDS refused every pid")
    check(read("set_event_pid") == [] and read("set_event_notrace_pid") == [],
          "every pid is still filtered")


def start_paired():
    """The helper with a socket pair as descriptor 3, as tracectld does."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # Our sockets are close-on-exec; only the dup2 result is inherited.
    proc = subprocess.Popen([HELPER], close_fds=False,
                            preexec_fn=lambda: os.dup2(theirs.fileno(), 3),
                            stderr=subprocess.PIPE, text=True)
    theirs.close()
    return ours, proc


def tracefs_instances():
    """Mounts tracefs if needed; returns the instances dir (or None) and
    whether we mounted it."""
    path = os.path.join(TRACEFS, "instances")
    if os.path.isdir(path):
        return path, False
    mounted = subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                             capture_output=True).returncode == 0
    return (path if os.path.isdir(path) else None), mounted


def test_protocol_and_instances():
    sock, proc = start_paired()
    status, version = request(sock, PING)
    check(status == 0 and version == 12, f"PING: {status} {version}")
    sock.send(b"\0" * 7)  # garbage gets an error, the connection goes on
    check(MSG.unpack(sock.recv(256))[5] == -22, "garbage was not refused with EINVAL")
    instances, mounted = tracefs_instances()
    try:
        if instances:
            status, _ = request(sock, CREATE, 424242, seq=2, value=2048)
            check(status == 0, f"INSTANCE_CREATE: {status}")
            instance = os.path.join(instances, "tracectl-424242")
            check(os.path.isdir(instance), "no instance")
            # The clock of applications, the buffer size asked for, not recording.
            with open(os.path.join(instance, "trace_clock")) as f:
                check("[mono]" in f.read(), "trace_clock is not mono")
            with open(os.path.join(instance, "buffer_size_kb")) as f:
                check(int(f.read().split()[0]) >= 2048, "buffer_size_kb not set")
            with open(os.path.join(instance, "tracing_on")) as f:
                check(f.read().strip() == "0", "recording before START")
            check_pids(sock, instance, 424242)
            # The consumer is woken when a CPU buffer is a quarter full.
            with open(os.path.join(instance, "buffer_percent")) as f:
                check(f.read().strip() == "25", "buffer_percent not set")
            status, _ = request(sock, REMOVE, 424242, seq=3)
            check(status == 0 and not os.path.exists(os.path.join(instances, "tracectl-424242")),
                  f"INSTANCE_REMOVE: {status}")
            # A restarted helper removes nothing by itself; PRUNE removes
            # the instances of the sessions it does not list, and only them,
            # and only in its scope (the upper 32 bits): another service's
            # instance stays.
            other = f"tracectl-{(5 << 32) | 777777}"
            for name in ("tracectl-777777", "tracectl-777778", other):
                os.mkdir(os.path.join(instances, name))
            sock.close()
            proc.wait(timeout=10)
            sock, proc = start_paired()
            request(sock, PING)
            check(os.path.exists(os.path.join(instances, "tracectl-777777")),
                  "the helper removed an instance before PRUNE")
            prune(sock, [(5 << 32) | 1], seq=2, expect=-22)  # a kept id out of scope
            check(prune(sock, [777778], seq=2) >= 1, "PRUNE removed nothing")
            check(not os.path.exists(os.path.join(instances, "tracectl-777777")),
                  "the leftover instance was not removed")
            check(os.path.exists(os.path.join(instances, "tracectl-777778")),
                  "PRUNE removed a live session's instance")
            check(os.path.exists(os.path.join(instances, other)),
                  "PRUNE removed another service's instance")
            os.rmdir(os.path.join(instances, other))
            status, _ = request(sock, REMOVE, 777778, seq=3)
            check(status == 0, f"INSTANCE_REMOVE: {status}")
        else:
            print("tracefs is not available: instance checks skipped")
    finally:
        sock.close()
        proc.wait(timeout=10)
        if mounted:
            subprocess.run(["umount", TRACEFS], check=False)


def test_peer_check(svc):
    require(shutil.which("systemd-socket-activate"), "systemd-socket-activate is missing")
    bob = svc.add_user("tctest-bob")
    path = os.path.join(svc.rundir, "kernel-helper.sock")
    proc = subprocess.Popen(["systemd-socket-activate", "--seqpacket", "-l", path, HELPER],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists(path), 10, "the helper's socket")
        os.chmod(path, 0o666)  # so that only the helper's own check stands in bob's way
        script = ("import socket,struct,sys\n"
                  "s=socket.socket(socket.AF_UNIX,socket.SOCK_SEQPACKET)\n"
                  f"s.connect({path!r})\n"
                  f"s.send(struct.pack('=IIIIQiI',{MAGIC},{PING},32,1,0,0,0))\n"
                  "sys.exit(0 if s.recv(64) else 3)\n")
        as_bob = subprocess.run(["setpriv", f"--reuid={bob.uid}", f"--regid={bob.uid}",
                                 "--clear-groups", "/usr/bin/python3", "-c", script],
                                capture_output=True, timeout=30)
        check(as_bob.returncode != 0, "the helper answered bob")
        as_root = subprocess.run(["/usr/bin/python3", "-c", script], capture_output=True,
                                 timeout=30)
        check(as_root.returncode == 0, f"the helper did not answer root: {as_root.stderr}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # The stale socket stays: tracectld must see nobody serves it.


def test_service(svc):
    alice = svc.add_user("tctest-alice", groups=("tracing",))
    bob = [u for u in svc.users if u.name == "tctest-bob"][0]
    for user in (alice, bob):
        svc.cli("create", "k", user=user)
    result = svc.cli("enable-event", "-k", "sched:sched_switch", user=alice, check_ok=False)
    check(result.returncode == 0, f"alice: {result.stderr}")
    # LTTng's name of the same event finds it enabled already.
    result = svc.cli("enable-event", "-k", "sched_switch", user=alice, check_ok=False)
    check(result.returncode == 1 and "'sched:sched_switch' are already enabled" in result.stderr,
          f"LTTng's name: {result}")
    result = svc.cli("enable-event", "-k", "sched switch", user=alice, check_ok=False)
    check(result.returncode == 1 and "[A-Za-z0-9_*]" in result.stderr, f"bad name: {result}")
    _, mounted = tracefs_instances()
    try:
        listing = svc.cli_json("list", "-k", user=alice)["events"]
        check("sched:sched_switch" in listing, f"list -k: {listing[:30]}")
        calls = svc.cli_json("list", "-k", "--syscall", user=alice)["events"]
        check("getppid" in calls and "sys_enter_getppid" not in calls, calls[:30])
    finally:
        if mounted:
            subprocess.run(["umount", TRACEFS], check=False)
    result = svc.cli("list", "-k", user=bob, check_ok=False)
    check(result.returncode == 4 and "'tracing' group" in result.stderr, f"bob list -k: {result}")
    result = svc.cli("add-context", "-k", "-t", "prio", user=alice, check_ok=False)
    check(result.returncode == 0, f"alice add-context -k: {result.stderr}")
    # bob (not in 'tracing') is refused every kernel operation.
    for args in (["enable-event", "-k", "sched:sched_switch"],
                 ["disable-event", "-k", "sched:sched_switch"],
                 ["enable-event", "-k", "--syscall", "getppid"],
                 ["enable-event", "-k", "--userspace-probe", "/bin/true:main", "p"],
                 ["enable-channel", "-k", "channel0", "--subbuf-size", "1M", "--num-subbuf", "4"],
                 ["add-context", "-k", "-t", "pid"]):
        result = svc.cli(*args, user=bob, check_ok=False)
        check(result.returncode != 0 and "'tracing' group" in result.stderr,
              f"bob {' '.join(args)}: {result.stderr}")


def test():
    require(os.path.exists(HELPER), "the kernel helper is not built")
    test_protocol_and_instances()
    with Service() as svc:
        test_peer_check(svc)
        test_service(svc)


run(test)
