"""Property-based fuzzing of every command over JSON-RPC, HTTP and MCP (issue 18).

Shared by tests/integration/test_fuzz.py (a fixed seed, a few hundred cases) and
bench/fuzz.py (as many as asked). Params come from each command's params model (its JSON
schema, as the fronts publish it): valid-shaped values, wrong types, missing required
fields, unknown keys, huge and unicode strings, odd refs, negative and huge numbers, paths.

Each call is checked against the rule "bad input gets a clear error and loses nothing":
the reply is a result or a structured error whose `code` is one of ErrorCode (never
`internal`, never an HTTP 500, a JSON-RPC internal error or an MCP protocol error), with a
non-empty hint; and the action log gained exactly the rows execute/run.py writes for it: one
for every call of a command that touches a page (`Command.touches_page`) that reached
`execute` (refused or not), and for a policy refusal of any command; none else.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sqlite3
import sys
import threading
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from hypothesis import strategies as st

from steadyhand import rpc_client
from steadyhand.commands import COMMANDS, Command
from steadyhand.commands.table import tool_name
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode
from steadyhand.fronts.schema import AGENT_HIDDEN, params_schema

T = TypeVar("T")

LIVE = "fz"  # the fuzz session: most cases act in it, on the form page
LIVE_PAGE = "form.html"
FRONTS = ("rpc", "http", "mcp")
MAX_CASE_MS = 1_500
# Never fuzzed: they would end the run or start arbitrary programs.
SKIP = {
    "daemon.stop": "stops the daemon under the run (covered by test_daemon.py)",
    "desktop.launch": "would start whatever program a case names",
}
# After these the fuzz session may be gone, suspended or elsewhere: it is made live again.
DISRUPTIVE = {
    "takeover",
    "close",
    "session.suspend",
    "tab.close",
    "navigate",
    "open",
    "back",
    "forward",
    "reload",
    "tab.new",
    "profile.delete",
    "profile.import",
    "evaluate",
    "dialog",
    "click",
    "press",
}
# Error statuses a page (not the daemon) may cause: a URL that does not load, a deadline.
GATEWAY_STATUSES = {502, 503, 504}
RPC_INTERNAL = ErrorCode.INTERNAL.rpc_code
RPC_PROTOCOL = {-32700, -32600, RPC_INTERNAL}
CODES = {str(code) for code in ErrorCode}

ODD_REFS = ["e0", "e999999", "@e1", "d3", "@d3", "e-1", "E1", "e1 ", "e01", "t1", "", "@"]
ODD_TEXT = [
    "",
    " ",
    "\x00",
    "ünïcödé ✓ 漢字 🙂",
    "\u202eevil\u202c",
    "a" * 100_000,
    "😀" * 5_000,
    "\n\r\t",
    "'\"<>&;`$(rm -rf /)",
    "%s%n{0}",
    "null",
]
ODD_PATHS = [
    "/etc/passwd",
    "../../../../etc/shadow",
    "relative/out.png",
    "/proc/self/mem",
    "/",
    "",
    "~/x.pdf",
    "/tmp/" + "x" * 300,
    "/dev/null",
]
ODD_URLS = [
    "javascript:alert(1)",
    "file:///etc/passwd",
    "http://127.0.0.1:1/",
    "not a url",
    "about:blank",
    "data:text/html,<button>x</button>",
    "chrome://settings",
    "http://[::1",
    "ftp://example.invalid/",
]
ODD_SESSIONS = ["", "fz2", "../../etc", "ünï", "x" * 300, "default", "a/b", " "]
ODD_TIMEOUTS: list[Any] = ["0", "-5", "1e9", "abc", 0.1, "", "10 minutes", "1.5s", 2**40]
ODD_NUMBERS: list[Any] = [0, -1, -(2**31), 2**31, 2**63, 2**70, 1e308, -1e-308, 0.5, True]
WRONG_TYPES: list[Any] = [None, [], {}, [1, "a"], {"a": {"b": []}}, True, 7, -3.5, "7"]


@dataclass(frozen=True)
class Case:
    command: str
    params: dict[str, Any]


@dataclass
class Outcome:
    """What one call gave: `ok`, or a code; and what broke a rule, if anything."""

    code: str  # "ok" or the error's code
    problem: str | None = None
    reached: bool = True  # the call reached execute/run.py (so it may log a row)


@dataclass
class Tally:
    """What a run saw, per front."""

    cases: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    unlogged: list[str] = field(default_factory=list)  # rows missing (or extra)
    crashes: int = 0
    server_errors: int = 0  # HTTP 500s, JSON-RPC internal errors, MCP protocol errors

    def broken(self) -> list[str]:
        return self.problems + self.unlogged


def fuzzed_commands(front: str) -> list[Command]:
    """What a front is fuzzed on: every command it offers but SKIP."""
    hidden = AGENT_HIDDEN if front == "mcp" else frozenset()
    return [c for n, c in COMMANDS.items() if n not in SKIP and n not in hidden]


# --- strategies ----------------------------------------------------------------------------


def _odd(values: list[Any]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


def _text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=40), _odd(ODD_TEXT))


def _shaped(schema: dict[str, Any], name: str) -> st.SearchStrategy[Any]:
    """A value of the schema's shape (which may still be a bad value)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if name in ("ref", "source", "target") or name.endswith("_ref"):
        return st.one_of(st.integers(1, 40).map(lambda i: f"e{i}"), _odd(ODD_REFS), _text())
    if isinstance(schema.get("file_path"), bool) or name in ("path", "dir", "file", "files"):
        paths = st.one_of(_odd(ODD_PATHS), st.text(max_size=30).map(lambda t: "/tmp/" + t))
        return st.lists(paths, max_size=3) if kind == "array" else paths
    if name == "url":
        return st.one_of(_odd(ODD_URLS), st.just(f"@{LIVE_PAGE}"), _text())
    if name in {"session", "name"}:
        return st.one_of(_odd([LIVE] * 4 + ODD_SESSIONS), _text())
    if name == "timeout":
        return _odd(["short", "medium", "long", "500", "1s", 800])
    if kind == "string":
        return _text()
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        return st.one_of(st.integers(low, high), _odd(ODD_NUMBERS))
    if kind == "number":
        return st.one_of(st.floats(allow_nan=False, allow_infinity=False), _odd(ODD_NUMBERS))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = schema.get("items") or {}
        return st.lists(_shaped(items, name + "[]"), max_size=4)
    if kind == "object":
        values = schema.get("additionalProperties")
        inner = _shaped(values, name + "{}") if isinstance(values, dict) else _text()
        keys = st.one_of(st.integers(1, 40).map(lambda i: f"e{i}"), _odd(ODD_REFS), _text())
        return st.dictionaries(keys, inner, max_size=3)
    return _odd(WRONG_TYPES)


