#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Python programs instrumented through LTTng's logging agent
(python3-lttngust), unmodified, recorded by tracectl sessions enabled
with `enable-event --python`:

- two sessions of one user, one with `app.*` at WARNING and more severe,
  one with `other` at every level and `app.beta` at ERROR only with a
  filter: each gets exactly its records, in order, with their fields,
  the first one logged right after `import lttngust` included (the agent
  is told of the loggers before its registration is done);
- `disable-event --python` while the program runs: the agent is told
  (its debug output counts the enables and disables it got, one each
  per rule) and nothing of those loggers is recorded after;
- another user's program is never told of the first user's loggers;
- connections that lie (a registration claiming another process's pid,
  one cut short, garbage) are refused, and the service goes on serving
  the honest ones;
- a program that outlives a restart of the service is served by the new
  one (the agent retries the port it read, lttng-sessiond's first);
- LTTng-UST's own Python example (hello.py, as Debian ships it) gives
  the same first records through tracectl as through Debian's
  lttng-sessiond (babeltrace2's text, times and thread ids masked)."""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, User, check, log, require, run, wait_for
from lttnglib import SESSIOND_AGENT_PORT, lttng, lttng_sessiond, require_served

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "..", "apps", "lttng-agent-app.py")
HELLO = "/usr/share/doc/liblttng-ust-dev/examples/python/hello.py"
PYTHON = "/usr/bin/python3"
PORT_FILE = SESSIOND_AGENT_PORT  # the service writes it where LTTng's agents look
EVENT = re.compile(r'msg = "([^"]*)", logger_name = "([^"]*)", funcName = "([^"]*)", '
                   r"lineno = (\d+), int_loglevel = (\d+)")


def records(trace_dir):
    """(logger, message, level) of each lttng_python:event of the trace."""
    if not os.path.isdir(trace_dir):
        return []
    out = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                         timeout=120)
    check(out.returncode == 0, f"babeltrace2 could not read {trace_dir}: {out.stderr[-1500:]}")
    found = []
    for line in out.stdout.splitlines():
        check("lttng_python:event" in line, f"an event that is not the agent's: {line}")
        match = EVENT.search(line)
        check(match, f"an agent event without its fields: {line}")
        found.append((match.group(2), match.group(1), int(match.group(5))))
    return found


def expected(rounds, loggers, levels, first_round=0):
    return [(name, f"round {n} level {level}", level)
            for n in range(first_round, first_round + rounds)
            for name in ("app.alpha", "app.beta", "other") if name in loggers
            for level in (10, 20, 30, 40, 50) if level in levels]


def agent_app(svc, user, rounds, pause=0.0):
    env = {"LTTNG_UST_PYTHON_DEBUG": "1"}
    return svc.app(APP, str(rounds), str(pause), user=user, program=PYTHON, extra_env=env)


def server_commands(stderr):
    """How many enables and disables the agent got, from its debug output."""
    return (stderr.count('got "enable" server command'),
            stderr.count('got "disable" server command'))


def finish(proc, what):
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 0 and out.split() == ["ready", "done"],
          f"{what} failed ({proc.returncode}): {out!r} {err[-1500:]}")
    return err


