"""What sealing state at rest costs: a checkpoint written and read back on a real SQLite store,
sealed (AES-256-GCM, store/sealing.py) vs in clear (the same store with sealing bypassed, as
before), for a small and a large session state. Interleaved rounds, medians, ratios. Asserts
nothing about time.

    .venv/bin/python bench/at_rest.py [--rounds 7] [--n 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from steadyhand.store.sqlite import Store


class ClearStore(Store):
    """The store as it was before sealing: the state's JSON stored as it is."""

    def _seal_state(self, session: str, text: str) -> str:
        return text

    def _open_state(self, session: str, text: str, clear: bool = False) -> dict[str, Any]:
        return dict(json.loads(text))


def state(tabs: int, cookies: int, origins: int, items: int) -> dict[str, Any]:
    return {
        "tabs": [
            {"id": f"t{i}", "url": f"https://app.example/page/{i}?q=x", "session_storage": {}}
            for i in range(tabs)
        ],
        "cookies": [
            {"name": f"c{i}", "value": "v" * 40, "domain": "app.example", "path": "/"}
            for i in range(cookies)
        ],
        "origins": [
            {
                "origin": f"https://o{o}.example",
                "localStorage": [{"name": f"k{i}", "value": "x" * 60} for i in range(items)],
            }
            for o in range(origins)
        ],
        "viewport": {"width": 1280, "height": 800},
    }


def per_checkpoint_ms(store: Store, data: dict[str, Any], n: int) -> tuple[float, float]:
    """Median ms to save one checkpoint, and to read it back."""
    saves, reads = [], []
    for _ in range(n):
        started = time.perf_counter()
        store.save_checkpoint("s", "bench", data)
        saves.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.latest_checkpoint("s")
        reads.append(time.perf_counter() - started)
    return statistics.median(saves) * 1000, statistics.median(reads) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=200, help="checkpoints per round")
    args = parser.parse_args()
    states = {
        "small (1 tab, 5 cookies)": state(1, 5, 1, 5),
        "large (10 tabs, 100 cookies, 10x50 items)": state(10, 100, 10, 50),
    }
    with tempfile.TemporaryDirectory() as root:
        sealed = Store(Path(root) / "sealed" / "steadyhand.sqlite")
        clear = ClearStore(Path(root) / "clear" / "steadyhand.sqlite")
        print(f"{'state':44} {'bytes':>7} {'clear save':>10} {'sealed':>8} {'ratio':>6}"
              f" {'clear read':>10} {'sealed':>8} {'ratio':>6}")  # fmt: skip
        report = {}
        for label, data in states.items():
            runs: dict[str, list[tuple[float, float]]] = {"clear": [], "sealed": []}
            for _ in range(args.rounds):  # interleaved: the machine's noise hits both
                runs["clear"].append(per_checkpoint_ms(clear, data, args.n))
                runs["sealed"].append(per_checkpoint_ms(sealed, data, args.n))
            med = {
                k: (statistics.median(s for s, _ in v), statistics.median(r for _, r in v))
                for k, v in runs.items()
            }
            size = len(json.dumps(data, sort_keys=True))
            (cs, cr), (ss, sr) = med["clear"], med["sealed"]
            print(f"{label:44} {size:>7} {cs:>10.3f} {ss:>8.3f} {ss / cs:>5.2f}x"
                  f" {cr:>10.3f} {sr:>8.3f} {sr / cr:>5.2f}x")  # fmt: skip
            report[label] = {"bytes": size, "save_ms": [cs, ss], "read_ms": [cr, sr]}
        sealed.close()
        clear.close()
    print(json.dumps({"bench": "at_rest", "checkpoints": report}))


if __name__ == "__main__":
    main()
