#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Without systemd, an application that starts before the service sleeps
on the futex of <rundir>/wait until the service marks itself ready.
Anyone who can read that page can wake its futex: bob maps it and wakes
it in a loop, and the waiting application must go back to sleep each
time instead of trying to connect again: over one second of the storm
it uses almost no CPU time."""

import os
import platform
import subprocess
import sys
import tempfile
import shutil
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import EXAMPLE_APP, User, check, log, require, run

STORM_S = 4
MAX_CPU_S = 0.05  # the application's CPU time allowed over one second of storm
SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine())
WAKER = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
addr = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED: read-only
assert addr not in (None, ctypes.c_void_p(-1).value)
futex, wakes, woken = int(sys.argv[2]), 0, 0
deadline = time.monotonic() + float(sys.argv[3])
while time.monotonic() < deadline:
    for _ in range(1000):
        woken += max(libc.syscall(futex, ctypes.c_void_p(addr), 1, 0x7fffffff, 0, 0, 0), 0)
    wakes += 1000
print(wakes, woken, flush=True)
"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test():
    require(os.geteuid() == 0, "needs root (a test user)")
    require(SYS_FUTEX is not None, f"no futex syscall number for {platform.machine()}")
    require(os.path.exists(EXAMPLE_APP), f"{EXAMPLE_APP} is not built")
    bob = User("tctest-bob")
    rundir = tempfile.mkdtemp(prefix="tracectl-wait-")
    app = None
    try:
        os.chmod(rundir, 0o755)
        wait = os.path.join(rundir, "wait")
        with open(wait, "wb") as f:
            f.write(bytes(4096))  # state 0: not ready, nobody listening
        os.chmod(wait, 0o644)
        env = {"PATH": "/usr/bin:/bin", "TRACECTL_RUNDIR": rundir,
               "TRACECTL_UST_REGISTER_TIMEOUT": "0"}
        app = subprocess.Popen([EXAMPLE_APP, "--pause"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        check(app.stdout.readline().strip() == "ready", "the example application did not start")
        time.sleep(0.5)  # its listener thread failed to connect and waits on the page
        before = cpu_seconds(app.pid)
        time.sleep(1)
        idle = cpu_seconds(app.pid) - before
        waker = subprocess.Popen(["setpriv", f"--reuid={bob.uid}", "--regid=65534",
                                  "--clear-groups", "--", sys.executable, "-c", WAKER, wait,
                                  str(SYS_FUTEX), str(STORM_S)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        before = cpu_seconds(app.pid)
        time.sleep(1)
        storm = cpu_seconds(app.pid) - before
        out, err = waker.communicate(timeout=STORM_S + 30)
        check(waker.returncode == 0, f"the waker failed: {err}")
        wakes, woken = (int(x) for x in out.split())
        log(f"figure wait_page_storm_app_cpu_ms ours={storm * 1000:.0f} "
            f"anchor={idle * 1000:.0f} unit=ms (bob's {wakes} FUTEX_WAKE calls woke "
            f"{woken} waiters)")
        check(woken > 0, "bob's wake-ups never reached the waiting application")
        check(storm <= MAX_CPU_S,
              f"the waiting application used {storm:.2f} s of CPU in 1 s of wake-ups "
              f"(at most {MAX_CPU_S} s allowed)")
        check(app.poll() is None, "the example application died")
    finally:
        if app and app.poll() is None:
            app.kill()
            app.wait()
        shutil.rmtree(rundir, ignore_errors=True)
        bob.remove()


run(test)
