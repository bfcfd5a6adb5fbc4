"""POST JSON to a webhook URL (approval requests, desktop events): best effort, in order.

Payloads wait in a bounded queue and go out one at a time from a thread with a short
timeout, so a slow or dead receiver costs neither the daemon's loop nor its memory: a
failure is logged (the URL shown without path or query: they often hold the secret), a
payload past a full queue is dropped and counted, and nothing is ever fatal.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from typing import Any

from steadyhand.config import check_webhook_url
from steadyhand.vault import mask_text

log = logging.getLogger("steadyhand.webhook")

TIMEOUT_S = 5.0
QUEUE_SIZE = 100


class Webhook:
    """One URL's sender. `name` says whose it is in the log ("approval webhook")."""

    def __init__(
        self,
        url: str,
        name: str,
        setting: str,
        timeout_s: float = TIMEOUT_S,
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        check_webhook_url(setting, url)
        self.url = url
        self.name = name
        self.timeout_s = timeout_s
        self.sent = 0
        self.failed = 0
        self.dropped = 0
        self._queue: asyncio.Queue[tuple[dict[str, Any], str]] = asyncio.Queue(queue_size)
        self._sender: asyncio.Task[None] | None = None

    @property
    def label(self) -> str:
        """The URL for logs: scheme and host only."""
        scheme, _, rest = self.url.partition("://")
        host = rest.split("/")[0].split("?")[0].split("#")[0].rpartition("@")[2]
        return f"{scheme}://{host}/…"

    def send(self, payload: dict[str, Any], what: str) -> None:
        """POST `payload` in the background (`what` names it in the log); call it from the
        daemon's loop."""
        try:
            self._queue.put_nowait((payload, what))
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 100 == 0:
                log.warning(
                    "%s %s is behind: %d payload(s) dropped so far (%s the latest)",
                    self.name,
                    self.label,
                    self.dropped,
                    what,
                )
            return
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        while not self._queue.empty():
            payload, what = self._queue.get_nowait()
            try:
                await asyncio.to_thread(post, self.url, payload, self.timeout_s)
                self.sent += 1
            except Exception as exc:
                self.failed += 1
                log.warning("%s %s failed for %s: %s", self.name, self.label, what, exc)

    async def drain(self, timeout_s: float) -> None:
        """Wait (at most `timeout_s`) until what was queued has been sent or has failed."""
        if self._sender is not None:
            await asyncio.wait({self._sender}, timeout=timeout_s)


def post(url: str, payload: dict[str, Any], timeout_s: float = TIMEOUT_S) -> None:
    body = mask_text(json.dumps(payload)).encode()  # no value of a named secret leaves
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        response.read(1024)
