// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The audit trail of a session: who did what to it, as the service wrote
 * it (docs/security.md, "Audit trail"). Under systemd every call that
 * changes something leaves a journal entry with the fields TRACECTL_ACTION,
 * TRACECTL_RESULT, TRACECTL_CALLER_UID, TRACECTL_CALLER_PID,
 * TRACECTL_SESSION, TRACECTL_OWNER_UID and TRACECTL_DETAIL; the page asks
 * journalctl for a session's by its owner and name.
 *
 * journalctl runs as the page's D-Bus calls do ("superuser": "try"): as
 * the user, who reads the system's journal only in the groups journald
 * allows (adm, systemd-journal), or as root with Cockpit's administrative
 * access, as Cockpit's own Logs page. What journalctl says besides the
 * entries (its hint that the user sees only part of the journal) is shown
 * as it said it, and a failure is shown as any other.
 */

import { _, $, element, clearError, failure, showError, spawnError } from "./ui.js";

// The newest entries read; journalctl prints them oldest first.
const MAX_ENTRIES = 200;

// path -> { entries, said, read (Date) }
const trails = new Map();
let reading = null;

export function auditCommand(ownerUid, name) {
    return ["journalctl", "--no-pager", "-o", "json", "-n", String(MAX_ENTRIES),
        "SYSLOG_IDENTIFIER=tracectld", `TRACECTL_OWNER_UID=${ownerUid}`, `TRACECTL_SESSION=${name}`];
}

// journalctl writes a field that is not valid UTF-8 as an array of bytes.
function text(value) {
    if (Array.isArray(value))
        return new TextDecoder().decode(new Uint8Array(value));
    return value === undefined || value === null ? "" : String(value);
}

function entriesOf(output) {
    const entries = [];
    for (const line of output.split("\n")) {
        if (line.trim() === "")
            continue;
        const record = JSON.parse(line);
        const realtime = text(record.__REALTIME_TIMESTAMP);
        entries.push({
            time: realtime ? new Date(Number(realtime) / 1000) : null,
            action: text(record.TRACECTL_ACTION),
            result: text(record.TRACECTL_RESULT),
            callerUid: text(record.TRACECTL_CALLER_UID),
            callerPid: text(record.TRACECTL_CALLER_PID),
            detail: text(record.TRACECTL_DETAIL),
        });
    }
    return entries.reverse();
}

// cockpit.spawn()'s promise gives standard error as a second value on
// success, which await drops.
function run(command) {
    return new Promise((resolve, reject) => {
        cockpit.spawn(command, { superuser: "try", err: "message" })
                .then((output, said) => resolve({ output, said }), reject);
    });
}

async function read(path, label, command, render) {
    clearError();
    reading = path;
    render();
    try {
        const { output, said } = await run(command);
        trails.set(path, { entries: entriesOf(output), said: said || "", read: new Date() });
    } catch (error) {
        trails.delete(path);
        showError(cockpit.format(_("Read the audit trail of $0"), label),
                  error instanceof SyntaxError
                      ? failure(_("journalctl's output is not JSON"), error.message)
                      : spawnError("journalctl", error));
    } finally {
        reading = null;
        render();
    }
}

export function forgetAudit(path) {
    trails.delete(path);
}

function row(entry, ownerName) {
    const node = element("tr");
    node.dataset.action = entry.action;
    node.dataset.result = entry.result;
    node.dataset.caller = entry.callerUid;
    const caller = entry.callerUid === "" ? "?" : ownerName(Number(entry.callerUid));
    node.append(
        element("td", {
            className: "tc-audit-time",
            textContent: entry.time ? entry.time.toLocaleString() : "—",
        }),
        element("td", { className: "tc-audit-action tc-mono", textContent: entry.action }),
        element("td", {}, [element("span", {
            className: "tc-badge tc-audit-result tc-result-" + entry.result,
            textContent: entry.result,
        })]),
        element("td", {
            className: "tc-audit-caller",
            textContent: entry.callerPid ? `${caller}, pid ${entry.callerPid}` : caller,
        }),
        element("td", { className: "tc-audit-detail tc-mono", textContent: entry.detail }));
    return node;
}

/*
 * Draws the audit trail of the session at path; command: auditCommand()'s,
 * or null while the session's owner and name are not known.
 */
export function renderAudit(path, command, ownerName) {
    const trail = trails.get(path);
    $("tc-audit-read").disabled = reading !== null || command === null;
    $("tc-audit-read").textContent = reading === path ? _("Reading…") : _("Read the audit trail");
    $("tc-audit-query").textContent = command ? command.join(" ") : "";
    const rows = trail ? trail.entries.map(entry => row(entry, ownerName)) : [];
    $("tc-audit").tBodies[0].replaceChildren(...rows);
    $("tc-audit").hidden = rows.length === 0;
    $("tc-audit-empty").hidden = !trail || rows.length !== 0;
    $("tc-audit-said").textContent = trail ? trail.said.trim() : "";
    $("tc-audit-said").hidden = !trail || trail.said.trim() === "";
}

/*
 * context: { current() (the session shown: { path, label, auditCommand },
 * or null), render() }.
 */
export function initAudit(context) {
    $("tc-audit-read").addEventListener("click", () => {
        const session = context.current();
        if (session && session.auditCommand)
            read(session.path, session.label, session.auditCommand, context.render);
    });
}
