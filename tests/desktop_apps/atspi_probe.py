"""Wait until a process's application shows an element on the a11y bus; print its tree.

Run with steadyhand's Python inside a desktop session's environment:
    atspi_probe.py PID ROLE NAME [--since T] [--timeout S]
It prints JSON {"after_s": seconds from T (time.monotonic, any process) until found,
"app": name, "nodes": [[role, name, action names], ...]} and exits 0, or exits 1 with the
last tree seen when the element did not show in time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from typing import Any

from steadyhand.desktop.gi_path import require

require("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

MAX_NODES = 5_000


def actions(node: Any) -> list[str]:
    action = node.get_action_iface()
    if action is None:
        return []
    return [action.get_action_name(i) for i in range(action.get_n_actions())]


warnings.simplefilter("ignore", DeprecationWarning)  # libatspi renames; both names work


def walk(node: Any, out: list[list[Any]]) -> None:
    if len(out) >= MAX_NODES:
        return
    out.append([node.get_role_name(), " ".join((node.get_name() or "").split()), actions(node)])
    for i in range(node.get_child_count()):
        child = node.get_child_at_index(i)
        if child is not None:
            walk(child, out)


def application(pid: int) -> Any:
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pid", type=int)
    parser.add_argument("role")
    parser.add_argument("name")
    parser.add_argument("--since", type=float, default=None)
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args(argv)
    since = time.monotonic() if args.since is None else args.since
    Atspi.init()
    deadline = time.monotonic() + args.timeout
    nodes: list[list[Any]] = []
    name = None
    while True:
        while GLib.MainContext.default().iteration(False):
            pass  # let libatspi see applications come and go
        try:
            app = application(args.pid)
            if app is not None:
                name, nodes = app.get_name(), []
                walk(app, nodes)
        except GLib.Error:
            app = None  # still starting
        if any(n[0] == args.role and n[1] == args.name for n in nodes):
            found = {"after_s": round(time.monotonic() - since, 3), "app": name, "nodes": nodes}
            print(json.dumps(found))
            return 0
        if time.monotonic() > deadline:
            print(json.dumps({"after_s": None, "app": name, "nodes": nodes}))
            return 1
        if app is not None:
            # libatspi keeps what it read (a name) until an event says it changed: a name
            # set after the first read, whose event came before we listened, stays "". Read
            # the tree afresh next time (a full run once waited 30 s on check box "").
            app.clear_cache()
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
