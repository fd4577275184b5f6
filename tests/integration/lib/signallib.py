# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bus clients that record the signals they receive (signal-listener.py,
run as a test user or as root), for the signal and trigger tests."""

import json
import os
import queue
import subprocess
import threading
import time

from tclib import SYSTEM_PYTHON, check

LISTENER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "signal-listener.py")


class Listener:
    """signal-listener.py as user (None: root); mode is "subscribe",
    "listen" or "monitor". The signals received are in self.signals."""

    def __init__(self, svc, user=None, mode="subscribe"):
        args = {"subscribe": ["--subscribe"], "listen": [], "monitor": ["--monitor"]}[mode]
        self.proc = subprocess.Popen(svc._as(user) + [SYSTEM_PYTHON, LISTENER, *args],
                                     env=svc.env(user), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd="/")
        svc.apps.append(self.proc)
        self.signals = []
        self.replies = queue.Queue()
        self.first = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        line = self.first.get(timeout=20)
        self.name = line.get("ready")
        self.error = line.get("error")
        self.message = line.get("message")

    def _read(self):
        first = True
        for line in self.proc.stdout:
            obj = json.loads(line)
            if "member" in obj:
                self.signals.append(obj)
            elif first:
                self.first.put(obj)
                first = False
            else:
                self.replies.put(obj)
        if first:
            self.first.put({"error": "exited", "message": self.proc.stderr.read()})

    def command(self, what):
        self.proc.stdin.write(what + "\n")
        self.proc.stdin.flush()
        reply = self.replies.get(timeout=20)
        check(reply.get("done") == what, f"{what}: {reply}")

    def members(self, path=None):
        return [s["member"] for s in list(self.signals)
                if path is None or s["path"] == path or path in map(str, s["args"])]

    def wait_member(self, member, predicate=lambda s: True, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for s in list(self.signals):
                if s["member"] == member and predicate(s):
                    return s
            time.sleep(0.02)
        raise AssertionError(f"no {member} within {timeout}s; got {self.signals}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
