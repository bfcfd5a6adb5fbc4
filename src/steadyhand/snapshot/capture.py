"""One reading of a tab's accessibility tree (every frame), and what it came from.

Readings are taken by take.py from the tab's page model, which sends only what changed
since its last read: a capture shares every unchanged subtree with the one before it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from steadyhand.snapshot.tree import Node


@dataclass(eq=False)
class Capture:
    """One reading of a tab: the tree, and the document of each frame in it."""

    root: Node
    main_doc: str
    docs: dict[int, str]  # frame index -> document id ("" when it could not be read)
    url: str
    fresh: list[Node] = field(default_factory=list)  # nodes this reading built anew
    taken_at: float = field(default_factory=time.time)
    cache: dict[str, Any] = field(default_factory=dict)  # derived data, computed once
