"""What the navigation policy's proxy costs a page load.

One page with --images images and a script, served on 127.0.0.1 by this script with
`Cache-Control: no-store` (every load fetches all of it: the proxy's worst case), loaded
--rounds times (one warm-up not counted) three ways, interleaved round by round:
  raw        Playwright's own `page.goto(url, wait_until="load")` on a fresh context of the
             same system Chromium: the floor.
  direct     steadyhand `navigate` in a session with the default policy: Chromium reaches
             loopback directly (the proxy only sees other hosts).
  proxied    steadyhand `navigate` in a session started with `--block-hosts
             blocked.invalid`: loopback is checked too, so every request of the page goes
             through the session's proxy (what every non-loopback site costs).
Medians and p95 in ms, and the ratios of the medians. Times of `navigate` are JSON-RPC
round trips from this process (socket and JSON included). Asserts nothing about time.

    .venv/bin/python bench/nav_proxy.py [--rounds 15] [--images 80]
"""

from __future__ import annotations

import argparse
import http.server
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import sync_playwright

from steadyhand import rpc_client
from steadyhand.config import Settings
from steadyhand.engine.chromium import find_chromium, launch_args

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'


def serve(images: int) -> tuple[http.server.ThreadingHTTPServer, str]:
    page = "".join(f'<img src="/i{i}.svg">' for i in range(images))
    body = f"<!doctype html><title>Heavy</title><h1>x</h1>{page}<script src='/a.js'></script>"

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            kind, data = (
                ("text/html", body.encode())
                if path == "/"
                else ("application/javascript", b"1")
                if path == "/a.js"
                else ("image/svg+xml", SVG)
            )
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(times), 1), "p95": round(p95, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--images", type=int, default=80)
    args = parser.parse_args()
    server, url = serve(args.images)
    results: dict[str, list[float]] = {"raw": [], "direct": [], "proxied": []}
    with tempfile.TemporaryDirectory(prefix="sh-bench-proxy-") as tmp:
        settings = Settings.load(state_dir=Path(tmp) / "state")
        rpc_client.start_daemon(settings)
        try:
            rpc_client.call(settings, "open", {"session": "direct", "url": url})
            rpc_client.call(
                settings,
                "open",
                {"session": "proxied", "url": url, "block_hosts": "blocked.invalid"},
            )
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(find_chromium("")), args=launch_args(Path(tmp))
                )
                page = browser.new_context().new_page()

                def navigate(session: str) -> Callable[[int], object]:
                    return lambda i: rpc_client.call(
                        settings, "navigate", {"session": session, "url": f"{url}?{session}={i}"}
                    )

                loads: dict[str, Callable[[int], object]] = {
                    "raw": lambda i: page.goto(f"{url}?raw={i}", wait_until="load"),
                    "direct": navigate("direct"),
                    "proxied": navigate("proxied"),
                }
                for i in range(args.rounds + 1):  # interleaved: the same load for each way
                    for name, load in loads.items():
                        started = time.perf_counter()
                        load(i)
                        if i:  # the first round warms up
                            results[name].append((time.perf_counter() - started) * 1000)
                browser.close()
        finally:
            rpc_client.call(settings, "daemon.stop", {}, autostart=False)
            server.shutdown()
    shown = {name: stats(times) for name, times in results.items()}
    print(f"page load, {args.images} images + a script, no-store; {args.rounds} rounds (ms)")
    for name, row in shown.items():
        print(f"  {name:8} p50 {row['p50']:8.1f}  p95 {row['p95']:8.1f}")
    raw, direct, proxied = (shown[k]["p50"] for k in ("raw", "direct", "proxied"))
    ratios = {
        "direct/raw": round(direct / raw, 2),
        "proxied/raw": round(proxied / raw, 2),
        "proxied/direct": round(proxied / direct, 2),
    }
    print("  ratios of medians: " + ", ".join(f"{k} {v}" for k, v in ratios.items()))
    print(json.dumps({"bench": "nav_proxy", "images": args.images, **shown, **ratios}))


if __name__ == "__main__":
    main()
