"""A flow: steps an agent once did, as a file a person can read and edit.

Each step is a command with its params, as the action log kept them, except that:
- an element is named by what it is (`targets`: role, name, the named containers around it,
  its place among equals, the locator that found it) and the param that took a ref says
  `@KEY`, the key of its target;
- a value typed is a named parameter, `{{name}}` (its recorded value is the default);
  a secret stays `{{secret:NAME}}` (the daemon types it, the flow never holds it);
- `expect` is what must hold after it (`url`: a part of the URL, `text`: text shown),
  taken from what happened when it was recorded.

Flows are stored versioned (store/flows.py): saving a name again makes its next version.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

FORMAT = 1
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
PARAM = re.compile(r"\{\{([a-z][a-z0-9_]*)\}\}")
TARGET = "@"  # a param value `@KEY` names the step's target KEY
EXPECTS = frozenset({"url", "text"})
REF_PARAMS = ("ref", "source", "target")  # the params that take an element (and `fields`)


class FlowTarget(BaseModel):
    """An element, by what it is: found afresh on the page at every run."""

    model_config = ConfigDict(extra="forbid")

    role: str | None = Field(None, description="its role (button, textbox, link...)")
    name: str | None = Field(None, description="its accessible name")
    context: list[str] = Field(
        default_factory=list,
        description='the named containers around it, outermost first (form "Shipping", '
        "row Desk lamp)",
    )
    nth: int = Field(0, ge=0, description="its place among elements of the same identity")
    group: int = Field(1, ge=1, description="how many had that identity when recorded")
    url: str | None = Field(None, description="a link's address when recorded")
    locator: str | None = Field(
        None, description='a locator that finds it (role=button[name="Save"], css=...)'
    )

    @model_validator(mode="after")
    def _sound(self) -> FlowTarget:
        if self.role is None and not self.locator:
            raise ValueError("a target needs a role (and name) or a locator")
        if self.nth >= self.group:
            raise ValueError(f"nth {self.nth} is not below group {self.group}")
        return self

    def label(self) -> str:
        if self.role is None:
            return self.locator or "?"
        return f'{self.role} "{self.name}"' if self.name else self.role


class FlowParam(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default: str | None = Field(None, description="the value recorded; none: give it at run")
    about: str = Field("", description="where it is typed")


class FlowStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    params: dict[str, Any] = Field(default_factory=dict)
    targets: dict[str, FlowTarget] = Field(default_factory=dict)
    expect: dict[str, str] = Field(
        default_factory=dict, description="url (a part of it) and/or text that must show after"
    )
    action: int | None = Field(None, description="the action-log id it was recorded from")

    @model_validator(mode="after")
    def _sound(self) -> FlowStep:
        odd = set(self.expect) - EXPECTS
        if odd:
            raise ValueError(f"expect takes url and text, not {', '.join(sorted(odd))}")
        named = aimed_keys(self.params)
        if named - set(self.targets):
            raise ValueError(f"@{', @'.join(sorted(named - set(self.targets)))}: no such target")
        if set(self.targets) - named:
            unused = ", ".join(sorted(set(self.targets) - named))
            raise ValueError(f"target {unused} is named by no param (@KEY)")
        return self

    def label(self) -> str:
        aimed = ", ".join(t.label() for t in self.targets.values())
        return f"{self.command} {aimed}".strip()


class Flow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: int = FORMAT
    name: str
    version: int = Field(0, description="set by the store when saved")
    description: str = ""
    session: str | None = Field(None, description="the session it was recorded in")
    actions: list[int] = Field(
        default_factory=list, description="the first and last action-log ids it came from"
    )
    recorded_ms: float = Field(0.0, description="what its steps took when recorded")
    tolerance: float = Field(
        0.8,
        ge=0.5,
        le=1.0,
        description="how alike a renamed target's name must be (1.0: only case, spacing and "
        "punctuation may differ)",
    )
    params: dict[str, FlowParam] = Field(default_factory=dict)
    steps: list[FlowStep] = Field(default_factory=list)

    @model_validator(mode="after")
    def _readable(self) -> Flow:
        if self.format > FORMAT:
            raise ValueError(
                f"format {self.format} is newer than this steadyhand reads ({FORMAT}): upgrade"
            )
        return self


def aimed_keys(params: dict[str, Any]) -> set[str]:
    """The target keys a step's params name (`@KEY` values, and `fields`' keys)."""
    given = (params.get(k) for k in REF_PARAMS)
    keys = {v[1:] for v in given if isinstance(v, str) and v.startswith(TARGET)}
    fields = params.get("fields")
    if isinstance(fields, dict):
        keys |= {k[1:] for k in fields if isinstance(k, str) and k.startswith(TARGET)}
    return keys


def fill_in(value: Any, values: dict[str, str]) -> Any:
    """`value` with each `{{name}}` replaced by its value (JSON-like data, keys included)."""
    if isinstance(value, str):
        return PARAM.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {fill_in(k, values): fill_in(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_in(v, values) for v in value]
    return value


def fill_target(target: FlowTarget, values: dict[str, str]) -> FlowTarget:
    """The target with its parameters filled in (an item named after a value typed)."""
    if not (used_params(target.name or "") or used_params(target.context)):
        return target
    name = fill_in(target.name, values) if target.name else target.name
    return target.model_copy(update={"name": name, "context": fill_in(target.context, values)})


def used_params(value: Any) -> set[str]:
    """The `{{name}}` parameters a value uses."""
    if isinstance(value, str):
        return set(PARAM.findall(value))
    if isinstance(value, dict):
        return set().union(*(used_params(k) | used_params(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(used_params(v) for v in value))
    return set()


def flow_file(flow: Flow) -> dict[str, Any]:
    """The flow as its file shows it: what differs from the defaults (a target's nth 0,
    an empty expectation), after its format, name and version."""
    shown = flow.model_dump(mode="json", exclude_defaults=True)
    head = {"format": flow.format, "name": flow.name, "version": flow.version}
    return head | {k: v for k, v in shown.items() if k not in head}
