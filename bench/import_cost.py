"""What importing the CLI's modules costs, this tree beside another build's, interleaved.

The launcher agents run imports builtins only (fronts/cli/relay.py); the reference CLI
(`python -m steadyhand.fronts.cli.main`: help, --stdin, no daemon yet) and every front import
these. Each sample is a new interpreter under `-X importtime`; the two trees alternate so
machine noise hits both alike. Prints medians of each module's cumulative and own import
time, the whole process beside a bare interpreter's, and the ratio after/before; asserts
nothing about time.

    .venv/bin/python bench/import_cost.py --versus /path/to/other/src [-n 40]
        [--top steadyhand.daemon,steadyhand.fronts.rpc] [--heaviest 15]

--top imports other modules instead (the daemon's start: the daemon, then the command
table and the RPC front it loads aside); --heaviest lists the modules with the most own
import time, each beside its time in the other tree.

Make the other tree with e.g. `git worktree add /tmp/base <rev>`, and byte-compile both
(`python -m compileall -q src`) so neither pays for compiling.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"
TOP = "steadyhand.fronts.cli.main"
# Modules of the CLI's path, each under either of its names (rpc_client moved in issue 21).
WATCHED = (
    ("steadyhand.fronts.cli.main",),
    ("steadyhand.rpc_client", "steadyhand.fronts.rpc_client"),
    ("steadyhand.config",),
    ("steadyhand.errors",),
)
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)")


def sample(src: Path, top: str = TOP) -> tuple[dict[str, tuple[int, int]], float]:
    """One new interpreter importing `top` (modules, comma-separated, in order): each
    module's (own, cumulative) µs, and the process's wall time in ms."""
    env = dict(os.environ, PYTHONPATH=str(src))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {top}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall_ms = (time.perf_counter() - started) * 1000
    times: dict[str, tuple[int, int]] = {}
    for line in done.stderr.splitlines():
        match = LINE.match(line)
        if match:
            times[match.group(3)] = (int(match.group(1)), int(match.group(2)))
    return times, wall_ms


def floor_ms() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versus", required=True, help="the other build's src directory")
    parser.add_argument("-n", type=int, default=40, help="samples per tree (default 40)")
    parser.add_argument(
        "--top",
        default=TOP,
        help=f"modules to import, comma-separated, in order (default {TOP}; the daemon's "
        "start: steadyhand.daemon,steadyhand.fronts.rpc)",
    )
    parser.add_argument(
        "--heaviest", type=int, default=15, help="also list the N heaviest modules by own time"
    )
    args = parser.parse_args()
    other = Path(args.versus).resolve()
    if not (other / "steadyhand" / "__init__.py").is_file():
        parser.error(f"{other} holds no steadyhand package (give its src directory)")
    trees = {"before": other, "after": HERE}
    samples: dict[str, list[dict[str, tuple[int, int]]]] = {name: [] for name in trees}
    walls: dict[str, list[float]] = {name: [] for name in (*trees, "floor")}
    for _ in range(args.n):
        for name, src in trees.items():
            times, wall = sample(src, args.top)
            samples[name].append(times)
            walls[name].append(wall)
        walls["floor"].append(floor_ms())
    print(f"import {args.top}: {args.n} interleaved samples per tree; medians, ms")
    print(f"{'module':30} {'':10} {'before':>8} {'after':>8} {'after/before':>13}")
    watched = list(WATCHED) if args.top == TOP else [(m,) for m in args.top.split(",")]
    for names in watched:
        for index, label in ((1, "cumulative"), (0, "own")):
            medians = []
            for tree in trees:
                found = [t[n][index] for t in samples[tree] for n in names if n in t]
                medians.append(statistics.median(found) / 1000 if found else float("nan"))
            before, after = medians
            print(f"{names[0]:30} {label:10} {before:8.2f} {after:8.2f} {after / before:13.3f}")
    heaviest(samples, args.heaviest)
    before, after = (statistics.median(walls[t]) for t in trees)
    print(f"{'whole process':30} {'wall':10} {before:8.1f} {after:8.1f} {after / before:13.3f}")
    print(f"{'python -c pass (the floor)':30} {'wall':10} {statistics.median(walls['floor']):8.1f}")
    return 0


def heaviest(samples: dict[str, list[dict[str, tuple[int, int]]]], count: int) -> None:
    """The `count` modules with the most own import time after, beside their time before."""
    if count <= 0:
        return
    own = {
        tree: {
            name: statistics.median(t[name][0] for t in runs if name in t) / 1000
            for name in {n for t in runs for n in t}
        }
        for tree, runs in samples.items()
    }
    print(f"the {count} heaviest modules after, by own import time (ms):")
    for name, after in sorted(own["after"].items(), key=lambda item: -item[1])[:count]:
        before = own["before"].get(name, float("nan"))
        print(f"  {name:48} {before:8.2f} {after:8.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
