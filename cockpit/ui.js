// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What every part of the page draws with: element lookups, formatting,
 * and the one alert where a failure is shown with the words of whoever
 * refused (the service, or a program the page ran).
 */

import { describeError } from "./service.js";

export const _ = cockpit.gettext;
export const $ = id => document.getElementById(id);

export function element(tag, properties, children) {
    const node = document.createElement(tag);
    Object.assign(node, properties || {});
    for (const child of children || [])
        node.append(child);
    return node;
}

export function formatBytes(bytes) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = Number(bytes);
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit++;
    }
    return (unit === 0 ? String(value) : value.toFixed(value < 10 ? 1 : 0)) + " " + units[unit];
}

/*
 * A failure named by the page itself, where no D-Bus error or Cockpit
 * problem code names it: showError() shows its name and message as given.
 */
export function failure(name, message) {
    return { isFailure: true, name, message };
}

export function showError(action, error) {
    const { name, message } = error && error.isFailure ? error : describeError(error);
    console.warn(action + ": " + name + ": " + message);
    const alert = $("tc-error");
    alert.querySelector(".tc-error-action").textContent = action;
    alert.querySelector(".tc-error-name").textContent = name;
    alert.querySelector(".tc-error-message").textContent = message;
    alert.hidden = false;
}

export function clearError() {
    $("tc-error").hidden = true;
}

/*
 * A failed cockpit.spawn() as describeError() gives it: the program
 * missing or not allowed to run is Cockpit's problem code ("not-found",
 * "access-denied"), an exit status is named with the program, and the
 * message is what the program wrote on its standard error ("err":
 * "message").
 */
export function spawnError(program, error) {
    if (error && error.problem)
        return error;
    const status = error && error.exit_status !== undefined && error.exit_status !== null
        ? cockpit.format(_("$0 exited with status $1"), program, error.exit_status)
        : cockpit.format(_("$0 was ended by signal $1"), program, error && error.exit_signal);
    return failure(status, (error && error.message) || "");
}