def test_sessions(svc, alice, bob):
    levels_dir = os.path.join(alice.home, "levels")
    other_dir = os.path.join(alice.home, "other")
    svc.cli("create", "levels", "--output", levels_dir, user=alice)
    svc.cli("enable-event", "-p", "app.*", "--loglevel", "WARNING", "-s", "levels", user=alice)
    svc.cli("create", "other", "--output", other_dir, user=alice)
    svc.cli("enable-event", "--python", "other", "-s", "other", user=alice)
    svc.cli("enable-event", "-p", "app.beta", "--loglevel-only", "ERROR",
            "--filter", 'msg == "round 1 level 40"', "-s", "other", user=alice)
    for name in ("levels", "other"):
        svc.cli("start", name, user=alice)

    # Three rounds at once after the import: the first record is the
    # agent's first, logged as soon as its registration is done.
    first = agent_app(svc, alice, 3)
    err = finish(first, "alice's first program")
    check(server_commands(err) == (3, 0),
          f"alice's agent should have got 3 enables (one per rule of her sessions), got "
          f"{server_commands(err)}")

    # Bob's program: none of alice's sessions records him, so his agent
    # is told nothing.
    bobs = agent_app(svc, bob, 1)
    err = finish(bobs, "bob's program")
    check(server_commands(err) == (0, 0),
          f"bob's agent was told of alice's loggers: {server_commands(err)}")

    # The second run: app.* disabled in "levels" while it runs.
    second = agent_app(svc, alice, 30, 0.05)
    check(second.stdout.readline().strip() == "ready", "alice's second program did not start")
    time.sleep(0.3)
    svc.cli("disable-event", "-p", "app.*", "-s", "levels", user=alice)
    disabled_at = time.monotonic()
    out, err = second.communicate(timeout=60)
    check(second.returncode == 0 and out.strip() == "done", f"second program: {out!r} {err}")
    check(server_commands(err) == (3, 1),
          f"alice's second agent should have got 3 enables and 1 disable, got "
          f"{server_commands(err)}")
    log(f"second program ended {time.monotonic() - disabled_at:.2f} s after the disable")
    for name in ("levels", "other"):
        svc.cli("stop", name, user=alice)

    got_levels, got_other = records(levels_dir), records(other_dir)
    first_levels = expected(3, ("app.alpha", "app.beta"), (30, 40, 50))
    check(got_levels[:len(first_levels)] == first_levels,
          f"'levels' did not record the first program's records:\n{got_levels[:20]}")
    later = got_levels[len(first_levels):]
    check(all(message.startswith("round ") for _, message, _ in later) and
          all(level >= 30 and name.startswith("app.") for name, _, level in later),
          f"'levels' recorded what it did not enable: {later[:10]}")
    # Before the disable some rounds of the second run; after it none.
    rounds_before = {int(m.split()[1]) for _, m, _ in later}
    check(len(rounds_before) < 30, f"'levels' recorded every round after its disable: "
          f"{sorted(rounds_before)}")
    expected_other = [r for r in expected(3, ("other", "app.beta"), (10, 20, 30, 40, 50))
                      if r[0] == "other" or r[1] == "round 1 level 40"]
    check(got_other[:len(expected_other)] == expected_other,
          f"'other' recorded {got_other[:20]}, expected {expected_other}")
    second_other = got_other[len(expected_other):]
    check(len(second_other) == 30 * 5 + 1 and
          all(name == "other" or message == "round 1 level 40"
              for name, message, _ in second_other),
          f"'other' kept {len(second_other)} records of the second program: {second_other[:8]}")
    log(f"'levels': {len(got_levels)} records, 'other': {len(got_other)}; second program's "
        f"rounds in 'levels' before the disable: {len(rounds_before)}")
    for name in ("levels", "other"):
        svc.cli("destroy", name, user=alice)


def port():
    with open(PORT_FILE) as f:
        return int(f.read())


