"""The command line both fixture forms take (they import it from their own folder)."""

from __future__ import annotations

import argparse


def parse(argv: list[str], doc: str | None, at: str) -> tuple[int, int, int]:
    """(extra buttons, window x, window y) from `--nodes N --at X,Y`."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--nodes", type=int, default=0, help="extra buttons in a grid")
    parser.add_argument("--at", default=at, help=f"window position X,Y (default {at})")
    args = parser.parse_args(argv)
    x, y = (int(v) for v in args.at.split(","))
    return args.nodes, x, y
