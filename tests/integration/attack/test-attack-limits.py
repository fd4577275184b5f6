#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An unprivileged user plays the attacker against the per-user limits.

mallory creates sessions until refused (another uid under her login uid
may not add one), floods channels (a 64 MiB x 1024 one too), floods event
descriptions over several connections (many fields each, to weigh the
most) and holds every application connection she may, half of them from a
second uid that shares her login uid (a subordinate uid): each is refused
at its limit, naming it, tracectld's peak RSS stays under 64 MB, and
meanwhile victor records a session with every event intact. Last, a
[User NAME] group of the configuration file raises one user's limit."""

import json
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, is_sanitized, log, proc_status, require, run
from tracelib import expected_all_types, read_trace

LIMIT_ERROR = "org.tracectl.Tracing1.Error.LimitExceeded"
MAGIC = 0x54434131
REGISTER, EVENT, EVENTS_END, EVENTS_DONE = 1, 2, 3, 23
ABI_VERSION = 5  # TRACECTL_ABI_VERSION
FIELDS_MAX = 32  # TRACECTL_ABI_FIELDS_MAX
SIGNED = 1
CONNECTIONS = 1024  # MaxConnections
K = 300
RSS_GOAL_KB = 64 * 1024
SUBORDINATE_UID_OFFSET = 200000


def message(kind, body):
    return struct.pack("=IIII", MAGIC, kind, 16 + len(body), 0) + body


def register_message():
    return message(REGISTER, struct.pack("=IIIIiI16s", ABI_VERSION, 64, 0, 1, os.getpid(),
                                         os.getuid(), b"attacker"))


def event_message(index, nr_fields):
    fields = b"".join(struct.pack("=48sII", f"f{i}".encode(), SIGNED, 8)
                      for i in range(nr_fields))
    fields += bytes(56 * (FIELDS_MAX - nr_fields))
    return message(EVENT, struct.pack("=IiII128s", index, 0, nr_fields, 0,
                                      f"flood:e{index}".encode()) + fields)


def connect(rundir):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sock.connect(os.path.join(rundir, "app.sock"))
    sock.settimeout(10)
    return sock


def describe(rundir, count, nr_fields):
    """A connection that describes count events; it if was registered
    (EVENTS_DONE came), else None (the service closed it)."""
    try:
        sock = connect(rundir)
        sock.send(register_message())
        for index in range(count):
            sock.send(event_message(index, nr_fields))
        sock.send(message(EVENTS_END, struct.pack("=II", 1, 0)))
        while True:
            data = sock.recv(8192)
            if not data:
                return None
            if struct.unpack_from("=IIII", data)[1] == EVENTS_DONE:
                return sock
    except OSError:
        return None


# Helpers run as the attacker (each its own process, see the end).

def attack_bus():
    """Sessions, channels and a huge channel over the bus; prints what
    came of each as JSON."""
    from gi.repository import Gio, GLib

    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)

    def call(path, interface, method, args):
        try:
            return bus.call_sync("org.tracectl.Tracing1", path, f"org.tracectl.Tracing1.{interface}",
                                 method, args, None, Gio.DBusCallFlags.NONE, 30000, None), None
        except GLib.Error as error:
            return None, f"{Gio.DBusError.get_remote_error(error)}: {error.message}"

    result = {"sessions": 0, "channels": 0}
    paths = []
    for i in range(100):
        reply, error = call("/org/tracectl/Tracing1", "Manager", "CreateSession",
                            GLib.Variant("(ss)", (f"s{i}", "")))
        if error:
            result["session_error"] = error
            break
        paths.append(reply.unpack()[0])
    result["sessions"] = len(paths)
    huge = {"subbuf-size": GLib.Variant("t", 64 << 20), "num-subbuf": GLib.Variant("u", 1024)}
    _, result["huge_error"] = call(paths[0], "Session", "EnableChannel",
                                   GLib.Variant("(ssa{sv})", ("ust", "huge", huge)))
    small = {"subbuf-size": GLib.Variant("t", 4096), "num-subbuf": GLib.Variant("u", 2)}
    errors = set()
    for n in range(70):  # 70 in the first session: over the 64 of one session
        _, error = call(paths[0], "Session", "EnableChannel",
                        GLib.Variant("(ssa{sv})", ("ust", f"c{n}", small)))
        if error:
            errors.add(error.split("User")[1].split(";")[0] if "User" in error else error)
        else:
            result["channels"] += 1
    for path in paths[1:]:  # then thousands more, over the 256 in all
        for n in range(40):
            _, error = call(path, "Session", "EnableChannel",
                            GLib.Variant("(ssa{sv})", ("ust", f"c{n}", small)))
            if error:
                errors.add(error.split("User")[1].split(";")[0] if "User" in error else error)
            else:
                result["channels"] += 1
    result["channel_errors"] = sorted(errors)
    print(json.dumps(result), flush=True)


