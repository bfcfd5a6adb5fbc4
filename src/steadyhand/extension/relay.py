"""A DevTools endpoint on 127.0.0.1 whose pages are the tabs the extension attached.

Two WebSocket doors on one port:

- `/extension`: the steadyhand extension (Origin chrome-extension://...), which must say
  hello with the pairing token first. It reports the tabs the user attached, their
  chrome.debugger events and command results; it is sent the commands for them.
- `/cdp`: Playwright's `connect_over_cdp`, with a secret header only this daemon knows.
  To it the relay looks like a browser: Browser.* and Target.* at the browser level are
  answered here (the attached tabs are its page targets, each on a session id of our own
  making); commands on a tab's session go to the extension, and its events come back on
  that session. Child sessions (iframes, workers) keep Chromium's own ids.

The relay opens no tabs: Target.createTarget fails with a message saying to attach one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

log = logging.getLogger(__name__)

EXTENSION_PATH = "/extension"
CDP_PATH = "/cdp"
CDP_HEADER = "x-steadyhand-relay"  # the secret Playwright's connection presents
HELLO_TIMEOUT_S = 5.0
REFUSED = 4001  # close code for a connection without the pairing token
MAX_MESSAGE = 256 * 1024 * 1024  # screenshots travel as base64 in one message
PRE_AUTH_MAX = 64 * 1024  # what a connection may send before it proved the pairing token
BROWSER_TARGET = "steadyhand-relay-browser"
# Playwright keeps only targets in a browser context; one it does not know is its default.
CONTEXT_ID = "steadyhand-relay-context"
SERVER_ERROR = -32000  # CDP's code for a command that failed


@dataclass
class RelayTab:
    """A tab the user attached: its target and the CDP session id Playwright knows it by."""

    tab_id: int
    target_info: dict[str, Any]
    session_id: str
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # Playwright set its page up

    @property
    def target_id(self) -> str:
        return str(self.target_info.get("targetId", ""))

    @property
    def url(self) -> str:
        return str(self.target_info.get("url", ""))

    @property
    def title(self) -> str:
        return str(self.target_info.get("title", ""))


@dataclass
class _Pending:
    """A command sent to the extension, to answer on Playwright's side."""

    cdp_id: int
    session_id: str
    tab_id: int


def _proof(token: str, text: str) -> str:
    """HMAC-SHA256 of `text` under the pairing token, hex (as the extension computes it)."""
    return hmac.new(token.encode(), text.encode(), "sha256").hexdigest()


def _same(given: object, secret: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), secret.encode())


