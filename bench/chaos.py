"""Chaos run of issue 18: scripted actions while Chromium is SIGKILLed under them.

Starts a daemon on a fresh state dir, serves tests/fixtures/site on 127.0.0.1 and runs
`--actions` actions (open, snapshot, click, type, fill, check, select, navigate, back,
evaluate) on chaos.html / chaos-b.html, while a seeded killer SIGKILLs Chromium's browser
process group or its renderer processes during `--kills` of them (tests/chaos.py). Prints
the faults injected, outcomes by code, recoveries, successes verified by reading the page
back, false successes and action_log rows lost. Exits 1 on a false success or a lost row.

    .venv/bin/python bench/chaos.py [--actions 200] [--kills 25] [--seed 18] [-v]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--kills", type=int, default=25)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every step")
    args = parser.parse_args()
    site = serve_directory(FIXTURES)
    with tempfile.TemporaryDirectory(prefix="steadyhand-chaos-") as tmp:
        config = chaos.chaos_settings(Path(tmp) / "state")
        rpc_client.start_daemon(config)
        started = time.monotonic()
        try:
            run = chaos.Chaos(
                config,
                base_url(site),
                args.seed,
                kills=args.kills,
                actions=args.actions,
                log=print if args.verbose else lambda _: None,
            )
            report = run.run()
            alive = rpc_client.call(config, "daemon.status", {}, autostart=False)["pid"]
        finally:
            if rpc_client.daemon_pid(config) is not None:
                rpc_client.call(config, "daemon.stop", {}, autostart=False)
            site.shutdown()
    print(f"{args.actions} actions, seed {args.seed}, in {time.monotonic() - started:.0f} s")
    for line in report.lines():
        print(line)
    print(f"daemon alive at the end: {bool(alive)}")
    for false in report.false_successes:
        print("  FALSE SUCCESS", false)
    return 1 if report.false_successes or report.rows_lost or not alive else 0


if __name__ == "__main__":
    sys.exit(main())
