#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The everyday session commands, through the CLI and busctl, as the owner
and as another user (refused): set-session, stop and destroy --no-wait,
view --trace-path and viewing a destroyed session's trace, destroy --all
(one's own sessions; every user's for an administrator), add-context
--list and list SESSION -u/-k/-p/-j/-l/--channel/--domain."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from busctllib import manager_call, session_call, session_path
from tclib import Service, check, run, wait_for
from tracelib import babeltrace_text


def refused(result, what):
    check(result.returncode != 0, f"{what} was allowed: {result}")


def test_set_session(svc, alice, bob):
    svc.cli("create", "first", user=alice)
    svc.cli("create", "second", user=alice)
    check("Tracing session second:" in svc.cli("status", user=alice).stdout, "create's current")
    out = svc.cli("set-session", "first", user=alice).stdout
    check("Session set to first" in out, out)
    check("Tracing session first:" in svc.cli("status", user=alice).stdout, "not current")
    with open(os.path.join(alice.home, ".tracectlrc")) as f:
        check("session=first" in f.read(), ".tracectlrc")
    bad = svc.cli("set-session", "nosuch", user=alice, check_ok=False)
    check(bad.returncode == 3 and "no session named 'nosuch'" in bad.stderr, f"{bad}")
    check("Tracing session first:" in svc.cli("status", user=alice).stdout, "changed anyway")
    usage = svc.cli("set-session", user=alice, check_ok=False)
    check(usage.returncode == 2, f"no NAME: {usage}")
    # Another user's session is not found, so it cannot become bob's current.
    refused(svc.cli("set-session", "first", user=bob, check_ok=False), "bob's set-session")


