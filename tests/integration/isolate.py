#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs one integration test in a world of its own, so that meson may run
several side by side (tests/integration/meson.build, docs/testing.md).

    isolate.py PROGRAM [ARG...]

An integration test changes the machine: polkit's policy and rules, test
users with their homes and groups, files under /var, a run directory
under /tmp, relays and collectors on 127.0.0.1. Here the test runs in new
mount and network namespaces where

- /etc, /usr/share/polkit-1, /var and /run are overlays whose upper layers
  are private: a test's users, groups, polkit files and whatever else it
  installs are seen by it alone and vanish with it (useradd renames files
  in /etc, so bind-mounting single files would not do);
- /home and /tmp are empty directories of its own on the disk of /tmp:
  homes and run directories keep the file system a test expects (the
  consumer's direct I/O depends on it);
- 127.0.0.1 and ::1 are a loopback of its own, so ports never meet;
- /dev/shm is a tmpfs of its own: POSIX shared memory (LTTng's wait
  pages, /lttng-ust-wait-8 and the per-user ones) is the world's, as
  LTTng's sockets under /var/run are.

What namespaces do not separate: uids (per-uid limits, `pkill -u`, the
processes of /proc), which is why each world takes a slot and gives useradd
and groupadd a range of ids of the slot's own; the kernel's tracing
(probes, uprobe_events, traces of the whole machine) and CPU time, which is
why tests that depend on them run alone, not through here.
"""

import contextlib
import fcntl
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SLOT_DIR = "/run/tracectl-test-slots"
SLOTS = 64
# Each slot's ids: users from ID_BASE + slot * ID_SPAN, system groups in
# the upper half of its span. Above the ids a machine gives its own users
# and below the subordinate ids (/etc/login.defs).
ID_BASE = 30000
ID_SPAN = 100
OVERLAID = ("/etc", "/usr/share/polkit-1", "/var", "/run")
FRESH = ("/home", "/tmp")


def take_slot():
    """A slot no other world holds, and the descriptor whose lock keeps it
    (released when this process ends, however it ends)."""
    os.makedirs(SLOT_DIR, exist_ok=True)
    for slot in range(SLOTS):
        fd = os.open(os.path.join(SLOT_DIR, str(slot)), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        # What a world killed before its clean-up left in this slot.
        for leftover in glob.glob(f"/tmp/tracectl-world-{slot}-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        return slot, fd
    sys.exit(f"isolate.py: all {SLOTS} slots are taken")


def mount(*args):
    subprocess.run(["mount", *args], check=True)


def overlay(target, scratch):
    name = target.strip("/").replace("/", "-")
    upper = os.path.join(scratch, name + "-upper")
    work = os.path.join(scratch, name + "-work")
    os.mkdir(upper)
    os.mkdir(work)
    mount("-t", "overlay", "overlay", "-o", f"lowerdir={target},upperdir={upper},workdir={work}",
          target)


def fresh(target, scratch):
    """An empty directory of the same mode as target, mounted over it."""
    source = os.path.join(scratch, target.strip("/").replace("/", "-"))
    os.mkdir(source)
    os.chmod(source, os.stat(target).st_mode & 0o7777)
    mount("--bind", source, target)


def replaced(path):
    return any(path == top or path.startswith(top + "/") for top in FRESH)


def kept_trees():
    """The source and build trees where they lie under a directory the
    world replaces (a checkout in a home or under /tmp): the test must
    still find itself and what it runs. Outermost first, nested ones
    dropped (a bind of the outer one shows them)."""
    trees = sorted({os.path.realpath(os.environ[key])
                    for key in ("TRACECTL_SOURCE_ROOT", "TRACECTL_BUILD_ROOT")
                    if key in os.environ})
    kept = []
    for tree in trees:
        if replaced(tree) and not any(tree.startswith(outer + "/") for outer in kept):
            kept.append(tree)
    return kept


def hold(trees):
    """Binds each tree where the fresh directories will not cover it."""
    held = []
    for i, tree in enumerate(trees):
        spot = f"/run/tracectl-world-kept-{i}"
        os.mkdir(spot)
        mount("--bind", tree, spot)
        held.append((spot, tree))
    return held


def put_back(held):
    for spot, tree in held:
        os.makedirs(tree, exist_ok=True)
        mount("--move", spot, tree)


def set_id_ranges(slot):
    first = ID_BASE + slot * ID_SPAN
    half = ID_SPAN // 2
    ranges = {"UID_MIN": first, "UID_MAX": first + half - 1,
              "GID_MIN": first, "GID_MAX": first + half - 1,
              "SYS_UID_MIN": first + half, "SYS_UID_MAX": first + ID_SPAN - 1,
              "SYS_GID_MIN": first + half, "SYS_GID_MAX": first + ID_SPAN - 1}
    with open("/etc/login.defs") as f:
        lines = [line for line in f if line.split()[:1] not in ([key] for key in ranges)]
    lines += [f"{key} {value}\n" for key, value in ranges.items()]
    with open("/etc/login.defs", "w") as f:
        f.writelines(lines)


def inside(slot, scratch, command):
    """In the new namespaces, private mounts: build the world and become
    the test."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for target in OVERLAID:
        overlay(target, scratch)
    held = hold(kept_trees())  # /run is the world's own now
    for target in FRESH:  # /tmp last: scratch is under it
        fresh(target, scratch)
    put_back(held)
    mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", "/dev/shm")
    set_id_ranges(slot)
    # A name service cache would answer from the machine's /etc, which
    # knows nothing of the world's users: the world has none.
    with contextlib.suppress(FileNotFoundError):
        os.unlink("/run/nscd/socket")
    os.execv(command[0], command)


def end_on_signal(signum, frame):
    """meson ends a test that runs too long with SIGTERM: the clean-up
    below runs then too."""
    sys.exit(128 + signum)


def outside(command):
    signal.signal(signal.SIGTERM, end_on_signal)
    signal.signal(signal.SIGINT, end_on_signal)
    slot, _lock = take_slot()
    scratch = tempfile.mkdtemp(prefix=f"tracectl-world-{slot}-", dir="/tmp")
    try:
        proc = subprocess.run(["unshare", "--mount", "--net", "--propagation", "private", "--",
                               sys.executable, os.path.abspath(__file__), "--inside", str(slot),
                               scratch, "--", *command])
        # A test killed by a signal fails as a shell would report it.
        return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(scratch)


def main(argv):
    if argv[:1] == ["--inside"]:
        inside(int(argv[1]), argv[2], argv[4:])
    if not argv:
        sys.exit("usage: isolate.py PROGRAM [ARG...]")
    return outside(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
