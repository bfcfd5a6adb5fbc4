"""Why an element cannot be acted on now: detached, hidden, disabled, read-only, covered.

Playwright waits for an element to be actionable and, when it never is, says only that it
timed out. Before reporting, the element is examined once more so the error names the
reason, and for a covered element, what covers it by role and name, so the agent can
close it (or the watchdog can).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.errors import ErrorCode, SteadyhandError

# Returns {state, why?, cover?}. `describe` gives an element's role and accessible name as
# an agent would read them in a snapshot (close enough for a message, not a full ARIA
# computation).
DIAGNOSE_JS = """(e, editable) => {
  const describe = el => {
    const tag = el.tagName.toLowerCase();
    const implicit = {button: 'button', a: 'link', input: 'textbox', select: 'combobox',
      textarea: 'textbox', dialog: 'dialog', img: 'img', nav: 'navigation', header: 'banner',
      footer: 'contentinfo', aside: 'complementary', form: 'form', main: 'main'};
    const role = el.getAttribute('role') || implicit[tag] || tag;
    let name = el.getAttribute('aria-label') || '';
    const by = el.getAttribute('aria-labelledby');
    if (!name && by) name = by.split(/\\s+/).map(id =>
      el.ownerDocument.getElementById(id)?.textContent || '').join(' ');
    if (!name) name = (el.innerText || el.textContent || '').trim();
    name = name.replace(/\\s+/g, ' ').slice(0, 60);
    return name ? `${role} "${name}"` : role;
  };
  if (!e.isConnected) return {state: 'detached'};
  const style = getComputedStyle(e);
  const rect = e.getBoundingClientRect();
  if (!e.checkVisibility({visibilityProperty: true}) || rect.width === 0 || rect.height === 0)
    return {state: 'hidden'};
  const control = (e instanceof HTMLLabelElement && e.control) || e;
  if (control.disabled || control.closest('fieldset:disabled')
      || e.closest('[aria-disabled="true"]'))
    return {state: 'disabled'};
  if (editable && (control.readOnly || e.getAttribute('aria-readonly') === 'true'))
    return {state: 'readonly'};
  if (style.pointerEvents === 'none') return {state: 'no-pointer-events'};
  const view = e.ownerDocument.defaultView;
  const x = rect.left + rect.width / 2, y = rect.top + rect.height / 2;
  if (x < 0 || y < 0 || x > view.innerWidth || y > view.innerHeight)
    return {state: 'ok'};  // off screen: Playwright scrolls it into view first
  const root = e.getRootNode();
  const hit = (root.elementFromPoint ? root : e.ownerDocument).elementFromPoint(x, y);
  if (!hit || hit === e || e.contains(hit) || (hit.shadowRoot && hit.contains(e)))
    return {state: 'ok'};
  if (hit instanceof HTMLLabelElement && hit.control === e) return {state: 'ok'};
  // Name the covering layer: its outermost positioned ancestor that does not hold e.
  let cover = hit;
  for (let p = hit.parentElement; p && !p.contains(e); p = p.parentElement) {
    if (getComputedStyle(p).position !== 'static') cover = p;
  }
  return {state: 'covered', cover: describe(cover), hit: describe(hit)};
}"""

REASONS = {
    "detached": "was removed from the page",
    "hidden": "is not visible",
    "disabled": "is disabled",
    "readonly": "is read-only",
    "no-pointer-events": "does not take pointer events (pointer-events: none)",
}


async def diagnose(handle: ElementHandle, editable: bool = False) -> dict[str, Any]:
    """The element's state as DIAGNOSE_JS reports it ({"state": "gone"} if unreadable)."""
    try:
        found = await handle.evaluate(DIAGNOSE_JS, editable)
    except PlaywrightError:
        return {"state": "detached"}
    return found if isinstance(found, dict) else {"state": "ok"}


def not_actionable(what: str, found: dict[str, Any]) -> SteadyhandError:
    """The error for an element that stayed unusable for the whole try (the act loop says
    how long it waited in all, measured)."""
    state = found.get("state", "ok")
    if state == "covered":
        why = f"is covered by {found.get('cover')}"
        hint = (
            "close or answer what covers it (take a snapshot to find its ref), or scroll; "
            "known banners are dismissed by the watchdog"
        )
    elif state == "ok":
        why = "did not become ready (it kept moving or changing)"
        hint = "wait for the page to settle (`wait`), then try again"
    else:
        why = REASONS.get(state, state)
        hint = "take a new snapshot to see its state; wait for the page, or act on another element"
    return SteadyhandError(
        ErrorCode.NOT_ACTIONABLE,
        f"{what} {why}",
        hint,
        {"state": state, **({"covered_by": found["cover"]} if state == "covered" else {})},
    )
