// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What every part of the page draws with: element lookups, formatting,
 * and the one alert where a failure is shown with the words of whoever
 * refused.
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

export function showError(action, error) {
    const { name, message } = describeError(error);
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
