"""Spike: ways to read a page's accessibility tree, timed side by side in one run.

On the three fixture pages of bench/snapshot.py (form, table, big), served on 127.0.0.1
and loaded in one headless Chromium through Playwright's sync API, measures the median and
p95 time, the output size (characters of the text or JSON produced) and node counts of:
  aria         `page.aria_snapshot(mode="ai")`, the baseline every ratio is against
  ax full      CDP `Accessibility.getFullAXTree` (nodes: all / not ignored)
  ax query     CDP `Accessibility.queryAXTree` role=button on the document (its
               backendNodeId from one `DOM.getDocument` at setup, not timed)
  domsnapshot  CDP `DOMSnapshot.captureSnapshot`, computed display, visibility, cursor
  model whole  steadyhand's in-page model (`page_model.script()`), `read(true)`: whole
  model delta  the same model's `read(false)` after one small change (not timed): an
               input's value via `page.fill` on the form page, `#status.append('x')` else
  dom walk     `querySelectorAll('*')` and `getComputedStyle(e).display` of each: a floor
Rounds are interleaved (every path once per page per round, paths in an order that
rotates each round); one warm-up round is not counted. Times are client-side, so each
includes Playwright's round trip and JSON parse; sizes are of the JSON the CDP answer
re-serialises to (json.dumps), of the model's JSON string, of the aria text.

Then agreement on the form and table pages: the (role, name) pairs of the CDP full AX
tree (not ignored, roles none/generic/StaticText/InlineTextBox/LineBreak/RootWebArea
left out) against those of the model's element nodes (the same roles and its `document`
root left out), as multisets: how many agree, and up to 20 found in only one.

Prints a table, the agreement, then one JSON line.

    .venv/bin/python bench/capture_paths.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import CDPSession, Page, sync_playwright

# This folder's bench/snapshot.py (its pages), not the steadyhand.snapshot package: run as
# `python bench/capture_paths.py`, bench/ is sys.path[0].
from snapshot import TIMEOUT_MS, big_page, form_page, table_page
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.page_model import READ_JS, script

PAGES: tuple[tuple[str, Callable[[], str]], ...] = (
    ("form", form_page),
    ("table", table_page),
    ("big", big_page),
)
PATHS = (
    "aria",
    "ax full",
    "ax query",
    "domsnapshot",
    "model whole",
    "model delta",
    "dom walk",
)
AGREEMENT_PAGES = ("form", "table")
LEFT_OUT_ROLES = frozenset(
    {"none", "generic", "StaticText", "InlineTextBox", "LineBreak", "RootWebArea"}
)
SHOWN_DIFFERENCES = 20

DOM_WALK_JS = """() => {
  const all = document.querySelectorAll('*');
  let shown = 0;
  for (const e of all) if (getComputedStyle(e).display !== 'none') shown++;
  return [all.length, shown];
}"""
STATUS_JS = "() => document.getElementById('status')?.append('x')"

# ---------------------------------------------------------------- one page


@dataclass
class Target:
    """One loaded fixture page and what its paths need."""

    name: str
    page: Page
    cdp: CDPSession
    document_node: int  # backendNodeId of the document, for queryAXTree
    edits: int = 0


@dataclass
class Measured:
    ms: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    chars: dict[tuple[str, str], int] = field(default_factory=dict)
    nodes: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)


def timed(samples: list[float], action: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = action()
    samples.append((time.perf_counter() - started) * 1000)
    return result


def model_counts(node: dict[str, Any]) -> tuple[int, int]:
    """Element nodes and text strings in a model tree."""
    elements, texts = 1, 0
    for child in node.get("c", ()):
        if isinstance(child, str):
            texts += 1
        else:
            more, more_texts = model_counts(child)
            elements += more
            texts += more_texts
    return elements, texts


def model_nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("c", ()):
        if not isinstance(child, str):
            yield from model_nodes(child)


def change(target: Target) -> None:
    """One small change the model tracks: an input's value, or one more status letter."""
    target.edits += 1
    if target.name == "form":
        target.page.fill("input[name=name]", f"Ada Lovelace {target.edits}")
    else:
        target.page.evaluate(STATUS_JS)


