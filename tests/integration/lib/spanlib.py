# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the span export tests share: an OTLP/Zipkin receiver on 127.0.0.1,
the decoding of what it receives (OTLP protobuf with the OpenTelemetry
project's definitions), and the environment the exporter plugin needs."""

import base64
import http.server
import json
import os
import shutil
import subprocess
import threading

import tracelib
from tclib import BUILD, check, log

PLUGIN_DIR = os.path.join(BUILD, "exporter")
# Where tools/test installs @opentelemetry/otlp-transformer from npm.
NPM_PREFIX = "/usr/local/lib/tracectl-test"
OTLP_DECODER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "otlp-decode.js")
OTLP_JSON_VALIDATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "otlp-validate-json.js")


class Receiver:
    """An HTTP server on 127.0.0.1 keeping each POST body; answers with the
    statuses queued in fail_first before it answers 200."""

    def __init__(self):
        self.bodies, self.fail_first, self.attempts = [], [], 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.attempts += 1
                status = receiver.fail_first.pop(0) if receiver.fail_first else 200
                if status == 200:
                    receiver.bodies.append((self.path, decode(self.headers["Content-Type"],
                                                              body, self.path)))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def base64_to_hex(item, *keys):
    for key in keys:
        if key in item:
            item[key] = base64.b64decode(item[key]).hex()


def validate_otlp_json(body):
    """Fails the test unless body, an OTLP/JSON ExportTraceServiceRequest,
    holds only what the OpenTelemetry project's definitions define, with
    their types (otlp-validate-json.js). Without Node.js and the definitions
    (tools/test installs them) the document is not validated, as protobuf
    is then not decoded."""
    if not (shutil.which("node") and os.path.isdir(os.path.join(NPM_PREFIX, "node_modules"))):
        log("OTLP JSON not validated: no Node.js or no OpenTelemetry definitions")
        return
    out = subprocess.run(["node", OTLP_JSON_VALIDATOR, NPM_PREFIX], input=body,
                         capture_output=True, timeout=60)
    check(out.returncode == 0, f"OTLP JSON does not validate: {out.stderr.decode()}")


def decode(content_type, body, path="/v1/traces"):
    """JSON as it comes (validated by the OpenTelemetry project's
    definitions when posted to OTLP's path), or protobuf decoded by them
    into the OTLP JSON mapping (ids in hex)."""
    if content_type == "application/json":
        if path.endswith("/v1/traces"):
            validate_otlp_json(body)
        return json.loads(body)
    check(content_type == "application/x-protobuf", f"content type {content_type}")
    out = subprocess.run(["node", OTLP_DECODER, NPM_PREFIX], input=body, capture_output=True,
                         timeout=60)
    check(out.returncode == 0, f"OTLP protobuf does not decode: {out.stderr.decode()}")
    request = json.loads(out.stdout)
    for rs in request.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                base64_to_hex(span, "traceId", "spanId", "parentSpanId")
                span.setdefault("status", {}).setdefault("code", 0)
                span.setdefault("events", [])
                for event in span["events"]:
                    if event.get("attributes") == []:
                        del event["attributes"]
                span.setdefault("attributes", [])
                if span.get("links") == []:
                    del span["links"]  # arrays: true lists every repeated field
                for link in span.get("links", []):
                    base64_to_hex(link, "traceId", "spanId")
    return request


def check_same_spans(got, want, what):
    check(set(got) == set(want), f"{what}: span ids differ")
    for span_id, span in want.items():
        check(got[span_id] == span, f"{what}: span {span_id} is {got[span_id]}, not {span}")


def merged(bodies):
    """Several OTLP requests as one."""
    return {"resourceSpans": [rs for _, body in bodies for rs in body["resourceSpans"]]}


def plugin_env():
    return tracelib.plugin_env(os.path.join(PLUGIN_DIR, "babeltrace-plugin-tracectl.so"))
