#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A relay comes back as a daemon that accepts both connections and never
answers (stopped or hung), then with its control port answering and its
data port silent (a listener whose queue is full drops every connection request,
as a firewall that filters one port does): while the consumer keeps
trying, the commands its user gives it still get their answers at once,
since neither port's connection is waited for in the consumer's loop.
When the whole relay is back, the session reconnects and its trace
reads whole, with events from after the outage.

A session created for a relay whose control port is silent from the
start fails within seconds, as the consumer bounds each connection, with
an error naming the URL; the consumer that records the user's other
session lives on."""

import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import HungRelay, Relay, command_times, free_port, free_ports, start_streamed_session
from tclib import Service, check, consumer_pid, log, run, wait_for
from tracelib import read_streams

SILENT_SECONDS = 9.0
HUNG_SECONDS = 8.0
BASELINE_SECONDS = 2.0
# An attempt that blocks the consumer's loop (a connect or a handshake
# timeout of 2 s, often two in a row) holds a command waiting behind it
# for 2 to 4 s. The bound follows the machine's own pace, measured before
# the outage, below that.
COMMAND_BOUND_MIN_S, COMMAND_BOUND_MAX_S = 1.0, 2.5
# The consumer gives up opening a relay's connections after 5 s; the
# kernel alone would retry a silent port's SYN for about two minutes.
CREATE_BOUND_S = 8


class SilentPort:
    """A TCP listener on port whose accept queue is full and never read:
    the kernel drops the SYN of every further connection, which then
    waits until its own timeout."""

    def __init__(self, port):
        self.port = port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(0)
        self.fillers = []
        for _ in range(2):  # a backlog of 0 still queues one connection
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            self.fillers.append(filler)
        time.sleep(0.2)
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(("127.0.0.1", port))
            answered = True
        except (socket.timeout, OSError):
            answered = False
        finally:
            probe.close()
        check(not answered, f"port {port} still accepts connections")

    def close(self):
        for sock in [*self.fillers, self.listener]:
            sock.close()


def is_down(text):
    """A relay Problem that says the relay is away now."""
    return "unreachable" in text and "reconnected" not in text


def problem(svc, name):
    return svc.session(name).get("problem") or ""


def check_silent_control_port_fails_soon(svc):
    """A session for a relay whose control port never answers: creating it
    fails within CREATE_BOUND_S with an error naming the URL, and the
    consumer, which records another session, is the same one after."""
    consumer = consumer_pid(svc)
    silent = SilentPort(free_port())
    url = f"net://127.0.0.1:{silent.port}:{free_port()}"
    try:
        result, took = svc.timed_cli("create", "x", "--set-url", url, check_ok=False,
                                     timeout=60)
    finally:
        silent.close()
    log(f"create x for a silent control port: {took:.1f} s: {result.stderr.strip()}")
    check(took < CREATE_BOUND_S, f"create x took {took:.1f} s, more than {CREATE_BOUND_S} s")
    check(result.returncode == 1 and url in result.stderr,
          f"create x: expected an error naming {url}: {result}")
    check(all(s["name"] != "x" for s in svc.sessions()), "the failed session remains")
    check(consumer_pid(svc) == consumer, "the consumer was replaced while connecting")
    check(svc.alive(), "tracectld died")


def test():
    hostname = socket.gethostname()
    with Service() as svc, Relay(svc.rundir) as relay:
        start_streamed_session(svc, "streamed", relay.url)
        app = svc.app("--forever", "--interval-us", "2000")
        baseline = max(command_times(svc, BASELINE_SECONDS, svc.rundir, "before", pause=0.1))
        bound = min(COMMAND_BOUND_MAX_S, max(COMMAND_BOUND_MIN_S, 4 * baseline))
        check_silent_control_port_fails_soon(svc)
        relay.stop(signal.SIGKILL)
        wait_for(lambda: is_down(problem(svc, "streamed")), 15,
                 "the consumer to miss the relay")

        # Both ports take connections; nothing ever answers on them.
        hung = HungRelay(*relay.ports[:2])
        try:
            times = command_times(svc, HUNG_SECONDS, svc.rundir, "hung", pause=0.1)
            log(f"{len(times)} commands while the relay accepted and never answered "
                f"({len(hung.held)} connections held): slowest {max(times):.2f} s, "
                f"bound {bound:.2f} s")
            check(hung.held, "the consumer never tried the hung relay")
            check(is_down(problem(svc, "streamed")),
                  f"Problem while the relay hangs: {problem(svc, 'streamed')!r}")
            check(max(times) < bound,
                  f"a command took {max(times):.2f} s while the consumer tried the relay")
        finally:
            hung.close()

        # The relay's control port answers again; its data port is silent.
        data_port = relay.ports[1]
        silent = SilentPort(data_port)
        relay.ports[1], relay.ports[2] = free_ports(2)
        relay.start()
        try:
            times = command_times(svc, SILENT_SECONDS, svc.rundir, "during", pause=0.1)
            log(f"{len(times)} commands while the data port was silent: slowest "
                f"{max(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s; "
                f"slowest before the outage {baseline:.2f} s, bound {bound:.2f} s")
            check(is_down(problem(svc, "streamed")),
                  f"Problem while the data port is silent: {problem(svc, 'streamed')!r}")
            check(max(times) < bound,
                  f"a command took {max(times):.2f} s while the consumer tried the relay")
        finally:
            relay.stop(signal.SIGKILL)
            silent.close()

        relay.ports[1] = data_port
        relay.start()
        wait_for(lambda: "reconnected" in problem(svc, "streamed"), 30,
                 "the consumer to reconnect")
        time.sleep(1)
        app.terminate()
        app.wait(timeout=10)
        svc.cli("stop", "streamed")
        svc.cli("destroy", "streamed")
        check(svc.alive(), "tracectld died")

        dirs = [d for d in relay.trace_dirs(hostname)
                if os.path.basename(d).startswith("streamed-")]
        check(dirs, f"relay directories: {relay.trace_dirs(hostname)}")
        seqs = sorted(e["seq"] for e in read_streams(dirs[-1])["events"]
                      if e["name"] == "example:all_types")
        log(f"after the outage: {len(seqs)} events")
        check(seqs, "no events reached the relay after the outage")


run(test)
