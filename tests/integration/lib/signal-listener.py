#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A bus client for the signal tests, run as a test user (or root).

  signal-listener.py [--subscribe]   every signal delivered to this
                                     connection, whatever its match rules
                                     let through (it asks for all)
  signal-listener.py --monitor       root: every signal on the bus
                                     (BecomeMonitor), with its destination

Prints one JSON object per line: first {"ready": UNIQUE_NAME} (or
{"error": NAME, "message": TEXT} when Subscribe failed, then exits 1),
then {"sender", "destination", "path", "interface", "member", "args"} per
signal. Reads commands on stdin: "subscribe", "unsubscribe" (each answered
by {"done": COMMAND} or an error line); end of input quits.
"""

import json
import os
import sys
import threading

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

SERVICE = "org.tracectl.Tracing1"
MANAGER = "/org/tracectl/Tracing1"
MANAGER_INTERFACE = "org.tracectl.Tracing1.Manager"
lock = threading.Lock()


def emit(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def describe(message):
    body = message.get_body()
    return {
        "sender": message.get_sender(),
        "destination": message.get_destination(),
        "path": message.get_path(),
        "interface": message.get_interface(),
        "member": message.get_member(),
        "args": body.unpack() if body is not None else [],
    }


def connect():
    return Gio.DBusConnection.new_for_address_sync(
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def call_manager(bus, method):
    try:
        bus.call_sync(SERVICE, MANAGER, MANAGER_INTERFACE, method, None, None,
                      Gio.DBusCallFlags.NONE, 20000, None)
    except GLib.Error as error:
        return {"error": Gio.DBusError.get_remote_error(error) or str(error),
                "message": error.message}
    return None


def monitor(bus):
    # A monitor sees everyone's messages: record the signals and drop the
    # method calls (never answer them); pass replies, BecomeMonitor's too.
    def on_message(connection, message, incoming):
        kind = message.get_message_type()
        if not incoming:
            return message
        if kind == Gio.DBusMessageType.SIGNAL:
            emit(describe(message))
        if kind in (Gio.DBusMessageType.SIGNAL, Gio.DBusMessageType.METHOD_CALL):
            return None
        return message
    bus.add_filter(on_message)
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus.Monitoring", "BecomeMonitor",
                  GLib.Variant("(asu)", ([], 0)), None, Gio.DBusCallFlags.NONE, 10000, None)


def listen(bus):
    def on_message(connection, message, incoming):
        if (incoming and message.get_message_type() == Gio.DBusMessageType.SIGNAL and
                message.get_interface() != "org.freedesktop.DBus"):
            emit(describe(message))
        return message
    bus.add_filter(on_message)
    # A match rule for every signal: broadcasts of anyone reach us.
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                  "AddMatch", GLib.Variant("(s)", ("type='signal'",)), None,
                  Gio.DBusCallFlags.NONE, 10000, None)


def main():
    bus = connect()
    loop = GLib.MainLoop()
    if "--monitor" in sys.argv:
        monitor(bus)
    else:
        listen(bus)
        if "--subscribe" in sys.argv:
            failure = call_manager(bus, "Subscribe")
            if failure:
                emit(failure)
                sys.exit(1)
    emit({"ready": bus.get_unique_name()})

    def on_stdin(channel, condition):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        command = line.strip()
        if command in ("subscribe", "unsubscribe"):
            failure = call_manager(bus, command.capitalize())
            emit(failure or {"done": command})
        return True
    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()),
                      GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                      on_stdin)
    loop.run()


main()
