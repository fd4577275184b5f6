#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A name server that never answers, as in a network outage that takes
the resolver with it (the test runs in a mount namespace of its own, with
/etc/resolv.conf naming a silent server on 127.0.0.77 and a copy of
/etc/hosts): a session streaming to a host name only DNS knows fails
within a few seconds with an error naming the host, while the consumer,
which records another session of the same user, lives on and drains it
without a gap. A relay named through /etc/hosts streams as before; when
that name no longer resolves but through the silent server and the relay
is killed and restarted, the consumer reconnects to the address it found
at creation, and its other session still loses nothing."""

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from tclib import Service, check, consumer_pid, log, require, run, wait_for
from tracelib import read_streams

NAME_SERVER = "127.0.0.77"
DNS_HOST = "relay.tracectl-test.example"    # known to no one
FILES_HOST = "relay-files.tracectl-test.example"  # in the test's /etc/hosts
RESOLV_CONF = f"nameserver {NAME_SERVER}\noptions timeout:5 attempts:3\n"
CREATE_BOUND_S = 8


NSSWITCH_CONF = "hosts: files dns\n"


CLONE_NEWNS = 0x00020000


def enter_own_mount_namespace():
    """Moves this process (no thread started yet) into a mount namespace
    of its own, where nothing propagates back: the bind mounts over /etc
    stay private to the test and its children, and end with it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        error = ctypes.get_errno()
        require(False, f"cannot make a mount namespace: {os.strerror(error)}")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)


class SilentNameServer:
    """A UDP socket on port 53 that reads queries and never answers."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((NAME_SERVER, 53))
        self.queries = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                self.sock.recvfrom(4096)
            except OSError:
                return
            self.queries += 1


def divert_resolver(directory):
    """Bind-mounts the test's resolv.conf, hosts and nsswitch.conf over
    /etc's (files then DNS, no resolver daemon of the host's namespace
    answering instead). Returns the path of the hosts copy, which the
    test rewrites later."""
    require(not os.path.exists("/run/nscd/socket"),
            "nscd runs: lookups would not see the test's files")
    resolv = os.path.join(directory, "resolv.conf")
    hosts = os.path.join(directory, "hosts")
    nsswitch = os.path.join(directory, "nsswitch.conf")
    with open(resolv, "w") as f:
        f.write(RESOLV_CONF)
    with open(nsswitch, "w") as f:
        f.write(NSSWITCH_CONF)
    with open("/etc/hosts") as f:
        base = f.read()
    with open(hosts, "w") as f:
        f.write(base + f"\n127.0.0.1 {FILES_HOST}\n")
    for path, target in ((resolv, "/etc/resolv.conf"), (hosts, "/etc/hosts"),
                         (nsswitch, "/etc/nsswitch.conf")):
        subprocess.run(["mount", "--bind", path, target], check=True)
    return hosts


def problem(svc, name):
    return svc.session(name).get("problem") or ""


def check_unresolvable_fails_soon(svc, server, consumer):
    result, took = svc.timed_cli("create", "b", "--set-url", f"net://{DNS_HOST}",
                                 check_ok=False, timeout=60)
    log(f"create b: {took:.1f} s, {server.queries} queries to the silent server: "
        f"{result.stderr.strip()}")
    check(server.queries > 0, "the resolver never asked the silent name server")
    check(consumer_pid(svc) == consumer, "the consumer was replaced while resolving")
    check(took < CREATE_BOUND_S, f"create b took {took:.1f} s, more than {CREATE_BOUND_S} s")
    check(result.returncode == 1 and DNS_HOST in result.stderr,
          f"create b: expected an error naming {DNS_HOST}: {result}")
    check(all(s["name"] != "b" for s in svc.sessions()), "the failed session remains")


def check_reconnects_without_dns(svc, relay, hosts, consumer):
    url = f"net://{FILES_HOST}:{relay.ports[0]}:{relay.ports[1]}"
    svc.cli("create", "c", "--set-url", url)
    svc.cli("enable-channel", "-u", "chan", "--switch-timer", "100000")
    svc.cli("enable-event", "-u", "-c", "chan", "example:*")
    svc.cli("start")
    time.sleep(1)
    # From now on the name resolves only through the silent server.
    with open(hosts) as f:
        lines = [line for line in f if FILES_HOST not in line]
    with open(hosts, "w") as f:
        f.writelines(lines)
    relay.stop(signal.SIGKILL)
    wait_for(lambda: "unreachable" in problem(svc, "c"), 15, "the consumer to miss the relay")
    time.sleep(3)  # retries while the resolver hangs
    relay.start()
    wait_for(lambda: "reconnected" in problem(svc, "c"), 15, "the consumer to reconnect")
    log(f"c: {problem(svc, 'c')}")
    time.sleep(1)
    check(consumer_pid(svc) == consumer, "the consumer was replaced while the relay was down")
    svc.cli("stop", "c")
    svc.cli("destroy", "c")
    dirs = [d for d in relay.trace_dirs(socket.gethostname())
            if os.path.basename(d).startswith("c-")]
    check(len(dirs) == 1, f"relay directories: {dirs}")
    events = read_streams(dirs[0])["events"]
    check(events, "no events reached the relay")


def test_inside(directory):
    hosts = divert_resolver(directory)
    server = SilentNameServer()
    with Service() as svc, Relay(svc.rundir) as relay:
        local = os.path.join(svc.rundir, "a")
        svc.cli("create", "a", "--output", local)
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        app = svc.app("--forever", "--interval-us", "5000")
        time.sleep(1)
        consumer = consumer_pid(svc)

        check_unresolvable_fails_soon(svc, server, consumer)
        check_reconnects_without_dns(svc, relay, hosts, consumer)

        time.sleep(0.5)
        svc.cli("stop", "a")
        app.terminate()
        app.wait(timeout=10)
        svc.cli("destroy", "a")
        check(consumer_pid(svc) == consumer, "the consumer was replaced")
        trace = read_streams(local)
        seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
        log(f"a: {len(seqs)} events, discarded {trace['discarded']}")
        check(len(seqs) > 1000 and seqs == list(range(seqs[0], seqs[0] + len(seqs))),
              f"session a is not whole: {len(seqs)} events, from {seqs[:1]} to {seqs[-1:]}")
        check(not any(trace["discarded"].values()), f"a discarded: {trace['discarded']}")
        check(svc.alive(), "tracectld died")


def test():
    enter_own_mount_namespace()
    directory = tempfile.mkdtemp(prefix="tracectl-dns-")
    try:
        test_inside(directory)
    finally:
        for target in ("/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf"):
            subprocess.run(["umount", target], stderr=subprocess.DEVNULL)
        shutil.rmtree(directory, ignore_errors=True)


run(test)
