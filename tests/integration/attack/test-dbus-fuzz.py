#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Two unprivileged users call the service's whole D-Bus API at the same
time, CALLS calls each, with arguments drawn from a seeded generator:
names, directories, options and patterns good and bad, option values of
every type, their own session objects and any other's, property reads.

What must hold, call by call (each client checks its own):
- an error is one of the documented names (org.tracectl.Tracing1.Error.*)
  or one GDBus itself returns for a call that does not fit the API, and
  says something; never a time-out or a lost service;
- nothing succeeds on a session the caller does not own, and no property
  of one is readable;
- what the API's documentation decides is decided so: a new valid name
  creates a session, a taken one is AlreadyExists, a bad one
  InvalidArgument, FindSession and ListSessions give exactly the caller's
  sessions, Start and Stop follow the session's state, an unknown domain
  or option is InvalidArgument.
And at the end the service is alive and root sees exactly the sessions
each client believes it has."""

import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run

CALLS = 1000
SEEDS = {"tctest-alice": 11, "tctest-bob": 12}

ERROR = "org.tracectl.Tracing1.Error."
DOCUMENTED = {ERROR + name for name in ("NotFound", "AlreadyExists", "PermissionDenied",
                                        "InvalidArgument", "InvalidState", "NotSupported",
                                        "Failed")}
# GDBus answers these itself, for calls that do not fit an exported object.
GDBUS = {"org.freedesktop.DBus.Error." + name for name in ("UnknownMethod", "UnknownObject",
                                                           "UnknownInterface",
                                                           "UnknownProperty",
                                                           "InvalidArgs")}
DEST = "org.tracectl.Tracing1"
MANAGER_PATH = "/org/tracectl/Tracing1"
MANAGER = "org.tracectl.Tracing1.Manager"
SESSION = "org.tracectl.Tracing1.Session"
SESSION_PREFIX = "/org/tracectl/Tracing1/session/"

GOOD_NAMES = ["s0", "s1", "a.b", "x-y_z", "Z9", "n" * 64]
BAD_NAMES = ["", ".hidden", "a/b", "sp ace", "n" * 65, "caf\u00e9", "a\nb", "%s%n", "q\"uote",
             "x" * 5000, "..", "tab\t"]
INVALID_DIRECTORIES = ["relative", "/a/../b", "/tmp/./x", "x" * 5000, "/" + "x" * 5000]
UNWRITABLE_DIRECTORIES = ["/proc/self/x", "/root/x", "//"]
PATTERNS = ["example:*", "*", "p:e", "a.b-c:d_e", "", "a b", "x\";", "p:e/x", "*" * 200]
CONTEXTS = ["vpid", "vtid", "procname", "pthread_id", "", "bogus", "VPID", "vpid\n"]
OPTION_KEYS = ["subbuf-size", "num-subbuf", "overwrite", "switch-timer", "read-timer",
               "monitor-timer", "snapshot", "bogus", ""]


def client(seed, calls):
    """Runs as the user: the calls, the checks, then a report on stdout."""
    from gi.repository import Gio, GLib

    rng = random.Random(seed)
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    uid = os.getuid()
    mine = {}  # name -> path
    active = set()  # paths
    report = {"calls": 0, "ok": 0, "errors": {}}
    failures = []

    def fail(what):
        failures.append(what)

    def call(path, interface, method, signature, args):
        """(error name or None, reply)"""
        report["calls"] += 1
        params = GLib.Variant(signature, tuple(args)) if signature else None
        try:
            reply = bus.call_sync(DEST, path, interface, method, params, None,
                                  Gio.DBusCallFlags.NO_AUTO_START, 60000, None)
        except GLib.Error as error:
            name = Gio.DBusError.get_remote_error(error)
            Gio.DBusError.strip_remote_error(error)
            message = error.message or ""
            report["errors"][name] = report["errors"].get(name, 0) + 1
            if name not in DOCUMENTED | GDBUS:
                fail(f"{method}{args!r:.200} on {path}: error {name} ({message:.200})")
            elif not message.strip():
                fail(f"{method} on {path}: {name} says nothing")
            return name, None
        report["ok"] += 1
        return None, reply.unpack()

    def expect(what, got, *allowed):
        if got not in allowed:
            fail(f"{what}: {got or 'success'}, expected one of "
                 f"{[a or 'success' for a in allowed]}")

    def any_variant():
        kind = rng.randrange(7)
        if kind == 0:
            return GLib.Variant("b", rng.random() < 0.5)
        if kind == 1:
            return GLib.Variant("u", rng.choice([0, 1, 4, 999, 1000, 4096, 1 << 20, 2 ** 32 - 1]))
        if kind == 2:
            return GLib.Variant("t", rng.choice([0, 4096, 3000, 1 << 19, 1 << 26, 1 << 27,
                                                 2 ** 64 - 1]))
        if kind == 3:
            return GLib.Variant("s", rng.choice(["", "yes", "x" * 300]))
        if kind == 4:
            return GLib.Variant("i", rng.choice([-1, 0, 7]))
        if kind == 5:
            return GLib.Variant("as", ["a", "b"])
        return GLib.Variant("d", 0.5)

    def options(keys=OPTION_KEYS):
        return {rng.choice(keys): any_variant() for _ in range(rng.randrange(4))}

    def pick_name():
        return rng.choice(GOOD_NAMES if rng.random() < 0.7 else BAD_NAMES)

    def pick_path():
        """One of ours, mostly; else any session id (others' included)."""
        if mine and rng.random() < 0.6:
            return rng.choice(list(mine.values()))
        return f"{SESSION_PREFIX}{rng.randrange(0, 40)}"

    def is_mine(path):
        return path in mine.values()

    def create():
        name = pick_name()
        directory = "" if rng.random() < 0.8 else rng.choice(INVALID_DIRECTORIES +
                                                             UNWRITABLE_DIRECTORIES)
        with_options = rng.random() < 0.3
        opts = options(["snapshot", "bogus"]) if with_options else {}
        if with_options:
            err, reply = call(MANAGER_PATH, MANAGER, "CreateSessionWithOptions", "(ssa{sv})",
                              [name, directory, opts])
        else:
            err, reply = call(MANAGER_PATH, MANAGER, "CreateSession", "(ss)", [name, directory])
        bad_options = any(k != "snapshot" or v.get_type_string() != "b" for k, v in opts.items())
        what = f"CreateSession({name!r:.40}, {directory!r:.40}, {opts})"
        if name not in GOOD_NAMES or directory in INVALID_DIRECTORIES or bad_options:
            expect(what, err, ERROR + "InvalidArgument")
        elif name in mine:
            expect(what, err, ERROR + "AlreadyExists")
        elif directory in UNWRITABLE_DIRECTORIES:
            expect(what, err, ERROR + "Failed")
        else:
            # Again within the second: the default directory gets a suffix.
            expect(what, err, None)
        if err is None:
            mine[name] = reply[0]

    def find():
        name = pick_name()
        err, reply = call(MANAGER_PATH, MANAGER, "FindSession", "(s)", [name])
        if name in mine:
            expect(f"FindSession({name!r})", err, None)
            if err is None and reply[0] != mine[name]:
                fail(f"FindSession({name!r}) gave {reply[0]}, not {mine[name]}")
        else:
            expect(f"FindSession({name!r:.40})", err, ERROR + "NotFound",
                   ERROR + "InvalidArgument")

    def list_sessions():
        err, reply = call(MANAGER_PATH, MANAGER, "ListSessions", None, [])
        expect("ListSessions", err, None)
        if err is None:
            listed = {(name, path) for path, name, owner, state, out in reply[0]}
            owners = {owner for path, name, owner, state, out in reply[0]}
            if listed != {(n, p) for n, p in mine.items()} or owners - {uid}:
                fail(f"ListSessions gave {sorted(listed)} (owners {owners}), "
                     f"we have {sorted(mine.items())}")

    def destroy():
        path = pick_path()
        err, _ = call(MANAGER_PATH, MANAGER, "DestroySession", "(o)", [path])
        if is_mine(path):
            expect(f"DestroySession of our {path}", err, None)
        else:
            expect(f"DestroySession of {path}", err, ERROR + "NotFound",
                   ERROR + "PermissionDenied")
        if err is None:
            if not is_mine(path):
                fail(f"destroyed {path}, which is not ours")
            for name in [n for n, p in mine.items() if p == path]:
                del mine[name]
            active.discard(path)

    def start_stop():
        path = pick_path()
        method = rng.choice(["Start", "Stop"])
        err, _ = call(path, SESSION, method, None, [])
        if not is_mine(path):
            expect(f"{method} on {path}", err, ERROR + "NotFound", ERROR + "PermissionDenied",
                   "org.freedesktop.DBus.Error.UnknownObject",
                   "org.freedesktop.DBus.Error.UnknownMethod")
            return
        if method == "Start":
            expect(f"Start of {'active' if path in active else 'inactive'} {path}", err,
                   *([ERROR + "InvalidState"] if path in active else [None]))
            if err is None:
                active.add(path)
        else:
            expect(f"Stop of {'active' if path in active else 'inactive'} {path}", err,
                   *([None] if path in active else [ERROR + "InvalidState"]))
            active.discard(path)

    def channel_call():
        path = pick_path()
        domain = rng.choice(["ust", "ust", "ust", "kernel", "bogus", ""])
        kind = rng.randrange(5)
        if kind == 0:
            opts = options()
            err, _ = call(path, SESSION, "EnableChannel", "(ssa{sv})",
                          [domain, rng.choice(GOOD_NAMES + BAD_NAMES), opts])
            what = f"EnableChannel({domain!r}, {opts})"
            unknown = any(k not in OPTION_KEYS[:6] for k in opts)
        elif kind in (1, 2):
            method = "EnableEvent" if kind == 1 else "DisableEvent"
            err, _ = call(path, SESSION, method, "(sss)",
                          [domain, rng.choice(["", "channel0"] + GOOD_NAMES + BAD_NAMES),
                           rng.choice(PATTERNS)])
            what, unknown = f"{method}({domain!r})", False
        elif kind == 3:
            err, _ = call(path, SESSION, "AddContext", "(ssas)",
                          [domain, rng.choice(["", "channel0"]),
                           rng.sample(CONTEXTS, rng.randrange(4))])
            what, unknown = f"AddContext({domain!r})", False
        else:
            method = rng.choice(["RecordSnapshot", "ChannelStatistics"])
            err, _ = call(path, SESSION, method, None, [])
            what, unknown, domain = method, False, "ust"
        if not is_mine(path):
            if err is None:
                fail(f"{what} succeeded on {path}, not ours")
            return
        if domain not in ("ust", "kernel"):
            expect(f"{what} on our {path}", err, ERROR + "InvalidArgument")
        elif domain == "kernel":
            # Not in the tracing group: kernel tracing is not theirs. What the
            # kernel's one channel cannot honour is refused with NotSupported
            # before that, as a malformed argument is with InvalidArgument.
            expect(f"{what} on our {path}", err, ERROR + "PermissionDenied",
                   ERROR + "InvalidArgument", ERROR + "NotSupported")
        elif unknown:
            expect(f"{what} on our {path}", err, ERROR + "InvalidArgument")

    def read_property():
        path = pick_path()
        prop = rng.choice(["Name", "OwnerUid", "OutputDirectory", "State", "Channels",
                           "Problem", "Snapshot", "Bogus"])
        if rng.random() < 0.5:
            err, reply = call(path, "org.freedesktop.DBus.Properties", "Get", "(ss)",
                              [SESSION, prop])
        else:
            err, reply = call(path, "org.freedesktop.DBus.Properties", "GetAll", "(s)",
                              [SESSION])
        # GetAll leaves out what Get refuses: nothing at all, here.
        if not is_mine(path) and err is None and reply != ({},):
            fail(f"read {prop} of {path}, not ours: {reply!r:.200}")

    def kernel_probe():
        path = pick_path()
        err, _ = call(path, SESSION, "AddKernelProbe", "(sss)",
                      [rng.choice(["kprobe", "kretprobe", "uprobe", ""]),
                       rng.choice(["p1", "", "a b", "x" * 100]),
                       rng.choice(["do_sys_open", "do_sys_open+4", "", "/bin/sh:0x10", "$(id)"])])
        if err is None:
            fail(f"AddKernelProbe succeeded on {path} for a user without kernel rights")

    def manager_lists():
        method = rng.choice(["ListApplications", "ListKernelEvents"])
        err, _ = call(MANAGER_PATH, MANAGER, method, "(b)" if method == "ListKernelEvents"
                      else None, [rng.random() < 0.5] if method == "ListKernelEvents" else [])
        if method == "ListApplications":
            expect(method, err, None)
        else:
            expect(method, err, ERROR + "PermissionDenied")

    actions = [create] * 4 + [find, list_sessions, destroy, manager_lists, kernel_probe] + \
        [start_stop] * 2 + [channel_call] * 4 + [read_property] * 2
    for _ in range(calls):
        rng.choice(actions)()
    list_sessions()
    report["sessions"] = sorted(mine.items())
    report["failures"] = failures[:20]
    print(json.dumps(report), flush=True)
    return 1 if failures else 0


def test():
    with Service() as svc:
        users = [svc.add_user(name) for name in SEEDS]
        procs = [subprocess.Popen(svc._as(user) + [sys.executable, os.path.abspath(__file__),
                                                   "--client", str(SEEDS[user.name]),
                                                   str(CALLS)],
                                  env={**svc.env(user), "PYTHONDONTWRITEBYTECODE": "1"},
                                  cwd=user.home, stdout=subprocess.PIPE,
                                  text=True)
                 for user in users]
        reports = {}
        for user, proc in zip(users, procs):
            out, _ = proc.communicate(timeout=900)
            check(out.strip(), f"{user.name}'s client printed no report (exit {proc.returncode})")
            reports[user.name] = json.loads(out.strip().splitlines()[-1])
            report = reports[user.name]
            print(f"{user.name}: {report['calls']} calls, {report['ok']} succeeded, errors "
                  f"{report['errors']}, {len(report['sessions'])} sessions left")
            for failure in report["failures"]:
                print(f"  {user.name}: {failure}")
            check(proc.returncode == 0, f"{user.name}'s calls broke the API's rules")
            # The run means something only if it went deep enough.
            check(report["ok"] >= CALLS // 4 and
                  len(report["errors"]) >= 4, f"{user.name}'s calls were too shallow: {report}")
        check(svc.alive(), "tracectld died")
        listed = svc.gdbus("--object-path", MANAGER_PATH, "--method", MANAGER + ".ListSessions")
        check(listed.returncode == 0, f"root's ListSessions failed: {listed}")
        for user in users:
            for name, path in reports[user.name]["sessions"]:
                check(f"'{path}', '{name}', uint32 {user.uid}," in listed.stdout or
                      f"'{path}', '{name}', {user.uid}," in listed.stdout,
                      f"root does not see {user.name}'s session {name} at {path}: {listed.stdout}")
        total = sum(len(r["sessions"]) for r in reports.values())
        check(listed.stdout.count(SESSION_PREFIX) == total,
              f"root sees other sessions than the clients' {total}: {listed.stdout}")


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--client":
    sys.exit(client(int(sys.argv[2]), int(sys.argv[3])))
run(test)
