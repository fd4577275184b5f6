#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectld refuses a run directory that others may change (writable by
its group or others, owned by another user, or a symbolic link), saying
why and creating nothing in it. In a good one, its sockets have their
mode from the moment they appear at their path: each arrives complete,
by a rename, never created in place and changed afterwards; the files
others read are not writable by them."""

import ctypes
import os
import pwd
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import TRACECTLD, Service, User, check, log, require, run, wait_for

IN_MOVED_TO, IN_CREATE = 0x80, 0x100


def refused(rundir, what):
    """Starts tracectld on rundir and expects a refusal mentioning what."""
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8",
           "TRACECTL_RUNDIR": rundir}
    proc = subprocess.Popen([TRACECTLD, "--embedded"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.terminate()
        out, _ = proc.communicate()
        raise AssertionError(f"tracectld started in {rundir} ({what}): {out[-2000:]}")
    log(f"{what}: exit {proc.returncode}: {out.strip()}")
    check(proc.returncode != 0 and "refusing to start" in out and what in out,
          f"tracectld did not refuse {rundir} ({what}): {out}")
    target = os.path.realpath(rundir)
    check(os.listdir(target) == [], f"tracectld left files in {target}: {os.listdir(target)}")


class Inotify:
    def __init__(self, path):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        check(self.fd >= 0, "inotify_init1")
        check(self.libc.inotify_add_watch(self.fd, path.encode(), IN_CREATE | IN_MOVED_TO) >= 0,
              "inotify_add_watch")

    def events(self):
        found = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return found
            offset = 0
            while offset < len(data):
                _, mask, _, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                found.append((name, mask))
                offset += 16 + length

    def close(self):
        os.close(self.fd)


def test():
    require(os.geteuid() == 0, "needs root (a test user)")
    bob = User("tctest-bob")
    base = tempfile.mkdtemp(prefix="tracectl-rundirs-")
    try:
        writable = os.path.join(base, "writable")
        os.mkdir(writable)
        os.chmod(writable, 0o777)
        refused(writable, "writable by its group or others")
        group_writable = os.path.join(base, "group-writable")
        os.mkdir(group_writable)
        os.chmod(group_writable, 0o775)
        refused(group_writable, "writable by its group or others")
        bobs = os.path.join(base, "bobs")
        os.mkdir(bobs, 0o755)
        os.chown(bobs, bob.uid, pwd.getpwnam(bob.name).pw_gid)
        refused(bobs, f"owned by uid {bob.uid}")
        good = os.path.join(base, "good")
        os.mkdir(good, 0o755)
        link = os.path.join(base, "link")
        os.symlink(good, link)
        refused(link, "symbolic link")
    finally:
        shutil.rmtree(base, ignore_errors=True)
        bob.remove()

    service = Service()
    watch = Inotify(service.rundir)
    old_umask = os.umask(0o077)  # sockets bound under it are 0700 until changed
    try:
        with service:
            os.umask(old_umask)
            events = watch.events()
            log("run directory events:", events)
            arrivals = {name: mask for name, mask in events if name == "app.sock"}
            check("app.sock" in arrivals, f"no app.sock event: {events}")
            check(not any(name == "app.sock" and mask & IN_CREATE for name, mask in events),
                  f"app.sock was created in place, before it had its mode: {events}")
            st = os.lstat(os.path.join(service.rundir, "app.sock"))
            check(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o666,
                  f"app.sock has mode {oct(st.st_mode)}")
            for name in ("bus", "wait"):
                path = os.path.join(service.rundir, name)
                # The wait page follows app.sock (applications woken by it
                # must find the socket listening): the test may see the
                # socket first.
                wait_for(lambda: os.path.lexists(path), 10, f"{name} in the run directory")
                st = os.lstat(path)
                check(stat.S_ISREG(st.st_mode) and not st.st_mode & 0o022 and st.st_uid == 0,
                      f"{name}: mode {oct(st.st_mode)} uid {st.st_uid}")
            leftovers = [n for n in os.listdir(service.rundir) if n.startswith(".tc-bind-")]
            check(leftovers == [], f"private bind directories left: {leftovers}")
    finally:
        os.umask(old_umask)
        watch.close()


run(test)
