"""Counters and latencies of this daemon's life: what `steadyhand metrics` prints and the
HTTP front serves at /metrics in Prometheus' text format.

- `actions_total{command,outcome}`: every action (a command that writes an action_log
  row); the outcome is `ok` or the error code.
- `retries_total{command}`: tries after the first that actions needed.
- `sessions_total{status}`: sessions entering a status (active, suspended, closed, lost).
- latency per command: p50 and p95 (nearest rank) over its last LATENCY_WINDOW actions,
  plus the count and sum of all of them.

In memory: a new daemon starts from zero, as Prometheus expects of a counter.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from typing import Any

LATENCY_WINDOW = 2048  # recent durations per command kept for the percentiles
PREFIX = "steadyhand_"


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..1) of `values` (not empty)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


class Metrics:
    """Thread-safe: actions are counted on the event loop, sessions from store threads."""

    def __init__(self) -> None:
        self.started_at = time.time()
        self._lock = threading.Lock()
        self._actions: Counter[tuple[str, str]] = Counter()
        self._retries: Counter[str] = Counter()
        self._sessions: Counter[str] = Counter()
        self._recent: dict[str, deque[float]] = {}
        self._count: Counter[str] = Counter()
        self._sum_ms: dict[str, float] = {}

    def action(self, command: str, outcome: str, duration_ms: float, retries: int) -> None:
        with self._lock:
            self._actions[command, outcome] += 1
            if retries:
                self._retries[command] += retries
            self._recent.setdefault(command, deque(maxlen=LATENCY_WINDOW)).append(duration_ms)
            self._count[command] += 1
            self._sum_ms[command] = self._sum_ms.get(command, 0.0) + duration_ms

    def session(self, status: str) -> None:
        with self._lock:
            self._sessions[status] += 1

    def snapshot(self) -> dict[str, Any]:
        """Everything counted, as JSON-ready data (the `metrics` command's result)."""
        with self._lock:
            latency = {
                command: {
                    "count": self._count[command],
                    "sum_ms": round(self._sum_ms[command], 3),
                    "p50_ms": round(percentile(list(recent), 0.50), 3),
                    "p95_ms": round(percentile(list(recent), 0.95), 3),
                }
                for command, recent in sorted(self._recent.items())
            }
            return {
                "since": self.started_at,
                "actions_total": [
                    {"command": c, "outcome": o, "count": n}
                    for (c, o), n in sorted(self._actions.items())
                ],
                "retries_total": dict(sorted(self._retries.items())),
                "sessions_total": dict(sorted(self._sessions.items())),
                "latency": latency,
            }


def prometheus_text(data: dict[str, Any]) -> str:
    """A `snapshot()` in Prometheus' text exposition format (version 0.0.4)."""
    lines: list[str] = []

    def family(name: str, kind: str, doc: str) -> None:
        lines.extend((f"# HELP {PREFIX}{name} {doc}", f"# TYPE {PREFIX}{name} {kind}"))

    def sample(name: str, labels: dict[str, str], value: float) -> None:
        inner = ",".join(f'{k}="{_label(v)}"' for k, v in labels.items())
        lines.append(
            f"{PREFIX}{name}{{{inner}}} {_number(value)}"
            if inner
            else f"{PREFIX}{name} {_number(value)}"
        )

    family("actions_total", "counter", "Actions run, by command and outcome (ok or error code).")
    for row in data["actions_total"]:
        sample(
            "actions_total", {"command": row["command"], "outcome": row["outcome"]}, row["count"]
        )
    family("retries_total", "counter", "Tries after the first that actions needed.")
    for command, count in data["retries_total"].items():
        sample("retries_total", {"command": command}, count)
    family("sessions_total", "counter", "Sessions entering a status.")
    for status, count in data["sessions_total"].items():
        sample("sessions_total", {"status": status}, count)
    family(
        "action_duration_ms",
        "summary",
        f"Action latency in ms; quantiles over each command's last {LATENCY_WINDOW} actions.",
    )
    for command, stats in data["latency"].items():
        for quantile, key in (("0.5", "p50_ms"), ("0.95", "p95_ms")):
            sample("action_duration_ms", {"command": command, "quantile": quantile}, stats[key])
        sample("action_duration_ms_sum", {"command": command}, stats["sum_ms"])
        sample("action_duration_ms_count", {"command": command}, stats["count"])
    family("start_time_seconds", "gauge", "When this daemon started (Unix time).")
    sample("start_time_seconds", {}, data["since"])
    return "\n".join(lines) + "\n"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
