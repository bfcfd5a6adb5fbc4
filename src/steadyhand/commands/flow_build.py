"""A flow from a stretch of the action log: what the agent did that changed something, with
each element named by what it is and each value typed made a parameter."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.flows.model import FORMAT, REF_PARAMS, Flow, FlowParam, FlowStep, FlowTarget
from steadyhand.redact import REDACTED
from steadyhand.snapshot.lookup import is_ref
from steadyhand.store.base import ActionRow
from steadyhand.vault import REFERENCE

# What a flow replays: commands that change the page. Reads (snapshot, find, extract...)
# are what the agent needed to decide; a replay knows already.
REPLAYABLE = frozenset(
    {
        "open",
        "navigate",
        "back",
        "forward",
        "reload",
        "click",
        "type",
        "fill",
        "press",
        "select",
        "check",
        "uncheck",
        "hover",
        "drag",
        "select-text",
        "scroll",
        "resize",
        "wait",
        "dialog",
        "evaluate",
        "upload",
        "download",
        "tab.new",
        "tab.close",
    }
)
# Params of the recorded call a replay sets itself: the tab is whichever is current, the
# deadline the run's, the agent's view options its own.
DROPPED = frozenset({"tab", "timeout", "changes", "session", "snapshot"})
NAVIGATIONS = frozenset({"open", "navigate", "tab.new"})  # the commands given a URL
MOVES = NAVIGATIONS | {"back", "forward", "reload"}  # whose new URL is no postcondition
ONLY_REFERENCES = re.compile(rf"(?:{REFERENCE.pattern})+")
_HEADING = re.compile(
    r'^\s*(?P<mark>[-+~]?)\s*heading "(?P<name>(?:[^"\\]|\\.)*)"(?P<rest>.*)$', re.M
)
_WHOLE_PAGE = "# a new document"
TEXT_CHARS = 80
MIN_VALUE_CHARS = 3  # shorter values are not looked for in URLs and texts (too common)


@dataclass
class Built:
    flow: Flow
    left_out: Counter[str] = field(default_factory=Counter)  # command (or "failed") -> count
    notes: list[str] = field(default_factory=list)


def build(
    name: str,
    rows: list[ActionRow],
    named: dict[str, str] | None = None,
    description: str = "",
) -> Built:
    """The flow of `rows` (oldest first); `named` renames the parameter typed with VALUE to
    NAME (`--param city=Bern`). `bad_request` when nothing in them can be replayed."""
    built = Built(Flow(format=FORMAT, name=name, description=description))
    flow = built.flow
    used: list[ActionRow] = []
    for row in rows:
        if not row.ok:
            built.left_out["failed"] += 1
        elif row.command not in REPLAYABLE:
            built.left_out[row.command] += 1
        elif row.command == "wait" and (row.result or {}).get("part_of"):
            built.left_out["a flow's check"] += 1  # what a replayed step expected
        elif _unaimed(row):
            built.left_out[row.command] += 1
            built.notes.append(
                f"action {row.id} ({row.command}) names an element by a ref only this "
                "session knew: left out"
            )
        else:
            flow.steps.append(_step(row, flow, built.notes))
            used.append(row)
    if not flow.steps:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"no action to replay among the {len(rows)} logged"
            + (f" ({_summary(built.left_out)})" if built.left_out else ""),
            "act in the session first (open, click, type...), or widen --from/--to; "
            "`trace` lists the session's actions with their ids",
        )
    flow.session = used[0].session
    flow.actions = [used[0].id, used[-1].id]
    flow.recorded_ms = round(sum(r.duration_ms for r in used), 1)
    _name_params(flow, named or {})
    _parametrize_texts(flow)
    return built


def _unaimed(row: ActionRow) -> bool:
    """A command that took a ref but is no act (`wait --ref`, `evaluate --ref`): what the
    ref named was not recorded, and a replay cannot know it."""
    result = row.result or {}
    refs = [row.params.get(k) for k in (*REF_PARAMS, "ref_gone")]
    return "action" not in result and any(isinstance(r, str) and is_ref(r) for r in refs)


def _summary(left: Counter[str]) -> str:
    return ", ".join(f"{command} x{n}" if n > 1 else command for command, n in left.items())


def _step(row: ActionRow, flow: Flow, notes: list[str]) -> FlowStep:
    params = {k: v for k, v in row.params.items() if k not in DROPPED}
    result = row.result or {}
    recorded: dict[str, Any] = result.get("targets") or {}
    step = FlowStep(command=row.command, action=row.id)
    for key in REF_PARAMS:
        value = params.get(key)
        if isinstance(value, str) and value:
            step.targets[key] = _target(value, recorded, row)
            params[key] = f"@{key}"
    fields = params.get("fields")
    if isinstance(fields, dict):
        mapped: dict[str, Any] = {}
        for n, (spec, value) in enumerate(fields.items(), 1):
            key = f"field{n}"
            step.targets[key] = _target(spec, recorded, row)
            mapped[f"@{key}"] = _typed(value, step.targets[key], flow, row, notes)
        params["fields"] = mapped
    if row.command == "type" and isinstance(params.get("text"), str):
        params["text"] = _typed(params["text"], step.targets.get("ref"), flow, row, notes)
    for given, kind in (("expect_url", "url"), ("expect_text", "text")):
        if isinstance(params.get(given), str):
            step.expect[kind] = params.pop(given)
    if params.pop("expect_ref_gone", None):
        notes.append(f"action {row.id}: its --expect-ref-gone (a ref) is not replayed")
    if result.get("navigated") and row.command not in MOVES and "url" not in step.expect:
        step.expect["url"] = _without_query(str(result.get("url", "")))
    if "text" not in step.expect and (heading := _heading(result.get("changes"))):
        step.expect["text"] = heading
    step.params = params
    return step


def _target(spec: str, recorded: dict[str, Any], row: ActionRow) -> FlowTarget:
    """The element `spec` (a ref or a locator) named when the action ran."""
    seen = recorded.get(spec)
    if isinstance(seen, dict) and seen.get("role"):
        target = FlowTarget.model_validate({k: v for k, v in seen.items() if k != "locator"})
        target.locator = _role_locator(target)
        return target
    if not is_ref(spec):
        return FlowTarget(locator=spec)  # the agent named it by locator: so does the flow
    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"action {row.id} ({row.command} {spec}) was logged without what {spec} named "
        "(by a steadyhand older than flows)",
        "do the task again in a session, then `flow save` from its new actions (--from ID)",
    )


def _role_locator(target: FlowTarget) -> str:
    if not target.name:
        return f"role={target.role}"
    return f"role={target.role}[name={_quoted(target.name)}]"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _typed(
    value: Any, target: FlowTarget | None, flow: Flow, row: ActionRow, notes: list[str]
) -> Any:
    """A typed value as a `{{name}}` parameter (a secret's reference stays as it is)."""
    if not isinstance(value, str) or not value or ONLY_REFERENCES.fullmatch(value):
        return value
    about = target.label() if target is not None else "the focused field"
    named = (target.name or target.role or "") if target is not None else ""
    base = _slug(named) or "value"
    if value == REDACTED:  # a password field's: never stored, so it must be given
        name = _unique(base, flow)
        flow.params[name] = FlowParam(default=None, about=about)
        notes.append(
            f"action {row.id} typed into {about}, a password field: its value was not "
            f"stored; give --param {name}=... at run, or edit the flow to "
            "{{secret:NAME}}"
        )
        return "{{" + name + "}}"
    for name, param in flow.params.items():  # the same value typed again: the same param
        if param.default == value and _slug_base(name) == base:
            return "{{" + name + "}}"
    name = _unique(base, flow)
    flow.params[name] = FlowParam(default=value, about=about)
    return "{{" + name + "}}"


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    slug = "_".join(words)[:32].strip("_")
    return slug if slug and slug[0].isalpha() else (f"p_{slug}" if slug else "")


def _slug_base(name: str) -> str:
    return re.sub(r"_[0-9]+$", "", name)


def _unique(base: str, flow: Flow) -> str:
    name, n = base, 1
    while name in flow.params:
        n += 1
        name = f"{base}_{n}"
    return name


def _name_params(flow: Flow, named: dict[str, str]) -> None:
    """Rename the parameters whose recorded value `named` gives (NAME=VALUE)."""
    renames: dict[str, str] = {}
    for new, value in named.items():
        old = next((k for k, p in flow.params.items() if p.default == value), None)
        if old is None:
            typed = ", ".join(repr(p.default) for p in flow.params.values() if p.default)
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"--param {new}={value!r}: no value typed in these actions was {value!r}",
                f"values typed: {typed}" if typed else "these actions typed nothing",
            )
        renames[old] = new
    if not renames:
        return
    clash = [n for n in renames.values() if n in flow.params and n not in renames]
    if clash:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--param names {', '.join(clash)} already name other values",
            "choose other names",
        )
    flow.params = {renames.get(k, k): p for k, p in flow.params.items()}
    for step in flow.steps:
        step.params = _renamed(step.params, renames)


