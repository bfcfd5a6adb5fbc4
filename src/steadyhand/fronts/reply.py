"""The short text of a command's result: what a person or a model reads (not `--json`).

Every character a model reads is paid for, so a reply says what happened and nothing else:
fields that are empty or hold their default are left out, an act is one status line
(`ok click e6 · 204 ms`, plus what it caused, only when it caused it) followed by its
changes, and times are ages or local times, never epochs. `--json` and MCP's structured
content keep the whole result. Standard library only: the thin CLI imports it.
"""

from __future__ import annotations

import json
import time

from steadyhand.fronts.boundary import bounded, escape
from steadyhand.fronts.page_text import empty as _empty
from steadyhand.fronts.page_text import holds_page_text
from steadyhand.fronts.reply_kinds import (
    ACT,
    BATCH,
    DESKTOP_ACT,
    EVALUATED,
    FIELDS,
    NO_CHANGES,
    TEXT_BLOCKS,
    WINDOW,
)

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from typing import Any

# What happened to the session before the command ran: said even above a snapshot.
NOTES = ("restored", "recovered", "approval", "held", "blocked")
PAGE_KEYS = ("tab", "title", "url")
EPOCH_KEYS = frozenset({"at", "ts", "since", "last_probe"})
YEAR_2001 = 1e9  # a number under an epoch key that is smaller is not a time (a sequence no.)
DAY_S = 86400
# Counts whose zero only says that nothing went wrong (their models have no default).
QUIET_ZEROS = frozenset({"recoveries", "failed", "images_inlined", "images_left_out"})
# What every act result holds (act/results.py ActionResult); a command's own fields
# (scroll's positions) follow the status line's standard parts.
ACT_KEYS = frozenset(
    {
        *("tab", "url", "title", "ok", "action", "ref", "data", "retries", "duration_ms"),
        *("artifacts", "navigated", "reresolved", "watchdog", "dialog", "dialogs_answered"),
        *("popups", "downloads", "dom_changed", "changes", "timing", "route"),
    }
)
# Shown as they are in a listed row, without their key.
BARE_KEYS = ("name", "id", "ref", "status", "command", "outcome")
# What a desktop action's status line says (commands/desktop.py DesktopActed).
DESKTOP_ACT_KEYS = frozenset(
    {"ref", "transport", "action", "effect", "evidence", "verified", "role", "name", "states"}
)
# JavaScript types a JSON value shows by itself (evaluate's `type` then says nothing more).
JSON_TYPES = frozenset({"string", "number", "boolean", "null", "object", "array"})


def render(
    result: Any,
    form: dict[str, Any] | None = None,
    now: float | None = None,
    forms: dict[str, Any] | None = None,
    boundary: str | None = None,
) -> str:
    """The reply for one result. `form`: how its command's result is written, as the
    command table says (its cli_spec entry): `reply`, the kind (wire.Result.REPLY;
    "fields" when absent), `result_defaults`, fields left out while they hold them, and
    `page_text`; `now`: the clock ages are measured against; `forms`: every command's by
    name, for a batch's steps; `boundary`: the marker id a reply holding page text is put
    between (fronts/boundary.py), None for none."""
    text = _render(result, form or {}, time.time() if now is None else now, forms or {})
    if boundary is None:
        return text
    if holds_page_text(result, form or {}, forms or {}):
        return bounded(text, boundary)
    return escape(text)


def _render(result: Any, form: dict[str, Any], clock: float, forms: dict[str, Any]) -> str:
    kind = form.get("reply") or FIELDS
    defaults = form.get("result_defaults") or {}
    if not isinstance(result, dict):  # no command answers so; as JSON, to lose nothing
        return _json(result)
    if kind == BATCH:
        return _batch(result, clock, forms)
    if kind in TEXT_BLOCKS:
        text = _text_block(result, clock, kind)
        if text is not None:  # else (a page load without its view): its fields
            return text
    if kind == ACT:
        return _act(result, clock)
    if kind == DESKTOP_ACT:
        return _desktop_act(result, clock)
    before, after = result.get("before"), result.get("window")  # (none once it is closed)
    if kind == WINDOW and isinstance(before, dict) and isinstance(after, dict):
        result = dict(result, before=_changed(before, after))
    shown = _shown(result, defaults)
    lines = [_page_header(shown)] if "url" in shown and "tab" in shown else []
    shown = {k: v for k, v in shown.items() if not (lines and k in PAGE_KEYS)}
    if kind == EVALUATED:  # the value as JSON says its type
        shown = _evaluated(shown, result)
    for key, value in shown.items():
        lines.extend(_field(key, value, clock))
    return "\n".join(lines)


