#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The span exporter (babeltrace2 plugin tracectl) end to end. A client, a
front-end and a back-end (run by another user, so its spans are in a trace
of their own) pass their span context over Unix sockets while one session
records them; sink.tracectl.otlp and sink.tracectl.zipkin, reading both
traces, POST to an HTTP receiver on 127.0.0.1 exactly the three request
trees (parents, kinds, names, attributes, annotations, resources, nested
durations on the Unix epoch), in OTLP/HTTP protobuf (decoded with the
OpenTelemetry project's definitions), OTLP/HTTP JSON (validated by them:
every member a field they define, with its type) and Zipkin v2. In
batches, every span arrives once. A program killed in the middle of a span
has it exported as unfinished. A span continuing a remote context whose
tracestate is "hv=1,other=x", and its local child, are exported with that
traceState in both OTLP encodings; every other span with none, and Zipkin
with no such field. The remote span's link to another context is exported
with that context's ids and tracestate, its child's without a tracestate,
and no other span has links (Zipkin has no place for them). The exporter
retries a receiver that
answers 503, and reports, and fails, when it cannot deliver. `tracectl
export` gives the same spans."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from spanlib import (NPM_PREFIX, PLUGIN_DIR, Receiver, check_same_spans, merged,
                     plugin_env, validate_otlp_json)
from tclib import BUILD, TRACECTL, Service, check, log, require, run

TRIO = os.path.join(BUILD, "probes", "examples", "tracectl-span-trio")
SPAN_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-span-app")

REQUESTS = 3
# The spans of the trio, the unfinished program's two and the remote two.
SPANS = 4 * REQUESTS + 4
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACESTATE = "hv=1,other=x"
LINK_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
LINK_TRACESTATE = "lk=2"
KIND = {"internal": 1, "server": 2, "client": 3}


def export(sink, traces, url, *params):
    args = ["babeltrace2", f"--plugin-path={PLUGIN_DIR}", *traces, "-c", f"sink.tracectl.{sink}",
            "-p", f'url="{url}",backoff-ms=50' + "".join("," + p for p in params)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=plugin_env())