def create_sessions(count):
    """As the user of the configuration's override: count sessions, then
    one more; prints the error of the last."""
    from gi.repository import Gio, GLib

    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
    result = {"created": 0, "error": None}
    for i in range(count + 1):
        try:
            bus.call_sync("org.tracectl.Tracing1", "/org/tracectl/Tracing1",
                          "org.tracectl.Tracing1.Manager", "CreateSession",
                          GLib.Variant("(ss)", (f"v{i}", "")), None, Gio.DBusCallFlags.NONE,
                          30000, None)
            result["created"] += 1
        except GLib.Error as error:
            result["error"] = error.message
            break
    print(json.dumps(result), flush=True)


def flood_events(rundir):
    """Descriptions past each limit; prints what was kept and holds it
    until stdin closes."""
    result = {}
    # One application past its own limit.
    result["one_app_over"] = describe(rundir, 16385, 0) is not None
    time.sleep(0.5)  # the service frees what the dropped one held
    # Four at their limit fill the user's; a fifth may not add one.
    held = [describe(rundir, 16384, 0) for _ in range(4)]
    result["four_apps"] = sum(1 for s in held if s)
    result["fifth_app"] = describe(rundir, 1, 0) is not None
    for sock in held:
        if sock:
            sock.close()
    time.sleep(0.5)  # the service sees the hang-ups
    # The heaviest descriptions, from six connections: the memory limit.
    held = [describe(rundir, 8000, FIELDS_MAX) for _ in range(6)]
    result["heavy_apps"] = sum(1 for s in held if s)
    print(json.dumps(result), flush=True)
    sys.stdin.read()


def become(loginuid, uid, gid):
    """Runs as root: takes loginuid (as a login would), then becomes uid.
    False, having said so, when the login uid cannot be set here."""
    import resource

    try:
        with open("/proc/self/loginuid", "w") as f:
            f.write(str(loginuid))
    except OSError as error:
        print("no-loginuid", error, flush=True)
        sys.stdin.read()
        return False
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    return True


def hold_connections(rundir, loginuid, uid, gid, count):
    """Holds count registered connections as uid under loginuid, then
    tries one more; holds them until stdin closes."""
    if not become(loginuid, uid, gid):
        return
    held = [describe(rundir, 0, 0) for _ in range(count)]
    print("held", sum(1 for s in held if s), flush=True)
    if sys.stdin.readline().strip() == "extra":
        print("extra", "taken" if describe(rundir, 0, 0) else "refused", flush=True)
    sys.stdin.read()


# The test.

