"""steadyhand's own model of a tab's pages: every frame's tree, kept current by changes.

Each document runs `js/page_model.js` (installed by an init script, and on demand where
that did not run, e.g. a document written by script into an about:blank iframe). The
first read of a document sends its whole tree; later reads send only the subtrees that
changed since (the script tracks mutations, input and focus), which are patched into the
tree here copy-on-write: a patched node's ancestors are copied, everything else is shared,
so a capture taken earlier (the baseline a diff compares with) stays as it was, and a diff
can skip every subtree both captures share.

Element ids are the script's: per document, never reused, tied to the DOM node. Frames
are grafted under their `iframe` node in the parent frame's tree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from steadyhand.snapshot.tree import Node

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from steadyhand.snapshot.capture import Capture

KEY = "__steadyhand_model__"
# The model of the document a snippet runs in (undefined where none is installed yet).
MODEL = f"window.{KEY}?.of(document)"
# ... of the document element `e` belongs to.
MODEL_OF_E = f"window.{KEY}?.of(e.ownerDocument)"
READ_JS = f"force => {MODEL} ? {MODEL}.read(force) : null"
TARGET_JS = f"([doc, id, name]) => {MODEL}?.doc === doc ? {MODEL}.target(id, name) : null"
ELEMENT_JS = f"([doc, id]) => {MODEL}?.doc === doc ? {MODEL}.element(id) : null"
ID_OF_JS = f"e => {MODEL_OF_E} ? String({MODEL_OF_E}.idOf(e)) : null"
WITHIN_JS = f"e => {MODEL_OF_E} ? {MODEL_OF_E}.within(e).map(String) : []"
BOXES_JS = f"ids => {MODEL} ? {MODEL}.boxes(ids) : []"
NODE_JS = f"id => {MODEL} ? {MODEL}.node(id) : null"


@cache
def script() -> str:
    """The page-model script (built from page_model.src.js by scripts/build-page-model)."""
    return (resources.files("steadyhand.snapshot") / "js" / "page_model.js").read_text("utf-8")


async def install(context: BrowserContext) -> None:
    """Run the model in every document of `context` before the page's own scripts."""
    await context.add_init_script(script())


@dataclass(eq=False)
class FrameModel:
    """What the model knows of one frame's current document."""

    index: int  # the frame's number in its tab (0: the main frame)
    doc: str = ""
    root: Node | None = None
    nodes: dict[str, Node] = field(default_factory=dict)  # element id -> node in `root`
    iframe: str | None = None  # the id of its iframe element in the parent frame's document
    iframe_doc: str = ""  # the parent document that id belongs to
    # Nodes copied by this read's patches (by id): no earlier capture holds them, so later
    # patches of the same read change them in place instead of copying them again.
    copied: set[int] = field(default_factory=set)


