"""Events a live view shows as they happen: action-log rows, approvals, takeovers.

A listener gets its own bounded queue; one that falls behind by more than `QUEUE_LIMIT`
events gets a `gap` event instead of the ones it missed (the page then re-reads the log),
so a slow watcher never holds up the agent's calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator
from typing import Any

QUEUE_LIMIT = 1000


class Feed:
    """In-process publish/subscribe of live events (dicts with a `kind`)."""

    def __init__(self) -> None:
        self._listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self._seq = itertools.count(1)

    @property
    def listeners(self) -> int:
        return len(self._listeners)

    def publish(self, kind: str, **fields: Any) -> None:
        """Send an event to every listener now (never blocks)."""
        if not self._listeners:
            return
        event = {"kind": kind, "seq": next(self._seq), "ts": time.time(), **fields}
        for queue in self._listeners:
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    while True:
                        queue.get_nowait()
                queue.put_nowait({"kind": "gap", "seq": event["seq"], "ts": event["ts"]})
            else:
                queue.put_nowait(event)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        """A queue that receives every event published while the block runs."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_LIMIT)
        self._listeners.add(queue)
        try:
            yield queue
        finally:
            self._listeners.discard(queue)
