"""Whether a reply shows text a page (or an application) wrote, and so goes between content
boundaries (fronts/boundary.py): its command's result may (`Result.PAGE_TEXT`, the form's
`page_text`), and for an act, it shows more than steadyhand's own status line. Standard
library only: the thin CLI imports it (through fronts/reply.py)."""

from __future__ import annotations

from steadyhand.fronts.reply_kinds import ACT, BATCH, FIELDS, NO_CHANGES

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from typing import Any


def empty(value: Any) -> bool:
    return value is None or value in ("", [], {})


def holds_page_text(result: Any, form: dict[str, Any], forms: dict[str, Any]) -> bool:
    """Whether the reply shows text a page (or an application) wrote: its command's result
    may (`page_text`), and for an act, it shows more than steadyhand's own status line."""
    if not isinstance(result, dict):
        return bool(form.get("page_text"))
    kind = form.get("reply") or FIELDS
    if kind == BATCH:  # a failed step's message may quote the page (candidates, a dialog)
        return any(
            not step.get("ok")
            or holds_page_text(step.get("result"), forms.get(str(step.get("command"))) or {}, forms)
            for step in result.get("steps") or []
            if isinstance(step, dict) and not step.get("skipped")
        )
    if kind == ACT:
        return _act_shows_page(result)
    return bool(form.get("page_text"))


# What an act's status line says of steadyhand's own (the rest came from the page).
ACT_OWN = frozenset(
    {"ok", "action", "ref", "duration_ms", "retries", "reresolved", "artifacts", "timing"}
    | {"route", "dom_changed", "tab", "navigated", "url", "title"}
)


def _act_shows_page(result: dict[str, Any]) -> bool:
    if result.get("navigated") and (result.get("title") or result.get("url")):
        return True
    for key, value in result.items():
        if key in ACT_OWN or empty(value) or (key == "changes" and value == NO_CHANGES):
            continue
        if key == "data" and isinstance(value, dict):
            # Flags and counts are the act's own; a string read back is the page's.
            if any(_strings(v) for k, v in value.items() if v != result.get("ref")):
                return True
            continue
        return True
    return False


def _strings(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value)
    if isinstance(value, dict):
        return any(_strings(v) for v in value.values())
    if isinstance(value, list):
        return any(_strings(v) for v in value)
    return False
