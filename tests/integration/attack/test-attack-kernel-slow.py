#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A uprobe target whose open() never returns: a file on a FUSE mount whose
server sleeps in open (O_NONBLOCK does not help there), as a user who runs
their own FUSE server can make. The server here runs as root with
allow_other, standing for the attacker's: what matters is that the owner
of the file decides when open() returns. While an unprivileged member of
'tracing' asks for uprobes on it again and again, another user's kernel
session (create -k, sched_switch, start, stop, a non-empty trace,
destroy) goes on with every command under a second; each of the
attacker's requests fails within the helper's deadline with an error that
says the file did not open in time, and the kernel helper that serves the
other sessions stays the same process. Twice: with the helpers tracectld
starts itself, and with one helper listening on its socket (as systemd
starts it) that serves every connection."""

import os
import pwd
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from kernelattacklib import Victim, helper_pids, require_uprobes
from tclib import BUILD, Service, check, log, require, run, wait_for

HELPER = os.path.join(BUILD, "service", "kernel-helper", "tracectl-kernel-helper")

ATTEMPTS = 3
DEADLINE_S = 3.0  # TC_KERNEL_UPROBE_FILE_MS
BASELINE_ROUNDS = 2


def victim_bound(baseline_s):
    """The victim's slowest command may take 5 times its slowest before the
    attack (disk and sanitizers vary), at least a second, but less than
    the helper's deadline: a helper blocked on the hung open would make
    it wait that long."""
    return min(DEADLINE_S - 0.5, max(1.0, 5 * baseline_s))

SERVER = r"""
import errno, stat, sys, time
from fusepy import FUSE, Operations

uid, gid = int(sys.argv[2]), int(sys.argv[3])

class Slow(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2, st_uid=uid, st_gid=gid)
        if path == "/prog":
            return dict(st_mode=stat.S_IFREG | 0o755, st_nlink=1, st_size=65536,
                        st_uid=uid, st_gid=gid)
        raise OSError(errno.ENOENT, "")

    def readdir(self, path, fh):
        return [".", "..", "prog"]

    def open(self, path, flags):
        time.sleep(120)
        return 0

FUSE(Slow(), sys.argv[1], foreground=True, allow_other=True)
"""


def start_server(mountpoint, owner):
    server = subprocess.Popen(["/usr/bin/python3", "-c", SERVER, mountpoint, str(owner.uid),
                               str(pwd.getpwnam(owner.name).pw_gid)], stderr=subprocess.PIPE)
    for _ in range(100):
        if os.path.exists(os.path.join(mountpoint, "prog")):
            return server
        time.sleep(0.05)
    server.kill()
    raise AssertionError(f"the FUSE server did not mount: {server.stderr.read()}")


def where_the_time_went(svc):
    """The service's slow-call lines and what it said of its kernel
    helpers, newest last: a failure names the phase that took the time."""
    with open(svc.log_path, errors="replace") as f:
        lines = [line.rstrip() for line in f
                 if "Slow call" in line or "kernel helper" in line.lower()]
    return "\n".join(lines[-20:])


def listening_helper(svc):
    """A helper on the service's socket, as systemd starts it: one process
    serves every connection. Returns its launcher."""
    path = os.path.join(svc.rundir, "kernel-helper.sock")
    launcher = subprocess.Popen(["systemd-socket-activate", "--seqpacket", "-l", path, HELPER])
    wait_for(lambda: os.path.exists(path), 10, "the helper's socket")
    return launcher


def helpers_serving(svc, launcher):
    if launcher is None:
        return helper_pids(svc)
    return [launcher.pid] if launcher.poll() is None else []


def attack(listening):
    log("a helper listening on its socket" if listening else "helpers tracectld starts")
    with Service() as svc:
        mallory = svc.add_user("tctest-kattacker", groups=("tracing",))
        carol = svc.add_user("tctest-kvictim", groups=("tracing",))
        mountpoint = os.path.join(mallory.home, "slow")
        os.makedirs(mountpoint)
        launcher = listening_helper(svc) if listening else None
        server = start_server(mountpoint, mallory)
        try:
            svc.cli("create", "m", "--output", os.path.join(mallory.home, "t"), user=mallory)
            svc.cli("enable-event", "-k", "sched:sched_switch", user=mallory)
            svc.cli("start", user=mallory)  # probes reach the helper once it runs
            helpers = helpers_serving(svc, launcher)
            check(len(helpers) == 1, f"kernel helpers: {helpers}")
            victim = Victim(svc, carol)
            for _ in range(BASELINE_ROUNDS):
                victim.one_round()
            check(not victim.errors, f"the victim failed without an attack: {victim.errors}")
            slowest_s = victim_bound(max(victim.durations)[0])
            log(f"victim without the attack: slowest {max(victim.durations)[0]:.2f} s, "
                f"bound {slowest_s:.2f} s")
            victim.durations.clear()
            baseline_rounds = victim.rounds
            with victim:
                time.sleep(0.5)
                for i in range(ATTEMPTS):
                    result, took = svc.timed_cli("enable-event", "-k", "--userspace-probe",
                                                 f"{mountpoint}/prog:main", f"slow{i}",
                                                 user=mallory, check_ok=False, timeout=60)
                    log(f"attempt {i}: {result.stderr.strip()} ({took:.2f} s)")
                    check(result.returncode != 0, "a uprobe on a file that never opened")
                    check("did not open within" in result.stderr,
                          f"unclear error: {result.stderr.strip()}")
                    # Margin for a slow machine; never answering is the failure.
                    check(took < DEADLINE_S + 3,
                          f"refused after {took:.1f} s; the service's account of it:\n"
                          + where_the_time_went(svc))
                time.sleep(1.0)  # a round of the victim after the attacks
            check(helpers_serving(svc, launcher) == helpers,
                  f"the helper was replaced: {helpers_serving(svc, launcher)}")
            victim.check(slowest_s=slowest_s)
            rounds = victim.rounds - baseline_rounds
            check(rounds >= 3, f"the victim finished {rounds} rounds")
            svc.cli("stop", user=mallory)
            svc.cli("destroy", "m", user=mallory)
            check(svc.alive(), "tracectld died")
        finally:
            server.kill()
            server.wait()
            subprocess.run(["fusermount3", "-uz", mountpoint], stderr=subprocess.DEVNULL)
            if launcher:
                launcher.terminate()
                launcher.wait(timeout=10)


def test():
    require_uprobes()
    require(os.access("/dev/fuse", os.R_OK | os.W_OK) and shutil.which("fusermount3"),
            "no FUSE here")
    require(subprocess.run(["/usr/bin/python3", "-c", "import fusepy"]).returncode == 0,
            "no python3-fusepy")
    require(shutil.which("systemd-socket-activate"), "systemd-socket-activate is missing")
    attack(listening=False)
    attack(listening=True)


run(test)
