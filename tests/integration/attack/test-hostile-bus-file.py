#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Without a system bus the CLI reads the service's address from
<rundir>/bus. An attacker who controls a run directory writes there an
address that makes GDBus run a program (unixexec:), reach a TCP port, an
abstract socket or a list of addresses. The CLI must refuse every one of
them with a clear message and execute nothing: bob's own CLI refuses the
unixexec: address he wrote, root's CLI pointed at bob's run directory
trusts nothing bob owns, and a bus file that others may write is not
trusted even when root owns it."""

import os
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import TRACECTL, User, check, log, require, run

NO_SYSTEM_BUS = "unix:path=/nonexistent/tracectl-test-no-system-bus"


def cli(rundir, user=None):
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TRACECTL_RUNDIR": rundir,
           "DBUS_SYSTEM_BUS_ADDRESS": NO_SYSTEM_BUS,
           "HOME": user.home if user else rundir}
    prefix = []
    if user:
        prefix = ["setpriv", f"--reuid={user.uid}",
                  f"--regid={pwd.getpwnam(user.name).pw_gid}", "--init-groups", "--"]
    return subprocess.run(prefix + [TRACECTL, "list"], env=env, capture_output=True,
                          text=True, timeout=30, cwd="/")


def write_bus_file(rundir, text, owner, mode=0o644):
    path = os.path.join(rundir, "bus")
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner.uid if owner else 0, pwd.getpwuid(owner.uid).pw_gid if owner else 0)
    os.chmod(path, mode)


def test():
    require(os.geteuid() == 0, "needs root (a test user)")
    require(os.path.exists(TRACECTL), f"{TRACECTL} is not built")
    bob = User("tctest-bob")
    rundir = tempfile.mkdtemp(prefix="tracectl-attack-")
    try:
        os.chown(rundir, bob.uid, pwd.getpwnam(bob.name).pw_gid)
        os.chmod(rundir, 0o755)
        marker = os.path.join(rundir, "executed")
        exec_address = f"unixexec:path=/bin/sh,argv0=sh,argv1=-c,argv2=touch%20{marker}"

        # bob's own CLI, reading what bob wrote: the address kind is refused.
        hostile = [exec_address, "tcp:host=127.0.0.1,port=9", "unix:abstract=tracectl",
                   f"unix:path={rundir}/x;{exec_address}", f"unix:path={rundir}/x,noncefile=/x"]
        for address in hostile:
            write_bus_file(rundir, address, bob)
            result = cli(rundir, bob)
            log(f"bob, {address!r}: rc={result.returncode} {result.stderr.strip()}")
            check(result.returncode != 0 and "only 'unix:path=" in result.stderr,
                  f"bob's CLI did not refuse {address!r}: {result.stderr}")
            check(not os.path.exists(marker), f"{address!r} executed a program as bob")

        # root's CLI pointed at bob's directory: bob's file is not trusted,
        # whatever it says.
        for address in (exec_address, f"unix:path={rundir}/x"):
            write_bus_file(rundir, address, bob)
            result = cli(rundir)
            log(f"root, bob's {address!r}: rc={result.returncode} {result.stderr.strip()}")
            check(result.returncode != 0 and "not trusting it" in result.stderr
                  and f"uid {bob.uid}" in result.stderr,
                  f"root's CLI trusted bob's bus file {address!r}: {result.stderr}")
            check(not os.path.exists(marker), f"{address!r} executed a program as root")

        # A file others may write is not trusted even when root owns it.
        os.chown(rundir, 0, 0)
        write_bus_file(rundir, exec_address, None, 0o666)
        result = cli(rundir)
        log(f"root, world-writable file: rc={result.returncode} {result.stderr.strip()}")
        check(result.returncode != 0 and "writable by its group or others" in result.stderr,
              f"root's CLI trusted a world-writable bus file: {result.stderr}")
        check(not os.path.exists(marker), "a world-writable bus file executed a program")
    finally:
        shutil.rmtree(rundir, ignore_errors=True)
        bob.remove()


run(test)
