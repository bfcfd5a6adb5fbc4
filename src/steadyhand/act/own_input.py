"""Clicks and text sent straight to the browser's input, after one check in the page.

Playwright's element click spends several round trips and two animation frames on its
checks before it sends the same CDP input events this module sends. Here one call in the
page does what it checks (AIM_JS):

- the element is attached, in the top-level document (not an iframe) of an unzoomed
  viewport, has a box and is not `visibility: hidden`, and is not disabled;
- out of view (of the viewport or a scroll box), it is scrolled to the centre and the page
  is given time to render what scrolled in (a virtual grid re-renders its rows);
- while anything on the page is animating, its box must be the same across one frame;
- the element (or the button or link it is in) is what the page has at the click point;
- a guard is put on the window: the first trusted pointer event must land on the element,
  else it and the rest of the click are stopped (a cover that came after the check), as
  Playwright's hit-target interception does;
- it also answers what the act needs before acting: the page model's mutation count and
  whether the element is (in) a link that opens another tab.

Then `Input.dispatchMouseEvent` (move, press, release; per click of a double or triple
click), pipelined on the tab's CDP session, and the guard is read and removed; or, for a
fill, the check focuses the field and selects what it holds, and `Input.insertText`
replaces it (as Playwright's fill does). Whenever the check is not sure (a frame, a
zoomed viewport, a cover, a disabled, moving or hidden element, a file input, no CDP
session), and while a Playwright trace records (it shows Playwright's actions), the caller
takes Playwright's path, which waits and explains; the result's `route` says which was
taken and why.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import CDPSession, ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.act.watchdog import SCAN_JS
from steadyhand.act.watchdog_patterns import compile_patterns, patterns_for
from steadyhand.engine.tab_cdp import tab_cdp
from steadyhand.snapshot.page_model import MODEL, MODEL_OF_E

if TYPE_CHECKING:
    from steadyhand.act.aim import Aim
    from steadyhand.act.loop import Act

GUARD = "Symbol.for('steadyhand.input-guard')"
SCROLL_SETTLE_MS = 300
CHECK_S = 1.0  # the in-page check; a page that does not answer by then gets Playwright's path
RELEASE_S = 0.5  # reading the guard after the input
GUARD_S = 5.0  # a guard that is not read removes itself after this (ms in the page below)

# Arguments: [element, {x, y (offsets from the padding box's corner, or null), edit, token}].
# Returns {ok: true, x, y, mutations, opensTab} or {ok: false, why}.
AIM_JS = f"""async (e, o) => {{
  const win = e.ownerDocument.defaultView;
  if (!e.isConnected || !win) return {{ok: false, why: 'detached'}};
  if (win !== win.top) return {{ok: false, why: 'frame'}};
  // The watchdog's scan (act/watchdog.py) first, in this call: what it hid is reported,
  // and a banner it must click leaves the act to the sweep, then to another look.
  const scan = o.specs === null ? null : (SCAN)([o.specs, e, null, false]);
  if (scan && scan.clicks.length) return {{ok: false, why: 'watchdog', scan}};
  const found = await (async () => {{
  const vv = win.visualViewport;
  if (vv && (vv.scale !== 1 || vv.offsetLeft || vv.offsetTop)) return {{ok: false, why: 'zoomed'}};
  // What the click is for, as Playwright's hit check has it: the button or link the
  // element is in, except for a field (a click meant for a field must reach the field).
  const field = e.matches('input, textarea, select') || e.isContentEditable;
  const owner = (!field && e.closest('button, [role=button], a, [role=link]')) || e;
  // A file input opens a chooser Playwright's path knows how to meet (upload).
  const label = e.closest('label');
  const control = e instanceof HTMLLabelElement ? e.control : (label && label.control) || e;
  if (control instanceof HTMLInputElement && control.type === 'file')
    return {{ok: false, why: 'file input'}};
  const within = n => {{
    for (let c = n; c; c = c.parentNode || c.host) if (c === owner || c === e) return true;
    return false;
  }};
  const model = {MODEL_OF_E};
  const style = getComputedStyle(e);
  if (style.visibility !== 'visible') return {{ok: false, why: 'hidden'}};
  if (e.matches(':disabled') || owner.matches(':disabled')
      || e.closest('[aria-disabled=true]')) return {{ok: false, why: 'disabled'}};
  if (o.edit) {{
    const text = e instanceof HTMLTextAreaElement || (e instanceof HTMLInputElement &&
      ['', 'text', 'search', 'email', 'url', 'tel', 'password'].includes(e.type));
    if (!(text || e.isContentEditable)) return {{ok: false, why: 'not a text field'}};
    if (e.readOnly || e.getAttribute('aria-readonly') === 'true')
      return {{ok: false, why: 'read-only'}};
  }}
  const out = r => {{
    const past = b => r.top < b.top - 1 || r.bottom > b.bottom + 1 || r.left < b.left - 1
      || r.right > b.right + 1;
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {{
      const s = getComputedStyle(p);
      if (/(auto|scroll|hidden)/.test(s.overflowX + s.overflowY)
          && past(p.getBoundingClientRect())) return true;
    }}
    return past({{top: 0, left: 0, bottom: innerHeight, right: innerWidth}});
  }};
  let r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return {{ok: false, why: 'no box'}};
  if (out(r)) {{
    e.scrollIntoView({{block: 'center', inline: 'center', behavior: 'instant'}});
    if (model) await model.settle({SCROLL_SETTLE_MS}, true);
    if (!e.isConnected) return {{ok: false, why: 'detached'}};
    r = e.getBoundingClientRect();
  }}
  if (document.getAnimations().some(a => a.playState === 'running')) {{
    await new Promise(f => requestAnimationFrame(() => f()));
    const again = e.getBoundingClientRect();
    if (again.x !== r.x || again.y !== r.y || again.width !== r.width
        || again.height !== r.height) return {{ok: false, why: 'moving'}};
  }}
  const x = o.x === null ? r.left + r.width / 2 : r.left + e.clientLeft + o.x;
  const y = o.y === null ? r.top + r.height / 2 : r.top + e.clientTop + o.y;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return {{ok: false, why: 'outside'}};
  const watch = () => {{
    const old = win[{GUARD}];
    if (old) old.remove();
    const kinds = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick',
                   'auxclick', 'contextmenu'];
    const guard = {{token: o.token, verdict: null}};
    // Only events at this click's point are its own (another act's click elsewhere, by
    // Playwright's path, passes untouched while this guard waits to be read).
    const check = ev => {{
      if (!ev.isTrusted || Math.abs(ev.clientX - x) > 1 || Math.abs(ev.clientY - y) > 1) return;
      if (guard.verdict === null) {{
        const at = ev.composedPath()[0];
        guard.verdict = !e.isConnected ? 'detached' : within(at) ? 'ok'
          : (at && at.tagName ? at.tagName.toLowerCase() + (at.id ? '#' + at.id : '') : 'nothing');
      }}
      if (guard.verdict !== 'ok') {{
        ev.preventDefault(); ev.stopImmediatePropagation();
      }}
    }};
    const timer = setTimeout(() => guard.remove(), {int(GUARD_S * 1000)});
    guard.remove = () => {{
      clearTimeout(timer);
      for (const k of kinds) win.removeEventListener(k, check, true);
      if (win[{GUARD}] === guard) delete win[{GUARD}];
    }};
    for (const k of kinds) win.addEventListener(k, check, true);
    win[{GUARD}] = guard;
  }};
  // The first trusted pointer event must land on the element: else the click is stopped.
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {{
    const deeper = hit.shadowRoot.elementFromPoint(x, y);
    if (!deeper || deeper === hit) break;
    hit = deeper;
  }}
  if (!within(hit)) return {{ok: false, why: 'covered'}};
  if (!o.edit) watch();
  else {{
    e.focus();
    if (e.isContentEditable && !(e instanceof HTMLInputElement)) {{
      const range = document.createRange();
      range.selectNodeContents(e);
      const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
    }} else e.select();
    if (!(e === document.activeElement || e.contains(document.activeElement)))
      return {{ok: false, why: 'not focusable'}};
  }}
  const link = e.closest('a[href], area[href]');
  const target = ((link && link.target) || '').toLowerCase();
  const ac = (e.getAttribute('autocomplete') || '').toLowerCase();
  return {{ok: true, x, y, mutations: model ? model.mutations() : null,
          opensTab: !!link && !['', '_self', '_parent', '_top'].includes(target),
          // For a fill: whether the page handles keys on it (then it must get keys), and
          // whether it may hold a secret (not known to hold ordinary text).
          keys: !!(model && model.listensForKeys(e)),
          secret: ac.includes('password') || ac.includes('one-time-code')
            || (e instanceof HTMLInputElement && !['', 'text', 'search', 'email', 'url', 'tel']
                .includes(e.type))}};
  }})();
  found.scan = scan;
  return found;
}}""".replace("(SCAN)", f"({SCAN_JS})")

# The guard's verdict ('ok', 'detached': the element left the page first, what took the
# events instead, 'none': no event came), and the guard removed; null: this act's guard is
# not there (the document went, with it). Only the guard of this act (its token).
RELEASE_JS = f"""token => {{
  const g = window[{GUARD}];
  if (!g || g.token !== token) return null;
  g.remove();
  return g.verdict || 'none';
}}"""

BUTTONS = {"left": 1, "right": 2, "middle": 4}
MODIFIER_BITS = {"Alt": 1, "Control": 2, "ControlOrMeta": 2, "Meta": 4, "Shift": 8}
_KEYS = {  # key, code, Windows virtual key code
    "Alt": ("Alt", "AltLeft", 18),
    "Control": ("Control", "ControlLeft", 17),
    "ControlOrMeta": ("Control", "ControlLeft", 17),  # Linux
    "Meta": ("Meta", "MetaLeft", 91),
    "Shift": ("Shift", "ShiftLeft", 16),
}

_tokens = itertools.count(1)


@dataclass
class Aimed:
    """Where the check found the element, or why it leaves the act to Playwright."""

    ok: bool
    why: str = ""
    x: float = 0.0
    y: float = 0.0
    mutations: int | None = None
    opens_tab: bool = False
    token: int = 0
    session: CDPSession | None = None
    scan: dict[str, Any] | None = None  # the watchdog's scan, when the check ran it
    keys: bool = False  # the page handles key events on the element (a fill must send keys)
    secret: bool = True  # the field may hold a secret (not known to hold ordinary text)


async def aim(
    handle: ElementHandle,
    *,
    x: float | None = None,
    y: float | None = None,
    edit: bool = False,
    specs: str | None = None,
) -> Aimed:
    """Check the element in one call (see the module's docstring); `edit` also focuses it
    and selects what it holds, for a fill; `specs`: the watchdog's patterns, to scan for
    interruptions first (watchdog.compile_patterns)."""
    token = next(_tokens)
    args = {"x": x, "y": y, "edit": edit, "token": token, "specs": specs}
    try:
        found = await asyncio.wait_for(handle.evaluate(AIM_JS, args), CHECK_S)
    except TimeoutError:
        return Aimed(False, "busy")
    except PlaywrightError:
        return Aimed(False, "detached")
    scan = found.get("scan")
    if not found.get("ok"):
        return Aimed(False, str(found.get("why", "")), scan=scan)
    mutations = found.get("mutations")
    return Aimed(
        True,
        x=float(found["x"]),
        y=float(found["y"]),
        mutations=int(mutations) if mutations is not None else None,
        opens_tab=bool(found.get("opensTab")),
        token=token,
        scan=scan,
        keys=bool(found.get("keys")),
        secret=bool(found.get("secret", True)),
    )


def mouse_events(
    at: Aimed, button: str, count: int, modifiers: list[str]
) -> list[tuple[str, dict[str, Any]]]:
    """The CDP events of a click at `at`: modifier keys down, a move, press and release per
    click (clickCount 1..count), modifier keys up."""
    bits = 0
    for name in modifiers:
        bits |= MODIFIER_BITS[name]
    keys = [_KEYS[name] for name in dict.fromkeys(modifiers)]
    events: list[tuple[str, dict[str, Any]]] = []
    for key, code, vk in keys:
        events.append(
            (
                "Input.dispatchKeyEvent",
                {
                    "type": "rawKeyDown",
                    "key": key,
                    "code": code,
                    "windowsVirtualKeyCode": vk,
                    "modifiers": bits,
                },
            )
        )
    point = {"x": at.x, "y": at.y, "modifiers": bits}
    events.append(("Input.dispatchMouseEvent", {"type": "mouseMoved", "button": "none", **point}))
    for n in range(1, count + 1):
        pressed = {"button": button, "buttons": BUTTONS[button], "clickCount": n, **point}
        events.append(("Input.dispatchMouseEvent", {"type": "mousePressed", **pressed}))
        released = {**pressed, "buttons": 0}
        events.append(("Input.dispatchMouseEvent", {"type": "mouseReleased", **released}))
    for key, code, vk in reversed(keys):
        events.append(
            (
                "Input.dispatchKeyEvent",
                {
                    "type": "keyUp",
                    "key": key,
                    "code": code,
                    "windowsVirtualKeyCode": vk,
                    "modifiers": 0,
                },
            )
        )
    return events


async def send_all(session: CDPSession, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Send the events in order without waiting for each answer in between: the session
    delivers them in order, and the browser handles input in the order it came."""
    await asyncio.gather(*(session.send(method, params) for method, params in events))


async def release(page: Page, token: int) -> str | None:
    """The guard's verdict for this act: 'ok' (the click landed on the element), 'detached',
    the tag of what took it instead (it was stopped), 'none' (no event of it reached the
    page), 'busy' (the page did not answer: a navigation the click started holds every call
    into the page until it commits, or the page is busy), or None: the document went with
    its guard (the click navigated)."""
    try:
        verdict = await asyncio.wait_for(page.evaluate(RELEASE_JS, token), RELEASE_S)
    except TimeoutError:
        return "busy"
    except PlaywrightError:
        return None
    return str(verdict) if verdict is not None else None


async def own_aim(
    act: Act,
    target: Aim,
    *,
    x: float | None = None,
    y: float | None = None,
    edit: bool = False,
    sweep: bool = False,
) -> Aimed | None:
    """The target checked for steadyhand's own input, with the session to send it on; None
    when Playwright's path must take the act (the timing's route says why). Reads what
    the act needs before acting in the same call: the mutation count, whether the element
    opens another tab, and with `sweep`, the watchdog's scan (which runs either way)."""
    clock = act.call.outcome.timing
    settings = act.call.runtime.settings
    session_of_tab = await act.call.session()
    if settings.act_input != "cdp" or session_of_tab.tracing_since is not None:
        # A Playwright trace being recorded shows Playwright's actions: its input, then.
        why = "act_input setting" if settings.act_input != "cdp" else "a trace is recording"
        clock.route = f"playwright: {why}"
        if sweep:
            await act.sweep(target)
        return None
    specs = compile_patterns(patterns_for(settings.watchdog_patterns)) if sweep else None
    with clock.stage("check"):
        session = await tab_cdp(act.tab.page)
        at = await aim(target.handle, x=x, y=y, edit=edit, specs=specs) if session else None
        if sweep and (at is None or at.scan is None):  # the check stopped before the scan
            await act.sweep(target)
        elif at is not None and at.scan is not None and await dismissed(act, target, at.scan):
            at = await aim(target.handle, x=x, y=y, edit=edit)  # a banner went: look again
    if session is None or at is None:
        clock.route = "playwright: no CDP session"
        return None
    if not at.ok:
        clock.route = f"playwright: {at.why}"
        return None
    clock.route = "cdp"
    at.session = session
    act.counted(at.mutations)
    act.opens_tab = at.opens_tab
    return at


async def insert_text(at: Aimed, text: str) -> None:
    """Replace the selection the check made in the focused field with `text`."""
    assert at.session is not None
    await at.session.send("Input.insertText", {"text": text})


# The watchdog's scan of the page and its mutation count, in one call (an act on what has
# the focus, with no element of its own to check).
PAGE_READY_JS = f"""specs => ({{
  scan: (SCAN)([specs, null, null, false]),
  mutations: {MODEL} ? {MODEL}.mutations() : null,
}})""".replace("(SCAN)", f"({SCAN_JS})")


async def ready_on_page(act: Act) -> None:
    """Act.ready for an act with no target, the watchdog's scan and the mutation count in
    one call when the baseline is fresh (else ready's own order: sweep, read, count)."""
    if not (act.watching and act.fresh_baseline()):
        await act.ready()
        return
    await act.ready(count=False, sweep=False)
    settings = act.call.runtime.settings
    specs = compile_patterns(patterns_for(settings.watchdog_patterns))
    with act.call.outcome.timing.stage("check"):
        try:
            found = await act.tab.page.evaluate(PAGE_READY_JS, specs)
        except PlaywrightError:
            await act.sweep(None)
            await act.ready_to_count()
            return
        if await dismissed(act, None, found.get("scan") or {}):
            await act.ready_to_count()  # what the dismissals changed is not the act's
        else:
            act.counted(found.get("mutations"))


async def dismissed(act: Act, target: Aim | None, scan: dict[str, Any]) -> bool:
    """What the watchdog's scan found (run inside another call) handed to the sweep, which
    reports it and clicks what must be clicked; whether it clicked (the page changed)."""
    if scan.get("done") or scan.get("clicks"):
        await act.sweep(target, scanned=scan)
    return bool(scan.get("clicks"))
