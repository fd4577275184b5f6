#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng-UST's own examples, as Debian ships them with liblttng-ust-dev
(easy-ust, demo, demo-tracef, demo-tracelog, hello-static-lib, gen-tp),
built with their own Makefiles and run unmodified by an ordinary user,
are recorded by that user's tracectl session and then by Debian's
lttng-sessiond; babeltrace2's text of the two traces must be the same
once what differs between any two runs is masked (timestamps, the time
between events, the host name lttng-sessiond writes and the CPU each
event ran on).

Every example's events come in program order from one thread, so the
two texts are compared line by line: field names, types, bases, byte
orders, arrays, sequences, text, floats, log levels and the tracef and
tracelog messages. hello-static-lib records a million events as fast
as it can, more than a default channel holds, so both tracers discard
some: its first 20,000 events are compared by what each one must hold
for its loop counter (the same masked line for every counter, counters
rising), and tracectl must keep at least half as many as lttng-sessiond."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, User, check, log, require, run
from lttnglib import lttng, lttng_sessiond, require_served

EXAMPLES = "/usr/share/doc/liblttng-ust-dev/examples"
SYSTEM_PYTHON = "/usr/bin/python3"

# (directory, make's arguments, programs run in turn; demo's script is
# shipped without its execute bit)
PROGRAMS = [
    ("easy-ust", [], ["./sample"]),
    ("demo", [], ["/bin/sh ./demo-trace"]),
    ("demo-tracef", [], ["./demo-tracef", "./demo-vtracef"]),
    ("demo-tracelog", [], ["./demo-tracelog", "./demo-vtracelog"]),
    ("gen-tp", [f"PYTHON={SYSTEM_PYTHON}", "LTTNG_GEN_TP_PATH=/usr/bin/"], ["./sample"]),
    ("hello-static-lib", [], ["./hello"]),
]
PATTERNS = ["sample_component:*", "ust_tests_demo:*", "ust_tests_demo2:*",
            "ust_tests_demo3:*", "lttng_ust_tracef:*", "lttng_ust_tracelog:*",
            "sample_tracepoint:*", "ust_tests_hello:*"]
LOSSY = "ust_tests_hello:tptest:"
HELLO_LINES = 20000
# What hello-static-lib emits (its loop).
HELLO_EVENTS = 1000000


def build_examples(top):
    """Debian's examples copied under top and built by their Makefiles."""
    tree = os.path.join(top, "examples")
    shutil.copytree(EXAMPLES, tree)
    for directory, make_args, _ in PROGRAMS:
        proc = subprocess.run(["make", "-C", os.path.join(tree, directory), *make_args],
                              capture_output=True, text=True)
        check(proc.returncode == 0,
              f"{directory} did not build with its Makefile: {proc.stdout[-1500:]}"
              f"{proc.stderr[-1500:]}")
    subprocess.run(["chmod", "-R", "a+rX", top], check=True)
    return tree


def run_programs(tree, prefix, env):
    """Each example's programs in turn, as the prefix (setpriv) says."""
    for directory, _, programs in PROGRAMS:
        for program in programs:
            proc = subprocess.run(prefix + program.split(), cwd=os.path.join(tree, directory),
                                  env=env, capture_output=True, text=True, timeout=120)
            check(proc.returncode == 0,
                  f"{directory}/{program} exited with {proc.returncode}: {proc.stderr[-500:]}")


