"""What a steadyhand snapshot costs, in time and size, next to raw Playwright's.

Three fixture pages, generated and served on 127.0.0.1 by this script:
  form   an 8-control form
  table  a 300-row x 5-column table (name, email, role, status, an "Edit" button)
  big    3000 list rows with 6000 controls (a checkbox and an "Open" button each)
On each, measures median time and size of:
  raw          Playwright's `page.aria_snapshot(mode="ai")`, in this process, own browser
  default      steadyhand `snapshot`
  interactive  steadyhand `snapshot --interactive`
  compact      steadyhand `snapshot --compact`
  diff         steadyhand `snapshot --diff` after one click that changes one status text
with time and size ratios against raw; and the p50 of `click` with its auto-diff on (the
default) and off (`--no-changes`), which is what the auto-diff costs an act command.

steadyhand runs as a private daemon in a temp state dir, called over its JSON-RPC socket
from this process, so its times include the socket round trip and JSON (see the `rpc
floor` line); raw Playwright has neither. Rounds are interleaved (every cell once per
round, views in a rotating order) so machine noise hits them alike; one warm-up round is
not counted. Prints a table, then one JSON line.

    .venv/bin/python bench/snapshot.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from html import escape
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.demo.server import base_url, serve_directory
from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.lookup import find_ref

MAX_CHARS = 10_000_000  # the whole snapshot, never cut
TIMEOUT_MS = 300_000  # the big page may need more than the daemon's default 30 s
VIEWS = ("raw", "default", "interactive", "compact")
CELLS = (*VIEWS, "diff")
# (label, changes) in the order run each round; see one_round.
CLICK_ORDER = (
    ("click changes 1st", True),
    ("click changes", True),
    ("click no-changes", False),
)

# ---------------------------------------------------------------- fixture pages

STYLE = "body{font-family:sans-serif} td,th{padding:2px 6px} li{margin:1px 0}"


def _doc(title: str, body: str, script: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
        f"<style>{STYLE}</style></head><body>{body}<script>{script}</script></body></html>\n"
    )


def form_page() -> str:
    body = """<main><h1>Profile</h1>
<form onsubmit="return false">
  <label>Full name <input name=name value="Ada Lovelace"></label><br>
  <label>Email <input type=email name=email value="ada@example.com"></label><br>
  <label>Role <select name=role><option>Admin</option><option selected>Editor</option>
    <option>Viewer</option></select></label><br>
  <label>Bio <textarea name=bio>Analyst.</textarea></label><br>
  <label><input type=checkbox name=news checked> Subscribe to news</label><br>
  <fieldset><legend>Billing</legend>
    <label><input type=radio name=plan value=m checked> Monthly</label>
    <label><input type=radio name=plan value=y> Yearly</label></fieldset>
  <button type=button id=save>Save</button>
</form>
<p id=status>Not saved yet</p></main>"""
    script = """let n = 0;
document.getElementById('save').onclick = () => {
  document.getElementById('status').textContent = `Saved ${++n} times`;
};"""
    return _doc("Profile form", body, script)


def table_page(rows: int = 300) -> str:
    roles = ("admin", "editor", "viewer")
    statuses = ("active", "invited", "suspended")
    lines = [
        f"<tr><td>User {i}</td><td>user{i}@example.com</td><td>{roles[i % 3]}</td>"
        f"<td>{statuses[i % 3]}</td><td><button data-user='User {i}'>Edit</button></td></tr>"
        for i in range(1, rows + 1)
    ]
    body = (
        "<main><h1>Users</h1><p id=status>Nobody selected</p><table><thead><tr>"
        "<th>Name</th><th>Email</th><th>Role</th><th>Status</th><th>Actions</th>"
        f"</tr></thead><tbody>{''.join(lines)}</tbody></table></main>"
    )
    script = """let n = 0;
document.querySelector('tbody').addEventListener('click', e => {
  const user = e.target.closest('button')?.dataset.user;
  if (user) document.getElementById('status').textContent = `Editing ${user} (${++n})`;
});"""
    return _doc("Users", body, script)


def big_page(rows: int = 3000) -> str:
    lines = [
        f"<li><label><input type=checkbox> Item {i}</label> "
        f"<span>{escape(f'note {i % 97}')}</span> <button data-item={i}>Open</button></li>"
        for i in range(1, rows + 1)
    ]
    body = f"<main><h1>Items</h1><p id=status>Nothing opened</p><ul>{''.join(lines)}</ul></main>"
    script = """let n = 0;