def _renamed(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in renames.items():
            value = value.replace("{{" + old + "}}", "{{" + new + "}}")
        return value
    if isinstance(value, dict):
        return {_renamed(k, renames): _renamed(v, renames) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renames) for v in value]
    return value


def _parametrize_texts(flow: Flow) -> None:
    """A parameter's recorded value where it shows again (the search's URL, a heading
    that repeats it) becomes the parameter, so that a run with another value expects it."""
    values = [
        (name, p.default)
        for name, p in flow.params.items()
        if p.default is not None and len(p.default) >= MIN_VALUE_CHARS
    ]
    if not values:
        return
    values.sort(key=lambda item: -len(item[1]))
    whole = {value: "{{" + name + "}}" for name, value in reversed(values)}
    for step in flow.steps:
        for target in step.targets.values():  # an item named by what was typed: that item
            target.context = [_swap_label(label, whole) for label in target.context]
            if target.name in whole:
                target.name = whole[target.name]
        for kind, text in list(step.expect.items()):
            swapped = _swap_url(text, values) if kind == "url" else _swap(text, values)
            step.expect[kind] = swapped
        if step.command in NAVIGATIONS and isinstance(step.params.get("url"), str):
            step.params["url"] = _swap_url(step.params["url"], values)


def _swap_label(label: str, whole: dict[str, str]) -> str:
    """A container's label (`listitem Buy milk`) whose text is a value typed, whole."""
    role, space, text = label.partition(" ")
    return f"{role} {whole[text]}" if space and text in whole else label


