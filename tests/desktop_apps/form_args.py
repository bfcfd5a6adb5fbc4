"""The command line both fixture forms take (they import it from their own folder)."""

from __future__ import annotations

import argparse


def parse(argv: list[str], doc: str | None, at: str) -> tuple[int, int, int, bool]:
    """(extra buttons, window x, window y, effect widgets) from `--nodes N --at X,Y
    --effects`."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--nodes", type=int, default=0, help="extra buttons in a grid")
    parser.add_argument("--at", default=at, help=f"window position X,Y (default {at})")
    parser.add_argument(
        "--effects",
        action="store_true",
        help="a row for each action effect: a button that does nothing (Nothing), a disabled "
        "one (Send), a field that upper-cases what it is given (Code), a password field (PIN)",
    )
    args = parser.parse_args(argv)
    x, y = (int(v) for v in args.at.split(","))
    return args.nodes, x, y, args.effects