def helper(svc, user, *args, as_root=False):
    prefix = [] if as_root else svc._as(user)
    env = {**svc.env(user), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.Popen(prefix + [sys.executable, os.path.abspath(__file__), *args],
                            env=env, cwd=user.home, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def victim_records(svc, victor):
    out = os.path.join(victor.home, f"trace-{time.monotonic_ns()}")
    started = time.monotonic()
    svc.cli("create", "work", "--output", out, user=victor)
    svc.cli("enable-event", "-u", "example:*", user=victor)
    svc.cli("start", user=victor)
    svc.run_app("--count", str(K), user=victor)
    svc.cli("stop", user=victor)
    svc.cli("destroy", user=victor)
    log(f"victor's session took {time.monotonic() - started:.2f} s")
    values = [fields for name, fields in read_trace(out) if name == "example:all_types"]
    check(len(values) == K, f"victor's trace has {len(values)} events, not {K}")
    for i, fields in enumerate(values):
        expected = expected_all_types(i)
        check({k: fields[k] for k in expected} == expected, f"victor's event {i}: {fields}")


def test():
    config = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tracectld-{os.getpid()}.conf")
    with open(config, "w") as f:
        f.write("[Limits]\n")
    try:
        with Service(args=["--config", config]) as svc:
            attack(svc, config)
    finally:
        os.unlink(config)


def attack(svc, config):
    mallory = svc.add_user("tctest-mallory")
    victor = svc.add_user("tctest-victor")
    mallory2 = svc.add_user("tctest-mallory2")
    pid = svc.proc.pid
    idle_kb = proc_status(pid, "VmHWM")

    bus = helper(svc, mallory, "--bus")
    result = json.loads(bus.stdout.readline())
    bus.wait(timeout=60)
    log("bus attack:", result)
    check(result["sessions"] == 64, f"mallory created {result['sessions']} sessions")
    check(LIMIT_ERROR in result["session_error"] and "'MaxSessions' of 64" in
          result["session_error"] and config in result["session_error"],
          f"the 65th session's refusal: {result['session_error']}")
    check(result["huge_error"] and "'MaxChannelBufferBytes'" in result["huge_error"],
          f"the 64 MiB x 1024 channel: {result['huge_error']}")
    check(result["channels"] == 256, f"mallory created {result['channels']} channels")
    check(any("'MaxChannelsPerSession' of 64" in e for e in result["channel_errors"]) and
          any("'MaxChannels' of 256" in e for e in result["channel_errors"]),
          f"channel refusals: {result['channel_errors']}")

    # Another uid under mallory's login (as her subordinate uids would
    # be) shares her sessions' limit.
    proc = helper(svc, mallory2, "--sessions-as", str(mallory.uid), str(mallory2.uid),
                  str(mallory2.uid), "0", as_root=True)
    line = proc.stdout.readline()
    proc.stdin.close()
    proc.wait(timeout=60)
    require(not line.startswith("no-loginuid"), f"cannot set a login uid: {line}")
    result = json.loads(line)
    check(result["created"] == 0 and f"User {mallory.uid} would hold 65 sessions" in
          (result["error"] or ""), f"a session under mallory's login: {result}")

    flood = helper(svc, mallory, "--events", svc.rundir)
    result = json.loads(flood.stdout.readline())
    log("event flood:", result)
    check(not result["one_app_over"], "an application kept 16385 event descriptions")
    check(result["four_apps"] == 4, f"{result['four_apps']} of 4 applications of 16384 kept")
    check(not result["fifth_app"], "a fifth application added to 65536 descriptions")
    check(result["heavy_apps"] < 6, "six applications of 8000 heavy descriptions all kept")
    hwm_kb = proc_status(pid, "VmHWM")
    print(f"figure service_rss_mb_under_attack ours={hwm_kb / 1024:.1f} "
          f"anchor={idle_kb / 1024:.1f} ratio={hwm_kb / idle_kb:.2f} unit=MB", flush=True)
    if is_sanitized(pid):
        log("AddressSanitizer build: its RSS says nothing, not checked against the goal")
    else:
        check(hwm_kb < RSS_GOAL_KB, f"tracectld peaked at {hwm_kb} kB")
    victim_records(svc, victor)
    flood.stdin.close()
    flood.wait(timeout=30)
    time.sleep(1)  # the service sees the hang-ups and gives the connections back

    # Connections: half from mallory, half from a uid that shares her
    # login uid; both count against her.
    holders = [helper(svc, mallory, "--connections", svc.rundir, str(mallory.uid), str(uid),
                      str(mallory.uid), str(CONNECTIONS // 2), as_root=True)
               for uid in (mallory.uid, mallory.uid + SUBORDINATE_UID_OFFSET)]
    try:
        for holder in holders:
            line = holder.stdout.readline().split()
            require(line[:1] != ["no-loginuid"], f"cannot set a login uid: {line}")
            check(line == ["held", str(CONNECTIONS // 2)], f"connections held: {line}")
        holders[1].stdin.write("extra\n")
        holders[1].stdin.flush()
        extra = holders[1].stdout.readline().split()
        check(extra == ["extra", "refused"], f"the subordinate uid's extra connection: {extra}")
        victim_records(svc, victor)
    finally:
        for holder in holders:
            holder.stdin.close()
            holder.wait(timeout=30)

    log_text = open(svc.log_path).read()
    for needle in ("event descriptions in one application, over the limit "
                   "'MaxEventDescriptionsPerApplication' of 16384",
                   "'MaxEventDescriptions' of 65536", "'MaxMetadataBytes'",
                   f"by its login uid {mallory.uid}: User {mallory.uid} would hold "
                   f"{CONNECTIONS + 1} application connections"):
        check(needle in log_text, f"the log does not say {needle!r}")
    check(svc.alive(), "tracectld died")

    # The administrator raises one user's limit.
    with open(config, "w") as f:
        f.write(f"[Limits]\nMaxSessions=3\n[User {victor.name}]\nMaxSessions=5\n")
    svc.restart()
    for user, allowed in ((victor, 5), (mallory, 3)):
        proc = helper(svc, user, "--sessions", str(allowed))
        result = json.loads(proc.stdout.readline())
        proc.wait(timeout=60)
        check(result["created"] == allowed and f"'MaxSessions' of {allowed}" in result["error"],
              f"{user.name} under MaxSessions={allowed}: {result}")


if __name__ == "__main__" and len(sys.argv) > 1:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "--bus":
        attack_bus()
    elif mode == "--sessions":
        create_sessions(int(args[0]))
    elif mode == "--events":
        flood_events(args[0])
    elif mode == "--connections":
        hold_connections(args[0], *map(int, args[1:]))
    elif mode == "--sessions-as":
        if become(*map(int, args[:3])):
            create_sessions(int(args[3]))
    sys.exit(0)
run(test)
