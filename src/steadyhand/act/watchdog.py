"""Dismiss known interruptions (consent banners, newsletter modals, chat widgets) before an action.

`sweep` runs before every action, so its common case (nothing to dismiss) is ONE
`page.evaluate`: a script that finds every visible container of every pattern, hides what
is to be hidden, and names what is to be clicked. Only when something must be clicked do
more round trips follow: the button and its container are located again as handles (the
scan keeps no state in the page), clicked with Playwright (a trusted click, after its
actionability checks), and the container is awaited until hidden, detached or no longer
matching (`.cc-invisible` style fade-outs) — each dismissal within `timeout_ms`.

Rules the script applies:
- a container counts when it is visible: a non-empty box, `visibility: visible` and not fully
  transparent (itself or an ancestor), or, for a box-less root such as a shadow host or a
  fixed-position wrapper, a visible descendant within three levels (Usercentrics renders
  into a 0x0 host's shadow root);
- the first alternative of `dismiss` with a visible match is clicked (consent: accept all,
  then reject all, then close), looking into the container's open shadow root too;
- a container that holds the target is left alone: the agent is acting on the interruption
  itself (typing its email into the newsletter form, opening cookie settings);
- one element is claimed by the first pattern that matches it (user patterns come first);
- chat widgets are hidden only when the element at the target's centre lies inside one;
- a container whose dismissal failed is reported "failed" but not clicked again while the
  page shows the same document.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import ElementHandle, JSHandle, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand.act.watchdog_patterns import (
    Pattern,
    builtin_patterns,
    compile_pattern,
    compile_patterns,
    load_patterns,
)
from steadyhand.engine import playwright_errors

__all__ = ["Pattern", "builtin_patterns", "load_patterns", "sweep"]

CHAT_ROUNDS = 5  # widgets stacked over one point (a launcher over its own badge) - bounded
# Containers whose dismissal failed, per page and document (performance.timeOrigin): they are
# reported, not clicked again, until the page holds a new document - each try would cost the
# whole timeout before every action on a page with a broken banner.
_FAILED: weakref.WeakKeyDictionary[Page, tuple[str, set[tuple[str, int]]]] = (
    weakref.WeakKeyDictionary()
)

# Helpers shared by every script below; each script is one function so it costs one call.
HELPERS_JS = """
  const norm = s => (s || '').replace(/\\s+/g, ' ').trim();
  const textOf = el => norm(el.innerText ?? el.textContent).toLowerCase();
  const fits = (el, [css, text]) => {
    try { if (!el.matches(css)) return false; } catch { return false; }
    return text === null || textOf(el).includes(text);
  };
  const query = (root, [css]) => {
    try { return [...root.querySelectorAll(css)]; } catch { return []; }  // a bad user selector
  };
  // Fully transparent counts as hidden: libraries fade banners out (and leave some faded in
  // the DOM), and a transparent banner's button would hold every sweep for its whole timeout.
  const shown = (el, depth = 0) => {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.opacity === '0') return false;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return style.visibility === 'visible';
    if (depth >= 3) return false;
    const kids = [...el.children, ...(el.shadowRoot ? el.shadowRoot.children : [])];
    return kids.some(k => shown(k, depth + 1));
  };
  // Ancestry across shadow roots and same-origin frames: a target in a shadow tree or in an
  // iframe is still inside the host or the iframe's container.
  const up = n => n.parentNode || n.host || (n.nodeType === 9 && n.defaultView?.frameElement);
  const inside = (el, box) => {
    for (let n = el; n; n = up(n)) if (n === box) return true;
    return false;
  };
  const faded = el => {
    for (let n = el.parentElement; n; n = n.parentElement) {
      if (getComputedStyle(n).opacity === '0') return true;
    }
    return false;
  };
  const containers = spec => {
    const out = [];
    for (const alt of spec.container) {
      for (const el of query(document, alt)) {
        if (out.includes(el) || !shown(el) || faded(el)) continue;
        if (alt[1] === null || fits(el, alt)) out.push(el);
      }
    }
    return out;
  };
  const button = (box, spec) => {
    for (const alt of spec.dismiss) {
      const roots = box.shadowRoot ? [box, box.shadowRoot] : [box];
      for (const root of roots) {
        for (const el of query(root, alt)) if (shown(el) && fits(el, alt)) return el;
      }
    }
    return null;
  };
  // What the button says; an icon (a multiplication sign) says less than its aria-label.
  // Whether a click on the button's centre would reach it: a modal over a banner goes first.
  const onTop = b => {
    const r = b.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && inside(hit, b);
  };
  const labelOf = b => {
    const text = norm(b.innerText || b.value);
    const aria = norm(b.getAttribute('aria-label') || b.title);
    return (/[\\p{L}\\p{N}]/u.test(text) || !aria ? text : aria).slice(0, 80);
  };
