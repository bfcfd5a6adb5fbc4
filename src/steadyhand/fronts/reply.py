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

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from typing import Any

TEXT_BLOCKS = ("snapshot", "text")
# What happened to the session before the command ran: said even above a snapshot.
NOTES = ("restored", "recovered", "approval")
PAGE_KEYS = ("tab", "title", "url")
NO_CHANGES = "# no changes since the last snapshot"
EPOCH_KEYS = frozenset({"at", "ts", "since", "last_probe"})
YEAR_2001 = 1e9  # a number under an epoch key that is smaller is not a time (a sequence no.)
DAY_S = 86400


def render(result: Any, defaults: dict[str, Any] | None = None, now: float | None = None) -> str:
    """The reply for one result. `defaults`: the result model's field defaults, left out
    when a field still holds one; `now`: the clock ages are measured against."""
    clock = time.time() if now is None else now
    if not isinstance(result, dict):  # no command answers so; as JSON, to lose nothing
        return json.dumps(result, separators=(",", ":"), ensure_ascii=False)
    text = _text_block(result)
    if text is not None:
        return text
    if "action" in result and "duration_ms" in result:
        return _act(result, clock)
    shown = _shown(result, defaults or {})
    lines = [_page_header(shown)] if "url" in shown and "tab" in shown else []
    shown = {k: v for k, v in shown.items() if not (lines and k in PAGE_KEYS)}
    for key, value in shown.items():
        lines.extend(_field(key, value, clock))
    return "\n".join(lines)


def _text_block(result: dict[str, Any]) -> str | None:
    """A snapshot, a log or a timeline is its own text, under the page's one-line header."""
    for block in TEXT_BLOCKS:
        if isinstance(result.get(block), str):
            notes = [f"{k}: {_value(result[k], k, time.time())}" for k in NOTES if result.get(k)]
            if "url" in result:  # a page's text; other texts (a timeline) stand alone
                notes.insert(0, _page_header(result))
            return "\n".join([*notes, result[block]])
    return None


def _page_header(result: dict[str, Any]) -> str:
    return "# " + " · ".join(str(result.get(k) or "-") for k in PAGE_KEYS)


def _empty(value: Any) -> bool:
    return value is None or value is False or value in ("", [], {})


def _shown(result: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The fields worth a line: not empty, not the model's default."""
    return {
        k: v
        for k, v in result.items()
        if not _empty(v) and not (k in defaults and defaults[k] == v and k not in PAGE_KEYS)
    }


# ---------------------------------------------------------------- acts


def _act(result: dict[str, Any], clock: float) -> str:
    """`ok click e6 · 204 ms · 1 retry · → URL "Title"` and the changes under it."""
    head = ["ok" if result.get("ok", True) else "failed", str(result["action"])]
    if result.get("ref"):
        head.append(str(result["ref"]))
    parts = [" ".join(head), f"{result['duration_ms']:.0f} ms"]
    data = result.get("data") or {}
    parts.extend(f"{k}={_inline(v)}" for k, v in data.items() if not _empty(v))
    retries = result.get("retries") or 0
    if retries:
        parts.append(f"{retries} {'retry' if retries == 1 else 'retries'}")
    for old, new in (result.get("reresolved") or {}).items():
        parts.append(f"{old} re-resolved as {new}")
    if result.get("navigated"):
        title = f' "{result["title"]}"' if result.get("title") else ""
        parts.append(f"→ {result.get('url')}{title}")
    for key in ("watchdog", "dialog", "dialogs_answered", "popups", "downloads", "artifacts"):
        if not _empty(result.get(key)):
            parts.append(f"{key.replace('_', ' ')}: {_inline(result[key])}")
    changes = result.get("changes")
    if changes and changes != NO_CHANGES:
        return " · ".join(parts) + "\n" + str(changes)
    if result.get("dom_changed"):
        parts.append("DOM changed, nothing shown did")
    elif changes == NO_CHANGES:
        parts.append("no change")
    return " · ".join(parts)


# ---------------------------------------------------------------- fields


def _field(key: str, value: Any, clock: float) -> list[str]:
    """One field as `key: value`, or a list of rows under `key:`."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [f"{key}:"] + ["  " + _row(item, clock) for item in value]
    return [f"{key}: {_value(value, key, clock)}"]


def _row(item: dict[str, Any], clock: float) -> str:
    """A listed item on one line: its name-like fields bare, the rest as key=value."""
    if "tab" not in item and {"id", "url", "current"} <= item.keys():  # a tab
        mark = "*" if item["current"] else " "
        return f"{mark}{item['id']} {item.get('title') or '-'} · {item['url']}"
    bits: list[str] = []
    for key, value in item.items():
        if _empty(value):
            continue
        if key == "tabs" and isinstance(value, list):
            bits.append(_tabs_brief(value))
        elif key in ("name", "id", "status"):
            bits.append(str(value))
        elif key == "health" and isinstance(value, dict):
            bits.extend(_health(value))
        elif key == "last_action" and isinstance(value, dict):
            bits.append(f"last {_value(value, key, clock)}")
        elif _is_epoch(key, value):
            bits.append(f"{key.removesuffix('_at')} {when(float(value), clock)}")
        else:
            bits.append(f"{key}={_value(value, key, clock)}")
    return "  ".join(bits)


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
    if isinstance(value, dict):
        if {"command", "ok", "at"} <= value.keys():  # a session's last action
            outcome = "ok" if value["ok"] else value.get("error_code") or "failed"
            return f"{value['command']} {outcome} {when(float(value['at']), clock)}"
        return " ".join(f"{k}={_value(v, k, clock)}" for k, v in value.items() if not _empty(v))
    if isinstance(value, list):
        return ", ".join(_value(v, key, clock) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _inline(value: Any) -> str:
    """A value inside a status line: strings quoted, lists and objects compact."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value).lower() if isinstance(value, bool) else str(value)


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