def params_strategy(command: Command) -> st.SearchStrategy[dict[str, Any]]:
    """Params for one command: its fields (required ones sometimes left out), sometimes an
    unknown key, the session mostly the live one."""
    schema = params_schema(command)
    props: dict[str, Any] = schema["properties"]
    required = set(schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        # Most cases are of the right shape (to reach the page); the rest break one rule.
        mode = draw(st.sampled_from(["shaped"] * 3 + ["wrong type", "missing", "unknown key"]))
        out: dict[str, Any] = {name: draw(_shaped(props[name], name)) for name in required}
        for name, sub in props.items():
            if name not in required and name != "session" and draw(st.booleans()):
                out[name] = draw(_shaped(sub, name))
        if "session" in props:
            out["session"] = draw(st.sampled_from([LIVE] * 12 + ODD_SESSIONS))
        if mode == "wrong type":
            name = draw(st.sampled_from(sorted(props)))
            odd = ODD_TIMEOUTS if name == "timeout" else []
            out[name] = draw(_odd(WRONG_TYPES + ODD_TEXT + ODD_NUMBERS + odd))
        elif mode == "missing" and required:
            del out[draw(st.sampled_from(sorted(required)))]
        elif mode != "shaped":
            key = draw(st.sampled_from(["bogus", "", "Ref", "__proto__", "é", "session "]))
            out[key] = draw(_odd(WRONG_TYPES))
        return out

    return build()


def command_cases(command: Command) -> st.SearchStrategy[Case]:
    return params_strategy(command).map(lambda params: Case(command.name, params))


def case_strategy(front: str) -> st.SearchStrategy[Case]:
    return st.sampled_from(fuzzed_commands(front)).flatmap(command_cases)


def tame(case: Case, site: str, files: Path) -> Case:
    """The case made safe to run: deadlines bounded, files written under `files`, `@page`
    URLs on the test's site."""
    params = dict(case.params)
    timeout = params.get("timeout")
    if isinstance(timeout, str | int | float) and not isinstance(timeout, bool):
        with contextlib.suppress(Exception):  # what the daemon refuses is sent as it is
            if Settings.load(state_dir=files).timeout_ms(str(timeout)) > MAX_CASE_MS:
                params["timeout"] = str(MAX_CASE_MS)
    command = COMMANDS[case.command]
    for name, info in command.params.model_fields.items():
        extra = info.json_schema_extra
        if not (isinstance(extra, dict) and extra.get("file_path")):
            continue
        given = params.get(name)
        if isinstance(given, str) and given.startswith("/") and "\x00" not in given:
            params[name] = str(files / given.lstrip("/").replace("..", "__"))
    url = params.get("url")
    if isinstance(url, str) and url.startswith("@"):
        params["url"] = f"{site}/{url[1:]}"
    return Case(case.command, params)


# --- the action log ------------------------------------------------------------------------


def log_rows(settings: Settings) -> int:
    """Rows in the daemon's action_log (read-only, beside the daemon's writer: WAL)."""
    uri = f"file:{settings.store_path}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=10)) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM action_log").fetchone()
    return int(count)


