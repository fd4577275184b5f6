// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a session records: its channels (EnableChannel), their context
 * fields (AddContext, the names ListContexts gives, as `tracectl
 * add-context --list`) and events (EnableEvent), picked from what the
 * service lists, as `tracectl list -u` (ListApplications: the events of
 * the applications registered now) and `tracectl list -k`
 * (ListKernelEvents), or typed as a pattern.
 *
 * The lists are the caller's: ListApplications gives the user's own
 * applications (everyone's for an administrator), ListKernelEvents needs
 * the kernel action. A list the service refuses is said so beside it, with
 * the service's words; the event can still be typed, and the service
 * decides on it as on any other.
 *
 * The application list follows ApplicationRegistered and ApplicationGone,
 * which the page hears after Subscribe(): it is read again when one comes,
 * not polled. The kernel's list and the context names do not change while
 * the service runs: each is read once, again on the list's Reload button.
 */

import { LOG_LEVELS, describeError } from "./service.js";
import { _, $, element, formatBytes } from "./ui.js";

// The most options a pick list shows: the kernel lists thousands of events.
const MAX_PICKS = 1000;
// Registrations come in bursts (a service starting many processes).
const RELIST_DELAY_MS = 500;
const SUBBUF_SIZES = [...Array(15).keys()].map(i => 4096 * 2 ** i); // 4 KiB to 64 MiB
const SUBBUF_COUNTS = [...Array(10).keys()].map(i => 2 ** (i + 1)); // 2 to 1024

let page = null;
// domain -> { items: [{ value, label }], error, loading }: the pick lists.
const events = new Map();
const contexts = new Map();
let relistTimer = null;
// What the pick list shows now, so that a render with nothing new keeps
// the person's selection and scroll position.
let pickShown = "";
let contextsShown = "";

/* The lists */

function applicationEvents(applications) {
    const byName = new Map();
    for (const application of applications) {
        for (const event of application.events) {
            const entry = byName.get(event.name) ||
                { event, processes: new Set() };
            entry.processes.add(`${application.processName} (${application.pid})`);
            byName.set(event.name, entry);
        }
    }
    return [...byName.values()]
            .sort((a, b) => a.event.name.localeCompare(b.event.name))
            .map(({ event, processes }) => ({
                value: event.name,
                label: cockpit.format("$0 — $1 — $2 — $3", event.name,
                                      LOG_LEVELS[event.loglevel] || String(event.loglevel),
                                      event.fields || _("no field"), [...processes].join(", ")),
            }));
}

// Starts reading a list; it is drawn again once read.
async function loadList(lists, domain, read, render) {
    const list = lists.get(domain) || { items: [], error: null };
    list.loading = true;
    lists.set(domain, list);
    try {
        list.items = await read();
        list.error = null;
    } catch (error) {
        list.items = [];
        list.error = describeError(error);
    } finally {
        list.loading = false;
    }
    render();
}

function loadEvents(domain) {
    const read = domain === "kernel"
        ? async () => (await page.service.listKernelEvents()).map(name => ({ value: name, label: name }))
        : async () => applicationEvents(await page.service.listApplications());
    return loadList(events, domain, read, page.render);
}

function loadContexts(domain) {
    const read = async () => (await page.service.listContexts(domain)).map(name => ({
        value: name,
        label: name.startsWith("$app.")
            ? cockpit.format(_("$0 (tracectl's own applications only)"), name)
            : name,
    }));
    return loadList(contexts, domain, read, page.render);
}

// The service was started again: what it listed may have changed.
export function forgetLists() {
    events.clear();
    contexts.clear();
}

// An application came or went: its events come or go from the list.
export function applicationsChanged() {
    if (!events.has("ust"))
        return;
    window.clearTimeout(relistTimer);
    relistTimer = window.setTimeout(() => {
        loadEvents("ust");
        page.render();
    }, RELIST_DELAY_MS);
}

/* The forms */

function optionalNumber(id, scale) {
    const text = $(id).value.trim();
    return text === "" ? null : Math.round(Number(text) * scale);
}

/*
 * A form submitted: call(path) on the session shown, as the action what,
 * then the session read again to show what it holds now.
 */
async function submit(event, what, call) {
    event.preventDefault();
    const shown = page.current();
    if (!shown)
        return;
    const { ok } = await page.act(what, shown.path, () => call(shown.path));
    if (ok)
        page.reload();
}

function addChannel(event) {
    const domain = $("tc-channel-domain").value;
    const name = domain === "kernel" ? "channel0" : $("tc-channel-name").value.trim();
    const mode = $("tc-channel-mode").value;
    const settings = {
        overwrite: mode === "" ? null : mode === "overwrite",
        subbufSize: optionalNumber("tc-channel-subbuf-size", 1),
        subbufCount: optionalNumber("tc-channel-subbuf-count", 1),
        // Milliseconds on the page, microseconds on the bus.
        switchTimerUs: optionalNumber("tc-channel-switch-timer", 1000),
        readTimerUs: optionalNumber("tc-channel-read-timer", 1000),
        monitorTimerUs: optionalNumber("tc-channel-monitor-timer", 1000),
    };
    return submit(event, cockpit.format(_("Add channel $0"), name),
                  path => page.service.enableChannel(path, domain, name, settings));
}

function addContexts(event) {
    const domain = $("tc-context-domain").value;
    const channel = $("tc-context-channel").value;
    const names = [...$("tc-context-name").selectedOptions].map(option => option.value);
    return submit(event, cockpit.format(_("Add context $0"), names.join(", ")),
                  path => page.service.addContexts(path, domain, channel, names));
}

function enableEvent(event) {
    const domain = $("tc-event-domain").value;
    const channel = domain === "kernel" ? "" : $("tc-event-channel").value;
    const pattern = $("tc-event-pattern").value.trim();
    const level = $("tc-event-loglevel").value;
    const loglevel = domain === "ust" && level !== "" ? Number(level) : null;
    const what = cockpit.format(
        domain === "kernel" ? _("Enable kernel event $0") : _("Enable user-space event $0"),
        pattern);
    return submit(event, what,
                  path => page.service.enableEvent(path, domain, channel, pattern, loglevel));
}

/* Drawing */

function fillChannels(select, channels, domain, everyLabel) {
    const names = channels.filter(c => c.domain === domain).map(c => c.name);
    const key = domain + "\n" + names.join("\n");
    if (select.dataset.key === key)
        return;
    const chosen = select.value;
    select.dataset.key = key;
    select.replaceChildren(element("option", { value: "", textContent: everyLabel }),
                           ...names.map(name => element("option", { value: name, textContent: name })));
    if (names.includes(chosen))
        select.value = chosen;
}

function listNote(list, what) {
    if (!list || list.loading)
        return _("Reading the list…");
    if (list.error)
        return cockpit.format(_("The service did not list $0: $1: $2"), what, list.error.name,
                              list.error.message);
    return null;
}

function renderPicks() {
    const domain = $("tc-event-domain").value;
    if (!events.has(domain))
        loadEvents(domain);
    const list = events.get(domain);
    const filter = $("tc-event-filter").value.trim().toLowerCase();
    const matching = list.items.filter(item => item.label.toLowerCase().includes(filter));
    const shown = matching.slice(0, MAX_PICKS);
    const key = [domain, filter, list.loading, ...shown.map(item => item.label)].join("\n");
    if (key !== pickShown) {
        pickShown = key;
        const select = $("tc-event-pick");
        select.replaceChildren(...shown.map(item =>
            element("option", { value: item.value, textContent: item.label })));
        select.value = $("tc-event-pattern").value;
    }
    const what = domain === "kernel" ? _("the kernel's events") : _("the applications' events");
    let note = listNote(list, what);
    if (note === null) {
        if (list.items.length === 0) {
            note = domain === "kernel"
                ? _("The kernel lists no event.")
                : _("No application of yours is registered: start one, it is listed at once.");
        } else if (matching.length > shown.length) {
            note = cockpit.format(_("$0 of $1 events match: the first $2 are shown."),
                                  matching.length, list.items.length, shown.length);
        } else {
            note = cockpit.format(_("$0 of $1 events match."), matching.length,
                                  list.items.length);
        }
    }
    $("tc-event-pick-note").textContent = note;
}

function renderContextNames() {
    const domain = $("tc-context-domain").value;
    if (!contexts.has(domain))
        loadContexts(domain);
    const list = contexts.get(domain);
    const key = [domain, list.loading, ...list.items.map(item => item.value)].join("\n");
    if (key !== contextsShown) {
        contextsShown = key;
        $("tc-context-name").replaceChildren(...list.items.map(item =>
            element("option", { value: item.value, textContent: item.label })));
    }
    $("tc-context-note").textContent = listNote(list, _("the context names")) || "";
}

// Draws the forms for the session shown: { channels } of DescribeSession.
export function renderSetup(channels, isBusy) {
    const eventDomain = $("tc-event-domain").value;
    fillChannels($("tc-event-channel"), channels, "ust", _("channel0 (made when missing)"));
    $("tc-event-channel").disabled = eventDomain !== "ust";
    $("tc-event-loglevel").disabled = eventDomain !== "ust";
    $("tc-event-enable").disabled = isBusy;
    renderPicks();

    const contextDomain = $("tc-context-domain").value;
    fillChannels($("tc-context-channel"), channels, contextDomain, _("every channel"));
    $("tc-context-add").disabled = isBusy;
    renderContextNames();

    // The kernel domain has one channel, channel0, whose buffers only
    // its geometry sets.
    const kernel = $("tc-channel-domain").value === "kernel";
    $("tc-channel-name").disabled = kernel;
    $("tc-channel-name").placeholder = kernel ? "channel0" : "mychannel";
    for (const id of ["tc-channel-mode", "tc-channel-switch-timer", "tc-channel-read-timer",
        "tc-channel-monitor-timer"])
        $(id).disabled = kernel;
    $("tc-channel-add").disabled = isBusy;
}

function fillSelect(id, values, format) {
    $(id).append(element("option", { value: "", textContent: _("the service's default") }),
                 ...values.map(value => element("option",
                                                { value: String(value), textContent: format(value) })));
}

/*
 * context: { service, act(action, path, call), current() (the session
 * shown, { path }, or null), reload() (read it again), render() }.
 */
export function initSetup(context) {
    page = context;
    $("tc-event-loglevel").append(element("option", { value: "", textContent: _("Any") }),
                                  ...LOG_LEVELS.map((name, level) => element("option", {
                                      value: String(level),
                                      textContent: cockpit.format(_("$0 and more severe"), name),
                                  })));
    fillSelect("tc-channel-subbuf-size", SUBBUF_SIZES, formatBytes);
    fillSelect("tc-channel-subbuf-count", SUBBUF_COUNTS, String);

    $("tc-channel-form").addEventListener("submit", addChannel);
    $("tc-channel-domain").addEventListener("change", page.render);
    $("tc-context-form").addEventListener("submit", addContexts);
    $("tc-context-domain").addEventListener("change", page.render);
    $("tc-context-reload").addEventListener("click", () => {
        loadContexts($("tc-context-domain").value);
        page.render();
    });
    $("tc-event-form").addEventListener("submit", enableEvent);
    $("tc-event-domain").addEventListener("change", page.render);
    $("tc-event-filter").addEventListener("input", renderPicks);
    $("tc-event-pick").addEventListener("change", () => {
        $("tc-event-pattern").value = $("tc-event-pick").value;
    });
    $("tc-event-pick-reload").addEventListener("click", () => {
        loadEvents($("tc-event-domain").value);
        page.render();
    });
}