def cli_export(svc, *args):
    """tracectl export, with the plugin of this build."""
    env = dict(svc.env())
    env.update({k: v for k, v in plugin_env().items() if k in ("LD_PRELOAD", "ASAN_OPTIONS")})
    env["TRACECTL_BT_PLUGIN_PATH"] = PLUGIN_DIR
    return subprocess.run([TRACECTL, "export", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def record(svc, tmp, user):
    out = os.path.join(svc.rundir, "spans")
    svc.cli("create", "spans", "--output", out)
    svc.cli("enable-event", "-u", "tracectl_span:*")
    svc.cli("add-context", "-u", "-t", "vpid", "-t", "procname")
    svc.cli("start")
    back, front = os.path.join(tmp, "back.sock"), os.path.join(tmp, "front.sock")
    back_end = svc.app("back-end", back, str(REQUESTS), program=TRIO, user=user,
                       wait_ready=True)
    front_end = svc.app("front-end", front, back, str(REQUESTS), program=TRIO, wait_ready=True)
    reply = svc.run_app("client", front, str(REQUESTS), program=TRIO)
    check(reply.split() == [f"value-of-item{i}" for i in range(REQUESTS)], f"replies {reply}")
    for app in (back_end, front_end):
        app.communicate(timeout=30)
        check(app.returncode == 0, f"{app.args} failed")
    remote = [json.loads(line) for line in
              svc.run_app("remote", TRACEPARENT, TRACESTATE, LINK_TRACEPARENT, LINK_TRACESTATE,
                          program=SPAN_APP).splitlines()]
    doomed = svc.app("unfinished", program=SPAN_APP)
    lines = [doomed.stdout.readline() for _ in range(3)]
    check(lines[2].strip() == "ready", f"unfinished app: {lines}")
    time.sleep(0.3)  # the consumer reads the buffers while the app lives
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    svc.cli("stop")
    pids = {"back-end": back_end.pid, "front-end": front_end.pid, "doomed": doomed.pid}
    traces = [os.path.join(out, "ust", "uid", str(uid), "64-bit") for uid in (0, user.uid)]
    for trace in traces:
        check(os.path.isdir(trace), f"no trace {trace}")
    return traces, pids, [json.loads(line) for line in lines[:2]], remote


def attrs_of(item):
    out = {}
    for a in item.get("attributes", []):
        (kind, value), = a["value"].items()
        out[a["key"]] = int(value) if kind == "intValue" else value
    return out


def otlp_spans(body):
    check(set(body) == {"resourceSpans"}, f"OTLP top level {set(body)}")
    spans = []
    for rs in body["resourceSpans"]:
        resource = attrs_of(rs["resource"])
        for ss in rs["scopeSpans"]:
            check(ss["scope"]["name"] == "tracectl", f"scope {ss['scope']}")
            for span in ss["spans"]:
                spans.append((resource, span))
    return spans


def check_otlp_span_shape(span):
    allowed = {"traceId", "spanId", "traceState", "parentSpanId", "name", "kind",
               "startTimeUnixNano", "endTimeUnixNano", "attributes", "events", "links",
               "status"}
    check(set(span) <= allowed, f"unknown OTLP span fields {set(span) - allowed}")
    check(re.fullmatch("[0-9a-f]{32}", span["traceId"]) and span["traceId"] != "0" * 32,
          f"traceId {span['traceId']}")
    check(re.fullmatch("[0-9a-f]{16}", span["spanId"]), f"spanId {span['spanId']}")
    check(isinstance(span["kind"], int) and 1 <= span["kind"] <= 5, f"kind {span['kind']}")
    for key in ("startTimeUnixNano", "endTimeUnixNano"):
        check(isinstance(span[key], str) and span[key].isdigit(), f"{key}: {span[key]!r}")


def check_trace_states(spans, remote):
    """The remote span and its child carry its tracestate, no other span any."""
    ids = {f"{s['span']:016x}" for s in remote}
    check(ids <= {s["spanId"] for _, s in spans}, f"remote spans {ids} not exported")
    for _, span in spans:
        want = TRACESTATE if span["spanId"] in ids else None
        check(span.get("traceState") == want,
              f"{span['name']}: traceState {span.get('traceState')!r}, not {want!r}")


def check_links(spans, remote):
    """The remote server span links to LINK_TRACEPARENT's context with its
    tracestate, its child to the same context without one; no other span
    has links."""
    _, trace_id, span_id, _ = LINK_TRACEPARENT.split("-")
    want = {f"{remote[0]['span']:016x}": [{"traceId": trace_id, "spanId": span_id,
                                           "traceState": LINK_TRACESTATE}],
            f"{remote[1]['span']:016x}": [{"traceId": trace_id, "spanId": span_id}]}
    for _, span in spans:
        links = span.get("links", [])
        for link in links:
            link.pop("attributes", None)  # decoded protobuf lists every repeated field
        check(links == want.get(span["spanId"], []),
              f"{span['name']}: links {links}, not {want.get(span['spanId'], [])}")


def check_otlp(body, pids, doomed, remote, started_ns):
    spans = otlp_spans(body)
    for _, span in spans:
        check_otlp_span_shape(span)
    check_trace_states(spans, remote)
    check_links(spans, remote)
    by_id = {s["spanId"]: (r, s) for r, s in spans}
    host = socket.gethostname()
    for resource, span in spans:
        check(resource["host.name"] == host, f"host.name {resource}")
        service = resource["service.name"]
        if service in pids:
            check(resource["process.pid"] == pids[service], f"pid of {service}: {resource}")
        check(resource.get("process.executable.name") in ("tracectl-span-t", "tracectl-span-a"),
              f"process name {resource}")
        start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
        check(started_ns <= start <= end <= time.time_ns(), f"times of {span['name']}")
    fetches = [s for r, s in spans if s["name"] == "fetch"]
    check(len(fetches) == REQUESTS, f"{len(fetches)} fetch spans")
    for fetch in fetches:
        tree = [(r, s) for r, s in spans if s["traceId"] == fetch["traceId"]]
        check(len(tree) == 4, f"trace {fetch['traceId']}: {[s['name'] for _, s in tree]}")
        shape = {s["name"]: (r["service.name"], s["kind"],
                             by_id[s["parentSpanId"]][1]["name"] if "parentSpanId" in s else None)
                 for r, s in tree}
        check(shape == {"fetch": ("client", KIND["client"], None),
                        "GET /item": ("front-end", KIND["server"], "fetch"),
                        "backend call": ("front-end", KIND["client"], "GET /item"),
                        "lookup": ("back-end", KIND["server"], "backend call")},
              f"tree {shape}")
        named = {s["name"]: s for _, s in tree}
        item = attrs_of(fetch)["item"]
        check(attrs_of(fetch) == {"item": item, "retry": False}, f"fetch attrs {attrs_of(fetch)}")
        check(attrs_of(named["lookup"]) == {"item": item, "rows": len(item),
                                            "tracectl.address": named_address(tree, "back-end")},
              f"lookup attrs {attrs_of(named['lookup'])}")
        check(attrs_of(named["backend call"])["peer.service"] == "back-end", "peer.service")
        check([e["name"] for e in fetch["events"]] == ["reply received"], "fetch events")
        check([e["name"] for e in named["lookup"]["events"]] == ["cache miss"], "lookup events")
        # Each child lies within its parent, across the three processes.
        for name, parent in (("GET /item", "fetch"), ("backend call", "GET /item"),
                             ("lookup", "backend call")):
            c, p = named[name], named[parent]
            check(int(p["startTimeUnixNano"]) <= int(c["startTimeUnixNano"]) and
                  int(c["endTimeUnixNano"]) <= int(p["endTimeUnixNano"]),
                  f"{name} not within {parent}")
        check(all(s["status"].get("code", 0) == 0 for _, s in tree), "statuses")
    never = by_id[f"{doomed[0]['span']:016x}"][1]
    ends = by_id[f"{doomed[1]['span']:016x}"][1]
    check(attrs_of(never).get("tracectl.unfinished") is True, f"unfinished: {never}")
    check("tracectl.unfinished" not in attrs_of(ends), f"finished child: {ends}")
    check(int(never["endTimeUnixNano"]) >= int(ends["endTimeUnixNano"]), "unfinished end time")
    check(len(spans) == SPANS, f"{len(spans)} spans exported")
    return {s["spanId"]: s for _, s in spans}


def named_address(tree, service):
    for r, s in tree:
        if r["service.name"] == service:
            return attrs_of(s).get("tracectl.address")
    return None


ZIPKIN_FIELDS = {"traceId", "id", "parentId", "name", "kind", "timestamp", "duration", "debug",
                 "shared", "localEndpoint", "remoteEndpoint", "annotations", "tags"}
ENDPOINT_FIELDS = {"serviceName", "ipv4", "ipv6", "port"}


def check_zipkin(spans, otlp):
    """The Zipkin v2 model (zipkin2-api.yaml): field names and types."""
    check(isinstance(spans, list), "Zipkin: not a list")
    check(len(spans) == len(otlp), f"Zipkin: {len(spans)} spans, OTLP {len(otlp)}")
    for span in spans:
        check(set(span) <= ZIPKIN_FIELDS, f"Zipkin fields {set(span) - ZIPKIN_FIELDS}")
        check(re.fullmatch("[0-9a-f]{16}|[0-9a-f]{32}", span["traceId"]), "traceId")
        check(re.fullmatch("[0-9a-f]{16}", span["id"]), "id")
        check("parentId" not in span or re.fullmatch("[0-9a-f]{16}", span["parentId"]),
              "parentId")
        check(span.get("kind", "SERVER") in ("CLIENT", "SERVER", "PRODUCER", "CONSUMER"),
              f"kind {span.get('kind')}")
        check(isinstance(span["timestamp"], int) and isinstance(span["duration"], int) and
              span["duration"] >= 1, "timestamp and duration")
        for key in ("localEndpoint", "remoteEndpoint"):
            if key in span:
                check(set(span[key]) <= ENDPOINT_FIELDS, f"{key} {span[key]}")
        for annotation in span.get("annotations", []):
            check(set(annotation) == {"timestamp", "value"} and
                  isinstance(annotation["timestamp"], int), f"annotation {annotation}")
        check(all(isinstance(v, str) for v in span.get("tags", {}).values()), "tags")
        # The same span as in OTLP.
        o = otlp[span["id"]]
        check(span["traceId"] == o["traceId"] and span.get("parentId") == o.get("parentSpanId")
              and span["name"] == o["name"], f"Zipkin {span} vs OTLP {o}")
        check(span["timestamp"] == int(o["startTimeUnixNano"]) // 1000, "Zipkin timestamp")
    lookups = [s for s in spans if s["name"] == "lookup"]
    check(all(s["localEndpoint"]["serviceName"] == "back-end" and s["kind"] == "SERVER" and
              s["tags"]["rows"] == "5" for s in lookups), f"Zipkin lookups {lookups}")
    calls = [s for s in spans if s["name"] == "backend call"]
    check(all(s["remoteEndpoint"]["serviceName"] == "back-end" for s in calls), "remoteEndpoint")
    never = [s for s in spans if s["name"] == "never ends"]
    check(len(never) == 1 and never[0]["tags"]["tracectl.unfinished"] == "true", "unfinished")


def test():
    require(os.path.exists(os.path.join(PLUGIN_DIR, "babeltrace-plugin-tracectl.so")),
            "the exporter plugin was not built (libbabeltrace2, json-glib or libcurl missing)")
    started_ns = time.time_ns()
    with Service() as svc, tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o1777)
        user = svc.add_user("tctest-spans")
        traces, pids, doomed, remote = record(svc, tmp, user)
        expected = (pids, doomed, remote, started_ns)
        receiver = Receiver()

        node = subprocess.run(["node", "--version"], capture_output=True)
        require(node.returncode == 0 and os.path.isdir(os.path.join(NPM_PREFIX, "node_modules")),
                f"node and @opentelemetry/otlp-transformer under {NPM_PREFIX} (tools/test)")
        receiver.fail_first = [503, 503]
        result = export("otlp", traces, receiver.url + "/v1/traces")
        check(result.returncode == 0, f"OTLP export failed: {result.stderr}")
        check(receiver.attempts == 3, f"{receiver.attempts} attempts for two 503s")
        check(f"1 of {SPANS} spans never ended" in result.stderr, f"stderr {result.stderr!r}")
        path, body = receiver.bodies[-1]
        check(path == "/v1/traces", f"OTLP path {path}")
        otlp = check_otlp(body, *expected)
        log(f"OTLP/HTTP protobuf decoded by opentelemetry-proto's definitions: {SPANS} spans")

        result = export("otlp", traces, receiver.url + "/v1/traces", 'encoding="json"')
        check(result.returncode == 0, f"OTLP JSON export failed: {result.stderr}")
        check_same_spans(check_otlp(receiver.bodies[-1][1], *expected), otlp,
                         "OTLP JSON against protobuf")

        before = len(receiver.bodies)
        result = export("otlp", traces, receiver.url + "/v1/traces", "batch-size=4")
        check(result.returncode == 0, f"OTLP batched export failed: {result.stderr}")
        batches = receiver.bodies[before:]
        check(len(batches) >= 3, f"{len(batches)} requests with batch-size=4")
        check_same_spans(check_otlp(merged(batches), *expected), otlp,
                         "batches against one request")
        log(f"batch-size=4: {len(batches)} requests, each span once")

        before = len(receiver.bodies)
        result = cli_export(svc, "spans", "--url", receiver.url + "/v1/traces")
        check(result.returncode == 0 and len(receiver.bodies) == before + 1,
              f"tracectl export of the session failed: {result.stderr}")
        check_same_spans(check_otlp(receiver.bodies[-1][1], *expected), otlp,
                         "tracectl export against babeltrace2")
        out = os.path.join(tmp, "spans.json")
        result = cli_export(svc, "--format", "otlp-json", "--output", out,
                            *[a for t in traces for a in ("--trace", t)])
        check(result.returncode == 0, f"tracectl export --trace failed: {result.stderr}")
        with open(out, "rb") as f:
            document = f.read()
        validate_otlp_json(document)
        check_same_spans(check_otlp(json.loads(document), *expected), otlp,
                         "tracectl export --output against babeltrace2")
        for bad in (["spans", "--url", "ftp://x"], ["spans"], ["--format", "jaeger", "-o", "-"]):
            result = cli_export(svc, *bad)
            check(result.returncode == 2 and "Error:" in result.stderr,
                  f"tracectl export {bad}: {result.returncode} {result.stderr!r}")
        log("tracectl export: a session to a URL, traces to a file, bad usage refused")

        result = export("zipkin", traces, receiver.url + "/api/v2/spans")
        check(result.returncode == 0, f"Zipkin export failed: {result.stderr}")
        check_zipkin(receiver.bodies[-1][1], otlp)

        receiver.server.shutdown()
        receiver.server.server_close()
        result = export("otlp", traces, receiver.url + "/v1/traces", "attempts=2")
        log(result.stderr.strip().splitlines()[-1] if result.stderr else "")
        check(result.returncode != 0, "export to a closed port succeeded")
        check(f"could not deliver {SPANS} spans" in result.stderr and
              "attempt 2 of 2" in result.stderr,
              f"no delivery report: {result.stderr!r}")
        svc.cli("destroy", "spans")


run(test)
