"""What a flow's replay costs next to the run it was recorded from, the same steps through
the CLI one by one, and raw Playwright doing the task, in one run.

The task is the flows test's (tests/integration/test_flows.py) on the shop of
tests/shop_site.py served on 127.0.0.1: sign in, search, filter the results table, add a
row's item to the cart, open the cart, check out, fill the shipping form, choose the
delivery, tick gift wrap, place the order (14 acts). A daemon in a temp state dir is driven
through the `steadyhand` CLI, as an agent drives it; the shop's password is a secret in
the daemon's environment.

  recorded        the task done once over the CLI as an agent does it: a `snapshot -i`
                  before each page's acts (refs come from it), then the acts (no model
                  time: the refs are looked up in the snapshot text by the bench)
  one by one      the same: the 14 acts and the snapshots they need, CLI call by CLI call
                  (what replaying "by hand" costs), on the shop as recorded
  flow run        `steadyhand flow run shop` (one CLI call), on each variant of the shop:
                  plain, restyled (classes renamed, forms reordered, buttons moved, one
                  button renamed), banner (a cookie consent banner until answered),
                  params (other values typed)
  raw Playwright  the task with Playwright's role locators (get_by_role, in-process, the
                  browser already running: a new context per round): the floor

Rounds are interleaved (each cell once per round), one warm-up round not counted. Prints
the median and p95 wall time (ms) per cell, ratios to one-by-one and to raw Playwright, the
daemon's own time for the replay (`duration_ms`) beside the recorded acts' (`recorded_ms`),
and how many steps each variant needed adapted; then one JSON line. Asserts nothing.

    .venv/bin/python bench/flows.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.shop_site
from tests.shop_site import PASSWORD, ShopSite

from steadyhand.snapshot.lookup import find_ref

STEADYHAND = str(Path(sys.executable).with_name("steadyhand"))
CHROMIUM = os.environ.get("STEADYHAND_CHROMIUM", "/usr/bin/chromium")
VARIANTS = ("plain", "restyled", "banner", "params")
PARAMS = ("--param", "query=desk", "--param", "full_name=Grace Hopper")


class Cli:
    def __init__(self, state: Path) -> None:
        self.env = dict(
            os.environ, STEADYHAND_STATE_DIR=str(state), STEADYHAND_SECRET_SHOP_PW=PASSWORD
        )

    def __call__(self, *args: str, ok: bool = True) -> str:
        done = subprocess.run(
            [STEADYHAND, *args], env=self.env, capture_output=True, text=True, check=False
        )
        if ok and done.returncode != 0:
            raise SystemExit(f"steadyhand {' '.join(args)} failed: {done.stderr}")
        return done.stdout


def by_hand(cli: Cli, url: str, session: str) -> None:
    """The task over the CLI, act by act, each page's refs from its `snapshot -i`."""
    s = ("--session", session)

    def seen() -> str:
        return cli(*s, "snapshot", "-i")

    cli(*s, "open", f"{url}/login")
    page = seen()
    cli(*s, "type", find_ref(page, "textbox", "Username"), "ada")
    cli(*s, "type", find_ref(page, "textbox", "Password"), "{{secret:SHOP_PW}}")
    cli(*s, "click", find_ref(page, "button", "Sign in"))
    page = seen()
    cli(*s, "type", find_ref(page, "searchbox", "Search products"), "lamp")
    cli(*s, "click", find_ref(page, "button", "Search"))
    page = seen()
    cli(*s, "select", find_ref(page, "combobox", "Category"), "Lighting")
    cli(*s, "click", find_ref(page, "button", "Add to cart", 0))
    page = seen()
    cli(*s, "click", find_ref(page, "link", "Cart (1)"))
    page = seen()
    cli(*s, "click", find_ref(page, "button", "Check out"))
    page = seen()
    fields = (
        f"{find_ref(page, 'textbox', 'Full name')}=Ada Lovelace",
        f"{find_ref(page, 'textbox', 'Address')}=12 Analytical Way",
    )
    cli(*s, "fill", *fields)
    cli(*s, "select", find_ref(page, "combobox", "Delivery"), "Express")
    cli(*s, "check", find_ref(page, "checkbox", "Gift wrap"))
    cli(*s, "click", find_ref(page, "button", "Place order"))


