"""Postconditions: did the action do what it was asked to do?

Each check reads the element after the action and either returns what it found (for the
result) or raises `Unverified`, which the action loop retries once and then reports as
`verification_failed`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.async_api import ElementHandle

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.page_model import MODEL

# The value a person sees in the field Playwright typed into (the element, or its label's
# control), and whether it may hold a secret.
VALUE_JS = """e => {
  let t = e;
  const editable = x => x instanceof HTMLInputElement || x instanceof HTMLTextAreaElement
    || x instanceof HTMLSelectElement || x.isContentEditable;
  if (!editable(t)) t = t.closest('label')?.control ?? t;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) return t.value;
  if (t.isContentEditable) return t.innerText.replace(/\\n$/, '');
  return null;
}"""

# After typing, in one round trip: the field's value (as VALUE_JS), what names it in its
# document's page model ([doc, id]) so that the next action can tell what the page made of
# the value once the field was left, and the model's mutation count now and when the field
# got the focus (what the page did while the text went in).
TYPED_JS = """e => {
  let t = e;
  const editable = x => x instanceof HTMLInputElement || x instanceof HTMLTextAreaElement
    || x instanceof HTMLSelectElement || x.isContentEditable;
  if (!editable(t)) t = t.closest('label')?.control ?? t;
  const value = (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) ? t.value
    : t.isContentEditable ? t.innerText.replace(/\\n$/, '') : null;
  const m = MODEL_OF_T;
  return { value, doc: m ? m.doc : null, id: m ? m.idOf(t) : null,
           mutations: m ? m.mutations() : null, focused_at: m ? m.focusedAt(t) : null };
}""".replace("MODEL_OF_T", MODEL.replace("(document)", "(t.ownerDocument)"))

# A field typed into earlier, looked at again ([doc, id]): its value, and whether it still
# has the focus (null when its document or the element is gone).
LEFT_JS = """([doc, id]) => {
  const m = MODEL;
  if (!m || m.doc !== doc) return null;
  const t = m.element(id);
  if (!t) return null;
  const value = (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) ? t.value
    : t.isContentEditable ? t.innerText.replace(/\\n$/, '') : null;
  const root = t.getRootNode();
  return { value, focused: root.activeElement === t };
}""".replace("MODEL", MODEL)

SELECTED_JS = """e => {
  const s = e instanceof HTMLSelectElement ? e : e.closest('label')?.control;
  if (!(s instanceof HTMLSelectElement)) return null;
  return Array.from(s.selectedOptions, o => [o.value, o.label]);
}"""

CHECKED_JS = """e => {
  const t = (e instanceof HTMLLabelElement && e.control) || e;
  if (t instanceof HTMLInputElement && (t.type === 'checkbox' || t.type === 'radio'))
    return t.checked;
  const aria = t.getAttribute('aria-checked') ?? t.getAttribute('aria-pressed');
  return aria === null ? null : aria === 'true';
}"""

FILES_JS = """e => {
  const t = (e instanceof HTMLLabelElement && e.control) || e;
  return t instanceof HTMLInputElement && t.type === 'file' ? Array.from(t.files, f => f.name)
    : null;
}"""

HOVERED_JS = "e => e.matches(':hover')"


class Unverified(SteadyhandError):
    """The action ran but its effect is not there (retried once, then reported)."""

    def __init__(self, message: str, hint: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(ErrorCode.VERIFICATION_FAILED, message, hint, data)


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


async def field_value(handle: ElementHandle) -> str | None:
    value = await handle.evaluate(VALUE_JS)
    return None if value is None else str(value)


def check_value(
    what: str, wanted: str, value: str | None, secret: bool, reacted: int = 0
) -> dict[str, Any]:
    """The field holds `wanted`, or the site reformatted it (same letters and digits).

    Returns what the result should say; raises Unverified when the field rejected it.
    `reacted`: DOM changes the page made while the text went in. A page that took the
    input and reacted to it (a terminal's line, a widget that re-renders) is not said to
    have rejected it: the field's value is reported as `unverified`, with what was seen.
    Values of secret fields are never echoed, only their lengths.
    """
    if value is None or value == wanted:
        return {}
    if _squash(value) == _squash(wanted):
        return {"reformatted": shown_values(wanted, value, secret)}
    if reacted > 0:
        return {"unverified": {**shown_values(wanted, value, secret), "page_changes": reacted}}
    raise Unverified(
        f"{what} holds {_said(value, secret)} after typing {_said(wanted, secret)}: the page "
        "rejected or changed the input",
        "read the field's rules (format, length, allowed characters) in a snapshot and type "
        "a value it accepts",
        shown_values(wanted, value, secret),
    )


def left_report(typed: str, at_typing: str, now: str, secret: bool) -> dict[str, Any] | None:
    """What leaving a typed field made of its value: None when it kept what it held after
    typing; `reformatted` (same letters and digits as typed) or `changed` otherwise."""
    if now == at_typing:
        return None
    how = "reformatted" if _squash(now) == _squash(typed) else "changed"
    return {"how": how, **shown_values(typed, now, secret)}


def shown_values(typed: str, value: str, secret: bool) -> dict[str, Any]:
    """What was typed and what the field shows, as the result says them: the texts
    themselves (cut at 80 characters), or only their lengths for a secret field."""
    if secret:
        return {"typed_length": len(typed), "value_length": len(value)}
    return {"typed": _cut(typed), "value": _cut(value)}


def _cut(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _said(text: str, secret: bool) -> str:
    """A value inside a message: `"(555) 123-4567"` (JSON quoting), or `8 characters`."""
    return f"{len(text)} characters" if secret else json.dumps(_cut(text), ensure_ascii=False)


def check_selected(
    what: str, wanted: list[str], selected: list[list[str]] | None
) -> list[list[str]]:
    """Every wanted option (by value or label) is selected; the selected [value, label]s."""
    if selected is None:
        return []
    missing = [w for w in wanted if not any(w in pair for pair in selected)]
    if missing:
        now = ", ".join(_said(label, False) for _value, label in selected) or "nothing"
        missed = ", ".join(_said(m, False) for m in missing)
        raise Unverified(
            f"{what}: {missed} is not selected after selecting it "
            f"(selected now: {now}); the page changed it back",
            "take a snapshot: the page may allow only some combinations",
            {"selected": [label for _value, label in selected]},
        )
    return selected


def check_checked(what: str, wanted: bool, checked: bool | None) -> None:
    if checked is not None and checked != wanted:
        state = "checked" if checked else "unchecked"
        raise Unverified(
            f"{what} is still {state}: the page undid the click",
            "the page may refuse this state (a required choice, a disabled option); take a "
            "snapshot to see why",
            {"checked": checked},
        )
