"""`steadyhand mcp` over stdio: the handshake and the tool list answered while the SDK loads.

An MCP client spawns the server, sends `initialize`, then `tools/list`, and waits; the MCP
SDK and the command table take a second or more to import. So the replies to those two
come from `mcp-replies.json` in the state dir: what the SDK itself answered to the same
request (the same params, whatever the id) in a server of the same build (steadyhand's
version and the mtimes and sizes of its sources, and the SDK's and pydantic's files). The
SDK loads on a thread meanwhile, then gets the connection: the `initialize` the client
sent (its reply dropped: the client has one), a `tools/list` of its own (likewise) and
all that follows. Its replies to those two are compared with the ones served and fill or
refresh the file, so a request not seen before, or a new build, costs that one start the
SDK's time and no more.

The wire is a private duplicate of fds 0 and 1, as the SDK's stdio transport makes it:
fd 0 reads /dev/null and fd 1 writes to stderr, so nothing else reaches the protocol.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import secrets
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from steadyhand import __version__
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.private_files import ensure_private_dir, write_private

log = logging.getLogger("steadyhand.mcp")

CACHE_NAME = "mcp-replies.json"
CACHED_METHODS = ("initialize", "tools/list")
SWITCH_INTERVAL_S = 0.0005
KEPT = 16  # replies kept: a few clients, each on a protocol version or two
# What else the replies depend on: the SDK (its schemas), pydantic (ours).
DEPENDENCIES = ("mcp", "mcp_types", "pydantic", "pydantic_core")


def request_key(method: str, params: Any, variant: str = "") -> str:
    """A request's key in the cache: its method and params, and what else the reply
    depends on in this server (`variant`: the capability groups it offers)."""
    key = [method, params, variant] if variant else [method, params]
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def build_stamp() -> str:
    """A digest that changes with any source of steadyhand's, or the SDK or pydantic."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[2]
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                info = os.stat(os.path.join(root, name))
                digest.update(f"{root}/{name} {info.st_mtime_ns} {info.st_size}\n".encode())
    for module in DEPENDENCIES:
        spec = importlib.util.find_spec(module)  # finds, without importing
        if spec is not None and spec.origin:
            info = os.stat(spec.origin)
            digest.update(f"{spec.origin} {info.st_mtime_ns} {info.st_size}\n".encode())
    return digest.hexdigest()


def parse(line: str) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


class ReplyCache:
    """The SDK's results for requests seen before, for this build, as JSON text (a reply
    is then written without parsing it); saved as they change."""

    def __init__(self, path: Path | None, build: str) -> None:
        self.path = path
        self.build = build
        self.replies: dict[str, str] = {}
        if path is None:
            return
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(saved, dict) and saved.get("build") == build:
            replies = saved.get("replies")
            if isinstance(replies, dict):
                self.replies = {k: v for k, v in replies.items() if isinstance(v, str)}

    def get(self, key: str) -> str | None:
        return self.replies.get(key)

    def put(self, key: str, result: Any) -> None:
        text = json.dumps(result, separators=(",", ":"))
        if self.replies.get(key) == text:
            return
        self.replies.pop(key, None)
        self.replies[key] = text
        while len(self.replies) > KEPT:
            del self.replies[next(iter(self.replies))]
        if self.path is None:
            return
        try:
            write_private(self.path, json.dumps({"build": self.build, "replies": self.replies}))
        except OSError as exc:
            log.warning("could not save %s: %s", self.path, exc)


