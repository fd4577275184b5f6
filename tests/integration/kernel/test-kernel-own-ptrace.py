#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The own-process kernel tier records a task only while its owner could
trace it with ptrace, at the root helper. Copies of a small program
(tracectl-cred-app) run at once as the owner, each marking the steps it
goes through with getppid() calls whose first argument names the step:

- plain: the owner's plain process, recorded throughout;
- undumped: the owner's process that calls prctl(PR_SET_DUMPABLE, 0)
  midway, recorded before and not after, nothing of it at all until it
  makes itself dumpable again (not even the switches of a sleep), and
  recorded then;
- file capabilities (cap_net_raw+ep, as ping has): nothing of it, even
  once it made itself dumpable again (its permitted capabilities are not
  a subset of the owner's none);
- setuid root: nothing while it runs as root, nothing after it went back
  to the owner's uid with setresuid() (it is not dumpable), and recorded
  from the moment it made itself dumpable again;
- setgid root, dumpable again: nothing (its effective and saved gids are
  not the owner's);
- in a user namespace the owner made (unshare --map-root-user), with every
  capability there: recorded, as the owner may trace it.

The test starts each one as root's child that switches to the owner
before its execve(): such a child is not dumpable until the execve() of a
program that is not setuid or file-capable, so a program's records start
there.

Each program prints its credentials, dumpability and permitted
capabilities at each stage, so the conditions are checked, not assumed."""

import collections
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import ownringlib
from ownhelperlib import ALL_EVENTS, NOT_SUPPORTED, as_user, drain, own_start, start_paired
from tclib import CRED_APP, User, check, log, require, run

GETPPID, PRCTL = 110, 157
PR_SET_DUMPABLE = 4
MARK_BASE, MARKS = 0x7c4d0000, 200
CAP_NET_RAW = 13
IDS = ("ruid", "euid", "suid", "rgid", "egid", "sgid")
# In a user namespace made with --map-root-user, the owner is its root,
# with every capability there.
USERNS = ["unshare", "--user", "--map-root-user"]

# A program run: which copy, the command before it, its steps, the steps
# whose marks the ring must hold, and what each "state" line must say (the
# six ids as the program sees them, dumpable, caps: the permitted set, or
# None for any but none).
Program = collections.namedtuple("Program", "copy before steps marks states")


def programs(user):
    """The programs the test runs at once, by name."""
    own = dict.fromkeys(IDS[:3], user.uid) | dict.fromkeys(IDS[3:], user.gid)
    root_group = own | {"egid": 0, "sgid": 0}
    ns_root = dict.fromkeys(IDS, 0)
    net_raw = 1 << CAP_NET_RAW
    return {
        "plain": Program("plain", [], ["state", "mark:1"], {1},
                         [own | {"dumpable": 1, "caps": 0}]),
        "undumped": Program("plain", [], ["state", "mark:1", "dumpable:0", "state", "sleep:20",
                                          "mark:2", "dumpable:1", "state", "mark:3"], {1, 3},
                            [own | {"dumpable": d, "caps": 0} for d in (1, 0, 1)]),
        "filecap": Program("filecap", [], ["state", "mark:1", "dumpable:1", "state", "mark:2"],
                           set(), [own | {"dumpable": d, "caps": net_raw} for d in (0, 1)]),
        "setuid": Program("setuid", [], ["mark:1", "drop", "state", "sleep:20", "mark:2",
                                         "dumpable:1", "state", "mark:3"], {3},
                          [own | {"dumpable": d, "caps": 0} for d in (0, 1)]),
        "setgid": Program("setgid", [], ["dumpable:1", "state", "mark:1"], set(),
                          [root_group | {"dumpable": 1, "caps": 0}]),
        "userns": Program("plain", USERNS, ["state", "mark:1"], {1},
                          [ns_root | {"dumpable": 1, "caps": None}]),
    }


def install_copies(top):
    """The program under top: plain, with file capabilities, setuid root,
    setgid root."""
    paths = {name: os.path.join(top, name) for name in ("plain", "filecap", "setuid", "setgid")}
    for path in paths.values():
        shutil.copy(CRED_APP, path)
        os.chown(path, 0, 0)
        os.chmod(path, 0o755)
    subprocess.run(["setcap", "cap_net_raw+ep", paths["filecap"]], check=True)
    os.chmod(paths["setuid"], 0o4755)
    os.chmod(paths["setgid"], 0o2755)
    return paths


def check_states(name, out, expected):
    """The credentials, dumpability and permitted set each program printed:
    the conditions the test is about hold."""
    lines = out.splitlines()
    check(len(lines) == len(expected), f"{name}: states {lines}")
    for line, want in zip(lines, expected):
        state = {key: int(value, 16 if key == "cap_permitted" else 10)
                 for key, value in (field.split("=") for field in line.split())}
        caps = state.pop("cap_permitted")
        check(caps == want["caps"] if want["caps"] is not None else caps != 0,
              f"{name}: permitted set {caps:x}, expected {want['caps']}: {line}")
        check(all(state[key] == want[key] for key in state),
              f"{name}: expected {want}: {line}")


def marks_of(records, pid):
    """How many getppid() marks of each step the ring holds for pid."""
    marks = {}
    for r in records:
        if r["pid"] == pid and r["type"] == "sys_enter" and r["id"] == GETPPID:
            step = r["args"][0] - MARK_BASE
            marks[step] = marks.get(step, 0) + 1
    return marks


def records_of(records, pid):
    return sorted((r for r in records if r["pid"] == pid), key=lambda r: r["timestamp"])


def scheduled_only(record):
    """A record that may come of a task between the prctl() that makes it
    dumpable and that call's exit: it was preempted there (a switch out in
    the running state), resumed or moved. A switch out asleep or a wake-up
    would be the sleep step's, made while it was not dumpable."""
    return (record["type"] in ("switch_in", "migrate", "lost") or
            (record["type"] == "switch_out" and record["id"] == 0))


def check_silent_until_dumpable(name, mine):
    """Nothing of mine before the exit of the prctl() that made the program
    dumpable again (the first prctl() exit recorded: the calls before it
    are not), but for its being preempted in that very call."""
    exits = [i for i, r in enumerate(mine) if r["type"] == "sys_exit" and r["id"] == PRCTL]
    check(exits, f"{name}: the exit of the prctl() that made it dumpable again is missing")
    early = [r for r in mine[:exits[0]] if not scheduled_only(r)]
    check(not early, f"{name}: {len(early)} records while not dumpable, the first {early[:1]}")


def check_undumped(name, records, pid):
    """Recorded up to its prctl(PR_SET_DUMPABLE, 0) entry, then nothing
    until it is dumpable again."""
    mine = records_of(records, pid)
    starts = [i for i, r in enumerate(mine) if r["type"] == "sys_enter" and r["id"] == PRCTL
              and r["args"][0] == PR_SET_DUMPABLE and r["args"][1] == 0]
    check(len(starts) == 1, f"{name}: prctl(PR_SET_DUMPABLE, 0) entries: {len(starts)}")
    check_silent_until_dumpable(name, mine[starts[0] + 1:])


def test():
    require(os.geteuid() == 0, "needs root")
    require(os.path.exists("/sys/kernel/btf/vmlinux"), "the kernel has no BTF")
    require(shutil.which("setcap"), "setcap (libcap2-bin) is missing")
    user = User("tcownptrace")
    top = tempfile.mkdtemp(prefix="tc-own-ptrace-")
    os.chmod(top, 0o755)
    sock, helper = start_paired()
    stop, reader = threading.Event(), None
    try:
        paths = install_copies(top)
        status, fd = own_start(sock, 1, user, ALL_EVENTS)
        require(status != NOT_SUPPORTED, "the helper was built without the own-process tier")
        check(status == 0 and fd is not None, f"OWN_START: {status}")
        out = {"ring": []}
        reader = threading.Thread(target=drain, args=({"ring": ownringlib.Ring(fd)}, stop, out))
        reader.start()
        specs = programs(user)
        procs = {name: subprocess.Popen([*spec.before, paths[spec.copy], *spec.steps],
                                        preexec_fn=as_user(user), cwd="/",
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
                 for name, spec in specs.items()}
        outputs = {}
        for name, proc in procs.items():
            outputs[name], err = proc.communicate(timeout=60)
            check(proc.returncode == 0, f"{name} failed: {err}")
        stop.set()
        reader.join()
        records = out["ring"]
        lost = sum(r["value"] for r in records if r["type"] == "lost" and r["id"] == 1)
        check(lost == 0, f"{lost} records found the ring full")
        wrong = []
        for name, proc in procs.items():
            check_states(name, outputs[name], specs[name].states)
            marks = marks_of(records, proc.pid)
            expected = {step: MARKS for step in specs[name].marks}
            log(f"{name}: marks recorded {marks}, expected {expected}")
            if marks != expected:
                wrong.append(name)
        check(not wrong, f"wrong marks recorded for {wrong}")
        check_undumped("undumped", records, procs["undumped"].pid)
        check_silent_until_dumpable("setuid", records_of(records, procs["setuid"].pid))
        for name in ("filecap", "setgid"):
            mine = records_of(records, procs[name].pid)
            check(not mine, f"{name}: {len(mine)} records, the first {mine[:1]}")
        log("the tier records what the owner could ptrace: not a file-capability program, "
            "a setuid program that went back to the owner's uid, a setgid program, an "
            "undumpable process; yes a process in the owner's user namespace")
    finally:
        # A failed check must not leave the ring's reader running.
        stop.set()
        if reader is not None:
            reader.join()
        sock.close()
        helper.wait(timeout=10)
        shutil.rmtree(top, ignore_errors=True)
        user.remove()


run(test)