def _swap(text: str, values: list[tuple[str, str]]) -> str:
    for name, value in values:
        text = text.replace(value, "{{" + name + "}}")
    return text


def _swap_url(url: str, values: list[tuple[str, str]]) -> str:
    """The parameters in a URL: a whole path segment or a query value that is one (never
    in the host: `ada` is not a part of `canada.example` to change)."""
    parts = urlsplit(url)
    if not parts.scheme:
        return url
    by_form: dict[str, str] = {}
    for name, value in values:
        for form in (value, quote_plus(value), quote(value)):
            by_form.setdefault(form, "{{" + name + "}}")
    path = "/".join(by_form.get(seg, seg) for seg in parts.path.split("/"))
    query = (
        "&".join(_swap_pair(pair, by_form) for pair in parts.query.split("&"))
        if parts.query
        else ""
    )
    return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment))


def _swap_pair(pair: str, by_form: dict[str, str]) -> str:
    key, eq, value = pair.partition("=")
    return f"{key}{eq}{by_form.get(value, value)}" if eq else pair


def _without_query(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")) if parts.scheme else url


def _heading(changes: Any) -> str | None:
    """The first heading the action brought (a new page's, or one that appeared), when its
    text is a fixed one: with digits it may be an order number or a date."""
    if not isinstance(changes, str):
        return None
    whole = changes.startswith(_WHOLE_PAGE)
    found: list[tuple[bool, str]] = []
    for match in _HEADING.finditer(changes):
        name = match.group("name").replace('\\"', '"')
        fixed = name and len(name) <= TEXT_CHARS and not any(ch.isdigit() for ch in name)
        if fixed and (whole or match.group("mark") == "+"):
            found.append(("[level=1]" in match.group("rest"), name))
    # The page's title heading (level 1) over a site header's or a side panel's.
    return next((name for top, name in found if top), found[0][1] if found else None)


def joined(kept: Flow, since: Flow) -> tuple[Flow, list[str]]:
    """Kept steps, then the new ones, with the parameters of both: a new one whose name a
    kept one has, with another value, is renamed (notes say so)."""
    merged = kept.model_copy(deep=True)
    renames: dict[str, str] = {}
    for name, param in since.params.items():
        same = merged.params.get(name)
        if same is not None and same.default != param.default:
            renames[name] = _unique(name, merged)
            merged.params[renames[name]] = param
        elif same is None:
            merged.params[name] = param
    for step in since.steps:
        merged.steps.append(step.model_copy(update={"params": _renamed(step.params, renames)}))
    merged.actions = [*(kept.actions[:1] or since.actions[:1]), since.actions[-1]]
    merged.recorded_ms = round(kept.recorded_ms + since.recorded_ms, 1)
    notes = [f"parameter {old} of the new steps is {new}" for old, new in renames.items()]
    return merged, notes