"""

_CHAT_CHECK = """
  const chatCheck = (specs, target, point) => {
    const chats = specs.map((s, i) => [s, i]).filter(([s]) => s.kind === 'chat-widget');
    // Most pages carry no chat widget: say so before touching layout or scrolling.
    if (!chats.length || !(target || point)) return [];
    if (!chats.some(([s]) => s.container.some(a => query(document, a).length))) return [];
    let x, y;
    if (target) {
      if (!target.isConnected) return [];
      // The target's centre in this window's viewport, through same-origin iframes (Playwright
      // hands such a target over as is; cross-origin ones come as a point instead).
      const centre = () => {
        const r = target.getBoundingClientRect();
        if (!r.width || !r.height) return null;
        let cx = r.left + r.width / 2, cy = r.top + r.height / 2;
        for (let w = target.ownerDocument.defaultView; w && w !== window; w = w.parent) {
          const frame = w.frameElement;
          if (!frame) return null;
          const f = frame.getBoundingClientRect();
          cx += f.left + frame.clientLeft;
          cy += f.top + frame.clientTop;
        }
        return [cx, cy];
      };
      let c = centre();
      if (!c) return [];
      if (c[0] < 0 || c[1] < 0 || c[0] >= innerWidth || c[1] >= innerHeight) {
        target.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        c = centre();
        if (!c) return [];
      }
      [x, y] = c;
    } else {
      [x, y] = point;
    }
    const out = [];
    for (let round = 0; round < CHAT_ROUNDS; round++) {
      let hit = document.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) {
        const deeper = hit.shadowRoot.elementFromPoint(x, y);
        if (!deeper || deeper === hit) break;
        hit = deeper;
      }
      if (!hit || (target && inside(hit, target))) break;
      let found = null;  // the outermost chat container around the hit point wins
      for (let n = hit; n; n = up(n)) {
        if (n.nodeType !== 1) continue;
        for (const [s, i] of chats) if (s.container.some(a => fits(n, a))) found = [n, i];
      }
      if (!found || (target && inside(target, found[0]))) break;
      found[0].style.setProperty('display', 'none', 'important');
      out.push({ i: found[1], action: 'hidden', label: '' });
    }
    return out;
  };
