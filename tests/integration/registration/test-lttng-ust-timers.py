#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The channel timers of LTTng-UST applications' channels. Three channels
of 1 MiB sub-buffers, which the application's 20 ticks never fill, get
the same ticks:

- `switched`, with `--switch-timer 200000`: once the application has
  ended, and with the session still recording (no stop, no rotation),
  its stream files hold every tick, which babeltrace2 reads: the switch
  timer closed the partly filled sub-buffer and the consumer wrote it;
- `held`, no switch timer, `--monitor-timer 100000`: its stream files
  stay empty until the stop, and its statistics move while the
  application records (the bytes in use grow between two looks, then
  hold the 20 ticks' bytes);
- `unsampled`, no switch timer, `--monitor-timer 3600000000` (an hour):
  the bytes in use stay 0, as no sample was taken yet: the statistics
  are the monitor timer's samples, not read when asked.

After the stop, the trace holds every tick of every channel. A read
timer of 0 (`--read-timer 0`, on `held`) is taken: the consumer then
reads on the application's wake-ups and at the stop only."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, wait_for
from lttnglib import LTTNG_APP, require_served, require_tools, tick_counts

SECONDS = 2
TICKS = list(range(SECONDS * 10))
CHANNELS = {
    "switched": ["--switch-timer", "200000"],
    "held": ["--monitor-timer", "100000", "--read-timer", "0"],
    "unsampled": ["--monitor-timer", "3600000000"],
}


def trace_dir(out):
    for root, _, files in os.walk(out):
        if "metadata" in files and os.sep + "lttng-ust" + os.sep in root:
            return root
    return None


def stream_bytes(path, channel):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)
               if f.startswith(channel + "_"))


def channel_copy(path, channel, top):
    """The metadata and the stream files of one channel, copied apart (the
    other channels' files are empty before the stop)."""
    copy = os.path.join(top, "copy-" + channel)
    shutil.rmtree(copy, ignore_errors=True)
    os.mkdir(copy)
    shutil.copy(os.path.join(path, "metadata"), copy)
    for name in os.listdir(path):
        if name.startswith(channel + "_") and os.path.getsize(os.path.join(path, name)):
            shutil.copy(os.path.join(path, name), copy)
    return copy


def statistics(svc):
    return {channel["name"]: channel["statistics"]
            for channel in svc.session("timers")["channels"]}


def test():
    require_tools()
    top = tempfile.mkdtemp(prefix="tctest-lttng-timers-")
    out = os.path.join(top, "trace")
    with Service(args=["--lttng-ust"]) as svc:
        require_served(svc)
        svc.cli("create", "timers", "--output", out)
        for name, options in CHANNELS.items():
            svc.cli("enable-channel", "-u", name, "--subbuf-size", "1M", "--num-subbuf", "2",
                    *options)
            svc.cli("enable-event", "-u", "-c", name, "tc_lttng_test:tick")
        svc.cli("start")
        app = subprocess.Popen([LTTNG_APP, str(SECONDS)], env=svc.env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        svc.apps.append(app)
        check(app.stdout.readline().startswith("ready"), "the application did not start")
        time.sleep(0.8)
        early = statistics(svc)["held"]["used_bytes"]
        app.wait(timeout=60)
        check(app.returncode == 0, f"the application failed: {app.stderr.read()}")
        path = trace_dir(out)
        check(path is not None, f"no LTTng-UST trace under {out}")

        # The switch timer, not a stop, brings the last ticks out.
        wait_for(lambda: stream_bytes(path, "switched") > 0, 5,
                 "the switched channel's first packet")
        time.sleep(0.5)
        ticks = tick_counts(channel_copy(path, "switched", top))
        check(ticks == TICKS, f"before the stop, the switched channel holds ticks {ticks}")
        for name in ("held", "unsampled"):
            check(stream_bytes(path, name) == 0,
                  f"the {name} channel wrote {stream_bytes(path, name)} bytes before the stop")
        log(f"switch timer: {len(ticks)} ticks readable before the stop, the others empty")

        # The monitor timer's samples.
        time.sleep(0.3)
        stats = statistics(svc)
        held, unsampled = stats["held"], stats["unsampled"]
        check(0 < early < held["used_bytes"] <= held["peak_used_bytes"],
              f"held's bytes in use {early} while recording, then {held}")
        check(unsampled["used_bytes"] == 0,
              f"an hour's monitor timer, yet bytes in use {unsampled}")
        log(f"monitor timer: bytes in use {early}, then {held['used_bytes']}; "
            f"unsampled {unsampled['used_bytes']}")

        svc.cli("stop")
        for name in CHANNELS:
            ticks = tick_counts(channel_copy(path, name, top))
            check(ticks == TICKS, f"after the stop, {name} holds ticks {ticks}")
        svc.cli("destroy", "timers")
        check(svc.alive(), "tracectld died")
    shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    test()