def run_path(target: Target, path: str, out: Measured) -> None:
    """Time `path` once on `target`; record its size and node counts."""
    page, cdp, key = target.page, target.cdp, (target.name, path)
    samples = out.ms[key]
    if path == "aria":
        text = timed(samples, lambda: page.aria_snapshot(mode="ai", timeout=TIMEOUT_MS))
        lines = [line for line in text.splitlines() if line.strip()]
        out.chars[key] = len(text)
        out.nodes[key] = f"{len(lines)} lines, {text.count('[ref=')} refs"
    elif path == "ax full":
        tree = timed(samples, lambda: cdp.send("Accessibility.getFullAXTree"))
        all_nodes = tree["nodes"]
        shown = sum(1 for n in all_nodes if not n.get("ignored"))
        out.chars[key] = len(json.dumps(tree))
        out.nodes[key] = f"{len(all_nodes)} all, {shown} not ignored"
    elif path == "ax query":
        params = {"backendNodeId": target.document_node, "role": "button"}
        found = timed(samples, lambda: cdp.send("Accessibility.queryAXTree", params))
        out.chars[key] = len(json.dumps(found))
        out.nodes[key] = f"{len(found['nodes'])} buttons"
    elif path == "domsnapshot":
        styles = {"computedStyles": ["display", "visibility", "cursor"]}
        snap = timed(samples, lambda: cdp.send("DOMSnapshot.captureSnapshot", styles))
        document = snap["documents"][0]
        out.chars[key] = len(json.dumps(snap))
        out.nodes[key] = (
            f"{len(document['nodes']['nodeName'])} dom, "
            f"{len(document['layout']['nodeIndex'])} layout"
        )
    elif path == "model whole":
        raw = timed(samples, lambda: page.evaluate(READ_JS, True))
        data = json.loads(raw)
        elements, texts = model_counts(data["tree"])
        out.chars[key] = len(raw)
        out.nodes[key] = f"{elements} elements, {texts} texts"
    elif path == "model delta":
        change(target)
        raw = timed(samples, lambda: page.evaluate(READ_JS, False))
        data = json.loads(raw)
        out.chars[key] = len(raw)
        if data["whole"]:
            out.nodes[key] = "WHOLE read (not a delta)"
            out.notes.append(f"{target.name} model delta: the read was whole")
        else:
            patched = sum(model_counts(p["node"])[0] for p in data["patches"] if p["node"])
            out.nodes[key] = f"{len(data['patches'])} patches, {patched} elements"
    elif path == "dom walk":
        every, shown = timed(samples, lambda: page.evaluate(DOM_WALK_JS))
        out.chars[key] = len(json.dumps([every, shown]))
        out.nodes[key] = f"{every} elements, {shown} displayed"
    else:
        raise ValueError(path)


# ---------------------------------------------------------------- agreement


def agreement(target: Target) -> dict[str, Any]:
    """(role, name) multisets of the CDP full AX tree and of the model, compared."""
    tree = target.cdp.send("Accessibility.getFullAXTree")
    cdp_pairs: Counter[tuple[str, str]] = Counter()
    for node in tree["nodes"]:
        if node.get("ignored"):
            continue
        role = str((node.get("role") or {}).get("value", ""))
        if role in LEFT_OUT_ROLES:
            continue
        cdp_pairs[(role, str((node.get("name") or {}).get("value", "")))] += 1
    data = json.loads(target.page.evaluate(READ_JS, True))
    model_pairs: Counter[tuple[str, str]] = Counter()
    for node in model_nodes(data["tree"]):
        role = str(node.get("r", ""))
        if role in LEFT_OUT_ROLES or role == "document":
            continue
        model_pairs[(role, str(node.get("n", "")))] += 1
    agree = cdp_pairs & model_pairs
    only_cdp, only_model = cdp_pairs - model_pairs, model_pairs - cdp_pairs
    return {
        "cdp_pairs": cdp_pairs.total(),
        "model_pairs": model_pairs.total(),
        "agree": agree.total(),
        "only_cdp": only_cdp.total(),
        "only_model": only_model.total(),
        "only_cdp_shown": [[r, n, c] for (r, n), c in only_cdp.most_common()],
        "only_model_shown": [[r, n, c] for (r, n), c in only_model.most_common()],
    }


