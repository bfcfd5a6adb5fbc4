"""Commands that read a page: snapshot (its views, pages and diffs) and find."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from steadyhand.act.resolve import resolve_entry
from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import Result, TabParams, command, positional
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.diff import report
from steadyhand.snapshot.find import find_nodes
from steadyhand.snapshot.page_model import WITHIN_JS
from steadyhand.snapshot.render import (
    Mode,
    View,
    node_line,
    own_text,
    page,
    render,
    truncation_marker,
)
from steadyhand.snapshot.state import state_of
from steadyhand.snapshot.take import take
from steadyhand.snapshot.tree import Node

_REF_IN_TEXT = re.compile(r"\[ref=(e\d+)\]")


class SnapshotParams(TabParams):
    interactive: bool = Field(
        False,
        description="only what can be acted on, each with its heading/landmark/row",
        json_schema_extra={"short": "i"},
    )
    compact: bool = Field(
        False, description="drop unnamed structural wrappers", json_schema_extra={"short": "c"}
    )
    depth: int | None = Field(
        None,
        ge=1,
        description="only this many levels of the tree",
        json_schema_extra={"short": "d"},
    )
    selector: str | None = Field(None, description="only the subtree of this CSS selector")
    ref: str | None = Field(None, description="only the subtree of this ref")
    frame: str | None = Field(
        None, description="only this iframe: its ref, or its frame name or part of its URL"
    )
    max_chars: int | None = Field(
        None, ge=200, description="cut the text here (default: the snapshot_max_chars setting)"
    )
    offset: int = Field(0, ge=0, description="start at this character (to read a cut snapshot)")
    urls: bool = Field(False, description="show link targets")
    cells: bool = Field(False, description="tables as a tree, with a ref on every cell")
    diff: bool = Field(False, description="only what changed since this tab's last snapshot")


class SnapshotResult(PageResult):
    REPLY: ClassVar[str] = "snapshot"
    snapshot: str
    refs: int = Field(description="how many refs this text hands out")
    chars: int = Field(description="length of the whole snapshot, all parts together")
    offset: int = 0
    next_offset: int | None = Field(None, description="where the next part starts, if cut")


def _mode(params: SnapshotParams) -> Mode:
    if params.interactive and params.compact:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "--interactive and --compact are two different views",
            "choose one: --interactive lists what can be acted on, --compact keeps the text",
        )
    return "interactive" if params.interactive else "compact" if params.compact else "default"


@command("snapshot", reads_only=True)
async def snapshot(call: Call, params: SnapshotParams) -> SnapshotResult:
    """The tab's accessibility tree as text; act on elements by their [ref=eN]."""
    view = View(_mode(params), params.depth, params.urls, params.cells)
    scoped = params.selector is not None or params.ref is not None or params.frame is not None
    if params.diff and scoped:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "--diff compares the whole tab; it does not take --selector, --ref or --frame",
            "drop the scope, or take a scoped snapshot without --diff",
        )
    if params.selector is not None and params.ref is not None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "give --selector or --ref, not both",
            "--ref eN for an element from a snapshot, --selector for a CSS selector",
        )
    tab = await call.tab(params.tab)
    max_chars = params.max_chars or call.runtime.settings.snapshot_max_chars
    key: tuple[object, ...] = (view, params.selector, params.ref, params.frame, params.diff)
    state = state_of(tab)
    if params.offset and state.paged is not None and state.paged[0] == key:
        text = state.paged[1]  # the same text the earlier parts came from
    else:
        text = await _snapshot_text(call, tab, params, view)
        state.paged = (key, text)
    chunk = page(text, params.offset, max_chars)
    shown = chunk.text + truncation_marker(chunk)
    return SnapshotResult(
        **await page_result(tab),
        snapshot=shown,
        refs=len(set(_REF_IN_TEXT.findall(chunk.text))),
        chars=chunk.total,
        offset=chunk.offset,
        next_offset=chunk.next_offset,
    )


async def _snapshot_text(call: Call, tab: Tab, params: SnapshotParams, view: View) -> str:
    selected: set[tuple[int, str]] | None = None
    state = state_of(tab)
    taken = await take(tab, call.remaining_ms(), cells=params.cells)
    if params.selector is not None:
        selected = await _selector_keys(tab, taken, params.selector, params.frame)
    if params.diff:
        seen: list[Node] = []
        text = report(state.baseline, taken, view, seen)
        state.seen(taken)
        state.refs.saw(seen)
        return text
    roots: list[Node] = [taken.root]
    if params.frame is not None:
        roots = [await _frame_root(tab, taken, params.frame)]
    if params.ref is not None:
        roots = [_ref_root(tab, taken, params.ref, roots)]
    if selected is not None:
        roots = _topmost(roots, selected)
    elif params.frame is None and params.ref is None:
        state.seen(taken)  # the agent has seen the whole page as it is now
    state.refs.saw(_walk(roots))
    return render(roots, view)


def _walk(roots: list[Node]) -> list[Node]:
    return [node for root in roots for node in root.walk()]


def _topmost(roots: list[Node], selected: set[tuple[int, str]]) -> list[Node]:
    """The highest nodes whose (frame, key) is in `selected`, in document order."""
    found: list[Node] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if (node.frame, node.key) in selected:
            found.append(node)
        else:
            stack.extend(reversed(node.children))
    return found