def test_no_wait_and_view(svc, alice, bob):
    out_dir = os.path.join(alice.home, "traces", "nowait")
    svc.cli("create", "nowait", "--output", out_dir, user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    early = svc.cli("stop", "--no-wait", "nowait", user=alice, check_ok=False)
    check(early.returncode == 1 and "not started" in early.stderr, f"stop -n inactive: {early}")
    svc.cli("start", user=alice)
    svc.run_app("--count", "9", user=alice)
    out = svc.cli("stop", "--no-wait", user=alice).stdout
    check("Tracing stopped for session nowait" in out, out)
    path = svc.cli("view", "--trace-path", user=alice).stdout.strip()
    check(path == out_dir, f"view --trace-path: {path}")
    svc.cli("start", user=alice)
    svc.run_app("--count", "4", user=alice)
    out = svc.cli("destroy", "--no-wait", "nowait", user=alice).stdout
    check("Session nowait destroyed" in out, out)
    # The destroyed session's trace is still found by its name.
    path = svc.cli("view", "--trace-path", "nowait", user=alice).stdout.strip()
    check(path == out_dir, f"view --trace-path of a destroyed session: {path}")
    wait_for(lambda: svc.cli("view", "nowait", "--viewer", "babeltrace2",
                             user=alice, check_ok=False).stdout.count("example:all_types") == 13,
             20, "the destroyed session's 13 events")
    check(babeltrace_text(out_dir).count("example:all_types") == 13, "events")
    # Bob has no such session, destroyed or not.
    refused(svc.cli("view", "--trace-path", "nowait", user=bob, check_ok=False), "bob's view")
    gone = svc.cli("view", "--trace-path", "never-was", user=alice, check_ok=False)
    check(gone.returncode == 3 and "no session named" in gone.stderr, f"{gone}")


def test_bus_no_wait(svc, alice, bob):
    svc.cli("create", "bus", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("start", user=alice)
    path = session_path(svc, "bus", user=alice)
    refused(session_call(svc, path, "StopWithOptions", "a{sv}", 1, "no-wait", "b", "true",
                         user=bob), "bob's StopWithOptions")
    bad = session_call(svc, path, "StopWithOptions", "a{sv}", 1, "now", "b", "true", user=alice)
    check(bad.returncode != 0 and "Unknown StopWithOptions option 'now'" in bad.stderr, f"{bad}")
    ok = session_call(svc, path, "StopWithOptions", "a{sv}", 1, "no-wait", "b", "true",
                      user=alice)
    check(ok.returncode == 0, f"StopWithOptions: {ok}")
    wait_for(lambda: "[inactive]" in svc.cli("list", user=alice).stdout, 10, "stopped")
    again = session_call(svc, path, "StopWithOptions", "a{sv}", 0, user=alice)
    check(again.returncode != 0 and "is not started" in again.stderr, f"{again}")
    refused(manager_call(svc, "DestroySessionWithOptions", "oa{sv}", path, 1, "no-wait", "b",
                         "true", user=bob), "bob's DestroySessionWithOptions")
    bad = manager_call(svc, "DestroySessionWithOptions", "oa{sv}", path, 1, "no-wait", "s", "x",
                       user=alice)
    check(bad.returncode != 0 and "Unknown DestroySessionWithOptions option" in bad.stderr,
          f"{bad}")
    ok = manager_call(svc, "DestroySessionWithOptions", "oa{sv}", path, 1, "no-wait", "b",
                      "true", user=alice)
    check(ok.returncode == 0, f"DestroySessionWithOptions: {ok}")
    wait_for(lambda: " bus " not in svc.cli("list", user=alice).stdout, 10, "destroyed")


def test_contexts(svc, alice):
    out = svc.cli("add-context", "--list", "-u", user=alice).stdout
    check("UST contexts:" in out and "vpid" in out and "pthread_id" in out and
          "Kernel" not in out, out)
    out = svc.cli("add-context", "--list", user=alice).stdout
    check("UST contexts:" in out and "Kernel contexts:" in out and "prio" in out, out)
    result = manager_call(svc, "ListContexts", "s", "kernel", user=alice)
    check(result.returncode == 0 and "prio" in result.stdout and "tid" in result.stdout,
          f"ListContexts: {result}")
    bad = manager_call(svc, "ListContexts", "s", "python", user=alice)
    check(bad.returncode != 0 and "Unknown domain 'python'" in bad.stderr, f"{bad}")


def test_list_parts(svc, alice, bob):
    svc.cli("create", "parts", user=alice)
    svc.cli("enable-channel", "-u", "c1", user=alice)
    svc.cli("enable-channel", "-u", "c2", "--num-subbuf", "8", user=alice)
    svc.cli("enable-event", "-u", "example:startup", "-c", "c1", user=alice)
    svc.cli("enable-event", "-u", "example:all_types", "-c", "c2", user=alice)
    out = svc.cli("list", "parts", "--channel", "c2", user=alice).stdout
    check("- c2: [enabled]" in out and "example:all_types" in out and "c1" not in out and
          "Number of sub-buffers: 8" in out, out)
    out = svc.cli("list", "parts", "-u", user=alice).stdout
    check("=== Domain: User space ===" in out and "- c1:" in out and "- c2:" in out, out)
    out = svc.cli("list", "parts", "-k", user=alice).stdout
    check("- c1" not in out and "no Kernel channel" in out, out)
    out = svc.cli("list", "parts", "--domain", user=alice).stdout
    check("UST global" in out and "Kernel" not in out, out)
    bad = svc.cli("list", "parts", "-c", "nope", user=alice, check_ok=False)
    check(bad.returncode == 1 and "has no channel 'nope'" in bad.stderr, f"{bad}")
    bad = svc.cli("list", "-c", "c1", user=alice, check_ok=False)
    check(bad.returncode == 2, f"--channel without NAME: {bad}")
    refused(svc.cli("list", "parts", "-c", "c1", user=bob, check_ok=False), "bob's list")
    test_list_agent_parts(svc, alice)


def test_list_agent_parts(svc, alice):
    """The agents' loggers: their own domain's section, not channel0's
    patterns, in list NAME, -p/-j/-l, --domain and --json."""
    svc.cli("enable-event", "-p", "-s", "parts", "app.*", "--loglevel", "WARNING", user=alice)
    svc.cli("enable-event", "-p", "-s", "parts", "other", "--filter", 'msg == "x"', user=alice)
    svc.cli("enable-event", "-l", "-s", "parts", "org.x", "--loglevel-only", "FATAL",
            user=alice)
    python = ("=== Domain: Python logging ===", "- app.* (loglevel <= PYTHON_WARNING)",
              '- other [filter: msg == "x"]')
    out = svc.cli("list", "parts", "-p", user=alice).stdout
    check(all(n in out for n in python) and "log4j" not in out and "c1" not in out, out)
    out = svc.cli("list", "parts", "-l", user=alice).stdout
    check("=== Domain: log4j ===" in out and "- org.x (loglevel == LOG4J_FATAL)" in out and
          "app.*" not in out, out)
    out = svc.cli("list", "parts", "-j", user=alice).stdout
    check("no java.util.logging (JUL) logger enabled" in out, out)
    out = svc.cli("list", "parts", "--domain", user=alice).stdout
    check("Python (logging)" in out and "LOG4j" in out and "JUL" not in out, out)
    out = svc.cli("list", "parts", user=alice).stdout
    check(all(n in out for n in python) and "=== Domain: log4j ===" in out, out)
    channel0 = out.split("- channel0:")[1].split("===")[0]
    check("app.*" not in channel0 and "lttng_python:event" not in channel0,
          f"agent rules among channel0's patterns:\n{out}")
    rules = svc.cli_json("list", "parts", user=alice)["agent_rules"]
    check(rules == [
        {"domain": "python", "logger": "app.*", "loglevel": 30,
         "loglevel_name": "PYTHON_WARNING", "loglevel_only": False, "filter": None},
        {"domain": "python", "logger": "other", "loglevel": None, "loglevel_name": None,
         "loglevel_only": False, "filter": 'msg == "x"'},
        {"domain": "log4j", "logger": "org.x", "loglevel": 50000,
         "loglevel_name": "LOG4J_FATAL", "loglevel_only": True, "filter": None}],
        f"agent_rules: {rules}")


def test_destroy_all(svc, alice, bob):
    svc.cli("create", "bobs", user=bob)
    out = svc.cli("destroy", "--all", user=alice).stdout
    check("Session first destroyed" in out and "Session parts destroyed" in out and
          "bobs" not in out, out)
    check("No tracing sessions" in svc.cli("list", user=alice).stdout, "alice has sessions")
    check("bobs" in svc.cli("list", user=bob).stdout, "alice's --all destroyed bob's session")
    svc.cli("create", "again", user=alice)
    # Root is authorized for manage-other-users: --all is everyone's.
    out = svc.cli("destroy", "--all", "--no-wait").stdout
    check(f"Session bobs of uid {bob.uid} destroyed" in out and "again" in out, out)
    check("No tracing sessions" in svc.cli("list", user=bob).stdout, "bob's session stayed")


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        test_set_session(svc, alice, bob)
        test_no_wait_and_view(svc, alice, bob)
        test_bus_no_wait(svc, alice, bob)
        test_contexts(svc, alice)
        test_list_parts(svc, alice, bob)
        test_destroy_all(svc, alice, bob)


run(test)
