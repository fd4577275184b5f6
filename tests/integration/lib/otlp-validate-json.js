// SPDX-License-Identifier: LGPL-2.1-or-later
// Validates an OTLP/HTTP JSON ExportTraceServiceRequest read on standard
// input against the OpenTelemetry project's own definitions (the protobufjs
// code @opentelemetry/otlp-transformer generates from opentelemetry-proto):
// the document is built into the message those definitions describe and
// turned back into JSON; every member of the document must be a field the
// definitions know at that place, and come back with the same value and
// type (the JSON mapping's canonical form: 64-bit integers as decimal
// strings, enums as numbers). Ids are hex in OTLP/JSON and bytes in the
// message. Prints nothing
// and exits 0 when the document is valid; else the first difference, 1.
"use strict";
const fs = require("fs");
const path = require("path");

const prefix = process.argv[2];
const root = require(path.join(prefix, "node_modules", "@opentelemetry", "otlp-transformer",
                               "build", "src", "generated", "root.js"));
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ID_KEYS = new Set(["traceId", "spanId", "parentSpanId"]);

function fail(where, why) {
  console.error(`${where || "document"}: ${why}`);
  process.exit(1);
}

// OTLP/JSON's hex ids as protobufjs's base64 bytes, everywhere they occur.
function idsToBase64(value, where) {
  if (Array.isArray(value))
    return value.map((item, i) => idsToBase64(item, `${where}[${i}]`));
  if (value === null || typeof value !== "object")
    return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) {
    if (ID_KEYS.has(key)) {
      if (typeof item !== "string" || !/^([0-9a-f]{2})*$/.test(item))
        fail(`${where}.${key}`, `id ${JSON.stringify(item)} is not lower-case hex`);
      out[key] = Buffer.from(item, "hex").toString("base64");
    } else {
      out[key] = idsToBase64(item, `${where}.${key}`);
    }
  }
  return out;
}

// Every member of got is in again, with the same value and type.
function compare(got, again, where) {
  if (Array.isArray(got)) {
    if (!Array.isArray(again) || again.length !== got.length)
      fail(where, `array of ${got.length} comes back as ${JSON.stringify(again)}`);
    got.forEach((item, i) => compare(item, again[i], `${where}[${i}]`));
  } else if (got !== null && typeof got === "object") {
    if (again === null || typeof again !== "object" || Array.isArray(again))
      fail(where, `object comes back as ${JSON.stringify(again)}`);
    for (const key of Object.keys(got)) {
      if (!(key in again))
        fail(`${where}.${key}`, "not a field of the definitions here");
      compare(got[key], again[key], `${where}.${key}`);
    }
  } else if (got !== again) {
    fail(where, `${JSON.stringify(got)} comes back as ${JSON.stringify(again)}`);
  }
}

// Not Request.verify(): it checks message objects, whose 64-bit integers are
// numbers, where the JSON mapping writes them as strings. The way back from
// the message checks the types instead: what the definitions would not
// keep comes back different.
const document = idsToBase64(JSON.parse(fs.readFileSync(0, "utf8")), "");
const message = Request.fromObject(document);
const again = Request.toObject(message, {
  longs: String, enums: Number, bytes: String, defaults: true, arrays: true, objects: true,
});
compare(document, again, "");
