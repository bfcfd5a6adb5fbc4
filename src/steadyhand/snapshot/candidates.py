"""Name the elements a locator matched so an agent can pick one: a ref and where it sits.

An `ambiguous` locator lists its candidates; identical buttons ("Delete" in every row) can
only be told apart by their place, and only acted on without guessing by a ref. Each
candidate is given the ref a snapshot would give it (it is then in the tab's registry) and
its context: `e12 button "Delete" in main > "Users" (row "Alice")`.
"""

from __future__ import annotations

import json

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.engine.session import Tab
from steadyhand.errors import SteadyhandError
from steadyhand.snapshot.page_model import MODEL_OF_E
from steadyhand.snapshot.render import with_context
from steadyhand.snapshot.state import state_of
from steadyhand.snapshot.take import take
from steadyhand.snapshot.tree import Node

# The element's id and those of its ancestors, nearest first: an element the model does
# not show (a <span> inside a button) is named by the nearest one it does.
CHAIN_JS = f"""e => {{
  const model = {MODEL_OF_E};
  if (!model) return null;
  const out = [];
  for (let n = e; n; n = n.parentElement) out.push(String(model.idOf(n)));
  return out;
}}"""


async def with_refs(tab: Tab, handles: list[ElementHandle], timeout_ms: float) -> list[str] | None:
    """One line per element (`e12 button "Delete" in main (row "Alice")`); None when the
    page cannot be read (the caller falls back to a plain description)."""
    state = state_of(tab)
    chains: list[tuple[int, list[str]] | None] = []
    try:
        for handle in handles:
            frame = await handle.owner_frame()
            chain = await handle.evaluate(CHAIN_JS)
            if frame is None or not chain:
                chains.append(None)
                continue
            chains.append((state.model.model_of(frame).index, [str(k) for k in chain]))
        taken = await take(tab, timeout_ms)
    except (PlaywrightError, SteadyhandError):  # gone, or too busy to be read in time
        return None
    where: dict[tuple[int, str], tuple[Node, str, str]] = {}
    for node, path, near in with_context(taken.root):
        if node.key is not None:
            where[(node.frame, node.key)] = (node, path, near)
    picked: list[tuple[Node, str, str] | None] = []
    for item in chains:
        found = None
        if item is not None:
            index, chain = item
            found = next((where[(index, k)] for k in chain if (index, k) in where), None)
        picked.append(found)
    nodes = [p[0] for p in picked if p is not None]
    state.refs.issue(taken, nodes)
    state.refs.saw(nodes)
    return [_line(*p) if p is not None else "(not on the page)" for p in picked]


def _line(node: Node, path: str, near: str) -> str:
    name = f" {json.dumps(node.name, ensure_ascii=False)}" if node.name else ""
    ref = f"{node.ref} " if node.ref else ""
    return (
        f"{ref}{node.role}{name}" + (f" in {path}" if path else "") + (f" ({near})" if near else "")
    )