class PageModel:
    """The model of one tab: a FrameModel per frame, and the tree they make together."""

    def __init__(self) -> None:
        self.frames: dict[Frame, FrameModel] = {}
        self._next_index = 1
        self.fresh: list[Node] = []  # the nodes the last read built (the rest were kept)
        self.mutations: int | None = None  # the main document's mutation count at that read
        self.title = ""  # the main document's title at that read

    def forget(self) -> None:
        """Drop what is known: the next read of every frame is whole."""
        self.frames.clear()

    def frame_for_doc(self, page: Page, doc: str) -> Frame | None:
        """The frame showing document `doc` as last read, if it still does."""
        for frame, model in self.frames.items():
            if model.doc == doc and not frame.is_detached() and frame.page is page:
                return frame
        return None

    def model_of(self, frame: Frame) -> FrameModel:
        model = self.frames.get(frame)
        if model is None:
            index = 0 if frame.parent_frame is None else self._next_index
            if frame.parent_frame is not None:
                self._next_index += 1
            model = self.frames[frame] = FrameModel(index)
        return model

    async def read(self, page: Page, force: bool = False) -> tuple[Node, dict[int, str]]:
        """The tab's tree now (every frame grafted in) and each frame's document id."""
        for gone in [f for f in self.frames if f.is_detached()]:
            del self.frames[gone]
        frames = [f for f in page.frames if not f.is_detached()]
        self.fresh = []
        for known in self.frames.values():
            known.copied.clear()  # what earlier reads copied, earlier captures now hold
        for frame in frames:
            await self._read_frame(frame, force)
        # Deepest frames first, so a frame is complete before it is grafted into its parent.
        for frame in sorted(frames, key=_depth, reverse=True):
            if frame.parent_frame is not None:
                await self._graft(frame)
        main = self.model_of(page.main_frame)
        if main.root is None:
            raise PlaywrightError("the page model could not be read in the main frame")
        docs = {m.index: m.doc for f, m in self.frames.items() if m.root is not None}
        return main.root, docs

    async def _read_frame(self, frame: Frame, force: bool) -> None:
        model = self.model_of(frame)
        main = frame.parent_frame is None
        data = await _read(frame, force or model.root is None, main)
        if data is not None and data["doc"] != model.doc and not data["whole"]:
            data = await _read(frame, True, main)  # a document not read yet: all of it
        if data is None:
            model.root, model.nodes, model.doc = None, {}, ""
            return
        if main:
            self.mutations, self.title = data["mutations"], data["title"]
        if data["doc"] != model.doc:
            model.iframe = None
        if not data["whole"]:
            for patch in data["patches"]:
                if not await self._patch(frame, model, patch):
                    break  # nowhere to put it: read the whole document again
            else:
                return
            self.fresh = [n for n in self.fresh if n.frame != model.index]
            data = await _read(frame, True, main)
            if data is None:
                model.root, model.nodes, model.doc = None, {}, ""
                return
        model.doc = data["doc"]
        model.nodes = {}
        model.root = _build(data["tree"], model, self.fresh)

    async def _patch(self, frame: Frame, model: FrameModel, patch: dict[str, Any]) -> bool:
        """Apply one patch; False when the model has neither its node nor any above it."""
        key, data = str(patch["i"]), patch["node"]
        if key in model.nodes:
            return _apply(model, key, data, self.fresh)
        if data is None:
            return True  # not shown now, and not in the model either: nothing to do
        # Shown again (or for the first time) under a node the model has: read that one.
        above = next((str(a) for a in patch.get("up", ()) if str(a) in model.nodes), None)
        if above is None:
            return False
        try:
            raw = await frame.evaluate(NODE_JS, int(above))
        except PlaywrightError:
            return False
        return raw is not None and _apply(model, above, json.loads(raw), self.fresh)

    async def _graft(self, frame: Frame) -> None:
        """Put the frame's tree under its iframe node in the parent frame's tree."""
        child = self.model_of(frame)
        parent_frame = frame.parent_frame
        if parent_frame is None:
            return
        parent = self.model_of(parent_frame)
        if parent.root is None:
            return
        if child.iframe is None or child.iframe_doc != parent.doc:
            child.iframe = await _iframe_id(frame)
            child.iframe_doc = parent.doc
        node = parent.nodes.get(child.iframe) if child.iframe else None
        if node is None or node.role != "iframe":
            return
        # A frame that could not be read (navigating, gone) shows nothing, not its past.
        children = child.root.children if child.root is not None else []
        if node.children is children or not (node.children or children):
            return
        grafted = _shallow(node)
        grafted.children = children
        for kid in grafted.children:
            kid.parent = grafted
        _replace(parent, node, grafted)
        self.fresh = [grafted if n is node else n for n in self.fresh]

    async def boxes(self, page: Page, taken: Capture) -> None:
        """Set the box (in its frame's viewport) of every node with a ref, and of iframes."""
        wanted: dict[int, list[Node]] = {}
        for node in taken.root.walk():
            if node.key is not None and (node.ref is not None or node.role == "iframe"):
                wanted.setdefault(node.frame, []).append(node)
        for frame, model in list(self.frames.items()):
            nodes = wanted.get(model.index)
            if not nodes or frame.is_detached():
                continue
            try:
                found = await frame.evaluate(BOXES_JS, [int(str(n.key)) for n in nodes])
            except PlaywrightError:
                continue
            for node, box in zip(nodes, found, strict=False):
                node.box = tuple(box) if box else None

    async def element(
        self, page: Page, doc: str, key: str, act: bool, name: str | None = None
    ) -> ElementHandle | None:
        """A handle on element `key` of document `doc` (`act`: what a person clicks for it).

        With `name`, an element whose name is no longer that raises Renamed.
        """
        frame = self.frame_for_doc(page, doc)
        if frame is None or not key.isdigit():
            return None
        try:
            if act:
                handle = await frame.evaluate_handle(TARGET_JS, [doc, int(key), name])
            else:
                handle = await frame.evaluate_handle(ELEMENT_JS, [doc, int(key)])
        except PlaywrightError:
            return None
        found = handle.as_element()
        if found is None:
            value = await handle.json_value()
            await handle.dispose()
            if isinstance(value, dict) and "renamed" in value:
                raise Renamed(str(value["renamed"]))
        return found


