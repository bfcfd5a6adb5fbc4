"""Chaos run of issue 18: scripted actions while Chromium is SIGKILLed under them.

Starts a daemon on a fresh state dir, serves tests/fixtures/site on 127.0.0.1 and runs
`--actions` actions (open, snapshot, click, type, fill, check, select, navigate, back,
evaluate) on chaos.html / chaos-b.html, while a seeded killer SIGKILLs Chromium's browser
process group or its renderer processes during `--kills` of them (tests/chaos.py). Prints
the faults injected, outcomes by code, recoveries, successes verified by reading the page
back, false successes and action_log rows lost. Exits 1 on a false success or a lost row.

    .venv/bin/python bench/chaos.py [--actions 200] [--kills 25] [--seed 18] [--seeds N] [-v]

With --seeds N, seeds --seed ... --seed+N-1, each on a fresh daemon, and a table per seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from steadyhand import rpc_client
from steadyhand.demo.server import base_url, serve_directory

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.chaos
from tests import chaos  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "site"


def one_seed(seed: int, args: argparse.Namespace, site: str) -> tuple[chaos.Report, bool, float]:
    """One run on a fresh state dir and daemon: its report, whether the daemon lived, secs."""
    with tempfile.TemporaryDirectory(prefix="steadyhand-chaos-") as tmp:
        config = chaos.chaos_settings(Path(tmp) / "state")
        rpc_client.start_daemon(config)
        started = time.monotonic()
        try:
            run = chaos.Chaos(
                config,
                site,
                seed,
                kills=args.kills,
                actions=args.actions,
                log=print if args.verbose else lambda _: None,
            )
            report = run.run()
            alive = bool(rpc_client.call(config, "daemon.status", {}, autostart=False)["pid"])
        finally:
            if rpc_client.daemon_pid(config) is not None:
                rpc_client.call(config, "daemon.stop", {}, autostart=False)
    return report, alive, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--kills", type=int, default=25)
    parser.add_argument("--seed", type=int, default=18, help="the (first) seed")
    parser.add_argument("--seeds", type=int, default=1, help="run this many seeds from --seed")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step")
    args = parser.parse_args()
    server = serve_directory(FIXTURES)
    rows = []
    failed = False
    try:
        for seed in range(args.seed, args.seed + args.seeds):
            report, alive, seconds = one_seed(seed, args, base_url(server))
            print(f"== seed {seed}: {args.actions} actions in {seconds:.0f} s")
            for line in report.lines():
                print("  " + line)
            print(f"  daemon alive at the end: {alive}")
            for false in report.false_successes:
                print("  FALSE SUCCESS", false)
            rows.append((seed, report, alive))
            failed |= bool(report.false_successes or report.rows_lost or not alive)
    finally:
        server.shutdown()
    print(f"\n{'seed':>5} {'faults':>6} {'recoveries':>10} {'verified':>8} {'false':>5} "
          f"{'rows lost':>9} alive")  # fmt: skip
    for seed, report, alive in rows:
        print(
            f"{seed:>5} {sum(report.faults.values()):>6} {report.recoveries:>10} "
            f"{report.verified:>8} {len(report.false_successes):>5} "
            f"{sum(report.rows_lost.values()):>9} {alive}"
        )
    total = sum(len(r.false_successes) for _, r, _ in rows)
    lost = sum(sum(r.rows_lost.values()) for _, r, _ in rows)
    print(f"{len(rows)} seeds: {total} false successes, {lost} rows lost")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
