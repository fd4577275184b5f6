# SPDX-License-Identifier: LGPL-2.1-or-later
"""What every benchmark prints: one line per figure, ours beside the
anchor measured in the same run,

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

and the machine it ran on. A figure that cannot be true (negative, or 0
where something must have run) is a fault of the benchmark: it ends the
run instead of being printed."""

import os
import shutil
import sys

from tclib import Service, require

LTTNG_UST_HEADER = "/usr/include/x86_64-linux-gnu/lttng/tracepoint.h"


def require_lttng_ust():
    """Skips the benchmark unless LTTng 2.13 (the anchor) is installed."""
    require(shutil.which("lttng-sessiond") and os.path.exists(LTTNG_UST_HEADER),
            "LTTng 2.13 is not installed (apt-get install lttng-tools liblttng-ust-dev)")


def side_by_side(tmp, ours, lttng, measure):
    """(measure(ours), measure(lttng)): ours(tmp, svc) made beside a
    service of the build's, then lttng(tmp), which starts LTTng's session
    daemon and is closed after, whatever happens."""
    with Service() as svc:
        mine = measure(ours(tmp, svc))
    anchor = lttng(tmp)
    try:
        return mine, measure(anchor)
    finally:
        anchor.close()


def figure(name, ours, anchor, unit, may_be_zero=False):
    """Prints one figure; may_be_zero for counts whose best value is 0
    (events lost, wake-ups of an idle process)."""
    for side, value in (("ours", ours), ("anchor", anchor)):
        if value < 0 or (value == 0 and not may_be_zero):
            print(f"{name}: {side}={value} cannot be true: nothing was measured",
                  file=sys.stderr, flush=True)
            sys.exit(1)
    if anchor:
        ratio = f"{ours / anchor:.3f}"
    else:
        ratio = "0.000" if ours == 0 else "inf"
    print(f"figure {name} ours={ours:.3f} anchor={anchor:.3f} ratio={ratio} unit={unit}",
          flush=True)


def machine():
    """The CPU model, the number of CPUs and the clock source, which every
    figure is reported with."""
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            clock = f.read().strip()
    except OSError:
        clock = "unknown"
    return f"{model}, {os.cpu_count()} CPUs, clock source {clock}"


def thread_cpu_ns(pids):
    """{(pid, tid): scheduler nanoseconds} of every thread of pids: per
    thread, so that a thread that ends between two readings still counts
    with what it used until the last one (a sum over the threads alive
    at each reading could come out negative)."""
    found = {}
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # a process that ended meanwhile
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    found[(pid, task)] = int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                pass  # a thread that ended meanwhile
    return found


def tree_bytes(path):
    """The bytes of every file under path."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def top_lossless_rate(trial, low, high, step):
    """Bisection, on a log scale, for the highest rate between low and
    high at which trial(rate), which returns (lossless, value), is
    lossless, until the bounds are a factor step apart. Returns the best
    value of a lossless trial and that highest rate."""
    best = 0.0
    while high / low > step:
        rate = (low * high) ** 0.5
        lossless, value = trial(rate)
        if lossless:
            low, best = rate, max(best, value)
        else:
            high = rate
    return best, low