class Renamed(Exception):
    """The element a ref names has another name now than when the agent last saw it."""

    def __init__(self, now: str) -> None:
        super().__init__(now)
        self.now = now


def _depth(frame: Frame) -> int:
    depth = 0
    parent = frame.parent_frame
    while parent is not None:
        depth += 1
        parent = parent.parent_frame
    return depth


async def _read(frame: Frame, force: bool, main: bool) -> dict[str, Any] | None:
    """The script's answer for `frame` (installing it first where it is missing).

    A child frame that navigated or went away meanwhile reads as None; the main frame's
    errors (the page closed or crashed) are the caller's.
    """
    try:
        raw = await frame.evaluate(READ_JS, force)
        if raw is None:
            await frame.evaluate(script())
            raw = await frame.evaluate(READ_JS, True)
    except PlaywrightError:
        if main:
            raise
        return None
    if raw is None:
        return None
    found: dict[str, Any] = json.loads(str(raw))
    return found


async def _iframe_id(frame: Frame) -> str | None:
    try:
        element = await frame.frame_element()
    except PlaywrightError:
        return None
    try:
        found = await element.evaluate(ID_OF_JS)
        return str(found) if found is not None else None
    except PlaywrightError:
        return None
    finally:
        await element.dispose()


# ---------------------------------------------------------------- building and patching


def _build(
    data: dict[str, Any], model: FrameModel, fresh: list[Node], parent: Node | None = None
) -> Node:
    """Nodes from the script's JSON: {i, r, n, a, t, v, p, h, c}; strings are text."""
    attrs = data.get("a") or {}
    text = data.get("v", data.get("t"))
    node = Node(
        role=data["r"],
        name=data.get("n", ""),
        attrs=attrs,
        key=str(data["i"]) if data["i"] else None,
        how=tuple(data.get("h", ())),
        text=text,
        props=data.get("p") or {},
        parent=parent,
        frame=model.index,
    )
    if node.key is not None:
        model.nodes[node.key] = node
        fresh.append(node)
    kids = node.children
    for child in data.get("c", ()):
        if isinstance(child, str):
            kids.append(Node(role="text", text=child, parent=node, frame=model.index))
        else:
            kids.append(_build(child, model, fresh, node))
    return node


def _apply(model: FrameModel, key: str, data: dict[str, Any] | None, fresh: list[Node]) -> bool:
    """Replace element `key`'s node by `data` (None: remove it); False if it is unknown."""
    old = model.nodes.get(key)
    if old is None or old.parent is None:
        return False
    for gone in old.walk():
        if gone.key is not None and model.nodes.get(gone.key) is gone:
            del model.nodes[gone.key]
    new = _build(data, model, fresh, old.parent) if data is not None else None
    _replace(model, old, new)
    return True


def _replace(model: FrameModel, old: Node, new: Node | None) -> None:
    """Put `new` where `old` is, copying its ancestors (the earlier tree stays as it was).

    The copying stops at the frame's own root: a frame's top-level nodes, grafted under
    the parent frame's iframe node, have that node as parent, which the frame's tree
    does not own (the next graft puts the new root's children there).
    """
    parent = old.parent
    assert parent is not None
    if new is not None and new.key is not None:
        model.nodes[new.key] = new
    if id(parent) in model.copied:
        at = next(i for i, c in enumerate(parent.children) if c is old)
        if new is None:
            del parent.children[at]
        else:
            parent.children[at] = new
            new.parent = parent
        return
    children = [c for c in (new if c is old else c for c in parent.children) if c is not None]
    top = parent.parent is None or parent.frame != model.index
    copy = _shallow(model.root if top and model.root is not None else parent)
    copy.children = children
    model.copied.add(id(copy))
    for kid in children:
        kid.parent = copy
    if top:
        model.root = copy
        return
    _replace(model, parent, copy)


def _shallow(node: Node) -> Node:
    """A copy of `node` sharing its children list, attributes and parent."""
    return replace(node)
