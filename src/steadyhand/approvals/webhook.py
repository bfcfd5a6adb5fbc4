"""Tell a person about an approval request: POST it as JSON to the approval_webhook URL.

Best effort: sent from a thread with a short timeout; a failure is logged, never fatal
(the request still waits, and `steadyhand approvals` lists it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.redact import redact_url

log = logging.getLogger("steadyhand.approvals")

TIMEOUT_S = 5.0


class Webhook:
    def __init__(self, url: str) -> None:
        if urlsplit(url).scheme not in ("http", "https"):
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting approval_webhook={redact_url(url)!r} is not an http(s) URL",
                "give a URL such as https://hooks.example.com/steadyhand, or leave it empty",
            )
        self.url = url
        self._sending: set[asyncio.Task[None]] = set()  # kept so they are not collected

    def send(self, payload: dict[str, Any]) -> None:
        """POST `payload` in the background."""
        task = asyncio.get_running_loop().create_task(self._send(payload))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, payload: dict[str, Any]) -> None:
        try:
            await asyncio.to_thread(post, self.url, payload)
        except Exception as exc:
            log.warning(
                "approval webhook %s failed for %s: %s",
                redact_url(self.url),
                payload.get("id"),
                exc,
            )


def post(url: str, payload: dict[str, Any], timeout_s: float = TIMEOUT_S) -> None:
    body = json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        response.read(1024)
