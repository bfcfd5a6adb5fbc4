"""Boxes and ref labels drawn over a page for one screenshot, then taken away.

The boxes come from the same capture that hands out the refs, so a label always names
the ref an action would use. Boxes in an iframe are relative to the iframe's viewport;
they are moved by the iframe's content origin (nested frames add up).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.render import actionable
from steadyhand.snapshot.state import state_of

# Where an iframe's document starts, relative to the iframe element's box.
CONTENT_ORIGIN_JS = """e => {
  const s = getComputedStyle(e);
  return [e.clientLeft + parseFloat(s.paddingLeft), e.clientTop + parseFloat(s.paddingTop)];
}"""
OVERLAY_ATTR = "data-steadyhand-labels"
DRAW_JS = """([labels, attr]) => {
  const colors = ['#d7263d', '#1b998b', '#2e86de', '#f46036', '#8e44ad', '#c0392b'];
  const host = document.createElement('div');
  host.setAttribute(attr, '');
  const sx = window.scrollX, sy = window.scrollY;
  Object.assign(host.style, {position: 'absolute', left: '0px', top: '0px', width: '0px',
    height: '0px', zIndex: '2147483647', pointerEvents: 'none'});
  labels.forEach(([ref, x, y, w, h], i) => {
    const color = colors[i % colors.length];
    const box = document.createElement('div');
    Object.assign(box.style, {position: 'absolute', left: (x + sx) + 'px', top: (y + sy) + 'px',
      width: w + 'px', height: h + 'px', outline: '2px solid ' + color, boxSizing: 'border-box'});
    const tag = document.createElement('div');
    tag.textContent = ref;
    Object.assign(tag.style, {position: 'absolute', left: (x + sx) + 'px',
      top: Math.max(0, y + sy - 14) + 'px', background: color, color: '#fff',
      font: 'bold 11px/14px monospace', padding: '0 3px', borderRadius: '2px'});
    host.append(box, tag);
  });
  document.documentElement.append(host);
}"""
REMOVE_JS = "attr => document.querySelectorAll(`[${attr}]`).forEach(e => e.remove())"


@dataclass(frozen=True)
class Label:
    ref: str
    role: str
    name: str
    box: tuple[int, int, int, int]  # x, y, width, height in the page's viewport


async def labels_for(tab: Tab, taken: Capture, viewport: tuple[int, int] | None) -> list[Label]:
    """A label for every actionable element with a visible box (in the viewport, if given)."""
    origins = await _frame_origins(tab, taken)
    found: list[Label] = []
    for node in taken.root.walk():
        if not actionable(node) or node.box is None or node.frame not in origins:
            continue
        x, y, w, h = node.box
        dx, dy = origins[node.frame]
        x, y = x + dx, y + dy
        if w <= 0 or h <= 0:
            continue
        if viewport is not None and (
            x + w <= 0 or y + h <= 0 or x >= viewport[0] or y >= viewport[1]
        ):
            continue
        assert node.ref is not None
        found.append(Label(node.ref, node.role, node.name, (x, y, w, h)))
    return found


async def _frame_origins(tab: Tab, taken: Capture) -> dict[int, tuple[int, int]]:
    """Where each frame's viewport starts in the page's viewport (frames not found: absent)."""
    origins = {0: (0, 0)}
    for node in taken.root.walk():  # document order: a parent frame comes before its children
        if node.role != "iframe" or not node.children or node.frame not in origins:
            continue
        if node.key is None or node.box is None:
            continue
        inner = await _content_origin(tab, taken.docs.get(node.frame, ""), node.key)
        if inner is None:
            continue
        px, py = origins[node.frame]
        origins[node.children[0].frame] = (px + node.box[0] + inner[0], py + node.box[1] + inner[1])
    return origins


async def _content_origin(tab: Tab, doc: str, key: str) -> tuple[int, int] | None:
    handle = await state_of(tab).model.element(tab.page, doc, key, act=False)
    if handle is None:
        return None
    try:
        left, top = await handle.evaluate(CONTENT_ORIGIN_JS)
        return round(left), round(top)
    except PlaywrightError:
        return None
    finally:
        with contextlib.suppress(PlaywrightError):
            await handle.dispose()


async def draw(tab: Tab, labels: list[Label]) -> None:
    rows = [[label.ref, *label.box] for label in labels]
    await tab.page.evaluate(DRAW_JS, [rows, OVERLAY_ATTR])


async def erase(tab: Tab) -> None:
    with contextlib.suppress(PlaywrightError):  # the page may have navigated meanwhile
        await tab.page.evaluate(REMOVE_JS, OVERLAY_ATTR)