def raw_playwright(browser: Any, url: str) -> None:
    """The task with Playwright's role locators, as the exported script does it."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/login")
    form = page.get_by_role("form", name="Sign in", exact=True)
    form.get_by_role("textbox", name="Username", exact=True).fill("ada")
    form.get_by_role("textbox", name="Password", exact=True).fill(PASSWORD)
    form.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url("**/search")
    page.get_by_role("searchbox", name="Search products", exact=True).fill("lamp")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url("**/results**")
    page.get_by_role("combobox", name="Category", exact=True).select_option("Lighting")
    row = page.get_by_role("row").filter(has_text="Desk lamp")
    row.get_by_role("button", name="Add to cart", exact=True).click()
    page.get_by_role("status").wait_for()
    page.get_by_role("link", name="Cart (1)", exact=True).click()
    page.get_by_role("button", name="Check out", exact=True).click()
    page.wait_for_url("**/checkout**")
    page.get_by_role("textbox", name="Full name", exact=True).fill("Ada Lovelace")
    page.get_by_role("textbox", name="Address", exact=True).fill("12 Analytical Way")
    page.get_by_role("combobox", name="Delivery", exact=True).select_option("Express")
    page.get_by_role("checkbox", name="Gift wrap", exact=True).check()
    page.get_by_role("button", name="Place order", exact=True).click()
    page.wait_for_url("**/done")
    context.close()


def timed(task: Any) -> float:
    began = time.perf_counter()
    task()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = defaultdict(list)
    daemon_ms: dict[str, list[float]] = defaultdict(list)
    adapted: dict[str, set[int]] = defaultdict(set)
    with tempfile.TemporaryDirectory() as state, ShopSite().start() as shop, sync_playwright() as p:
        os.chmod(state, 0o700)
        cli = Cli(Path(state))
        browser = p.chromium.launch(executable_path=CHROMIUM)
        shop.variant = "plain"
        recorded_ms = timed(lambda: by_hand(cli, shop.url, "recorded"))
        saved = json.loads(
            cli("--session", "recorded", "--json", "flow", "save", "shop", "--param", "query=lamp")
        )["result"]
        cli("--session", "recorded", "close")
        print(f"recorded: {saved['steps']} steps over the CLI in {recorded_ms:,.0f} ms wall")
        for n in range(args.rounds + 1):
            counted = n > 0
            cells = ["one by one", "raw Playwright", *(f"flow run {v}" for v in VARIANTS)]
            cells = cells[n % len(cells) :] + cells[: n % len(cells)]
            for cell in cells:
                session = f"b{n}-{cell.replace(' ', '-')}"
                if cell == "raw Playwright":
                    shop.variant = "plain"
                    ms = timed(lambda: raw_playwright(browser, shop.url))
                elif cell == "one by one":
                    shop.variant = "plain"
                    ms = timed(lambda s=session: by_hand(cli, shop.url, s))
                else:
                    variant = cell.removeprefix("flow run ")
                    shop.variant = "plain" if variant == "params" else variant
                    extra = PARAMS if variant == "params" else ()
                    began = time.perf_counter()
                    out = cli("--session", session, "--json", "flow", "run", "shop", *extra)
                    ms = (time.perf_counter() - began) * 1000
                    result = json.loads(out)["result"]
                    if counted:
                        daemon_ms[cell].append(result["duration_ms"])
                    adapted[variant].add(result["adapted"])
                if cell != "raw Playwright":
                    cli("--session", session, "close", ok=False)
                if counted:
                    times[cell].append(ms)
        browser.close()
        cli("daemon", "stop", ok=False)
        orders = len(shop.orders())
    report(times, daemon_ms, adapted, recorded_ms, args.rounds)
    print(f"recorded: {saved['steps']} steps; {orders} orders placed in all")


def report(
    times: dict[str, list[float]],
    daemon_ms: dict[str, list[float]],
    adapted: dict[str, set[int]],
    recorded_ms: float,
    rounds: int,
) -> None:
    base = statistics.median(times["one by one"])
    raw = statistics.median(times["raw Playwright"])
    print(f"\n{'cell':24} {'median':>9} {'p95':>9} {'vs 1-by-1':>10} {'vs raw':>8}  daemon ms")
    for cell, values in times.items():
        med = statistics.median(values)
        p95 = sorted(values)[max(0, round(0.95 * len(values)) - 1)]
        inner = f"{statistics.median(daemon_ms[cell]):,.0f}" if cell in daemon_ms else ""
        print(f"{cell:24} {med:9,.0f} {p95:9,.0f} {med / base:9.2f}x {med / raw:7.2f}x  {inner}")
    print("steps adapted per variant: " + ", ".join(f"{v} {sorted(a)}" for v, a in adapted.items()))
    summary = {
        "rounds": rounds,
        "recorded_wall_ms": round(recorded_ms, 1),
        "median_ms": {c: round(statistics.median(v), 1) for c, v in times.items()},
        "daemon_ms": {c: round(statistics.median(v), 1) for c, v in daemon_ms.items()},
        "adapted": {v: sorted(a) for v, a in adapted.items()},
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