class Relay:
    """The relay's server and its state: the extension, the tabs, Playwright's client."""

    def __init__(
        self,
        token: str,
        port: int,
        on_attached: Callable[[RelayTab], Awaitable[None]],
    ) -> None:
        self._token = token
        self._port = port
        self._on_attached = on_attached  # makes the tab part of a session; raises to refuse
        self._cdp_secret = secrets.token_urlsafe(32)
        self._server: Server | None = None
        self._extension: ServerConnection | None = None
        self._user_agent = ""
        self._cdp: ServerConnection | None = None
        self._auto_attach = False
        self.tabs: dict[int, RelayTab] = {}
        self._children: dict[str, int] = {}  # child session (iframe, worker) -> its tab
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:  # no secret in a log line
        return f"Relay(port={self.port}, tabs={sorted(self.tabs)})"

    @property
    def port(self) -> int:
        if self._server is None:
            return self._port
        return int(next(iter(self._server.sockets)).getsockname()[1])

    @property
    def extension_url(self) -> str:
        """What the extension's options take as the relay URL."""
        return f"ws://127.0.0.1:{self.port}{EXTENSION_PATH}"

    @property
    def cdp_url(self) -> str:
        """Playwright's endpoint (with `cdp_headers`)."""
        return f"ws://127.0.0.1:{self.port}{CDP_PATH}"

    @property
    def cdp_headers(self) -> dict[str, str]:
        return {CDP_HEADER: self._cdp_secret}

    @property
    def extension_connected(self) -> bool:
        return self._extension is not None

    def uses_token(self, token: str) -> bool:
        return _same(token, self._token)

    async def start(self) -> None:
        """Listen on 127.0.0.1 only."""
        self._server = await serve(
            self._handle,
            "127.0.0.1",
            self._port,
            process_request=self._check_request,
            max_size=PRE_AUTH_MAX,
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()

    def detach(self, tab_id: int) -> bool:
        """Ask the extension to detach a tab (its badge goes off); False if not attached."""
        if tab_id not in self.tabs:
            return False
        self._spawn(self._to_extension({"type": "detach", "tabId": tab_id}))
        return True

    # -- the doors ----------------------------------------------------------------------

    def _check_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == EXTENSION_PATH:
            if not request.headers.get("Origin", "").startswith("chrome-extension://"):
                return connection.respond(HTTPStatus.FORBIDDEN, "only the extension connects\n")
            return None
        if path == CDP_PATH:
            if not _same(request.headers.get(CDP_HEADER), self._cdp_secret):
                return connection.respond(HTTPStatus.UNAUTHORIZED, "not this daemon\n")
            return None
        return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")

    async def _handle(self, connection: ServerConnection) -> None:
        path = connection.request.path.split("?", 1)[0] if connection.request else ""
        if path == EXTENSION_PATH:
            await self._serve_extension(connection)
        else:
            await self._serve_cdp(connection)

    async def _serve_extension(self, connection: ServerConnection) -> None:
        hello = await self._paired(connection)
        if hello is None:
            log.warning("extension relay: refused a connection without the pairing token")
            await connection.close(REFUSED, "wrong pairing token")
            return
        connection.protocol.max_message_size = MAX_MESSAGE
        if self._extension is not None:  # another Chrome (or a reload): its tabs are gone
            replaced, self._extension = self._extension, None
            for tab_id in list(self.tabs):
                await self._drop_tab(tab_id, "the extension connected again")
            await replaced.close(1000, "replaced by a new connection")
        self._extension = connection
        self._user_agent = str(hello.get("userAgent", ""))
        log.info("extension relay: the extension connected")
        await connection.send(json.dumps({"type": "welcome"}))
        try:
            async for raw in connection:
                try:
                    await self._from_extension(json.loads(raw))
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    # One malformed message (an extension of another version) is skipped.
                    log.warning("extension relay: a message skipped: %s", type(exc).__name__)
        except ConnectionClosed:
            pass
        finally:
            if self._extension is connection:
                self._extension = None
                log.info("extension relay: the extension disconnected")
                for tab_id in list(self.tabs):
                    await self._drop_tab(tab_id, "the extension disconnected")

    async def _paired(self, connection: ServerConnection) -> dict[str, Any] | None:
        """The extension's hello, once each side proved it holds the pairing token without
        sending it: hello {nonce} -> challenge {nonce, proof} -> auth {proof}. A page
        squatting the port never learns the token, nor a relay the extension reached by
        mistake."""
        try:
            hello = json.loads(await asyncio.wait_for(connection.recv(), HELLO_TIMEOUT_S))
            if not isinstance(hello, dict) or not isinstance(hello.get("nonce"), str):
                return None
            ours = secrets.token_hex(16)
            proof = _proof(self._token, "relay:" + hello["nonce"])
            await connection.send(json.dumps({"type": "challenge", "nonce": ours, "proof": proof}))
            auth = json.loads(await asyncio.wait_for(connection.recv(), HELLO_TIMEOUT_S))
        except (TimeoutError, ValueError, ConnectionClosed):
            return None
        if not isinstance(auth, dict) or not _same(
            auth.get("proof"), _proof(self._token, "extension:" + ours)
        ):
            return None
        return hello

    async def _serve_cdp(self, connection: ServerConnection) -> None:
        connection.protocol.max_message_size = MAX_MESSAGE  # (the door checked its secret)
        if self._cdp is not None:
            await connection.close(1008, "the relay serves one client")
            return
        self._cdp, self._auto_attach = connection, False
        try:
            async for raw in connection:
                await self._from_cdp(json.loads(raw))
        except ConnectionClosed:
            pass
        finally:
            self._cdp, self._auto_attach = None, False
            # The session is closed: the user's tabs are let go (their badges go off).
            for tab_id in list(self.tabs):
                await self._to_extension({"type": "detach", "tabId": tab_id})

    # -- from the extension -------------------------------------------------------------

    async def _from_extension(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "result":
            await self._answer(message)
        elif kind == "event":
            await self._event(message)
        elif kind == "attached":
            await self._attached(int(message["tabId"]), dict(message["targetInfo"]))
        elif kind == "detached":
            await self._drop_tab(int(message["tabId"]), str(message.get("reason", "")))

    async def _attached(self, tab_id: int, target_info: dict[str, Any]) -> None:
        if tab_id in self.tabs:
            return
        info = target_info | {"attached": True, "browserContextId": CONTEXT_ID}
        tab = RelayTab(tab_id, info, f"steadyhand-tab-{tab_id}")
        self.tabs[tab_id] = tab
        if self._auto_attach:
            await self._announce(tab)
        self._spawn(self._make_ready(tab))

    async def _make_ready(self, tab: RelayTab) -> None:
        """Tell the extension the tab is in a session (it shows the badge), or why not."""
        try:
            await self._on_attached(tab)
        except Exception as exc:
            reason = str(getattr(exc, "message", "") or exc)
            log.warning("extension relay: tab %s refused: %s", tab.tab_id, reason)
            await self._to_extension({"type": "refused", "tabId": tab.tab_id, "reason": reason})
            return
        await self._to_extension({"type": "ready", "tabId": tab.tab_id})

    async def _drop_tab(self, tab_id: int, reason: str) -> None:
        tab = self.tabs.pop(tab_id, None)
        if tab is None:
            return
        log.info("extension relay: tab %s detached (%s)", tab_id, reason)
        for child in [s for s, t in self._children.items() if t == tab_id]:
            del self._children[child]
        for rid in [r for r, p in self._pending.items() if p.tab_id == tab_id]:
            pending = self._pending.pop(rid)
            await self._reply_error(pending.cdp_id, pending.session_id, "the tab was detached")
        await self._to_cdp(
            {
                "method": "Target.detachedFromTarget",
                "params": {"sessionId": tab.session_id, "targetId": tab.target_id},
            }
        )

    async def _answer(self, message: dict[str, Any]) -> None:
        pending = self._pending.pop(int(message["id"]), None)
        if pending is None:
            return
        error = message.get("error")
        if error is not None:
            await self._reply_error(pending.cdp_id, pending.session_id, str(error.get("message")))
            return
        await self._to_cdp(
            {"id": pending.cdp_id, "sessionId": pending.session_id, "result": message["result"]}
        )

    async def _event(self, message: dict[str, Any]) -> None:
        tab = self.tabs.get(int(message["tabId"]))
        if tab is None:
            return
        method, params = str(message["method"]), message.get("params") or {}
        child = message.get("sessionId")
        if method == "Target.attachedToTarget":
            self._children[str(params["sessionId"])] = tab.tab_id
        elif method == "Target.detachedFromTarget":
            self._children.pop(str(params.get("sessionId")), None)
        elif method == "Page.frameNavigated" and not child and "parentId" not in params["frame"]:
            tab.target_info["url"] = params["frame"].get("url", tab.url)
        session_id = str(child) if child else tab.session_id
        await self._to_cdp({"method": method, "params": params, "sessionId": session_id})

    # -- from Playwright ----------------------------------------------------------------

    async def _from_cdp(self, message: dict[str, Any]) -> None:
        cdp_id = int(message["id"])
        method = str(message.get("method", ""))
        params = message.get("params") or {}
        session_id = message.get("sessionId")
        if session_id is None:
            await self._browser_command(cdp_id, method, params)
            return
        tab_id, child = self._route(str(session_id))
        if tab_id is None or self._extension is None:
            await self._reply_error(cdp_id, str(session_id), f"no session {session_id}")
            return
        if method == "Runtime.runIfWaitingForDebugger" and child is None:
            self.tabs[tab_id].ready.set()  # the last step of Playwright's page setup
        self._next_id += 1
        self._pending[self._next_id] = _Pending(cdp_id, str(session_id), tab_id)
        command = {"type": "command", "id": self._next_id, "tabId": tab_id, "method": method}
        await self._to_extension(command | {"params": params, "sessionId": child})

    def _route(self, session_id: str) -> tuple[int | None, str | None]:
        """(tab, child session or None for the tab's own) of a CDP session id."""
        for tab in self.tabs.values():
            if tab.session_id == session_id:
                return tab.tab_id, None
        tab_id = self._children.get(session_id)
        return (tab_id, session_id) if tab_id is not None else (None, None)

    async def _browser_command(self, cdp_id: int, method: str, params: dict[str, Any]) -> None:
        """The browser's own commands, answered here: the relay is the browser."""
        result: dict[str, Any] | None = None
        if method == "Browser.getVersion":
            version = self._user_agent.split("Chrome/", 1)[-1].split(" ", 1)[0] or "0"
            result = {
                "protocolVersion": "1.3",
                "product": f"Chrome/{version}",
                "revision": "",
                "userAgent": self._user_agent,
                "jsVersion": "",
            }
        elif method == "Target.setAutoAttach":
            self._auto_attach = bool(params.get("autoAttach"))
            if self._auto_attach:  # announced before the answer, as Chromium does
                for tab in list(self.tabs.values()):
                    await self._announce(tab)
            result = {}
        elif method in ("Target.setDiscoverTargets", "Target.detachFromTarget"):
            result = {}  # a tab stays attached until the user or the session lets it go
        elif method == "Runtime.runIfWaitingForDebugger":
            result = {}
        elif method == "Target.getTargets":
            result = {"targetInfos": [t.target_info for t in self.tabs.values()]}
        elif method == "Target.getTargetInfo":
            wanted = params.get("targetId")
            found = [t.target_info for t in self.tabs.values() if t.target_id == wanted]
            browser = {"targetId": BROWSER_TARGET, "type": "browser", "title": "", "url": ""}
            result = {"targetInfo": found[0] if found else browser | {"attached": True}}
        elif method == "Target.closeTarget":
            closing = [t for t in self.tabs.values() if t.target_id == params.get("targetId")]
            if closing:
                await self._to_extension(
                    {"type": "command", "id": 0, "tabId": closing[0].tab_id, "method": "Page.close"}
                )
            result = {"success": bool(closing)}
        if result is not None:
            await self._to_cdp({"id": cdp_id, "result": result})
            return
        why = (
            "the extension relay cannot open tabs: open the page in Chrome and attach it with "
            "the steadyhand button"
            if method == "Target.createTarget"
            else f"{method} is not available through the extension relay"
        )
        await self._reply_error(cdp_id, None, why)

    async def _announce(self, tab: RelayTab) -> None:
        params = {"sessionId": tab.session_id, "targetInfo": tab.target_info}
        await self._to_cdp(
            {"method": "Target.attachedToTarget", "params": params | {"waitingForDebugger": False}}
        )

    # -- sending ------------------------------------------------------------------------

    async def _reply_error(self, cdp_id: int, session_id: str | None, message: str) -> None:
        reply: dict[str, Any] = {"id": cdp_id, "error": {"code": SERVER_ERROR, "message": message}}
        if session_id is not None:
            reply["sessionId"] = session_id
        await self._to_cdp(reply)

    async def _to_cdp(self, message: dict[str, Any]) -> None:
        if self._cdp is not None:
            with contextlib.suppress(ConnectionClosed):
                await self._cdp.send(json.dumps(message))

    async def _to_extension(self, message: dict[str, Any]) -> None:
        if self._extension is not None:
            with contextlib.suppress(ConnectionClosed):
                await self._extension.send(json.dumps(message))

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            await work

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