def expected_rows(case: Case, outcome: Outcome) -> int:
    """What execute/run.py writes: one row per call that reached execute() for a command that
    touches a page, whether it was refused, failed or ran; and for any other command the
    policy refused (a file outside the roots): refusals are evidence."""
    logged = COMMANDS[case.command].touches_page or outcome.code == "policy_denied"
    return int(outcome.reached and logged)


# --- the fronts ----------------------------------------------------------------------------


def check_error(front: str, error: Any) -> str | None:
    """A rule a structured error broke, or None."""
    if not isinstance(error, dict):
        return f"{front}: the error is not an object: {error!r:.300}"
    code = error.get("code")
    if code not in CODES:
        return f"{front}: error code {code!r} is not an ErrorCode: {error!r:.300}"
    if code == ErrorCode.INTERNAL:
        return f"{front}: internal error: {error.get('message')!r:.500}"
    if not str(error.get("message") or "").strip():
        return f"{front}: {code} without a message"
    if not str(error.get("hint") or "").strip():
        return f"{front}: {code} without a hint: {error.get('message')!r:.300}"
    return None


class RpcFront:
    """JSON-RPC 2.0 over the daemon's Unix socket, one raw request a line."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._ids = 0

    def call(self, case: Case) -> Outcome:
        self._ids += 1
        request = {"jsonrpc": "2.0", "id": self._ids, "method": case.command, "params": case.params}
        line = json.dumps(request).encode() + b"\n"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(60)
            sock.connect(str(self.settings.socket_path))
            sock.sendall(line)
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = sock.recv(1 << 20)
                if not chunk:
                    return Outcome("closed", "rpc: the daemon closed the connection", False)
                reply += chunk
        message = json.loads(reply)
        if "result" in message:
            return Outcome("ok")
        error = message.get("error") or {}
        if error.get("code") in RPC_PROTOCOL:
            data = error.get("data") or {}
            return Outcome(
                str(data.get("code", "protocol")),
                f"rpc: error {error.get('code')}: {error.get('message')!r:.500}",
            )
        flat = {"message": error.get("message"), **(error.get("data") or {})}
        return Outcome(str(flat.get("code")), check_error("rpc", flat))


class HttpFront:
    """POST /v1/<command> with the token, to a `serve --http` process."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.client = httpx.Client(base_url=url, headers=headers, timeout=60)

    def close(self) -> None:
        self.client.close()

    def call(self, case: Case) -> Outcome:
        body = json.dumps(case.params).encode()
        response = self.client.post(
            f"/v1/{case.command}", content=body, headers={"Content-Type": "application/json"}
        )
        try:
            payload = response.json()
            ok = payload["ok"]
        except (ValueError, KeyError, TypeError):
            return Outcome(
                f"http {response.status_code}",
                f"http: not the envelope: {response.status_code} {response.text[:300]}",
            )
        if ok:
            return Outcome("ok")
        error = payload.get("error")
        code = str(error.get("code")) if isinstance(error, dict) else "?"
        problem = check_error("http", error)
        if response.status_code == 500 or (
            response.status_code > 500 and response.status_code not in GATEWAY_STATUSES
        ):
            problem = f"http: status {response.status_code}: {error!r:.500}"
        return Outcome(code, problem)


