from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from steadyhand.observe.metrics import LATENCY_WINDOW, Metrics, percentile, prometheus_text


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(100, 0, -1)]  # 100..1, unsorted on purpose
    assert percentile(values, 0.50) == 50
    assert percentile(values, 0.95) == 95
    assert percentile([7.0], 0.95) == 7
    assert percentile([1.0, 2.0], 0.5) == 1 and percentile([1.0, 2.0], 0.95) == 2


def test_counters_and_latencies_of_a_known_sequence() -> None:
    m = Metrics()
    for ms in range(1, 21):  # 20 clicks: 1..20 ms, every 5th failed, 3 of them retried
        outcome = "not_found" if ms % 5 == 0 else "ok"
        m.action("click", outcome, float(ms), retries=2 if ms in (3, 4, 7) else 0)
    m.action("open", "ok", 100.0, 0)
    for status in ("active", "active", "closed", "lost"):
        m.session(status)
    data = m.snapshot()
    assert data["actions_total"] == [
        {"command": "click", "outcome": "not_found", "count": 4},
        {"command": "click", "outcome": "ok", "count": 16},
        {"command": "open", "outcome": "ok", "count": 1},
    ]
    assert data["retries_total"] == {"click": 6}
    assert data["sessions_total"] == {"active": 2, "closed": 1, "lost": 1}
    assert data["latency"]["click"] == {"count": 20, "sum_ms": 210.0, "p50_ms": 10, "p95_ms": 19}
    assert data["latency"]["open"] == {"count": 1, "sum_ms": 100.0, "p50_ms": 100, "p95_ms": 100}


def test_percentiles_cover_the_recent_window_and_counts_everything() -> None:
    m = Metrics()
    for _ in range(LATENCY_WINDOW):
        m.action("snapshot", "ok", 1000.0, 0)
    for _ in range(LATENCY_WINDOW):
        m.action("snapshot", "ok", 1.0, 0)  # the slow ones have left the window
    stats = m.snapshot()["latency"]["snapshot"]
    assert stats["p95_ms"] == 1 and stats["count"] == 2 * LATENCY_WINDOW


def test_prometheus_text_parses_and_holds_every_value() -> None:
    m = Metrics()
    m.action('we"ird\\name', "ok", 2.5, 1)
    m.action("click", "not_found", 4.0, 0)
    m.session("active")
    text = prometheus_text(m.snapshot())
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["steadyhand_actions"].type == "counter"
    assert families["steadyhand_action_duration_ms"].type == "summary"
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in families.values()
        for s in f.samples
    }
    assert (
        samples[("steadyhand_actions_total", (("command", 'we"ird\\name'), ("outcome", "ok")))] == 1
    )
    assert samples[("steadyhand_retries_total", (("command", 'we"ird\\name'),))] == 1
    assert samples[("steadyhand_sessions_total", (("status", "active"),))] == 1
    key = ("steadyhand_action_duration_ms", (("command", "click"), ("quantile", "0.5")))
    assert samples[key] == pytest.approx(4.0)
    assert samples[("steadyhand_action_duration_ms_count", (("command", "click"),))] == 1
    assert samples[("steadyhand_start_time_seconds", ())] == pytest.approx(m.started_at)