async def _selector_keys(
    tab: Tab, taken: Capture, selector: str, frame: str | None
) -> set[tuple[int, str]]:
    """(frame, key) of the first element matching `selector` and of every element in it."""
    scope = _frame_by_name(tab, frame) if frame is not None and not frame.startswith("e") else None
    where = scope or tab.page.main_frame
    locator = where.locator(selector)
    try:
        count = await locator.count()
    except PlaywrightError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--selector {selector!r} is not a valid selector",
            "give a CSS selector, e.g. 'form#login' or 'main table'",
        ) from exc
    if count == 0:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no element matches --selector {selector!r}",
            "check the selector against the page (snapshot without it shows the page)",
        )
    index = state_of(tab).model.model_of(where).index
    keys = await locator.first.evaluate(WITHIN_JS)
    return {(index, str(k)) for k in keys}


def _ref_root(tab: Tab, taken: Capture, ref: str, roots: list[Node]) -> Node:
    resolve_entry(tab, ref)  # bad_request / not_found / stale for refs never handed out
    for node in _walk(roots):
        if node.ref == ref:
            return node
    raise SteadyhandError(
        ErrorCode.STALE_REF,
        f"ref {ref} is not on the page now (or not in the scope asked for)",
        "take a new snapshot and use a ref from it",
        {"ref": ref, "tab": tab.id},
    )


def _frame_by_name(tab: Tab, wanted: str) -> Any:
    """The frame whose name is `wanted`, or whose URL contains it."""
    frames = tab.page.frames[1:]
    for frame in frames:
        if frame.name == wanted:
            return frame
    for frame in frames:
        if wanted in frame.url:
            return frame
    listed = ", ".join(f"{f.name or '(no name)'} {f.url}" for f in frames) or "none"
    raise SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"no frame named {wanted!r} or with it in its URL",
        f"frames of this tab: {listed}; an iframe's ref from a snapshot works too",
    )


async def _frame_root(tab: Tab, taken: Capture, wanted: str) -> Node:
    """The iframe node whose document is the frame asked for (by ref, name or URL)."""
    if re.fullmatch(r"e\d+", wanted):
        node = _ref_root(tab, taken, wanted, [taken.root])
        if node.role != "iframe":
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{wanted} is a {node.role}, not an iframe",
                "give the ref of an iframe, or use --ref for any other element",
            )
        return node
    frame = _frame_by_name(tab, wanted)
    try:
        doc = await frame.evaluate("() => String(performance.timeOrigin)")
    except PlaywrightError as exc:
        raise SteadyhandError(
            ErrorCode.STALE_REF, f"frame {wanted!r} went away while being read", "try again"
        ) from exc
    index = next((i for i, d in taken.docs.items() if d == doc and i), None)
    for node in taken.root.walk():
        if node.role == "iframe" and node.children and node.children[0].frame == index:
            return node
    raise SteadyhandError(
        ErrorCode.NOT_FOUND,
        f"frame {wanted!r} shows nothing that can be read or acted on",
        "it may be empty, hidden or still loading; a whole-page snapshot shows what there is",
    )


# ---------------------------------------------------------------- find


class FindParams(TabParams):
    text: str | None = positional("text to look for in names, values and text", None)
    role: str | None = Field(None, description="only elements with this role, e.g. button")
    name: str | None = Field(None, description="only elements whose name contains this")
    exact: bool = Field(False, description="match text and name exactly, case included")
    limit: int = Field(20, ge=1, le=500, description="at most this many matches")


class Match(Result):
    ref: str
    role: str
    name: str
    value: str | None = None
    context: str = Field(description="landmark > heading > container it sits in")
    near: str = Field("", description="its table row or list item")


class FindResult(PageResult):
    REPLY: ClassVar[str] = "text"
    matches: list[Match]
    total: int = Field(description="how many matched before --limit")
    text: str = Field(description="the matches as snapshot lines, with their context")


@command("find", reads_only=True)
async def find(call: Call, params: FindParams) -> FindResult:
    """Find elements by text, role or name: their refs and context, without a snapshot."""
    if not (params.text or params.role or params.name):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "find needs TEXT, --role or --name",
            'e.g. find "Sign in", or find --role button --name Save',
        )
    tab = await call.tab(params.tab)
    taken = await take(tab, call.remaining_ms())
    found = find_nodes(taken, params.text, params.role, params.name, params.exact)
    shown = found[: params.limit]
    refs = state_of(tab).refs
    refs.issue(taken, [f.node for f in shown])
    refs.saw(f.node for f in shown)
    view = View()
    matches, lines = [], []
    for item in shown:
        node = item.node
        assert node.ref is not None
        matches.append(
            Match(
                ref=node.ref,
                role=node.role,
                name=node.name,
                value=own_text(node),
                context=item.path,
                near=item.near,
            )
        )
        where = f"  [{item.path}]" if item.path else ""
        near = f" ({item.near})" if item.near else ""
        lines.append(node_line(node, view) + where + near)
    if len(found) > len(shown):
        lines.append(f"[… {len(found) - len(shown)} more; raise --limit or narrow the search]")
    return FindResult(
        **await page_result(tab),
        matches=matches,
        total=len(found),
        text="\n".join(lines) if lines else "no match",
    )
