#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl --json: every command that prints something prints one JSON
value of the shape docs/json.md documents (keys and their types), whose
values match the service's state; --json=pretty indents the same value,
and --json may come before or after the command."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, mount_tracefs, run

OPTIONAL_STR = (str, type(None))

# The shapes of docs/json.md: {key: type}, {key: {nested}}, {key: [element]}.
SESSION_ENTRY = {"name": str, "path": str, "owner_uid": int, "state": str,
                 "output_directory": str, "current": bool}
STATISTICS = {"buffer_bytes": int, "used_bytes": int, "peak_used_bytes": int,
              "discarded_events": int, "packets_written": int}
ENABLING = {"pattern": str, "loglevel": (int, type(None)), "loglevel_name": OPTIONAL_STR,
            "loglevel_only": bool, "exclusions": [str], "filter": OPTIONAL_STR}
CHANNEL = {"name": str, "domain": str, "subbuf_size": int, "num_subbuf": int,
           "events": [str], "enablings": [ENABLING], "settings": dict,
           "statistics": (dict, type(None))}
AGENT_RULE = {"domain": str, "logger": str, "loglevel": (int, type(None)),
              "loglevel_name": OPTIONAL_STR, "loglevel_only": bool, "filter": OPTIONAL_STR}
SESSION = {"name": str, "path": str, "owner_uid": int, "state": str, "snapshot": bool,
           "output_directory": str, "problem": OPTIONAL_STR, "channels": [CHANNEL],
           "agent_rules": [AGENT_RULE]}
SHAPES = {
    "version": {"client_version": str, "service_version": OPTIONAL_STR},
    "create": {"name": str, "path": str, "output_directory": str, "output_url": str,
               "live_timer_us": int, "snapshot": bool},
    "list": {"sessions": [SESSION_ENTRY]},
    "list NAME": SESSION,
    "list -u": {"applications": [{"pid": int, "uid": int, "process_name": str,
                                  "tracer_version": str, "kind": str,
                                  "events": [{"name": str, "log_level": int,
                                              "fields": str}],
                                  "app_contexts": [{"name": str, "type": str}]}]},
    "list -k": {"syscalls": bool, "events": [str], "names": [str]},
    "list -p": {"agents": [{"domain": str, "pid": int, "uid": int, "process_name": str,
                            "loggers": [str]}]},
    "enable-channel": {"session": str, "domain": str, "channel": str},
    "enable-event": {"session": str, "domain": str, "channel": str, "enabled": bool,
                     "events": [str], "failed": [str]},
    "add-context": {"session": str, "domain": str, "channel": OPTIONAL_STR,
                    "contexts": [str]},
    "start": {"name": str, "path": str, "state": str},
    "snapshot record": {"session": str, "directory": str},
    "destroy": {"destroyed": [{"name": str, "path": str, "owner_uid": int}]},
}


def check_shape(value, shape, where):
    """value has exactly the keys of shape, each of its type."""
    if isinstance(shape, dict):
        check(isinstance(value, dict), f"{where}: not an object: {value!r}")
        check(set(value) == set(shape), f"{where}: keys {sorted(value)} != {sorted(shape)}")
        for key, sub in shape.items():
            check_shape(value[key], sub, f"{where}.{key}")
    elif isinstance(shape, list):
        check(isinstance(value, list), f"{where}: not an array: {value!r}")
        for i, element in enumerate(value):
            check_shape(element, shape[0], f"{where}[{i}]")
    else:
        # bool is an int in Python: a number must not be a boolean.
        check(isinstance(value, shape) and not (shape is int and isinstance(value, bool)),
              f"{where}: {value!r} is not {shape}")