def shown_differences(result: dict[str, Any]) -> list[str]:
    """Up to SHOWN_DIFFERENCES lines, alternating sides so both get a share."""
    sides = [
        [f"cdp only   {r!r:<16}{n[:50]!r} x{c}" for r, n, c in result["only_cdp_shown"]],
        [f"model only {r!r:<16}{n[:50]!r} x{c}" for r, n, c in result["only_model_shown"]],
    ]
    lines: list[str] = []
    while len(lines) < SHOWN_DIFFERENCES and any(sides):
        for side in sides:
            if side and len(lines) < SHOWN_DIFFERENCES:
                lines.append(side.pop(0))
    return lines


# ---------------------------------------------------------------- the run


def measure(rounds: int) -> Measured:
    site = Path(tempfile.mkdtemp(prefix="sh-capture-site-"))
    for name, html in PAGES:
        (site / f"{name}.html").write_text(html())
    server = serve_directory(site)
    out = Measured()
    args = [*BASE_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(find_chromium()), headless=True, args=args
            )
            targets: list[Target] = []
            for name, _ in PAGES:
                page = browser.new_page()
                page.goto(f"{base_url(server)}/{name}.html")
                page.evaluate(script())  # installs window.__steadyhand_model__
                cdp = page.context.new_cdp_session(page)
                root = cdp.send("DOM.getDocument", {"depth": 0})["root"]
                targets.append(Target(name, page, cdp, int(root["backendNodeId"])))
            for number in range(rounds + 1):  # round 0 warms up and is not kept
                kept = Measured()
                shift = number % len(PATHS)
                for target in targets:
                    for path in PATHS[shift:] + PATHS[:shift]:
                        run_path(target, path, kept)
                if number:
                    for key, values in kept.ms.items():
                        out.ms[key] += values
                    out.chars.update(kept.chars)
                    out.nodes.update(kept.nodes)
                    out.notes += kept.notes
            for target in targets:
                if target.name in AGREEMENT_PAGES:
                    out.agreement[target.name] = agreement(target)
            browser.close()
    finally:
        server.shutdown()
        shutil.rmtree(site, ignore_errors=True)
    return out


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile (the maximum below 20 samples)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def report(measured: Measured, rounds: int) -> dict[str, Any]:
    print(
        f"capture paths: {rounds} interleaved rounds (+1 warm-up); ratios vs "
        "aria_snapshot(mode='ai') medians; times are client-side (round trip + parse)\n"
    )
    header = (
        f"{'page':<7}{'path':<13}{'p50 ms':>9}{'p95 ms':>9}{'x time':>8}"
        f"{'chars':>11}{'x size':>8}  nodes"
    )
    print(header)
    print("-" * (len(header) + 28))
    result: dict[str, Any] = {"bench": "capture_paths", "rounds": rounds, "pages": {}}
    for name, _ in PAGES:
        base_ms = statistics.median(measured.ms[(name, "aria")])
        base_chars = measured.chars[(name, "aria")]
        cells: dict[str, Any] = {}
        for path in PATHS:
            samples = measured.ms[(name, path)]
            ms, high = statistics.median(samples), p95(samples)
            chars = measured.chars[(name, path)]
            cells[path] = {
                "p50_ms": round(ms, 3),
                "p95_ms": round(high, 3),
                "time_ratio": round(ms / base_ms, 4),
                "chars": chars,
                "size_ratio": round(chars / base_chars, 4),
                "nodes": measured.nodes[(name, path)],
            }
            print(
                f"{name:<7}{path:<13}{ms:>9.2f}{high:>9.2f}{ms / base_ms:>7.2f}x"
                f"{chars:>11,}{chars / base_chars:>7.3f}x  {measured.nodes[(name, path)]}"
            )
        result["pages"][name] = cells
        print()
    for note in dict.fromkeys(measured.notes):
        print(f"note: {note}")
    for name, agreed in measured.agreement.items():
        print(
            f"agreement {name}: {agreed['agree']} (role, name) pairs agree; cdp has "
            f"{agreed['cdp_pairs']} ({agreed['only_cdp']} only there), model has "
            f"{agreed['model_pairs']} ({agreed['only_model']} only there)"
        )
        for line in shown_differences(agreed):
            print(f"  {line}")
        result.setdefault("agreement", {})[name] = {
            k: v for k, v in agreed.items() if not k.endswith("_shown")
        }
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7, help="rounds per path (default 7)")
    rounds = max(1, parser.parse_args().rounds)
    print(json.dumps(report(measure(rounds), rounds)))
