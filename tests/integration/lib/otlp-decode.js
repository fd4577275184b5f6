// SPDX-License-Identifier: LGPL-2.1-or-later
// Decodes an OTLP/HTTP protobuf ExportTraceServiceRequest read on standard
// input with the OpenTelemetry project's own definitions (the protobufjs
// code @opentelemetry/otlp-transformer generates from opentelemetry-proto),
// and prints it as JSON: ids in base64, 64-bit integers as strings, enums
// as numbers. Fails on a body that does not decode, does not verify, or
// holds fields the definitions do not know (re-encoding must give back
// every byte).
"use strict";
const fs = require("fs");
const path = require("path");

const prefix = process.argv[2];
const root = require(path.join(prefix, "node_modules", "@opentelemetry", "otlp-transformer",
                               "build", "src", "generated", "root.js"));
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const body = fs.readFileSync(0);
const message = Request.decode(body);
const problem = Request.verify(message);
if (problem) {
  console.error(`invalid ExportTraceServiceRequest: ${problem}`);
  process.exit(1);
}
const again = Request.encode(message).finish();
if (again.length !== body.length) {
  console.error(`${body.length - again.length} bytes of the body are fields OTLP does not define`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(Request.toObject(message, {
  longs: String, enums: Number, bytes: String, defaults: false, arrays: true,
})));
