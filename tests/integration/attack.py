# SPDX-License-Identifier: LGPL-2.1-or-later
"""The attacks of one local user on the others' use of the service, shared
by the fairness test and the multi-user benchmark: a stopped consumer, mute
applications, a flood of calls, and applications describing many events.
Each attack runs as the attacking user until stop() is called."""

import os
import signal
import socket
import struct
import subprocess
import threading
import time

from tclib import children

MAGIC = 0x54434131
REGISTER, EVENT, EVENTS_END = 1, 2, 3
FIELDS_MAX = 32
ABI_VERSION = 2  # TRACECTL_ABI_VERSION
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
import socket, sys, time
path, count, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
messages = [bytes.fromhex(m) for m in sys.argv[4:]]
register, end, event_hex = messages[0], messages[1], messages[2:]
socks = []
for _ in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    s.send(register)
    for i in range(events):
        s.send(event_hex[i])
    s.send(end)
    socks.append(s)
print("registered", flush=True)
time.sleep(3600)
"""


def consumers_of(svc, uid):
    """The pids of uid's consumers, children of the service."""
    found = []
    for pid in children(svc.proc.pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
        except OSError:
            continue
        if "tracectl-consum" in status.split("\n", 1)[0] and f"\nUid:\t{uid}\t" in status:
            found.append(pid)
    return found


class Attack:
    """Everything the attacker does, in threads and processes of its own."""

    def __init__(self, svc, user, flood_threads=20, mute_apps=4, events_per_app=1):
        self.svc = svc
        self.user = user
        self.flood_threads = flood_threads
        self.mute_apps = mute_apps
        self.events_per_app = events_per_app
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
        self._spawn(self._keep_consumer_stopped)
        if self.mute_apps:
            self._start_mute_apps()
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

    def _start_mute_apps(self):
        messages = [_register(), _events_end()]
        messages += [_event(i, f"mute:ev{i}") for i in range(self.events_per_app)]
        proc = subprocess.Popen(
            self.svc._as(self.user) + ["/usr/bin/python3", "-c", MUTE_SCRIPT,
                                  os.path.join(self.svc.rundir, "app.sock"),
                                  str(self.mute_apps), str(self.events_per_app)]
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
# process, so that the figures are the service's and not process start-up.
# Prints {"latencies": [[method, seconds], ...], "outputs": [dir, ...]}.
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
latencies, outputs = [], []

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
    subprocess.run([app, "--count", str(count)], check=True, stdout=subprocess.DEVNULL)
    call(path, "Session", "Stop")
    call("/org/tracectl/Tracing1", "Manager", "DestroySession", GLib.Variant("(o)", (path,)))
    outputs.append(out)
print(json.dumps({"latencies": latencies, "outputs": outputs}), flush=True)
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
    """The latencies [(method, seconds)] and output directories of a victim,
    which must be done within timeout seconds."""
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
    return [tuple(entry) for entry in result["latencies"]], result["outputs"]