def json_of(svc, shape, *args, user=None):
    result = svc.cli("--json=short", *args, user=user)
    check(result.stdout.count("\n") == 1, f"{args}: not one line: {result.stdout!r}")
    value = result.json
    check_shape(value, SHAPES[shape], shape)
    return value


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        out = os.path.join(alice.home, "json-trace")

        version = json_of(svc, "version", "version")
        check(version["service_version"] and version["client_version"], f"{version}")

        created = json_of(svc, "create", "create", "js", "--output", out, user=alice)
        check(created == {"name": "js", "path": created["path"], "output_directory": out,
                          "output_url": "file://" + out, "live_timer_us": 0,
                          "snapshot": False}, f"create: {created}")
        sessions = json_of(svc, "list", "list", user=alice)["sessions"]
        check(sessions == [{"name": "js", "path": created["path"], "owner_uid": alice.uid,
                            "state": "inactive", "output_directory": out, "current": True}],
              f"list: {sessions}")

        channel = json_of(svc, "enable-channel", "enable-channel", "-u", "c1", "--subbuf-size",
                          "64k", "--num-subbuf", "4", "--overwrite", "--switch-timer",
                          "20000", user=alice)
        check(channel == {"session": "js", "domain": "ust", "channel": "c1"}, f"{channel}")
        events = json_of(svc, "enable-event", "enable-event", "-u", "example:*,other:x", "-c",
                         "c1", user=alice)
        check(events["events"] == ["example:*", "other:x"] and events["failed"] == [] and
              events["enabled"] is True and events["channel"] == "c1", f"{events}")
        contexts = json_of(svc, "add-context", "add-context", "-u", "-t", "vpid", "-t",
                           "procname", user=alice)
        check(contexts["contexts"] == ["vpid", "procname"] and contexts["channel"] is None,
              f"add-context: {contexts}")
        disabled = json_of(svc, "enable-event", "disable-event", "-u", "other:x", "-c", "c1",
                           user=alice)
        check(disabled["enabled"] is False and disabled["events"] == ["other:x"], f"{disabled}")
        agent = json_of(svc, "enable-event", "enable-event", "-j", "org.app", "--loglevel",
                        "SEVERE", user=alice)
        check(agent["domain"] == "jul" and agent["events"] == ["org.app"], f"{agent}")
        started = json_of(svc, "start", "start", user=alice)
        check(started == {"name": "js", "path": created["path"], "state": "active"},
              f"start: {started}")

        app = svc.app("--count", "3", "--pause", user=alice, wait_ready=True)
        apps = json_of(svc, "list -u", "list", "-u", user=alice)["applications"]
        mine = [a for a in apps if a["pid"] == app.pid]
        check(len(mine) == 1 and mine[0]["uid"] == alice.uid and
              mine[0]["process_name"] == "tracectl-exampl" and
              any(e["name"].startswith("example:") for e in mine[0]["events"]),
              f"list -u: {apps}")
        check(app.pid in svc.listed_pids(user=alice), "tclib.listed_pids misses the app")
        app.send_signal(10)  # SIGUSR1: emit and exit
        app.communicate(timeout=30)

        # status and list NAME: the same object, with the channel's settings.
        status = json_of(svc, "list NAME", "status", user=alice)
        listed = json_of(svc, "list NAME", "list", "js", user=alice)
        for session in (status, listed):
            for c in session["channels"]:
                c.pop("statistics")  # sampled: may differ between the calls
        check(listed == status, f"list js {listed} != status {status}")
        check(listed["agent_rules"] == [{"domain": "jul", "logger": "org.app", "loglevel": 1000,
                                         "loglevel_name": "JUL_SEVERE", "loglevel_only": False,
                                         "filter": None}], f"agent_rules: {listed}")
        status = json_of(svc, "list NAME", "status", user=alice)
        check(status["state"] == "active" and status["owner_uid"] == alice.uid and
              status["snapshot"] is False and status["problem"] is None, f"status: {status}")
        c1 = [c for c in status["channels"] if c["name"] == "c1"]
        check(len(c1) == 1, f"channels: {status['channels']}")
        c1 = c1[0]
        check(c1["subbuf_size"] == 65536 and c1["num_subbuf"] == 4 and
              c1["events"] == ["example:*"] and c1["domain"] == "ust", f"c1: {c1}")
        settings = c1["settings"]
        check(settings.get("overwrite") is True and settings.get("switch_timer") == 20000 and
              settings.get("contexts") == ["vpid", "procname"] and
              all("-" not in key for key in settings), f"settings: {settings}")
        if c1["statistics"] is not None:
            check_shape(c1["statistics"], STATISTICS, "statistics")
            check(c1["statistics"]["buffer_bytes"] > 0, f"{c1['statistics']}")

        stopped = json_of(svc, "start", "stop", user=alice)
        check(stopped["state"] == "inactive", f"stop: {stopped}")
        check(svc.session(user=alice)["state"] == "inactive", "status after stop")

        # Pretty is the same value, indented; --json goes before or after.
        pretty = svc.cli("list", "--json=pretty", user=alice).stdout
        check(pretty.startswith("{\n  \"sessions\" : [") and
              json.loads(pretty) == svc.cli_json("list", user=alice), f"pretty: {pretty!r}")
        bare = svc.cli("list", "--json", user=alice)
        check(bare.stdout.count("\n") == 1, f"--json on a pipe is short: {bare.stdout!r}")

        # A snapshot session and its record.
        snap_out = os.path.join(alice.home, "json-snap")
        snap = json_of(svc, "create", "create", "snap", "--snapshot", "--output", snap_out,
                       user=alice)
        check(snap["snapshot"] is True, f"{snap}")
        svc.cli("enable-event", "-u", "example:*", user=alice)
        svc.cli("start", user=alice)
        svc.run_app("--count", "3", user=alice)
        record = json_of(svc, "snapshot record", "snapshot", "record", user=alice)
        check(record["session"] == "snap" and record["directory"].startswith(snap_out + "/") and
              os.path.isdir(record["directory"]), f"snapshot: {record}")
        check(svc.session("snap", user=alice)["snapshot"] is True, "list snap")
        # No agent here (the Python one is listed in test-lttng-ust-register).
        for flag in ("-p", "-j", "-l"):
            check(json_of(svc, "list -p", "list", flag, user=alice) == {"agents": []},
                  f"list {flag}")

        mount_tracefs()
        kernel = json_of(svc, "list -k", "list", "-k")
        check(kernel["syscalls"] is False and "sched:sched_switch" in kernel["events"],
              f"list -k: {kernel['events'][:10]}")
        named = dict(zip(kernel["events"], kernel["names"]))
        check(named.get("sched:sched_switch") == "sched_switch" and
              named.get("kmem:kmalloc") in (None, "kmem_kmalloc"),
              f"list -k's names: {list(named.items())[:10]}")
        syscalls = json_of(svc, "list -k", "list", "-k", "--syscall")
        check(syscalls["syscalls"] is True and "getppid" in syscalls["events"],
              f"list -k --syscall: {syscalls['events'][:10]}")

        destroyed = json_of(svc, "destroy", "destroy", "--all", user=alice)
        check(sorted(d["name"] for d in destroyed["destroyed"]) == ["js", "snap"],
              f"destroy --all: {destroyed}")
        check(svc.sessions(user=alice) == [], "sessions left after destroy --all")


run(test)
