# SPDX-License-Identifier: LGPL-2.1-or-later
"""The attacks of one local user on the others' use of the service, shared
by the fairness test and the multi-user benchmark: a stopped consumer, mute
applications, a flood of calls, and applications describing many events.
Each attack runs as the attacking user until stop() is called."""

import os
import signal
import struct
import subprocess
import threading
import time

from tclib import consumer_pids

MAGIC = 0x54434131
REGISTER, EVENT, EVENTS_END = 1, 2, 3
FIELDS_MAX = 32
ABI_VERSION = 5  # TRACECTL_ABI_VERSION
U64 = 1  # TRACECTL_FIELD_INTEGER, 8 bytes


def _header(kind, size):
    return struct.pack("=IIII", MAGIC, kind, size, 0)


def _register():
    # The pid and uid written here are ignored: the service takes SO_PEERCRED.
    body = struct.pack("=IIIIiI16s", ABI_VERSION, 64, 0, 1, 0, 0, b"mute")
    return _header(REGISTER, 16 + len(body)) + body


def _event(index, name):
    packed = struct.pack("=48sII", b"x", U64, 8)
    packed += b"\0" * (56 * FIELDS_MAX - len(packed))
    body = struct.pack("=IiII128s", index, 13, 1, 0, name.encode()) + packed
    return _header(EVENT, 16 + len(body)) + body


def _events_end(batch=1):
    return _header(EVENTS_END, 24) + struct.pack("=II", batch, 0)


# Run as the attacker: registers `count` applications with `events` event
# descriptions each, prints "registered", then never reads its sockets.
MUTE_SCRIPT = r"""
import socket, struct, sys, time
path, count, events, churn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "churn"
register, end, template = (bytes.fromhex(m) for m in sys.argv[5:8])

def mute_app(generation):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
        s.send(register)
        for i in range(events):
            # The index (offset 16) and the name (offset 32) of event i.
            name = f"mute:g{generation}_{i}".encode().ljust(128, b"\0")
            s.send(template[:16] + struct.pack("=I", i) + template[20:32] + name
                   + template[160:])
        s.send(end)
    except OSError as e:  # refused by a limit: the attack goes on without it
        print(f"refused: {e}", file=sys.stderr, flush=True)
    return s

socks = [mute_app(n) for n in range(count)]
print("registered", flush=True)
generation = count
while churn:
    # New applications with new event classes, whose metadata must reach
    # the stopped consumer; the oldest go, the count stays.
    socks.append(mute_app(generation))
    generation += 1
    socks.pop(0).close()
    time.sleep(0.1)
time.sleep(3600)
"""

# Run as the attacker under /usr/bin/python3 (Gio): a session with
# `channels` channels of the smallest buffers, started.
CHANNELS_SCRIPT = r"""
import os, sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib
name, channels = sys.argv[1], int(sys.argv[2])
bus = Gio.DBusConnection.new_for_address_sync(
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
def call(path, interface, method, args=None, reply=None):
    return bus.call_sync("org.tracectl.Tracing1", path, "org.tracectl.Tracing1." + interface,
                         method, args, reply, Gio.DBusCallFlags.NONE, 60000, None)
path = call("/org/tracectl/Tracing1", "Manager", "CreateSession",
            GLib.Variant("(ss)", (name, "")), GLib.VariantType.new("(o)")).unpack()[0]
made = 0
try:
    for i in range(channels):
        options = {"subbuf-size": GLib.Variant("t", 4096), "num-subbuf": GLib.Variant("u", 2)}
        call(path, "Session", "EnableChannel", GLib.Variant("(ssa{sv})", ("ust", f"ch{i}", options)))
        made += 1
    call(path, "Session", "Start")
except GLib.Error as e:  # refused by a limit: the attack goes on with what it has
    print(f"refused after {made} channels: {e.message}", file=sys.stderr, flush=True)
print(made, flush=True)
"""


def consumers_of(svc, uid):
    """The pids of uid's consumers, children of the service."""
    return consumer_pids(svc, uid)


