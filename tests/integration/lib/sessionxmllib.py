# SPDX-License-Identifier: LGPL-2.1-or-later
"""Session files in LTTng's session configuration format, as the tests
that load them need them: built element by element in the order
lttng-tools' session.xsd gives, so that a test states only what it
varies (events, mode, outputs, trackers, rotation) and not the XML."""

import copy
import os
import xml.etree.ElementTree as ET


def _element(tag, *children, text=None):
    node = ET.Element(tag)
    if text is not None:
        node.text = str(text)
    node.extend(child for child in children if child is not None)
    return node


def _flag(value):
    return "true" if value else "false"


def event(name, kind="TRACEPOINT", filter_expression=None, loglevel_type=None, loglevel=None):
    return _element("event", _element("name", text=name), _element("enabled", text="true"),
                    _element("type", text=kind),
                    None if loglevel_type is None else
                    _element("loglevel_type", text=loglevel_type),
                    None if loglevel is None else _element("loglevel", text=loglevel),
                    None if filter_expression is None else
                    _element("filter", text=filter_expression))


def channel(events, name="ch", mode=None, subbuf_size=262144, subbuf_count=4,
            switch_timer_us=None, read_timer_us=None, output_type=None, contexts=()):
    """A channel; None leaves an element out (the tracer's default)."""
    def optional(tag, value):
        return None if value is None else _element(tag, text=value)

    return _element(
        "channel", _element("name", text=name), _element("enabled", text="true"),
        optional("overwrite_mode", mode), optional("subbuffer_size", subbuf_size),
        optional("subbuffer_count", subbuf_count),
        optional("switch_timer_interval", switch_timer_us),
        optional("read_timer_interval", read_timer_us), optional("output_type", output_type),
        _element("events", *events),
        _element("contexts", *(_element("context", _element("type", text=c))
                               for c in contexts)) if contexts else None)


def pid_tracker(pids):
    """A domain's process_attr_trackers recording only pids."""
    values = (_element("pid", _element("id", text=pid)) for pid in pids)
    return _element("process_attr_trackers",
                    _element("pid_process_attr_tracker",
                             _element("process_attr_values", *values)))


def ust_domain(channels, trackers=None):
    return _element("domain", _element("type", text="UST"),
                    _element("buffer_type", text="PER_UID"), _element("channels", *channels),
                    trackers)


def agent_domain(kind, events):
    """An agent's domain (PYTHON, JUL, LOG4J) as lttng saves it: one
    channel of LTTng's name whose events are loggers."""
    name = f"lttng_{kind.lower()}_channel"
    return _element("domain", _element("type", text=kind),
                    _element("buffer_type", text="PER_UID"),
                    _element("channels", channel(events, name=name)))


def kernel_domain(channels, trackers=None):
    return _element("domain", _element("type", text="KERNEL"),
                    _element("buffer_type", text="GLOBAL"), _element("channels", *channels),
                    trackers)


def _destination(url_or_path):
    """A directory, the relay of net://HOST:CONTROL:DATA, or of a
    net+ssh:// URL, which tracectl saves as itself in both URIs."""
    if url_or_path.startswith("net+ssh://"):
        return _element("destination",
                        _element("net_output", _element("control_uri", text=url_or_path),
                                 _element("data_uri", text=url_or_path)))
    if not url_or_path.startswith("net://"):
        return _element("destination", _element("path", text=url_or_path))
    host, control, data = url_or_path[len("net://"):].split(":")
    return _element("destination",
                    _element("net_output",
                             _element("control_uri", text=f"tcp4://{host}:{control}/"),
                             _element("data_uri", text=f"tcp4://{host}:{data}/")))


def consumer_output(url_or_path):
    return _element("consumer_output", _element("enabled", text="true"),
                    _destination(url_or_path))


def snapshot_output(name, url_or_path, max_size=0):
    return _element("output", _element("name", text=name),
                    _element("max_size", text=max_size), consumer_output(url_or_path))


def session(name, domains, started=True, output=None, snapshot_outputs=(),
            rotation_timer_us=None, rotation_size=None):
    """The text of a file holding one session. output: a directory, a
    net:// or net+ssh:// URL or None (the owner's default directory); snapshot_outputs
    make it a snapshot-mode session."""
    attributes = []
    if snapshot_outputs:
        attributes.append(_element("snapshot_mode", text="true"))
    if rotation_timer_us is not None or rotation_size is not None:
        attributes.append(_element(
            "rotation_schedules",
            None if rotation_timer_us is None else
            _element("periodic", _element("time_us", text=rotation_timer_us)),
            None if rotation_size is None else
            _element("size_threshold", _element("bytes", text=rotation_size))))
    outputs = None
    if snapshot_outputs:
        outputs = _element("output", _element("snapshot_outputs", *snapshot_outputs))
    elif output is not None:
        outputs = _element("output", consumer_output(output))
    root = _element("sessions", _element(
        "session", _element("name", text=name), _element("domains", *copy.deepcopy(domains)),
        _element("started", text=_flag(started)),
        _element("attributes", *attributes) if attributes else None, outputs))
    ET.indent(root, space="\t")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def install(directory, file_name, text, owner, group=0, mode=0o644):
    """Writes text as directory/file_name, owned by owner:group, of mode."""
    path = os.path.join(directory, file_name)
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner, group)
    os.chmod(path, mode)
    return path


def user_directory(user):
    """user's own ~/.config/tracectl/sessions, theirs at every step, in a
    home of mode 0700 as Debian makes them (only their consumer reads it)."""
    os.chmod(user.home, 0o700)
    path = user.home
    for part in (".config", "tracectl", "sessions"):
        path = os.path.join(path, part)
        os.makedirs(path, 0o700, exist_ok=True)
        os.chown(path, user.uid, user.uid)
    return path