document.querySelector('ul').addEventListener('click', e => {
  const item = e.target.closest('button')?.dataset.item;
  if (item) document.getElementById('status').textContent = `Opened item ${item} (${++n})`;
});"""
    return _doc("Items", body, script)


@dataclass(frozen=True)
class Fixture:
    name: str
    file: str
    html: Callable[[], str]
    target: tuple[str, str]  # role and name of the element clicked (the first one)


FIXTURES = (
    Fixture("form", "form.html", form_page, ("button", "Save")),
    Fixture("table", "table.html", table_page, ("button", "Edit")),
    Fixture("big", "big.html", big_page, ("button", "Open")),
)

# ---------------------------------------------------------------- measuring

Samples = dict[tuple[str, str], list[float]]


def timed(samples: list[float], action: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = action()
    samples.append((time.perf_counter() - started) * 1000)
    return result


@dataclass
class Measured:
    ms: Samples
    chars: Samples
    refs: dict[tuple[str, str], int]
    notes: dict[str, str]  # per fixture: what the diff said (its first line)


def measure(rounds: int) -> Measured:
    site = Path(tempfile.mkdtemp(prefix="sh-bench-site-"))
    for fixture in FIXTURES:
        (site / fixture.file).write_text(fixture.html())
    server = serve_directory(site)
    root = Path(tempfile.mkdtemp(prefix="sh-bench-"))
    settings = Settings.load(state_dir=root / "daemon")
    result = Measured(defaultdict(list), defaultdict(list), {}, {})

    def rpc(method: str, **params: Any) -> Any:
        return rpc_client.call(settings, method, {**params, "timeout": TIMEOUT_MS}, False)

    rpc_client.start_daemon(settings)
    args = [*BASE_ARGS, *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(find_chromium(settings.chromium)), headless=True, args=args
            )
            raw_pages: dict[str, Page] = {}
            targets: dict[str, str] = {}
            for fixture in FIXTURES:
                url = f"{base_url(server)}/{fixture.file}"
                raw_pages[fixture.name] = page = browser.new_page()
                page.goto(url)
                rpc("open", session=fixture.name, url=url)
                text = rpc("snapshot", session=fixture.name, max_chars=MAX_CHARS)["snapshot"]
                targets[fixture.name] = find_ref(text, *fixture.target)
            for number in range(rounds + 1):  # round 0 warms up and is not kept
                kept = Measured(defaultdict(list), defaultdict(list), {}, {})
                for fixture in FIXTURES:
                    one_round(
                        rpc,
                        fixture.name,
                        raw=raw_pages[fixture.name],
                        targets=targets,
                        number=number,
                        out=kept,
                    )
                timed(kept.ms[("-", "rpc floor")], lambda: rpc("daemon.status"))
                if number:
                    for key, values in kept.ms.items():
                        result.ms[key] += values
                    for key, values in kept.chars.items():
                        result.chars[key] += values
                    result.refs.update(kept.refs)
                    result.notes.update(kept.notes)
            browser.close()
    finally:
        try:
            rpc_client.request(settings, "daemon.stop", {}, 30)
        finally:
            server.shutdown()
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
    return result


def one_round(
    rpc: Callable[..., Any],
    name: str,
    *,
    raw: Page,
    targets: dict[str, str],
    number: int,
    out: Measured,
) -> None:
    """Every cell once on one fixture; the views in an order that rotates each round."""
    shift = number % len(VIEWS)
    for view in VIEWS[shift:] + VIEWS[:shift]:
        if view == "raw":
            text = timed(
                out.ms[(name, view)], lambda: raw.aria_snapshot(mode="ai", timeout=TIMEOUT_MS)
            )
            out.chars[(name, view)].append(len(text))
            out.refs[(name, view)] = text.count("[ref=")
            continue
        flags = {view: True} if view != "default" else {}
        got = timed(
            out.ms[(name, view)],
            partial(rpc, "snapshot", session=name, max_chars=MAX_CHARS, **flags),
        )
        record(out, name, view, got)
    # The last snapshot above is the diff's baseline; one click changes the status text.
    rpc("click", session=name, ref=targets[name], changes=False)
    got = timed(
        out.ms[(name, "diff")],
        lambda: rpc("snapshot", session=name, diff=True, max_chars=MAX_CHARS),
    )
    record(out, name, "diff", got)
    out.notes[name] = got["snapshot"].splitlines()[0] if got["snapshot"] else ""
    # Clicks with changes on: the first right after the diff above (whose baseline follows
    # a --no-changes click), then a second in a row, whose baseline is the first's. A
    # click reads the page before acting too when it thinks its baseline predates the
    # last action; the second never should.
    for label, changes in CLICK_ORDER:
        done = timed(
            out.ms[(name, label)],
            partial(rpc, "click", session=name, ref=targets[name], changes=changes),
        )
        out.chars[(name, label)].append(len(done.get("changes") or ""))


def record(out: Measured, name: str, view: str, got: dict[str, Any]) -> None:
    if got.get("next_offset") is not None:
        raise RuntimeError(f"{name} {view}: the snapshot was cut at {len(got['snapshot'])}")
    out.chars[(name, view)].append(got["chars"])
    out.refs[(name, view)] = got["refs"]


# ---------------------------------------------------------------- reporting


def median(values: list[float]) -> float:
    return statistics.median(values)


def report(measured: Measured, rounds: int) -> dict[str, Any]:
    ms, chars = measured.ms, measured.chars
    print(
        f"snapshot bench: {rounds} interleaved rounds (+1 warm-up); medians; ratios vs raw "
        "Playwright aria_snapshot(mode='ai')\n"
        "steadyhand times are client-side JSON-RPC round trips (socket + JSON included); "
        "raw is in-process\n"
    )
    out: dict[str, Any] = {"bench": "snapshot", "rounds": rounds, "fixtures": {}}
    header = f"{'page':<7}{'view':<13}{'ms':>9}{'x time':>8}{'chars':>10}{'x size':>8}{'refs':>7}"
    print(header)
    print("-" * len(header))
    for fixture in FIXTURES:
        name = fixture.name
        raw_ms, raw_chars = median(ms[(name, "raw")]), median(chars[(name, "raw")])
        cells: dict[str, Any] = {}
        for cell in CELLS:
            cell_ms, cell_chars = median(ms[(name, cell)]), median(chars[(name, cell)])
            refs = measured.refs.get((name, cell), 0)
            cells[cell] = {
                "ms": round(cell_ms, 2),
                "chars": int(cell_chars),
                "refs": refs,
                "time_ratio": round(cell_ms / raw_ms, 3),
                "size_ratio": round(cell_chars / raw_chars, 4),
            }
            print(
                f"{name:<7}{cell:<13}{cell_ms:>9.1f}{cell_ms / raw_ms:>7.2f}x"
                f"{int(cell_chars):>10,}{cell_chars / raw_chars:>7.3f}x{refs:>7}"
            )
        on, off = median(ms[(name, "click changes")]), median(ms[(name, "click no-changes")])
        first = median(ms[(name, "click changes 1st")])
        changes_chars = int(median(chars[(name, "click changes")]))
        cells["click"] = {
            "changes_ms": round(on, 2),
            "changes_after_snapshot_ms": round(first, 2),
            "no_changes_ms": round(off, 2),
            "auto_diff_ms": round(on - off, 2),
            "changes_chars": changes_chars,
        }
        print(
            f"{name:<7}{'click':<13}changes on {on:.1f} ms, off {off:.1f} ms: the auto-diff "
            f"costs {on - off:.1f} ms ({on / off:.2f}x), reports {changes_chars} chars"
        )
        print(
            f"{'':<7}{'':<13}changes on, first after a --no-changes click + snapshot: "
            f"{first:.1f} ms (+{first - on:.1f} ms over one in a row)"
        )
        cells["diff_said"] = measured.notes.get(name, "")
        out["fixtures"][name] = cells
        print(f"{'':<7}{'diff said':<13}{measured.notes.get(name, '')!r}\n")
    floor = median(ms[("-", "rpc floor")])
    out["rpc_floor_ms"] = round(floor, 2)
    print(f"rpc floor (daemon.status round trip): {floor:.2f} ms")
    print(
        "every click waits for a frame with no DOM change and no request pending; changes on "
        "then reads what changed (the page model's patches) and diffs it, --no-changes does "
        "not. `changes on` is the 2nd of two clicks in a row."
    )
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7, help="rounds per cell (default 7)")
    rounds = max(1, parser.parse_args().rounds)
    print(json.dumps(report(measure(rounds), rounds)))