def claim(fd: int, diversion: int) -> int:
    """A private duplicate of `fd` for the wire; `fd` itself then points at `diversion`."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        os.dup2(diversion, fd)
    finally:
        os.close(diversion)
    return private


class QuickStart:
    """The first moments of a stdio server: the SDK loading, known requests answered."""

    def __init__(self, settings: Settings, modules: Iterable[str], variant: str = "") -> None:
        self.variant = variant
        try:
            wire_in = claim(0, os.open(os.devnull, os.O_RDONLY))
            wire_out = claim(1, os.dup(2))
        except OSError:  # not descriptors of their own: serve them in place
            wire_in, wire_out = sys.stdin.fileno(), sys.stdout.fileno()
        self.reader: IO[bytes] = os.fdopen(wire_in, "rb", closefd=False)
        self.writer: IO[bytes] = os.fdopen(wire_out, "wb", closefd=False)
        # Before the SDK's thread starts: with it running, each of the build stamp's
        # system calls would wait for the GIL.
        try:
            ensure_private_dir(settings.state_dir)
            path: Path | None = settings.state_dir / CACHE_NAME
        except (OSError, SteadyhandError):
            path = None
        self.cache = ReplyCache(path, build_stamp())
        self.drop: set[Any] = set()  # ids of replies the client has had from the cache
        self.expect: dict[Any, str] = {}  # ids of requests whose replies go to the cache
        self._loaded = threading.Event()
        self._load_error: BaseException | None = None
        threading.Thread(target=self._load, args=(tuple(modules),), daemon=True).start()

    def _load(self, modules: tuple[str, ...]) -> None:
        try:
            for name in modules:
                importlib.import_module(name)
        except BaseException as exc:
            self._load_error = exc
        finally:
            self._loaded.set()

    def wait_loaded(self) -> None:
        self._loaded.wait()
        if self._load_error is not None:
            raise self._load_error

    def answer_until_handover(self) -> list[str] | None:
        """Answer `initialize`, then `tools/list`, from the cache while they hit it; the
        lines the SDK must be given first, or None when the client left before."""
        replay: list[str] = []
        # The SDK's thread holds the GIL while it imports: have it hand the GIL over
        # sooner when a line comes in, until the SDK takes over.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:
            return self._answer(replay)
        finally:
            sys.setswitchinterval(interval)

    def _answer(self, replay: list[str]) -> list[str] | None:
        handshake = False  # the client has our reply to its initialize
        while True:
            raw = self.reader.readline()
            if not raw:
                return None
            line = raw.decode("utf-8", "replace")
            message = parse(line) or {}
            method = message.get("method")
            if method == "notifications/initialized" and handshake:
                replay.append(line)
                continue
            if method not in CACHED_METHODS or "id" not in message:
                return [*replay, line]
            if method == "tools/list" and not handshake:
                return [*replay, line]  # (the handshake-less protocol: the SDK's)
            key = request_key(method, message.get("params"), self.variant)
            result = self.cache.get(key)
            if result is None:  # the SDK answers, and its reply is kept
                self.expect[message["id"]] = key
                return [*replay, line]
            self.send(message["id"], result)
            log.info("answered %s from the cache (%s)", method, CACHE_NAME)
            if method == "initialize":
                handshake = True
                self.drop.add(message["id"])
                self.expect[message["id"]] = key
                replay.append(line)
                continue
            # The usual opening is over. The SDK lists too, to check the cache's list.
            check = f"steadyhand-check-{secrets.token_hex(4)}"
            self.drop.add(check)
            self.expect[check] = key
            again = dict(message, id=check)
            return [*replay, json.dumps(again) + "\n"]

    def send(self, reply_to: Any, result: str) -> None:
        text = f'{{"jsonrpc":"2.0","id":{json.dumps(reply_to)},"result":{result}}}\n'
        self.writer.write(text.encode())
        self.writer.flush()

    def lines(self, replay: list[str]) -> Lines:
        return Lines(replay, self)

    def note(self, line: str) -> None:
        """Note a request the SDK reads: its reply goes to the cache if it belongs there."""
        if not any(f'"{method}"' in line for method in CACHED_METHODS):
            return
        message = parse(line)
        if message and message.get("method") in CACHED_METHODS and "id" in message:
            key = request_key(message["method"], message.get("params"), self.variant)
            self.expect[message["id"]] = key

    def wire(self) -> Wire:
        return Wire(self)

    def seen(self, text: str) -> bool:
        """Note an SDK reply; False when the client has it from the cache already."""
        if not (self.expect or self.drop):
            return True
        message = parse(text)
        if message is None or "id" not in message or "method" in message:
            return True
        reply_to = message["id"]
        key = self.expect.pop(reply_to, None)
        if key is not None and "result" in message:
            served = self.cache.get(key)
            self.cache.put(key, message["result"])
            if reply_to in self.drop and served != self.cache.get(key):
                log.warning("served an outdated %s reply; the next start has the new one", key)
        if reply_to in self.drop:
            self.drop.discard(reply_to)
            return False
        return True


class Lines:
    """The SDK's stdin: the lines read before it loaded, then the wire's."""

    def __init__(self, replay: list[str], start: QuickStart) -> None:
        self.replay = list(replay)
        self.start = start

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        if self.replay:
            return self.replay.pop(0)
        import anyio.to_thread

        raw = await anyio.to_thread.run_sync(self.start.reader.readline)
        if not raw:
            raise StopAsyncIteration
        line = raw.decode("utf-8", "replace")
        self.start.note(line)
        return line


class Wire:
    """The SDK's stdout: the wire, less the replies the client has had from the cache."""

    def __init__(self, start: QuickStart) -> None:
        self.start = start

    async def write(self, text: str) -> None:
        if not self.start.seen(text):
            return
        import anyio.to_thread

        await anyio.to_thread.run_sync(self._write, text.encode())

    def _write(self, data: bytes) -> None:
        self.start.writer.write(data)
        self.start.writer.flush()

    async def flush(self) -> None:
        pass  # each write is flushed
