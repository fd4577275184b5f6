#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Spans exported live: a session streamed live to lttng-relayd records
the client, front-end and back-end trio, and `tracectl export --live`,
started before any span, POSTs each request's four spans to a receiver on
127.0.0.1 while the session still records, within the live timer plus a
few seconds; the trees are whole (parents across the three processes).
The exporter ends, having sent everything, when the session is destroyed.
A session that is not live is refused with a clear error."""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay
from spanlib import PLUGIN_DIR, Receiver, plugin_env
from tclib import BUILD, TRACECTL, Service, check, log, require, run, wait_for

TRIO = os.path.join(BUILD, "probes", "examples", "tracectl-span-trio")
REQUESTS = 3
LIVE_TIMER_US = 200000


def exporter(svc, relay, url, name):
    env = dict(svc.env())
    env.update({k: v for k, v in plugin_env().items() if k in ("LD_PRELOAD", "ASAN_OPTIONS")})
    env["TRACECTL_BT_PLUGIN_PATH"] = PLUGIN_DIR
    return subprocess.Popen([TRACECTL, "export", "--live", "--live-port", str(relay.live_port),
                             "--format", "otlp-json", "--url", url, name],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def spans_received(receiver):
    return [span for _, body in receiver.bodies for rs in body["resourceSpans"]
            for ss in rs["scopeSpans"] for span in ss["spans"]]


def run_trio(svc, tmp):
    back, front = os.path.join(tmp, "back.sock"), os.path.join(tmp, "front.sock")
    back_end = svc.app("back-end", back, str(REQUESTS), program=TRIO, wait_ready=True)
    front_end = svc.app("front-end", front, back, str(REQUESTS), program=TRIO, wait_ready=True)
    svc.run_app("client", front, str(REQUESTS), program=TRIO)
    for app in (back_end, front_end):
        app.communicate(timeout=30)
        check(app.returncode == 0, f"{app.args} failed")


def check_trees(spans):
    by_id = {s["spanId"]: s for s in spans}
    check(len(by_id) == len(spans), "a span was sent twice")
    roots = [s for s in spans if s["name"] == "fetch"]
    check(len(roots) == REQUESTS, f"{len(roots)} roots")
    for root in roots:
        tree = {s["name"]: s for s in spans if s["traceId"] == root["traceId"]}
        check(set(tree) == {"fetch", "GET /item", "backend call", "lookup"}, f"tree {tree}")
        check(tree["GET /item"]["parentSpanId"] == root["spanId"] and
              tree["backend call"]["parentSpanId"] == tree["GET /item"]["spanId"] and
              tree["lookup"]["parentSpanId"] == tree["backend call"]["spanId"],
              f"parents of {root['traceId']}")


def test():
    require(os.path.exists(os.path.join(PLUGIN_DIR, "babeltrace-plugin-tracectl.so")),
            "the exporter plugin was not built")
    with Service() as svc, Relay(svc.rundir) as relay, tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o1777)
        receiver = Receiver()
        svc.cli("create", "still", "--output", os.path.join(svc.rundir, "still"))
        refused = svc.cli("export", "--live", "--url", receiver.url, "still", check_ok=False)
        check(refused.returncode == 1 and "is not streamed to a relay daemon" in refused.stderr,
              f"export --live of a local session: {refused}")
        svc.cli("create", "live", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
        svc.cli("enable-event", "-u", "tracectl_span:*")
        svc.cli("start")
        export = exporter(svc, relay, receiver.url + "/v1/traces", "live")
        time.sleep(1)  # attached before any span
        if export.poll() is not None:
            check(False, f"the exporter ended: {export.communicate()}")
        started = time.monotonic()
        run_trio(svc, tmp)
        wait_for(lambda: len(spans_received(receiver)) >= 4 * REQUESTS, 20,
                 "the spans of the trio, exported live")
        delay = time.monotonic() - started
        check(svc.cli("list").stdout.count("live [active]") == 1, "the session stopped")
        spans = spans_received(receiver)
        check_trees(spans)
        log(f"{len(spans)} spans in {len(receiver.bodies)} requests, the last "
            f"{delay:.1f} s after the trio started, while recording")
        svc.cli("destroy", "live")
        out, err = export.communicate(timeout=60)
        check(export.returncode == 0, f"the live exporter failed: {err[-2000:]}")
        check(len(spans_received(receiver)) == 4 * REQUESTS,
              f"{len(spans_received(receiver))} spans after the session's end")
        svc.cli("destroy", "still")


run(test)