class Loop:
    """An event loop on a thread of its own, for the async MCP client."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class McpFront:
    """`steadyhand mcp` over stdio, through the official MCP client."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        """`cwd`: the server's working directory, where relative file paths land (the
        Python client makes them absolute there, as the CLI does)."""
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self.loop = Loop()
        self._stack = contextlib.AsyncExitStack()
        # Every group: without a DISPLAY the desktop's tools would be refused unrun.
        args = ["-m", "steadyhand", "mcp", "--caps", "all"]
        server = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=cwd)

        async def start() -> ClientSession:
            read, write = await self._stack.enter_async_context(stdio_client(server))
            session = await self._stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()  # so the client checks results against output schemas
            return session

        self.session = self.loop.run(start())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.run(self._stack.aclose(), 30)
        self.loop.stop()

    def call(self, case: Case) -> Outcome:
        from mcp import types

        try:
            result = self.loop.run(self.session.call_tool(tool_name(case.command), case.params))
        except Exception as exc:  # McpError, a result the client refused, a closed pipe
            return Outcome("protocol", f"mcp: {type(exc).__name__}: {exc!s:.500}")
        if not result.is_error:
            return Outcome("ok")
        structured = result.structured_content
        if not isinstance(structured, dict) or "error" not in structured:
            block = result.content[0] if result.content else None
            text = block.text if isinstance(block, types.TextContent) else repr(block)
            # The SDK's own refusal (e.g. its input validation) never reached the daemon.
            return Outcome("unstructured", f"mcp: unstructured error result: {text:.500}", False)
        error = structured["error"]
        return Outcome(str(error.get("code")), check_error("mcp", error))


Front = RpcFront | HttpFront | McpFront


# --- running -------------------------------------------------------------------------------


@dataclass
class Fuzzer:
    """Runs cases on one front against one daemon, keeping the live session and the tally."""

    settings: Settings
    site: str
    files: Path
    tally: Tally
    daemon_pid: int
    check_every: int = 25
    log: Callable[[str], None] = lambda _: None
    calls: int = 0

    def rpc(self, method: str, **params: Any) -> Any:
        return rpc_client.call(self.settings, method, params, autostart=False)

    def ensure_live(self) -> None:
        """The fuzz session active on the form page (a case may have closed, suspended,
        moved or taken it over)."""
        patient = "30000"  # the daemon's tiers are short; starting Chromium under load is not
        page = f"{self.site}/{LIVE_PAGE}"
        listed = {s["name"]: s for s in self.rpc("sessions")["sessions"]}.get(LIVE, {})
        if listed.get("taken_over"):  # a `takeover` case paused the agent on it
            self.rpc("handback", session=LIVE)
        status = listed.get("status")
        if status == "suspended":
            self.rpc("session.restore", name=LIVE, timeout=patient)
        elif status != "active":
            self.rpc("open", session=LIVE, url=page, timeout=patient)
        with contextlib.suppress(Exception):  # a dialog left open by a case
            self.rpc("dialog", session=LIVE, answer="dismiss")
        tabs = self.rpc("tabs", session=LIVE)["tabs"]
        for extra in tabs[1:]:
            self.rpc("tab.close", session=LIVE, tab=extra["id"])
        if tabs:
            self.rpc("navigate", session=LIVE, tab=tabs[0]["id"], url=page, timeout=patient)
        else:  # the last tab was closed
            self.rpc("open", session=LIVE, url=page, timeout=patient)
        self.rpc("snapshot", session=LIVE)  # hands out the refs e1...

    def alive(self) -> bool:
        """The daemon answers `daemon.status`, as the same process."""
        try:
            return bool(self.rpc("daemon.status")["pid"] == self.daemon_pid)
        except Exception:
            return False

    def run(self, front_name: str, front: Front, case: Case) -> Outcome:
        case = tame(case, self.site, self.files)
        before = log_rows(self.settings)
        try:
            outcome = front.call(case)
        except Exception as exc:
            outcome = Outcome("transport", f"{front_name}: {type(exc).__name__}: {exc!s:.300}")
        after = log_rows(self.settings)
        shown = f"{case.command} {json.dumps(case.params)[:300]}"
        self.tally.cases[front_name] += 1
        self.tally.outcomes[(front_name, outcome.code)] += 1
        if outcome.problem is not None:
            self.tally.problems.append(f"{outcome.problem} <- {shown}")
            if outcome.code in ("internal", "protocol", "transport") or "500" in outcome.problem:
                self.tally.server_errors += 1
        want = expected_rows(case, outcome)
        if after - before != want:
            self.tally.unlogged.append(
                f"{front_name}: {after - before} action_log rows for {outcome.code}, "
                f"want {want} <- {shown}"
            )
        self.calls += 1
        if self.calls % self.check_every == 0 and not self.alive():
            self.tally.crashes += 1
            self.tally.problems.append(f"the daemon stopped answering after {shown}")
            raise DaemonGone(shown)
        if case.command in DISRUPTIVE or outcome.code in ("timeout", "browser_crashed"):
            self.ensure_live()
        return outcome


class DaemonGone(Exception):
    """The daemon died or stopped answering: the run cannot go on."""


def fuzz_settings(state_dir: Path) -> Settings:
    """A daemon for fuzzing: short deadlines and approval waits, no failure screenshots."""
    return Settings.load(
        state_dir=state_dir,
        max_sessions=6,
        timeout_short_ms=1_000,
        timeout_medium_ms=MAX_CASE_MS,
        timeout_long_ms=MAX_CASE_MS * 2,
        approval_timeout_s=0.5,
        failure_screenshots=False,
        health_interval_s=0,
    )


def serve_env(settings: Settings, base: dict[str, str]) -> dict[str, str]:
    """The environment of a `serve --http` (or `mcp`) process on these settings."""
    return dict(base) | {
        "STEADYHAND_" + name.upper(): str(int(value) if isinstance(value, bool) else value)
        for name, value in settings.as_dict().items()
    }


def summary(tally: Tally) -> Iterator[str]:
    """The figures of a run, as lines."""
    yield "cases per front: " + ", ".join(f"{f} {tally.cases[f]}" for f in FRONTS)
    for front in FRONTS:
        codes = sorted((c, n) for (f, c), n in tally.outcomes.items() if f == front)
        yield f"  {front}: " + ", ".join(f"{c} {n}" for c, n in codes)
    yield f"daemon crashes: {tally.crashes}"
    yield f"HTTP 500s / JSON-RPC internal / MCP protocol errors: {tally.server_errors}"
    yield f"other rule breaks (unstructured errors, no hint): {len(tally.problems)}"
    yield f"unlogged (or extra) action_log rows: {len(tally.unlogged)}"