def _text_block(result: dict[str, Any], clock: float, block: str) -> str | None:
    """A snapshot, a log or a timeline is its own text, under the page's one-line header."""
    if not isinstance(result.get(block), str):
        return None
    notes = notes_of(result, clock)
    if "url" in result:  # a page's text; other texts (a timeline) stand alone
        notes.insert(0, _page_header(result))
    if result.get("navigated") is False:  # a page load's, with the page inline
        notes.append("navigated: false")
    if isinstance(result.get("status"), int) and result["status"] != 200:
        notes.append(f"status: {result['status']}")
    return "\n".join([*notes, result[block]])


def _page_header(result: dict[str, Any]) -> str:
    return "# " + " · ".join(str(result.get(k) or "-") for k in PAGE_KEYS)


def _shown(result: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The fields worth a line (the page's are kept for the header)."""
    return {k: v for k, v in result.items() if k in PAGE_KEYS or not _quiet(k, v, result, defaults)}


def _quiet(key: str, value: Any, result: dict[str, Any], defaults: dict[str, Any]) -> bool:
    """Empty, the model's default, or saying nothing here. A flag without a default (a
    required field) says something either way, so a false one is shown."""
    return (
        _empty(value)
        or (key in defaults and defaults[key] == value)
        or (key in QUIET_ZEROS and value == 0)
        or (key == "status" and value == 200)  # a page load that went as expected
        or (key == "params" and _echoed(value, result))
        or (key == "id" and value == (result.get("approval") or {}).get("id"))
    )


def _evaluated(shown: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """`value: {"a":1}`: JSON says its own type; another (undefined, node) follows it."""
    out = {k: v for k, v in shown.items() if k != "type"}
    value = result["value"] if result.get("truncated") else _json(result["value"])
    out["value"] = value if result["type"] in JSON_TYPES else f"{value} ({result['type']})"
    return out


# ---------------------------------------------------------------- batches


def failed_step(result: Any, form: dict[str, Any] | None) -> str | None:
    """The error code of a batch's first failed step (the CLI exits as that error would),
    or None (`form`: the command's, as `render` takes it)."""
    if (form or {}).get("reply") != BATCH or not isinstance(result, dict):
        return None
    for step in result.get("steps") or []:
        if isinstance(step, dict) and not step.get("ok") and isinstance(step.get("error"), dict):
            return str(step["error"].get("code") or "internal")
    return None


def _batch(result: dict[str, Any], clock: float, forms: dict[str, Any]) -> str:
    """A line a step: `2 ok click e3 · 120 ms`, `3 failed type: [stale_ref] ...` and its
    hint, `4 skipped click`; the last step that ran says all its reply (the page as the
    batch left it); the counts when not every step went well."""
    steps = [s for s in result["steps"] if isinstance(s, dict)]
    last = max((i for i, s in enumerate(steps) if not s.get("skipped")), default=-1)
    lines: list[str] = []
    for index, step in enumerate(steps):
        name = str(step.get("command"))
        head = f"{index + 1} "
        if step.get("skipped"):
            lines.append(f"{head}skipped {name}")
        elif not step.get("ok"):
            error = step.get("error") or {}
            lines.append(f"{head}failed {name}: [{error.get('code')}] {error.get('message')}")
            if error.get("hint"):
                lines.append(f"  hint: {error['hint']}")
        else:
            said = _render(step.get("result"), forms.get(name) or {}, clock, {})
            text = said.splitlines() or [""]
            first = text[0].removeprefix("# ")
            if first.startswith(f"ok {name}"):  # an act's status line names it already
                lines.append(head + first)
            else:
                lines.append(f"{head}ok {name}" + (f": {first}" if first else ""))
            if index == last:
                lines.extend(text[1:])
    if result.get("failed") or result.get("skipped"):
        counts = f"{result.get('ok', 0)} ok, {result['failed']} failed"
        if result["skipped"]:
            counts += f", {result['skipped']} skipped"
        lines.append(f"ran {result['ran']} of {len(steps)}: {counts}")
    return "\n".join(lines)


# ---------------------------------------------------------------- acts


def _act(result: dict[str, Any], clock: float) -> str:
    """`ok click e6 · 204 ms · 1 retry · → URL "Title"` and the changes under it."""
    head = ["ok" if result.get("ok", True) else "failed", str(result["action"])]
    ref = result.get("ref")
    if ref:
        head.append(str(ref))
    parts = [" ".join(head), f"{result['duration_ms']:.0f} ms"]
    parts.extend(_act_data(result.get("data") or {}, ref))
    retries = result.get("retries") or 0
    if retries:
        parts.append(f"{retries} {'retry' if retries == 1 else 'retries'}")
    for old, new in (result.get("reresolved") or {}).items():
        parts.append(f"{old} re-resolved as {new}")
    if result.get("navigated"):
        title = f' "{result["title"]}"' if result.get("title") else ""
        parts.append(f"→ {result.get('url')}{title}")
    for item in result.get("watchdog") or []:
        parts.append("dismissed " + _watchdog(item))
    if result.get("dialog"):
        parts.append("dialog open: " + _dialog(result["dialog"]))
    for answered in result.get("dialogs_answered") or []:
        parts.append("dialog answered: " + _dialog(answered))
    if result.get("popups"):
        parts.append("popups: " + ", ".join(result["popups"]))
    parts.extend(_download(d) for d in result.get("downloads") or [])
    if result.get("artifacts"):
        parts.append("artifacts: " + ", ".join(result["artifacts"]))
    parts.extend(notes_of(result, clock))
    parts.extend(_act_extra(result))
    changes = result.get("changes")
    if changes and changes != NO_CHANGES:
        return " · ".join(parts) + "\n" + str(changes)
    if result.get("dom_changed"):
        parts.append("DOM changed, nothing shown did")
    elif changes == NO_CHANGES:
        parts.append("no change")
    return " · ".join(parts)


def _desktop_act(result: dict[str, Any], clock: float) -> str:
    """`click d14 push button "Greet" · via atspi · confirmed: 1 event(s) ... · states: ...`:
    what acted, its effect and what showed it, and the element as read back after."""
    parts = [
        f'{result["action"]} {result["ref"]} {result["role"]} "{result["name"]}"',
        f"via {result['transport']}",
        f"{result['effect']}: {result['evidence']}",
    ]
    if result.get("value") is not None:
        parts.append(f"value={_inline(result['value'])}")
    if result.get("tried"):
        parts.append("tried: " + "; ".join(result["tried"]))
    parts.append("states: " + (", ".join(result["states"]) or "none"))
    parts.extend(notes_of(result, clock))
    said = DESKTOP_ACT_KEYS | {"value", "tried", *NOTES}
    rest = {k: v for k, v in result.items() if k not in said}
    parts.extend(f"{k}={_inline(v)}" for k, v in rest.items() if not _empty(v))
    return " · ".join(parts)


def _changed(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What a window was before, in the fields that changed: `x=0, y=0`."""
    return ", ".join(f"{k}={_inline(v)}" for k, v in before.items() if after.get(k) != v)


def _act_data(data: dict[str, Any], ref: Any) -> list[str]:
    """What the act verified or read back; a value the status line already shows (the
    ref acted on, labels that are the values selected) is not repeated, and a flag that
    is off (`submitted`) is an option not taken."""
    parts = []
    for key, value in data.items():
        if _empty(value) or value is False or value == ref:
            continue
        if key == "labels" and value == data.get("selected"):
            continue
        if key in ("reformatted", "unverified") and isinstance(value, dict):
            parts.extend(_typed_fields(key, value))
            continue
        if key == "left" and isinstance(value, dict):
            parts.append(f"{value.get('ref')} {value.get('how')} when left: {_typed_shown(value)}")
            continue
        parts.append(f"{key}={_inline(value)}")
    return parts


def _typed_fields(kind: str, value: dict[str, Any]) -> list[str]:
    """`reformatted: typed "5551234567", field shows "(555) 123-4567"`, one per field of a
    fill (`e3 reformatted: ...`); a secret field's by lengths only. `unverified` (the page
    took the input and reacted) says how much the page changed."""
    if not all(isinstance(v, dict) for v in value.values()):
        return [f"{kind}: {_typed_shown(value)}"]
    return [f"{ref} {kind}: {_typed_shown(one)}" for ref, one in value.items()]


def _typed_shown(one: dict[str, Any]) -> str:
    if "typed_length" in one:
        typed, shown = one["typed_length"], one.get("value_length")
        said = f"typed {typed} characters, field shows {shown} characters"
    else:
        typed, shown = (json.dumps(one.get(k), ensure_ascii=False) for k in ("typed", "value"))
        said = f"typed {typed}, field shows {shown}"
    if one.get("page_changes"):
        said += f" (the page took the keys and changed {one['page_changes']} times)"
    return said


def _act_extra(result: dict[str, Any]) -> list[str]:
    """A command's own fields beyond the act's: scroll's positions, say."""
    extra = {
        k: v for k, v in result.items() if k not in ACT_KEYS and k not in NOTES and not _empty(v)
    }
    if {"scroller", "before", "after"} <= extra.keys():
        before, after = extra.pop("before"), extra.pop("after")
        moved = extra.pop("moved", True)
        span = f"max {after['max_x']},{after['max_y']}"
        where = f"{before['x']},{before['y']} → " if moved else "did not move: at "
        return [f"{extra.pop('scroller')} {where}{after['x']},{after['y']} ({span})"] + [
            f"{k}={_inline(v)}" for k, v in extra.items()
        ]
    return [f"{k}={_inline(v)}" for k, v in extra.items()]


def _watchdog(item: dict[str, Any]) -> str:
    """`cookie-consent (vanilla-cookieconsent): clicked "Accept all"`."""
    text = str(item.get("kind") or "?")
    if item.get("name"):
        text += f" ({item['name']})"
    if item.get("action"):
        text += f": {item['action']}"
    if item.get("label"):
        text += f' "{item["label"]}"'
    rest = {k: v for k, v in item.items() if k not in ("kind", "name", "action", "label")}
    return text + "".join(f" {k}={_inline(v)}" for k, v in rest.items() if not _empty(v))


def _dialog(dialog: dict[str, Any]) -> str:
    """`confirm "Delete everything?"`, a prompt's default, and its answer once given. Who
    answered (`by`) and `open` follow from where it is shown."""
    text = f'{dialog.get("type")} "{dialog.get("message", "")}"'
    if dialog.get("default") is not None:
        text += f' (default "{dialog["default"]}")'
    if dialog.get("answer"):
        text += f" {dialog['answer']}"
    return text


def _download(download: dict[str, Any]) -> str:
    """`downloaded PATH (25 bytes)`; the site's name for it only when the path lacks it."""
    name, path = str(download.get("filename") or ""), download.get("path")
    if not path:
        return f"download {name or download.get('url')} failed: {download.get('error')}"
    named = "" if str(path).endswith(name) else f" as {name}"
    return f"downloaded {path}{named} ({download.get('bytes')} bytes)"


def notes_of(result: dict[str, Any], clock: float | None = None) -> list[str]:
    """A line for each thing that happened to the session around the command (NOTES): a
    result's, or a failed command's error data's."""
    now = time.time() if clock is None else clock
    return [_note(k, result[k], now) for k in NOTES if result.get(k)]


def _note(key: str, value: Any, clock: float) -> str:
    """What happened to the session before the command ran: `approval a1b2c3 (waited
    600 ms)`, `restored from the checkpoint of 3 min ago: t1 URL; lost: ...`."""
    if key == "held" and isinstance(value, list):  # connections waiting for a person
        return f"held for approval: {', '.join(map(str, value))} (see `steadyhand approvals`)"
    if key == "blocked" and isinstance(value, list):  # connections the policy refused
        return "blocked: " + ", ".join(f"{b.get('host')} ({b.get('rule')})" for b in value)
    if not isinstance(value, dict):
        return f"{key}: {_value(value, key, clock)}"
    if key == "approval":
        return f"approval {value.get('id')} (waited {value.get('waited_ms') or 0:.0f} ms)"
    text = key + (f" ({value['reason']})" if value.get("reason") else "")
    at = value.get("checkpoint", value.get("from"))
    if isinstance(at, int | float):
        text += f" from the checkpoint of {when(float(at), clock)}"
    tabs = value.get("tabs", value.get("restored")) or []
    text += ": " + (", ".join(map(str, tabs)) or "no tabs")
    if value.get("lost"):
        text += "; lost: " + "; ".join(map(str, value["lost"]))
    if value.get("browser"):  # it failed over from one browser endpoint to another
        text += f"; now on browser {value['browser']} (was {value.get('was_browser')})"
    return text


def _echoed(params: Any, item: dict[str, Any]) -> bool:
    """Params whose every value another field of the item already shows (an approval's
    `ref` in its target, its `reason`)."""
    if not isinstance(params, dict) or not params:
        return False
    text = " ".join(v for k, v in item.items() if k != "params" and isinstance(v, str))
    return all(isinstance(v, str) and v in text for v in params.values())


# ---------------------------------------------------------------- fields


def _field(key: str, value: Any, clock: float) -> list[str]:
    """One field as `key: value`, or a list of rows under `key:`."""
    if key in NOTES:
        return [_note(key, value, clock)]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [f"{key}:"] + ["  " + _row(item, clock) for item in value]
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        return [f"{key}:"] + ["  " + _row({"name": k, **v}, clock) for k, v in value.items()]
    label, shown = _labelled(key, value, clock)
    return [f"{label}: {shown}"]


def _labelled(key: str, value: Any, clock: float) -> tuple[str, str]:
    """A key and its value as shown: `created_at` as `created` with an age, `uptime_s` as
    `uptime` with `s`, `waited_ms` as `waited` with `ms`."""
    if _is_epoch(key, value):
        return key.removesuffix("_at"), when(float(value), clock)
    for suffix, unit in (("_ms", "ms"), ("_s", "s")):
        if key.endswith(suffix) and isinstance(value, int | float) and not isinstance(value, bool):
            return key.removesuffix(suffix), f"{value:.0f} {unit}"
    return key, _value(value, key, clock)


def _row(item: dict[str, Any], clock: float) -> str:
    """A listed item on one line: its name-like fields bare, a true flag as its name (a
    false one left out), a box as `x,y WxH`, the rest as key=value."""
    if "tab" not in item and {"id", "url", "current"} <= item.keys():  # a tab
        mark = "*" if item["current"] else " "
        return f"{mark}{item['id']} {item.get('title') or '-'} · {item['url']}"
    item = _boxed(item)
    bits: list[str] = []
    for key, value in item.items():
        if _empty(value) or value is False:
            continue
        if key == "tabs" and isinstance(value, list):
            bits.append(_tabs_brief(value))
        elif key in BARE_KEYS or key == "box":
            bits.append(str(value))
        elif value is True:
            bits.append(key)
        elif key == "health" and isinstance(value, dict):
            bits.extend(_health(value))
        elif key == "last_action" and isinstance(value, dict):
            bits.append(f"last {_value(value, key, clock)}")
        elif key == "taken_over" and isinstance(value, dict):  # a person drives it
            bits.append(f"taken over {_row(value, clock).removeprefix('since ')}")
        elif key == "params" and isinstance(value, dict):
            if not _echoed(value, item):
                bits.append(f"params {_inline(value)}")
        elif key == "instance" and str(value).lower() == str(item.get("wm_class")).lower():
            continue  # an X window's class says it again, capitalised
        elif isinstance(value, dict) and _flat(value):
            bits.append(_row(value, clock))  # its fields, as the item's (a transport's detail)
        else:
            label, shown = _labelled(key, value, clock)
            bits.append(f"{label} {shown}" if _is_epoch(key, value) else f"{label}={shown}")
    return "  ".join(bits)


def _flat(value: dict[str, Any]) -> bool:
    """No list or object inside, once empty ones are left out."""
    return not any(isinstance(v, dict | list) and v for v in value.values())


def _boxed(item: dict[str, Any]) -> dict[str, Any]:
    """An item's x, y, width and height as one `box`: `0,252 600x208`."""
    keys = ("x", "y", "width", "height")
    if not all(isinstance(item.get(k), int | float) for k in keys):
        return item
    box = f"{item['x']},{item['y']} {item['width']}x{item['height']}"
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key == "x":
            out["box"] = box
        elif key not in keys:
            out[key] = value
    return out


def _health(health: dict[str, Any]) -> list[str]:
    """A session's health in a listing, only when there is something to say."""
    bits = []
    if health.get("status") not in (None, "unknown", "ok"):
        bits.append(f"health {health['status']}")
    if health.get("failures"):
        bits.append(f"{health['failures']} failed probes: {health.get('last_error') or '?'}")
    if health.get("recoveries"):
        bits.append(f"{health['recoveries']} recoveries")
    return bits


def _tabs_brief(tabs: list[Any]) -> str:
    """A session's tabs in a listing: how many, and where the current one is."""
    current = next((t for t in tabs if isinstance(t, dict) and t.get("current")), None)
    where = f" ({current['id']} {current['url']})" if current else ""
    return f"{len(tabs)} tab{'s' if len(tabs) != 1 else ''}{where}"


def _value(value: Any, key: str, clock: float) -> str:
    if _is_epoch(key, value):
        return when(float(value), clock)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        if {"command", "ok", "at"} <= value.keys():  # a session's last action
            outcome = "ok" if value["ok"] else value.get("error_code") or "failed"
            return f"{value['command']} {outcome} {when(float(value['at']), clock)}"
        if {"type", "message"} <= value.keys():  # a dialog
            return _dialog(value)
        if value.keys() == {"width", "height"}:
            return f"{value['width']}x{value['height']}"
        if any(isinstance(v, dict | list) for v in value.values()):  # a document: as JSON
            return _json(value)
        return _row(value, clock)
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            return _json(value)
        return ", ".join(_value(v, key, clock) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _inline(value: Any) -> str:
    """A value inside a status line: bare when one word, else quoted; lists and objects
    compact."""
    if isinstance(value, str):
        plain = value and not any(c.isspace() for c in value) and "·" not in value
        quoted = len(value) > 1 and value[0] == value[-1] and value[0] in "'\""
        return value if plain or quoted else json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        numbers = all(isinstance(v, int | float) for v in value)
        return ("," if numbers else ", ").join(_inline(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + "}"
    return "null" if value is None else str(value)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _is_epoch(key: str, value: Any) -> bool:
    epoch_key = key in EPOCH_KEYS or key.endswith("_at")
    return epoch_key and isinstance(value, int | float) and value > YEAR_2001


def when(at: float, now: float) -> str:
    """`12 s ago`, `3 min ago`, `2 h ago` within a day; else the local date and time."""
    age = now - at
    if 0 <= age < 60:
        return f"{age:.0f} s ago"
    if 0 <= age < 3600:
        return f"{age // 60:.0f} min ago"
    if 0 <= age < DAY_S:
        return f"{age // 3600:.0f} h ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def event_line(event: dict[str, Any], now: float | None = None) -> str:
    """`#12 10:31:02.123 text.changed gtk3_form.py[2193] text "Name": insert at 0: 'Ada'`"""
    if not {"seq", "kind", "ts"} <= event.keys():
        return _row(event, time.time() if now is None else now)
    at = time.strftime("%H:%M:%S", time.localtime(event["ts"])) + f"{event['ts'] % 1:.3f}"[1:]
    text = f"#{event['seq']} {at} {event['kind']} {event.get('app') or '?'}[{event.get('pid')}]"
    what = " ".join(
        part
        for part in (event.get("role"), f'"{event["name"]}"' if event.get("name") else "")
        if part
    )
    if what:
        text += f" {what}"
    if event.get("detail"):
        text += f": {event['detail']}"
    return text
