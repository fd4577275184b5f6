# SPDX-License-Identifier: LGPL-2.1-or-later
"""The EEVDF slice of a thread, read from /proc and asked for with
sched_setattr(2) through ctypes, for the tests of the consumer's
scheduling."""

import ctypes
import os


# The slice the consumer's session threads ask for (CONSUMERD_SCHED_SLICE_NS,
# service/consumerd/tc-consumerd-sched.h).
CONSUMER_SLICE_NS = 100000
# sched_setattr(2), which glibc 2.36 and Python do not wrap.
SYS_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}


class SchedAttr(ctypes.Structure):
    """struct sched_attr, its first version; runtime is the slice."""
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32),
                ("flags", ctypes.c_uint64), ("nice", ctypes.c_int32),
                ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64),
                ("util_min", ctypes.c_uint32), ("util_max", ctypes.c_uint32)]


def sched_slice_ns(sched_text):
    """A thread's EEVDF slice, ns, from the text of /proc/PID/sched."""
    line = next(line for line in sched_text.splitlines() if line.startswith("se.slice"))
    return int(line.split(":")[1])


def thread_slice_ns(tid):
    with open(f"/proc/{tid}/sched") as f:
        return sched_slice_ns(f.read())


def kernel_has_custom_slices():
    """Asks for a CONSUMER_SLICE_NS slice in a child process and reads it
    back: the kernel takes slices of the normal policy only since 6.12
    (earlier ones accept and ignore the value)."""
    number = SYS_SCHED_SETATTR.get(os.uname().machine)
    if number is None:
        return False
    attr = SchedAttr(size=ctypes.sizeof(SchedAttr), runtime=CONSUMER_SLICE_NS)
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None).syscall(number, 0, ctypes.byref(attr), 0)
        os._exit(0 if thread_slice_ns(os.getpid()) == CONSUMER_SLICE_NS else 1)
    return os.waitpid(pid, 0)[1] == 0