def masked_lines(trace_dir):
    """babeltrace2's lines of trace_dir without what differs between runs,
    hello-static-lib's first HELLO_LINES only (its events come last and
    are checked alike: formatting all of them took most of the test's
    CPU), and the number of hello's events babeltrace2 counts."""
    proc = subprocess.Popen(["babeltrace2", trace_dir], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines, hello = [], 0
    for line in proc.stdout:
        words = line.rstrip("\n").split(" ", 3)
        check(len(words) == 4 and words[0].startswith("[") and words[1].startswith("("),
              f"not an event line of babeltrace2's text: {line!r}")
        # lttng-sessiond's trace names the host before the event.
        rest = words[2] + " " + words[3] if words[2].endswith(":") else words[3]
        lines.append(re.sub(r"cpu_id = \d+", "cpu_id = N", rest))
        hello += rest.startswith(LOSSY)
        if hello == HELLO_LINES:
            proc.kill()
            break
    stderr = proc.communicate(timeout=300)[1]
    check(hello == HELLO_LINES or proc.returncode == 0,
          f"babeltrace2 could not read {trace_dir}: {stderr[-2000:]}")
    return lines, event_count(trace_dir) - (len(lines) - hello)


def event_count(trace_dir):
    """Every event of trace_dir, as babeltrace2's counter sink counts them
    (its running totals first, the whole count last)."""
    out = subprocess.run(["babeltrace2", trace_dir, "-c", "sink.utils.counter"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    counts = re.findall(r"^\s*(\d+) Event messages$", out, re.MULTILINE)
    check(counts, f"babeltrace2's counter printed no count: {out[-500:]}")
    return int(counts[-1])


COUNTED = re.compile(r"(intfield|intfield2|longfield|netintfield|netintfieldhex) = "
                     r"(0x[0-9A-Fa-f]+|\d+)")


def hello_shape(lines, kept, who):
    """hello-static-lib's lines: each one its loop counter's, counters
    rising; returns the lines with the counter masked (one distinct)."""
    counters, shapes = [], set()
    for line in lines:
        values = {name: int(value, 0) for name, value in COUNTED.findall(line)}
        check(len(values) == 5 and len(set(values.values())) == 1,
              f"{who}: a hello event whose fields do not all hold its counter: {line}")
        counters.append(values["intfield"])
        shapes.add(COUNTED.sub(lambda m: f"{m.group(1)} = N", line))
    check(counters and all(a < b for a, b in zip(counters, counters[1:])),
          f"{who}: hello's counters do not rise: {counters[:10]}")
    log(f"{who}: {kept} of hello's {HELLO_EVENTS} events kept, the first {len(counters)} "
        "compared")
    return shapes


def compare(ours, reference):
    ours, ours_kept = ours
    reference, their_kept = reference
    for who, lines in (("tracectl", ours), ("lttng-sessiond", reference)):
        counts = {}
        for line in lines:
            name = line.split(" ", 1)[0]
            counts[name] = counts.get(name, 0) + 1
        log(f"{who}: {counts}")
    exact = [line for line in ours if not line.startswith(LOSSY)]
    expected = [line for line in reference if not line.startswith(LOSSY)]
    for pattern in PATTERNS:
        provider = pattern[:-1]
        check(any(line.startswith(provider) for line in reference),
              f"lttng-sessiond recorded no {pattern} event")
    log(f"tracectl: {len(exact)} events, lttng-sessiond: {len(expected)} "
        f"(and hello-static-lib's)")
    if exact != expected:
        first = next((i for i, (a, b) in enumerate(zip(exact, expected)) if a != b),
                     min(len(exact), len(expected)))
        check(False, f"tracectl's event {first} differs from lttng-sessiond's:\n"
              f"  tracectl:       {exact[first] if first < len(exact) else None}\n"
              f"  lttng-sessiond: {expected[first] if first < len(expected) else None}\n"
              f"({len(exact)} events against {len(expected)})")
    ours_hello = hello_shape([line for line in ours if line.startswith(LOSSY)], ours_kept,
                             "tracectl")
    their_hello = hello_shape([line for line in reference if line.startswith(LOSSY)],
                              their_kept, "lttng-sessiond")
    check(ours_hello == their_hello and len(ours_hello) == 1,
          f"hello's events: tracectl {ours_hello}, lttng-sessiond {their_hello}")
    # The consumer reads a stream when its writers close a sub-buffer, as
    # lttng-consumerd does: a burst keeps about as much through either
    # (polled every 100 ms instead, tracectl kept less than a tenth).
    check(ours_kept * 2 >= their_kept,
          f"tracectl kept {ours_kept} of hello's events, lttng-sessiond {their_kept}")


def under_tracectl(svc, user, tree):
    out = os.path.join(user.home, "examples-trace")
    svc.cli("create", "examples", "--output", out, user=user)
    for pattern in PATTERNS:
        svc.cli("enable-event", "-u", pattern, user=user)
    svc.cli("start", user=user)
    run_programs(tree, svc._as(user), svc.env(user))
    svc.cli("stop", user=user)
    svc.cli("destroy", "examples", user=user)
    check(svc.alive(), "tracectld died")
    return masked_lines(out)


def discarded_counted(svc, user, tree):
    """hello-static-lib into a channel far too small: what its
    statistics say was discarded is what it emitted and the trace does
    not hold, and some was."""
    out = os.path.join(user.home, "tiny-trace")
    for args in (["create", "tiny", "--output", out],
                 ["enable-channel", "-u", "small", "--subbuf-size", "4k", "--num-subbuf", "2"],
                 ["enable-event", "-u", "-c", "small", LOSSY.split(":")[0] + ":*"],
                 ["start"]):
        svc.cli(*args, user=user)
    hello = next(program for directory, _, programs in PROGRAMS
                 if directory == "hello-static-lib" for program in programs)
    proc = subprocess.run(svc._as(user) + hello.split(),
                          cwd=os.path.join(tree, "hello-static-lib"), env=svc.env(user),
                          capture_output=True, timeout=120)
    check(proc.returncode == 0, f"hello exited with {proc.returncode}")
    svc.cli("stop", user=user)
    session = svc.cli_json("list", "tiny", user=user)
    stats = [channel["statistics"] for channel in session["channels"]
             if channel["domain"] == "ust" and channel["name"] == "small"]
    svc.cli("destroy", "tiny", user=user)
    check(len(stats) == 1 and stats[0], f"the channel's statistics: {session['channels']}")
    kept = event_count(out)
    log(f"tracectl: a {stats[0]['buffer_bytes']}-byte channel kept {kept} of hello's "
        f"{HELLO_EVENTS} events, discarded {stats[0]['discarded_events']}, wrote "
        f"{stats[0]['packets_written']} packets")
    check(stats[0]["discarded_events"] > 0 and
          stats[0]["discarded_events"] + kept == HELLO_EVENTS and
          stats[0]["packets_written"] > 0,
          f"the channel's statistics {stats[0]}, {kept} of hello's {HELLO_EVENTS} events kept")


def under_lttng_sessiond(top, tree, prefix, user_env):
    """The same programs, the same user, recorded by Debian's
    lttng-sessiond (root's, on the world's own /var/run/lttng)."""
    out = os.path.join(top, "reference")
    with lttng_sessiond(top) as env:
        lttng(env, "create", "examples", "--output", out)
        for pattern in PATTERNS:
            lttng(env, "enable-event", "-u", pattern)
        lttng(env, "start")
        run_programs(tree, prefix, user_env)
        for args in (["stop"], ["destroy"]):
            lttng(env, *args)
    return masked_lines(out)


def test():
    require(os.path.isdir(EXAMPLES), f"{EXAMPLES} is not installed (liblttng-ust-dev)")
    for tool in ("babeltrace2", "lttng-sessiond", "lttng", "make", "cc", "lttng-gen-tp"):
        require(shutil.which(tool), f"{tool} is not installed")
    top = tempfile.mkdtemp(prefix="tctest-lttng-examples-")
    # The user outlives the service: lttng-sessiond runs its programs after.
    user = User("tctest-examples")
    try:
        tree = build_examples(top)
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            ours = under_tracectl(svc, user, tree)
            discarded_counted(svc, user, tree)
            prefix, user_env = svc._as(user), svc.env(user)
        reference = under_lttng_sessiond(top, tree, prefix, user_env)
        compare(ours, reference)
    finally:
        user.remove()
        shutil.rmtree(top, ignore_errors=True)


run(test)
