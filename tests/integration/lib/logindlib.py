# SPDX-License-Identifier: LGPL-2.1-or-later
"""logind as the service sees it, on the private bus of an integration
test, where there is no systemd: a connection of root's that owns
org.freedesktop.login1 (the bus's policy lets root) and announces users
logging in with UserNew, as systemd-logind does."""

from gi.repository import Gio, GLib

NAME = "org.freedesktop.login1"
PATH = "/org/freedesktop/login1"


class FakeLogind:
    def __init__(self, svc):
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                 Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.bus = Gio.DBusConnection.new_for_address_sync(svc.address, flags, None, None)
        reply = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "RequestName",
                                   GLib.Variant("(su)", (NAME, 4)), GLib.VariantType("(u)"),
                                   Gio.DBusCallFlags.NONE, 5000, None)
        if reply.unpack()[0] != 1:
            raise AssertionError(f"cannot own {NAME}: {reply.unpack()}")

    def user_new(self, user):
        """user logs in: logind's UserNew (uid, object path)."""
        self.bus.emit_signal(None, PATH, f"{NAME}.Manager", "UserNew",
                             GLib.Variant("(uo)", (user.uid, f"{PATH}/user/_{user.uid}")))
        self.bus.flush_sync(None)

    def close(self):
        self.bus.close_sync(None)
