# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the tests of LTTng-UST applications and agents share: whether the
service serves them, and Debian's lttng-sessiond run beside the test as
the anchor their traces are compared with."""

import contextlib
import ctypes
import json
import os
import platform
import shutil
import subprocess
import sys

from tclib import BUILD, SKIP, SYSTEM_PYTHON, check, require, wait_for

# An application instrumented with LTTng-UST only (apps/lttng-app.c).
LTTNG_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-lttng-app")

# The sockets lttng-sessiond (root's) makes for applications and agents.
SESSIOND_APP_SOCKET = "/var/run/lttng/lttng-ust-sock-8"
SESSIOND_AGENT_PORT = "/var/run/lttng/agent.port"


def require_tools():
    """Skips unless LTTNG_APP was built (with liblttng-ust) and
    babeltrace2 is there to read its traces."""
    require(os.path.exists(LTTNG_APP), f"{LTTNG_APP} is not built (no liblttng-ust)")
    require(shutil.which("babeltrace2"), "babeltrace2 is not installed")


def require_served(svc):
    """Exits SKIP when tracectld was built without liblttng-ust-ctl;
    fails when it does not serve LTTng-UST applications."""
    status = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                       "--method", "org.freedesktop.DBus.Properties.Get",
                       "org.tracectl.Tracing1.Manager", "LttngUstApplications").stdout
    if "built without" in status:
        sys.exit(SKIP)
    check("served on" in status, f"LTTng-UST applications not served: {status}")


@contextlib.contextmanager
def lttng_sessiond(top, ready=SESSIOND_APP_SOCKET):
    """Root's lttng-sessiond, on the world's own /var/run/lttng (so once
    tracectld is gone), with its LTTNG_HOME under top, until the block
    ends; yields the environment for `lttng` (lttng())."""
    env = dict(os.environ, LTTNG_HOME=os.path.join(top, "lttng-home"))
    os.makedirs(env["LTTNG_HOME"])
    sessiond = subprocess.Popen(["lttng-sessiond", "--no-kernel"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists(ready), 20, f"lttng-sessiond's {ready}")
        yield env
    finally:
        sessiond.terminate()
        sessiond.wait(timeout=30)


def lttng(env, *args):
    """`lttng ARGS` against the lttng-sessiond of env; fails the test when
    it fails."""
    proc = subprocess.run(["lttng", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    check(proc.returncode == 0, f"lttng {' '.join(args)}: {proc.stderr}")
    return proc


def start_lttng_app(svc, user, seconds):
    """LTTNG_APP run as user for seconds, once its main() runs (LTTng-UST's
    constructor let it); its pid as .app_pid."""
    proc = subprocess.Popen(svc._as(user) + [LTTNG_APP, str(seconds)], env=svc.env(user),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=user.home)
    svc.apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    proc.app_pid = int(line.split()[1])
    return proc


def hardware_cycles_open():
    """Whether this machine lets a thread count its own CPU cycles
    (perf_event_open() of PERF_TYPE_HARDWARE/PERF_COUNT_HW_CPU_CYCLES)."""
    if platform.machine() != "x86_64":
        return True  # perf_event_open's number is x86-64's: the refusal is not tested
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint8 * 128)()
    ctypes.c_uint32.from_buffer(attr, 4).value = 128  # size; type and config 0
    # disabled, exclude_kernel, exclude_hv
    ctypes.c_uint64.from_buffer(attr, 40).value = (1 << 0) | (1 << 5) | (1 << 6)
    fd = libc.syscall(298, attr, 0, -1, -1, 0)
    if fd < 0:
        return False
    os.close(fd)
    return True


# The counts of the test application's ticks in one trace, in order read.
_TICKS = r"""
import bt2, json, sys
ticks = []
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._EventMessageConst and msg.event.name == "tc_lttng_test:tick":
        ticks.append(int(msg.event.payload_field["count"]))
print(json.dumps(ticks))
"""


def tick_counts(path):
    """The sorted counts of LTTNG_APP's ticks in the trace at path, read
    with babeltrace2's Python bindings; fails the test when it cannot."""
    proc = subprocess.run([SYSTEM_PYTHON, "-c", _TICKS, path], capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 0, f"babeltrace2 could not read {path}: {proc.stderr[-2000:]}")
    return sorted(json.loads(proc.stdout))