""".replace("CHAT_ROUNDS", str(CHAT_ROUNDS))

SCAN_JS = (
    "([specsJson, target, point, chatOnly]) => {"
    + "const specs = JSON.parse(specsJson);"
    + HELPERS_JS
    + _CHAT_CHECK
    + """
  const clicks = [], done = [], claimed = [];
  if (!chatOnly) {
    specs.forEach((spec, i) => {
      if (spec.kind === 'chat-widget') return;
      containers(spec).forEach((box, n) => {
        if (claimed.some(c => inside(box, c) || inside(c, box))) return;
        claimed.push(box);
        if (target && inside(target, box)) return;
        if (!spec.dismiss.length) {
          box.style.setProperty('display', 'none', 'important');
          done.push({ i, action: 'hidden', label: '' });
          return;
        }
        const b = button(box, spec);
        if (b) clicks.push({ i, n, label: labelOf(b), top: onTop(b) });
        else done.push({ i, action: 'failed', label: '' });
      });
    });
  }
  // With clicks pending, what covers the target changes: the caller checks chats after them.
  if (!clicks.length) done.push(...chatCheck(specs, target, point));
  return { clicks, done, doc: String(performance.timeOrigin) };
}"""
)

LOCATE_JS = (
    "([specJson, n]) => {"
    + "const spec = JSON.parse(specJson);"
    + HELPERS_JS
    + """
  const box = containers(spec)[n];
  const b = box && button(box, spec);
  return b ? [box, b] : null;
}"""
)

GONE_JS = (
    "([box, specJson]) => {"
    + "const spec = JSON.parse(specJson);"
    + HELPERS_JS
    + """
  return !box.isConnected || !shown(box) || faded(box) || !spec.container.some(a => fits(box, a));
}"""
)


async def sweep(
    page: Page,
    patterns: list[Pattern],
    target: ElementHandle | None = None,
    timeout_ms: float = 1500,
    scanned: dict[str, Any] | None = None,
) -> list[dict[str, str]]:
    """Dismiss every VISIBLE known interruption; return what was dismissed.

    Each entry: {"kind", "name", "action": "clicked" | "hidden" | "failed", "label"}.
    Each click, and the wait for its container to go, is bounded by `timeout_ms`.
    Never raises on a page error (closed page, navigation racing the sweep): it returns
    what it had done by then, [] when the page failed it from the start. `scanned`: what
    SCAN_JS found, run by the caller in another call of its own (act/own_input.py).
    """
    if page.is_closed() or not any(p.kind != "chat-widget" or target for p in patterns):
        return []  # chat widgets matter only to a target: with none, there is nothing to do
    specs = compile_patterns(patterns)
    report: list[dict[str, str]] = []

    def note(entry: dict[str, Any], label: str | None = None) -> None:
        pattern = patterns[int(entry["i"])]
        action = str(entry["action"])
        text = str(entry.get("label", "")) if label is None else label
        report.append({"kind": pattern.kind, "name": pattern.name, "action": action, "label": text})

    try:
        scan = scanned or await _scan(page, specs, target, chat_only=False)
        for entry in scan["done"]:
            note(entry)
        doc = str(scan.get("doc", ""))
        memo = _FAILED.get(page)
        failed = memo[1] if memo is not None and memo[0] == doc else set()
        # Uncovered buttons first (what covers another goes before it), and within a pattern
        # the later containers first, so that removing one leaves the others' indices valid.
        for click in sorted(scan["clicks"], key=lambda c: (not c["top"], -int(c["n"]))):
            pattern, n = patterns[int(click["i"])], int(click["n"])
            if (pattern.name, n) in failed:
                action: str | None = "failed"
            else:
                action = await _click(page, compile_pattern(pattern), n, timeout_ms)
                if action == "failed":
                    failed.add((pattern.name, n))
                    _FAILED[page] = (doc, failed)
            if action:
                note({"i": click["i"], "action": action}, str(click["label"]))
        if scan["clicks"] and target is not None:
            for entry in (await _scan(page, specs, target, chat_only=True))["done"]:
                note(entry)
    except PlaywrightError:
        return report
    return report


async def _scan(
    page: Page, specs: str, target: ElementHandle | None, chat_only: bool
) -> dict[str, Any]:
    """{"clicks": [...], "done": [...], "doc": the document's timeOrigin}."""
    try:
        result: dict[str, Any] = await page.evaluate(SCAN_JS, [specs, target, None, chat_only])
        return result
    except PlaywrightError as exc:
        if target is None or not playwright_errors.foreign_handle(str(exc)):
            raise
    # The target lives in a cross-origin iframe: the page sees only the point it is drawn at.
    await target.scroll_into_view_if_needed(timeout=1000)
    box = await target.bounding_box()
    point = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2] if box else None
    result = await page.evaluate(SCAN_JS, [specs, None, point, chat_only])
    return result


async def _click(page: Page, spec: str, n: int, timeout_ms: float) -> str | None:
    """Click the dismiss button of the nth visible container; None if it went meanwhile."""
    deadline = time.monotonic() + timeout_ms / 1000
    found = await page.evaluate_handle(LOCATE_JS, [spec, n])
    props = await found.get_properties()
    try:
        box = props["0"].as_element() if "0" in props else None
        button = props["1"].as_element() if "1" in props else None
        if box is None or button is None:
            return None
        return await click_away(
            button,
            lambda: page.wait_for_function(GONE_JS, arg=[box, spec], timeout=left_ms(deadline)),
            deadline,
            page,
        )
    finally:
        for handle in (found, *props.values()):
            await dispose(handle)


async def click_away(
    button: ElementHandle,
    gone: Callable[[], Awaitable[Any]],
    deadline: float,
    page: Page | None = None,
) -> str:
    """Click the way out of something in the way, then wait (`gone`) until it has gone:
    "clicked", or "failed". With `page`, its closing is raised rather than called a failure.
    """
    try:
        await button.click(timeout=left_ms(deadline))
    except PlaywrightError:
        if page is not None and page.is_closed():
            raise
        return "failed"  # covered by something else, never stable or enabled, or detached
    try:
        await gone()
    except PlaywrightTimeout:
        return "failed"
    except PlaywrightError:
        if page is not None and page.is_closed():
            raise
        return "clicked"  # the click navigated (a library reloading after consent)
    return "clicked"


async def dispose(handle: JSHandle) -> None:
    with contextlib.suppress(PlaywrightError):  # the page went away: so did the handle
        await handle.dispose()


def left_ms(deadline: float) -> float:
    # Playwright reads 0 as "no timeout": an exhausted budget is one millisecond instead.
    return max(1.0, (deadline - time.monotonic()) * 1000)
