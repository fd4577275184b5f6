#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A relay far away: lttng-relayd's control port behind a proxy that
delays every answer by DELAY_S, as a distant relay's round trip does.
Stopping a session asks the relay whether it received every stream's
last packet, and must do so in one round trip for all streams, not one
per stream: with CHANNELS channels (a stream per CPU each), the stop
answers within a few round trips, the relay is not taken for lost for
answering slowly, and the relay's trace reads whole."""

import os
import selectors
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from tclib import Service, check, log, run
from tracelib import read_streams

DELAY_S = 0.25
CHANNELS = 16
COUNT = 2000


class DelayingProxy:
    """Forwards one port to target: what the client sends at once, what
    the target answers DELAY_S later, in order."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self):
        self.listener.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            try:
                target = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            thread = threading.Thread(target=self._forward, args=(client, target), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _forward(self, client, target):
        """One connection: the client's bytes go on at once; the
        target's are held DELAY_S, then sent in their order."""
        held = []  # (when due, bytes)
        with client, target, selectors.DefaultSelector() as sel:
            sel.register(client, selectors.EVENT_READ, target)
            sel.register(target, selectors.EVENT_READ, None)
            while not self.stopping.is_set():
                timeout = max(0.0, held[0][0] - time.monotonic()) if held else 0.2
                for key, _ in sel.select(min(timeout, 0.2)):
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    if key.data is not None:
                        target.sendall(data)
                    else:
                        held.append((time.monotonic() + DELAY_S, data))
                while held and held[0][0] <= time.monotonic():
                    client.sendall(held.pop(0)[1])

    def close(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=5)
        self.listener.close()


def test_stop_in_few_round_trips():
    with Service() as svc, Relay(svc.rundir) as relay:
        proxy = DelayingProxy(relay.ports[0])
        try:
            svc.cli("create", "far", "--ctrl-url", f"tcp://127.0.0.1:{proxy.port}",
                    "--data-url", f"tcp://127.0.0.1:{relay.ports[1]}")
            for n in range(CHANNELS):
                svc.cli("enable-channel", "-u", f"c{n}", "--subbuf-size", "16384")
                svc.cli("enable-event", "-u", "-c", f"c{n}", "example:*")
            svc.cli("start")
            svc.run_app("--count", str(COUNT), "--interval-us", "200")
            _, took = svc.timed_cli("stop")
            log(f"stop with {CHANNELS} channels, answers {DELAY_S * 1000:.0f} ms away: "
                f"{took:.2f} s")
            # Asked stream by stream, the question alone took a round trip
            # per stream, at least one per channel (4 s), and overran the
            # I/O timeout (2 s); the flush, the last indexes and the
            # question for all take a few round trips (0.9 s seen).
            check(took < 14 * DELAY_S,
                  f"stop took {took:.2f} s against a relay {DELAY_S} s away")
            # Nor is a relay answering in time taken for lost: asked
            # stream by stream, it was.
            problem = svc.cli_json("status").get("problem")
            check(not problem, f"after the stop: {problem}")
            svc.cli("destroy", "far")
        finally:
            proxy.close()
        trace = read_streams(relay.session_dir(socket.gethostname(), "far", closed=True))
        names = [e["name"] for e in trace["events"]]
        # Every channel records every event.
        check(names.count("example:all_types") == COUNT * CHANNELS,
              f"the relay's trace has {names.count('example:all_types')} all_types events")


run(test_stop_in_few_round_trips)