class Attack:
    """Everything the attacker does, in threads and processes of its own."""

    def __init__(self, svc, user, flood_threads=20, mute_apps=4, describing_apps=0,
                 events_per_app=0, channels=0):
        """mute_apps register one new event class each, and are replaced
        by new ones every 100 ms; describing_apps (mute too) describe
        events_per_app events each; channels: a started session with that
        many channels."""
        self.svc = svc
        self.user = user
        self.flood_threads = flood_threads
        self.mute_apps = mute_apps
        self.describing_apps = describing_apps
        self.events_per_app = events_per_app
        self.channels = channels
        self.channels_made = 0
        self.stopping = threading.Event()
        self.threads = []
        self.procs = []
        self.calls = 0
        self.stopped_consumers = set()

    def start(self):
        # A consumer to stop: the attacker's first session starts it.
        self.svc.cli("create", "attacker-0", user=self.user)
        self.svc.cli("enable-event", "-u", "*", "-s", "attacker-0", user=self.user)
        self.svc.cli("start", "attacker-0", user=self.user)
        if self.channels:
            self._make_channels()
        self._spawn(self._keep_consumer_stopped)
        if self.mute_apps:
            self._start_mute_apps(self.mute_apps, 1, churn=True)
        if self.describing_apps:
            self._start_mute_apps(self.describing_apps, self.events_per_app)
        for i in range(self.flood_threads):
            self._spawn(self._flood, i)
        # Let the flood fill the queue before the victim starts.
        time.sleep(0.5)

    def _spawn(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self.threads.append(thread)

    def _keep_consumer_stopped(self):
        """SIGSTOP every consumer of the attacker, including the ones the
        service starts again after killing a stopped one."""
        while not self.stopping.is_set():
            for pid in consumers_of(self.svc, self.user.uid):
                if pid not in self.stopped_consumers:
                    try:
                        os.kill(pid, signal.SIGSTOP)
                        self.stopped_consumers.add(pid)
                    except ProcessLookupError:
                        pass
            time.sleep(0.02)

    def _make_channels(self):
        proc = subprocess.run(
            self.svc._as(self.user) + ["/usr/bin/python3", "-c", CHANNELS_SCRIPT,
                                       "attacker-channels", str(self.channels)],
            env=self.svc.env(self.user), capture_output=True, text=True, timeout=600,
            check=True)
        self.channels_made = int(proc.stdout)

    def _start_mute_apps(self, count, events, churn=False):
        messages = [_register(), _events_end(), _event(0, "mute:ev0")]
        proc = subprocess.Popen(
            self.svc._as(self.user) + ["/usr/bin/python3", "-c", MUTE_SCRIPT,
                                       os.path.join(self.svc.rundir, "app.sock"),
                                       str(count), str(events),
                                       "churn" if churn else "hold"]
            + [m.hex() for m in messages],
            stdout=subprocess.PIPE, text=True)
        self.procs.append(proc)
        line = proc.stdout.readline().strip()
        if line != "registered":
            raise AssertionError(f"the mute applications did not register: {line!r}")

    def _flood(self, index):
        name = f"attacker-{index + 1}"
        cycle = (["create", name], ["enable-event", "-u", "*", "-s", name], ["start", name],
                 ["list"], ["stop", name], ["destroy", name], ["start", "attacker-0"],
                 ["stop", "attacker-0"])
        while not self.stopping.is_set():
            for args in cycle:
                if self.stopping.is_set():
                    return
                try:
                    self.svc.cli(*args, user=self.user, check_ok=False, timeout=60)
                except subprocess.TimeoutExpired:
                    pass
                self.calls += 1

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=120)
        for pid in consumers_of(self.svc, self.user.uid):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            proc.kill()
            proc.wait()


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


# Run as the victim under /usr/bin/python3 (Gio): `cycles` times, creates
# a session, enables example:*, starts it, runs the example application
# (`count` events), stops and destroys it; every D-Bus call is timed in
# process, so that the figures are the service's and not process start-up,
# and so is each run of the application (registration included). Prints
# {"latencies": [[method, seconds], ...], "outputs": [dir, ...],
#  "records": [seconds, ...]}.
VICTIM_SCRIPT = r"""
import json, os, subprocess, sys, time
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib

prefix, cycles, count, app = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
bus = Gio.DBusConnection.new_for_address_sync(
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
latencies, outputs, records = [], [], []

def call(path, interface, method, args=None, reply=None):
    started = time.monotonic()
    result = bus.call_sync("org.tracectl.Tracing1", path, "org.tracectl.Tracing1." + interface,
                           method, args, reply, Gio.DBusCallFlags.NONE, 300000, None)
    latencies.append([method, time.monotonic() - started])
    return result

for n in range(cycles):
    out = os.path.join(os.environ["HOME"], f"{prefix}-{n}")
    path = call("/org/tracectl/Tracing1", "Manager", "CreateSession",
                GLib.Variant("(ss)", (f"{prefix}-{n}", out)),
                GLib.VariantType.new("(o)")).unpack()[0]
    call(path, "Session", "EnableEvent", GLib.Variant("(sss)", ("ust", "", "example:*")))
    call(path, "Session", "Start")
    started = time.monotonic()
    subprocess.run([app, "--count", str(count)], check=True, stdout=subprocess.DEVNULL)
    records.append(time.monotonic() - started)
    call(path, "Session", "Stop")
    call("/org/tracectl/Tracing1", "Manager", "DestroySession", GLib.Variant("(o)", (path,)))
    outputs.append(out)
print(json.dumps({"latencies": latencies, "outputs": outputs, "records": records}), flush=True)
"""


def start_victim(svc, user, prefix, cycles, count, program):
    """Starts the victim's cycles as user (None: root) in the background;
    finish_victim() collects them."""
    env = svc.env(user)
    env["TRACECTL_UST_REGISTER_TIMEOUT"] = "5000"
    return subprocess.Popen(
        svc._as(user)
        + ["/usr/bin/python3", "-c", VICTIM_SCRIPT, prefix, str(cycles), str(count), program],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=user.home if user else "/")


def finish_victim(proc, timeout):
    """The latencies [(method, seconds)] of a victim's calls, its output
    directories and how long each run of its application took (seconds);
    the victim must be done within timeout seconds."""
    import json
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"the victim's cycles did not end within {timeout} s")
    if proc.returncode != 0:
        raise AssertionError(f"the victim failed ({proc.returncode}): {err[-3000:]}")
    result = json.loads(out)
    return ([tuple(entry) for entry in result["latencies"]], result["outputs"],
            result["records"])
