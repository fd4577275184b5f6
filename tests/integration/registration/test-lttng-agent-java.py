#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LTTng-UST's Java examples (java-jul and java-log4j, as Debian ships
them with liblttng-ust-dev), built with their own Makefiles and run
unmodified by an ordinary user through LTTng's Java agent
(liblttng-ust-agent-java): recorded by that user's tracectl session
enabled with `enable-event --jul` and `--log4j`, then by Debian's
lttng-sessiond; babeltrace2's text of the two traces must be the same
once what differs between two runs is masked (timestamps, the host name
lttng-sessiond writes, the CPU, the records' wall-clock milliseconds).

Each session also enables a logger the examples do not have, at a level,
so the agent is told of more than one logger and of a level."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, User, check, log, require, run
from lttnglib import SESSIOND_AGENT_PORT, lttng, lttng_sessiond, require_served

EXAMPLES = "/usr/share/doc/liblttng-ust-dev/examples"
LOG4J_JAR = "/usr/share/java/log4j-1.2.jar"
# (directory, make's and run's environment, domain option, loggers)
PROGRAMS = [
    ("java-jul", {}, "--jul", ["Hello", "absent.logger"]),
    ("java-log4j", {"CLASSPATH": LOG4J_JAR}, "--log4j", ["HelloLog4j", "absent.logger"]),
]


def build(top):
    tree = os.path.join(top, "examples")
    os.makedirs(tree)
    for directory, env, _, _ in PROGRAMS:
        shutil.copytree(os.path.join(EXAMPLES, directory), os.path.join(tree, directory))
        proc = subprocess.run(["make", "-C", os.path.join(tree, directory)],
                              env=dict(os.environ, **env), capture_output=True, text=True)
        check(proc.returncode == 0, f"{directory} did not build: {proc.stdout[-1500:]}"
              f"{proc.stderr[-1500:]}")
    subprocess.run(["chmod", "-R", "a+rX", top], check=True)
    return tree


def run_programs(tree, prefix, user_env):
    for directory, env, _, _ in PROGRAMS:
        proc = subprocess.run(prefix + ["/bin/sh", "./run"], cwd=os.path.join(tree, directory),
                              env=dict(user_env, **env), capture_output=True, text=True,
                              timeout=120)
        check(proc.returncode == 0,
              f"{directory}/run exited with {proc.returncode}: {proc.stderr[-1000:]}")


def masked_lines(trace_dir):
    out = subprocess.run(["babeltrace2", trace_dir], capture_output=True, text=True,
                         timeout=120)
    check(out.returncode == 0, f"babeltrace2 could not read {trace_dir}: {out.stderr[-1500:]}")
    lines = []
    for line in out.stdout.splitlines():
        line = re.sub(r"^\[[^]]*\] \([^)]*\) (\S+ )?(lttng_(jul|log4j):event)", r"\2", line)
        line = re.sub(r"cpu_id = \d+", "cpu_id = N", line)
        lines.append(re.sub(r"(long_millis|timestamp) = \d+", r"\1 = N", line))
    return lines


def enable_commands():
    """(domain option, logger, level arguments) of every rule."""
    for _, _, option, loggers in PROGRAMS:
        yield option, loggers[0], []
        level = "WARNING" if option == "--jul" else "WARN"
        yield option, loggers[1], ["--loglevel", level]


def under_tracectl(svc, user, tree):
    out = os.path.join(user.home, "java-trace")
    svc.cli("create", "java", "--output", out, user=user)
    for option, logger, levels in enable_commands():
        svc.cli("enable-event", option, logger, *levels, user=user)
    svc.cli("start", user=user)
    run_programs(tree, svc._as(user), svc.env(user))
    svc.cli("destroy", "java", user=user)
    check(svc.alive(), "tracectld died")
    return masked_lines(out)


def under_lttng_sessiond(top, tree, prefix, user_env):
    out = os.path.join(top, "reference")
    with lttng_sessiond(top, ready=SESSIOND_AGENT_PORT) as env:
        lttng(env, "create", "java", "--output", out)
        for option, logger, levels in enable_commands():
            lttng(env, "enable-event", option, logger, *levels)
        lttng(env, "start")
        run_programs(tree, prefix, user_env)
        lttng(env, "destroy")
    return masked_lines(out)


def test():
    for tool in ("babeltrace2", "lttng-sessiond", "lttng", "make", "javac", "java"):
        require(shutil.which(tool), f"{tool} is not installed")
    for jar in ("lttng-ust-agent-jul.jar", "lttng-ust-agent-log4j.jar"):
        require(os.path.exists(f"/usr/share/java/{jar}"),
                f"{jar} is not installed (liblttng-ust-agent-java)")
    require(os.path.exists(LOG4J_JAR), f"{LOG4J_JAR} is not installed (liblog4j1.2-java)")
    top = tempfile.mkdtemp(prefix="tctest-lttng-java-")
    user = User("tctest-java")
    try:
        tree = build(top)
        with Service(args=["--lttng-ust"]) as svc:
            require_served(svc)
            ours = under_tracectl(svc, user, tree)
            prefix, user_env = svc._as(user), svc.env(user)
        reference = under_lttng_sessiond(top, tree, prefix, user_env)
        log("tracectl's records:\n  " + "\n  ".join(ours))
        for domain in ("jul", "log4j"):
            check(any(f"lttng_{domain}:event" in line for line in reference),
                  f"lttng-sessiond recorded no lttng_{domain}:event")
        check(ours == reference,
              "the records differ:\n  tracectl:\n    " + "\n    ".join(ours) +
              "\n  lttng-sessiond:\n    " + "\n    ".join(reference))
    finally:
        user.remove()
        shutil.rmtree(top, ignore_errors=True)


run(test)