def liar(as_uid, payload, wait_close=True):
    """Connects as as_uid (a forked child), sends payload, and returns
    how long the service took to close the connection."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        status = 1
        try:
            os.setgid(as_uid)
            os.setuid(as_uid)
            conn = socket.create_connection(("127.0.0.1", port()), timeout=10)
            start = time.monotonic()
            conn.sendall(payload)
            try:
                data = conn.recv(64) if wait_close else b"x"
            except ConnectionResetError:
                data = b""  # closed with our bytes unread
            os.write(write_end, f"{time.monotonic() - start:.3f} {len(data)}".encode())
            status = 0
        except BaseException as e:
            print(f"lying client: {e!r}", file=sys.stderr)
        finally:
            os._exit(status)
    os.close(write_end)
    answer = os.read(read_end, 64).decode()
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    check(status == 0 and answer, f"the lying client failed ({status})")
    took, length = answer.split()
    return float(took), int(length)


def test_liars(svc, alice):
    offset = svc.log_offset()
    root_pid = os.getpid()
    forged = struct.pack(">IIII", 5, root_pid, 2, 0)
    took, length = liar(alice.uid, forged)
    check(length == 0 and took < 1.5, f"a registration with root's pid was kept ({took} s)")
    took, length = liar(alice.uid, struct.pack(">IIII", 5, 999999, 3, 0))
    check(length == 0, "an agent of protocol 3 was kept")
    took, length = liar(alice.uid, b"\x00\x00\x00\x05\x00")
    check(length == 0 and 1.5 <= took < 5, f"a cut registration was closed after {took} s")
    took, length = liar(alice.uid, os.urandom(64))
    check(length == 0, "garbage was kept")
    with open(svc.log_path, errors="replace") as f:
        f.seek(offset)
        text = f.read()
    check("does not hold the connection" in text or "does not run as uid" in text,
          f"the forged pid was not refused for what it is:\n{text[-2000:]}")
    check("protocol 3.0" in text, f"the refusal of protocol 3 names no version:\n{text[-2000:]}")
    check(svc.alive(), "tracectld died")


def test_honest_after_liars(svc, alice):
    trace = os.path.join(alice.home, "after")
    svc.cli("create", "after", "--output", trace, user=alice)
    svc.cli("enable-event", "-p", "-a", user=alice)
    svc.cli("start", user=alice)
    finish(agent_app(svc, alice, 1), "alice's program after the liars")
    svc.cli("destroy", "after", user=alice)
    got = records(trace)
    check(got == expected(1, ("app.alpha", "app.beta", "other"), (10, 20, 30, 40, 50)),
          f"-p -a recorded {got}")


def test_restart(svc, alice):
    """A program started before a restart, recorded after it."""
    check(port() == 5345, f"the agents' port is {port()}, not lttng-sessiond's first")
    program = agent_app(svc, alice, 80, 0.1)
    check(program.stdout.readline().strip() == "ready", "the program did not start")
    svc.restart()
    trace = os.path.join(alice.home, "restarted")
    svc.cli("create", "restarted", "--output", trace, user=alice)
    svc.cli("enable-event", "-p", "other", "--loglevel", "CRITICAL", user=alice)
    svc.cli("start", user=alice)
    out, err = program.communicate(timeout=60)
    check(program.returncode == 0 and out.strip() == "done", f"program: {out!r} {err[-1000:]}")
    svc.cli("destroy", "restarted", user=alice)
    got = records(trace)
    rounds = [int(message.split()[1]) for _, message, _ in got]
    check(got and all(r == ("other", f"round {n} level 50", 50) for r, n in zip(got, rounds)) and
          rounds == list(range(rounds[0], 80)),
          f"after the restart the program's records were {got[:5]}...{got[-3:]}")
    log(f"after the restart: rounds {rounds[0]} to 79 recorded")


def hello_lines(trace_dir, count):
    out = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    lines = [re.sub(r"^.*?(lttng_python:event)", r"\1", line) for line in out]
    lines = [re.sub(r'asctime = "[^"]*"', "asctime = T", line) for line in lines]
    lines = [re.sub(r"thread = \d+", "thread = N", line) for line in lines]
    lines = [re.sub(r"cpu_id = \d+", "cpu_id = N", line) for line in lines]
    check(len(lines) >= count, f"{trace_dir}: {len(lines)} records of hello.py")
    return lines[:count]


def run_hello(prefix, env, cwd):
    """hello.py for 3 s (it logs forever: 5 records in its first 0.4 s
    once the interpreter has started and its agent registered, which took
    1.3 s of the 1.5 s this once allowed in a loaded CI run)."""
    proc = subprocess.Popen(prefix + [PYTHON, HELLO], env=env, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)


def hello_under_tracectl(svc, user):
    out = os.path.join(user.home, "hello")
    svc.cli("create", "hello", "--output", out, user=user)
    svc.cli("enable-event", "-p", "hello-logger", user=user)
    svc.cli("start", user=user)
    run_hello(svc._as(user), svc.env(user), user.home)
    svc.cli("destroy", "hello", user=user)
    return hello_lines(out, 5)


def hello_under_lttng_sessiond(top, prefix, env, cwd):
    out = os.path.join(top, "reference")
    with lttng_sessiond(top, ready=SESSIOND_AGENT_PORT) as lttng_env:
        for args in (["create", "hello", "--output", out],
                     ["enable-event", "--python", "hello-logger"], ["start"]):
            lttng(lttng_env, *args)
        run_hello(prefix, env, cwd)
        for args in (["stop"], ["destroy"]):
            lttng(lttng_env, *args)
    return hello_lines(out, 5)


def test():
    for tool in ("babeltrace2", "lttng-sessiond", "lttng"):
        require(shutil.which(tool), f"{tool} is not installed")
    require(subprocess.run([PYTHON, "-c", "import lttngust.loghandler"],
                           capture_output=True).returncode == 0,
            "python3-lttngust is not installed")
    top = tempfile.mkdtemp(prefix="tctest-lttng-agent-")
    os.chmod(top, 0o755)
    alice, bob = User("tctest-agent-a"), User("tctest-agent-b")
    try:
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            wait_for(lambda: os.path.exists(PORT_FILE), 10, "the service's agent port file")
            test_sessions(svc, alice, bob)
            test_liars(svc, alice)
            test_honest_after_liars(svc, alice)
            test_restart(svc, alice)
            ours = hello_under_tracectl(svc, alice)
            prefix, env = svc._as(alice), svc.env(alice)
        check(not os.path.exists(PORT_FILE), "the service left its agent port file")
        reference = hello_under_lttng_sessiond(top, prefix, env, alice.home)
        log("hello.py's first records through tracectl:\n  " + "\n  ".join(ours))
        check(ours == reference,
              "hello.py's records differ:\n  tracectl:       " + "\n    ".join(ours) +
              "\n  lttng-sessiond: " + "\n    ".join(reference))
    finally:
        alice.remove()
        bob.remove()
        shutil.rmtree(top, ignore_errors=True)


run(test)
