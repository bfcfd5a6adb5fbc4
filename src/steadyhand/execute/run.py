"""Run one command from the table: validate, approve, run within its deadline, map errors,
record.

Every front calls `execute`; none of them validates, times or logs on its own.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from steadyhand.act.evidence import evidence_screenshot
from steadyhand.act.failures import TIMEOUT_HINT, translate
from steadyhand.call import Call
from steadyhand.commands import COMMANDS, Command
from steadyhand.commands.table import validated
from steadyhand.engine import playwright_errors
from steadyhand.engine.history import where
from steadyhand.engine.nav_proxy import Blocked
from steadyhand.engine.session import Session, Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.execute import record as recording
from steadyhand.execute.gate import gate
from steadyhand.live.takeover import DESKTOP
from steadyhand.runtime import Runtime
from steadyhand.vault import mask_data, mask_error, mask_text

log = logging.getLogger("steadyhand.execute")
Progress = Callable[[int, int | None, str], Awaitable[None]]
Notice = Callable[[str], Awaitable[None]]

# Params nest a few levels (a map of fields, a list of modifiers); far deeper is garbage.
MAX_DEPTH = 32
# Errors an act raises when it refuses before acting (its target is not there, or not
# one element, or its input is wrong): the page is as the agent last saw it, so its
# failure has no screenshot. Raised after a try acted, they keep theirs.
REFUSALS = frozenset(
    {
        ErrorCode.STALE_REF,
        ErrorCode.NOT_FOUND,
        ErrorCode.BAD_REQUEST,
        ErrorCode.AMBIGUOUS,
        ErrorCode.UNKNOWN_TAB,
    }
)


async def execute(
    runtime: Runtime,
    method: str,
    raw_params: dict[str, Any] | None,
    progress: Progress | None = None,
    cli_cwd: str | None = None,
    *,
    notice: Notice | None = None,
    part_of: str | None = None,
) -> Any:
    """The command's result as JSON-ready data, or a SteadyhandError.

    `progress`: where long work (a big report) says how far it got, when the caller's
    front can show it. `cli_cwd`: the working directory of the CLI that sent the call
    (None from other fronts): where its relative paths start, and a file root.
    `notice`: where a line the caller must see at once goes (the approval it waits on).
    """
    raw = dict(raw_params or {})
    command = _command(method)
    started = time.monotonic()
    request_id = secrets.token_hex(8)
    progress = _masked(runtime, progress)
    notice = _masked_notice(notice)
    try:
        _check_raw(command, raw)
    except SteadyhandError as refused:
        await recording.refusal(
            runtime, command, raw, started=started, request_id=request_id, refused=refused
        )
        raise
    session_name = str(raw.get("session") or "default")
    call: Call | None = None
    data: Any = None
    failure: Exception | None = None
    error: SteadyhandError | None = None
    try:
        params = validated(command, raw)
        timeout_ms = runtime.settings.timeout_ms(params.timeout, command.timeout)
        call = Call(
            runtime,
            params.session,
            started + timeout_ms / 1000,
            redactions=recording.whole(command),
            started=started,
            request_id=request_id,
            progress=progress,
            cli_cwd=cli_cwd,
            execute=lambda name, step, part_of=None: execute(
                runtime, name, step, cli_cwd=cli_cwd, notice=notice, part_of=part_of
            ),
            notice=notice,
        )
        await _before_run(call, command, params, raw, timeout_ms)
        try:
            running = _run_with_evidence(runtime, command, call, params)
            # A batch keeps its deadline between its steps, each bounded by its own: cut
            # off mid-step, the step would leave no action-log row.
            result = await (
                running if command.runs_steps else asyncio.wait_for(running, timeout_ms / 1000)
            )
        except TimeoutError as exc:
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"{command.name} did not finish within its {timeout_ms} ms deadline",
                TIMEOUT_HINT,
            ) from exc
        data = await _with_notes(runtime, command, call, result.model_dump(mode="json"))
    except Exception as exc:
        failure = exc
        if isinstance(exc, SteadyhandError):
            error = exc
        else:
            closed = call is not None and call.tab_closed()
            error = translate(exc, runtime.engine.browser_running, tab_closed=closed)
        await _report_recovery(runtime, call)  # _explain puts it in the error's data
        await _explain(runtime, command, call, error, started)
    # What leaves the daemon (replies, the action log, log lines) never holds a secret's
    # value, wherever it came from (a page that echoes it, an error quoting the text).
    data = _mask_outcome(data, error)
    recorded = time.monotonic()
    await recording.record(
        runtime,
        command,
        raw=raw,
        call=call,
        session=session_name,
        started=started,
        request_id=request_id,
        error=error,
        result=data,
        part_of=part_of,
    )
    if isinstance(data, dict) and isinstance(data.get("timing"), dict):  # an act's stages
        spent = round((time.monotonic() - recorded) * 1000, 1)
        data = {**data, "timing": {**data["timing"], "record": spent}}
    await _after(runtime, command, call)
    if error is None:
        return data
    if error is failure:
        raise error
    raise error from failure


def _masked(runtime: Runtime, progress: Progress | None) -> Progress | None:
    """Secrets as the file holds them now (a secret added since is known to this command),
    and progress notes (a streaming command's output: desktop events with a field's text)
    with no value of a named secret in them, as the reply."""
    runtime.secrets.refresh()
    if progress is None:
        return None
    send = progress

    async def masked(done: int, total: int | None, message: str) -> None:
        await send(done, total, mask_text(message))

    return masked


def _masked_notice(notice: Notice | None) -> Notice | None:
    """Notices with no value of a named secret in them, as the reply."""
    if notice is None:
        return None
    send = notice

    async def masked(message: str) -> None:
        await send(mask_text(message))

    return masked


def _mask_outcome(data: Any, error: SteadyhandError | None) -> Any:
    """The result, or the error (in place), with every value of a named secret masked."""
    if error is not None:
        mask_error(error)
        return None
    return mask_data(data)


def _command(method: str) -> Command:
    command = COMMANDS.get(method)
    if command is None:
        close = difflib.get_close_matches(method, COMMANDS, n=1)
        raise SteadyhandError(
            ErrorCode.UNKNOWN_COMMAND,
            f"unknown command {method!r}",
            (f"did you mean {close[0]!r}? " if close else "")
            + "commands: "
            + ", ".join(sorted(COMMANDS)),
        )
    return command


async def _before_run(
    call: Call, command: Command, params: Any, raw: dict[str, Any], timeout_ms: float
) -> None:
    """The session's restore, `unknown_session` and the approval gate, before the command.

    Restoring a suspended session and a person's approval are waits that are not the
    command's: its deadline starts after them.
    """
    if command.needs_session or command.creates_session:
        await call.claim()  # session_leased when another daemon runs it
    restored = (command.needs_session or command.creates_session) and (
        await call.restore_suspended()
    )
    if command.needs_session and not command.creates_session:
        await call.session()  # unknown_session before anything else
    changes = command.touches_page and command.in_browser and not command.reads_only
    if changes and not command.during_takeover:
        # A person drives the session (live view): changes are refused until hand back.
        call.runtime.live.takeovers.check(call.session_name, command.name)
    desktop = command.caps == "desktop" and not command.reads_only and not command.during_takeover
    if desktop:
        call.runtime.live.takeovers.check(DESKTOP, command.name)  # a person drives the desktop
    waited = await gate(call, command, params, raw)
    if waited and desktop:  # a person may have taken the desktop over during the wait
        call.runtime.live.takeovers.check(DESKTOP, command.name)
    if waited or restored:
        call.started = time.monotonic()
        call.deadline = call.started + timeout_ms / 1000


async def _after(runtime: Runtime, command: Command, call: Call | None) -> None:
    """Checkpoint the command's session when it navigated, or every N actions."""
    if call is None or call.session_used is None or not command.touches_page:
        return
    await runtime.engine.after_command(call.session_used, acted=True)


def changes_page(name: str) -> bool:
    """Whether a command may leave the page other than it found it."""
    command = COMMANDS.get(name)
    return command is not None and command.changes_page


async def _with_notes(
    runtime: Runtime, command: Command, call: Call, data: dict[str, Any]
) -> dict[str, Any]:
    """The result with what else happened to the call: the approval it waited for, a
    recovery or restore of its session, connections held for a person's approval,
    connections the navigation policy refused (`policy_denied` when one of them was a
    tab's page)."""
    if call.approval is not None:
        data["approval"] = {"id": call.approval.id, "waited_ms": call.approval.waited_ms}
    if await _report_recovery(runtime, call):
        recovered = call.outcome.recovered or {}
        if call.outcome.undone and (command.changes_page or command.acts):
            # It ran on the page the crash took; the restore put the checkpoint's back.
            recovered["lost"] = [
                *recovered.get("lost", []),
                f"this {command.name}: it ran before the crash, and the restore from "
                "the checkpoint undid what it did to the page (redo it if still wanted)",
            ]
        data["recovered"] = recovered
    if call.outcome.restored is not None:
        data["restored"] = call.outcome.restored
    held = runtime.approvals.holding(call.session_name)
    if held:  # a page's own navigation there waits for a person (`approvals` lists it)
        data["held"] = held
    blocked = refused_during(call)
    if blocked:
        data["blocked"] = [b.shown() for b in blocked]
        await raise_if_tab_blocked(call, blocked)
    return data


def refused_during(call: Call) -> list[Blocked]:
    """Connections of the command's session the navigation policy refused while it ran."""
    session = call.session_used
    if session is None or session.proxy is None:
        return []
    return session.proxy.refused_since(call.started)


async def raise_if_tab_blocked(call: Call, blocked: list[Blocked]) -> None:
    """`policy_denied` when what the command did loaded a refused page in one of the
    session's tabs (a link, a redirect, a form, a script or a popup led there): the tab
    shows steadyhand's refusal page instead, or for https (a refused tunnel) Chromium's
    error page, whose history entry keeps the URL it was going to."""
    session = call.session_used
    assert session is not None
    for tab in list(session.tabs.values()):
        if tab.page.is_closed():
            continue
        url = tab.page.url
        if url.startswith("chrome-error://"):
            now = await where(tab.page)
            url = now.urls[now.index] if now is not None and now.urls else url
        host = urlsplit(url).hostname
        hit = next((b for b in blocked if host and b.host == host), None)
        if hit is not None:
            error = hit.refusal.error(f"{tab.id} going to {url}")
            error.hint += f"; {tab.id} shows the refusal page (`back` leaves it)"
            error.data |= {"tab": tab.id, "blocked": [b.shown() for b in blocked]}
            raise error


async def _report_recovery(runtime: Runtime, call: Call | None) -> bool:
    """Complete the recovery this command's session went through, if any (see below)."""
    if call is None or not call.outcome.recovered:
        return False
    call.outcome.recovered = await asyncio.to_thread(
        recovery_report, runtime, call.session_name, call.outcome.recovered
    )
    return True


def recovery_report(runtime: Runtime, session: str, report: dict[str, Any]) -> dict[str, Any]:
    """A recovery as the agent reads it: actions after the checkpoint count as lost."""
    report = dict(report)
    after = int(report.pop("last_action", 0) or 0)
    if after:
        redo = [
            f"{row.command} {json.dumps(row.params, sort_keys=True)[:120]}"
            for row in runtime.store.actions(session, after=after)
            if row.ok and changes_page(row.command)
        ]
        if redo:
            report["lost"] = [
                *report.get("lost", []),
                f"{len(redo)} action(s) after the checkpoint (their effect on the page may be "
                "gone; check before redoing): " + "; ".join(redo),
            ]
    return report


async def _run_with_evidence(runtime: Runtime, command: Command, call: Call, params: Any) -> Any:
    """The handler, between screenshots of its tab when the `step_screenshots` setting asks
    for them (a failure's screenshot is taken in _explain)."""
    steps = command.acts and command.in_browser and runtime.settings.step_screenshots
    if steps:
        try:
            tab = (await call.session()).tab(getattr(params, "tab", None))
        except SteadyhandError:
            tab = None  # the handler reports it
        await _step_screenshot(runtime, command, call, tab, "before")
    result = await _run(runtime, command, call, params)
    if steps:
        await _step_screenshot(runtime, command, call, call.tab_used, "after")
    return result


async def _step_screenshot(
    runtime: Runtime, command: Command, call: Call, tab: Tab | None, label: str
) -> None:
    if tab is None:
        return
    root = runtime.settings.artifacts_dir
    shot = await evidence_screenshot(root, call.session_name, tab, command.name, label)
    if shot is not None:
        call.keep(shot, "screenshot", label)


async def _run(runtime: Runtime, command: Command, call: Call, params: Any) -> Any:
    """The handler; once more on the recovered session when the browser died under it.

    Whatever the first run did died with that browser; the second runs on the session as
    its checkpoint restored it (refs from before are stale there, and say so), and its
    result reports the recovery.
    """
    # The handler's own use of the session is what a recovery can undo (call.session():
    # the gate and the restore before it used the session too).
    before, call.session_used = call.session_used, None
    try:
        return await command.handler(call, params)
    except (PlaywrightError, SteadyhandError) as exc:
        session = call.session_used
        if session is None or not _browser_gone(exc, session):
            raise
        if not await runtime.engine.lost_under(session):
            raise
        log.warning(
            "%s ran into the crash of session %s; running it again", command.name, session.name
        )
    finally:
        if call.session_used is None:
            call.session_used = before
    call.restart()
    await call.session()  # waits for the recovery
    return await command.handler(call, params)


def _browser_gone(exc: Exception, session: Session) -> bool:
    """Whether a failure looks like the browser going away (its pages close first)."""
    if isinstance(exc, SteadyhandError):
        return exc.code == ErrorCode.UNKNOWN_TAB and not session.tabs
    return playwright_errors.browser_gone(str(exc))


def _check_raw(command: Command, raw: dict[str, Any]) -> None:
    """Refuse what no command takes and nothing downstream can hold: params nested deeper
    than MAX_DEPTH (redaction and the store recurse), and lone surrogates (JSON allows
    `"\\ud800"`; no store, log or page takes it).

    A loop, not recursion: params may nest as deep as the JSON decoder allowed."""
    pending: list[tuple[str, int, Any]] = [("params", 0, raw)]
    while pending:
        where, depth, value = pending.pop()
        if isinstance(value, dict | list) and depth >= MAX_DEPTH:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"bad params for {command.name}: {where} nests over {MAX_DEPTH} levels deep",
                f"{command.name} takes: {', '.join(command.params.model_fields)}",
            )
        if isinstance(value, dict):
            pending.extend(("a key of " + where, depth, k) for k in value)
            pending.extend((f"{where}.{ascii(k)[1:-1]}", depth + 1, v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((f"{where}[{i}]", depth + 1, v) for i, v in enumerate(value))
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode()
            except UnicodeEncodeError:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"bad params for {command.name}: {where}: the text is not valid Unicode "
                    "(it holds a lone surrogate)",
                    "send UTF-8 text; \\u escapes of surrogates must come in pairs",
                ) from None


async def _explain(
    runtime: Runtime, command: Command, call: Call | None, error: SteadyhandError, started: float
) -> None:
    """Add what the command did before failing, and for an act, a screenshot of the tab
    (not for a refusal that acted on nothing: the page is as the agent last saw it)."""
    if call is None:
        return
    error.data = {**call.outcome.shown(), **error.data}
    error.data["duration_ms"] = round((time.monotonic() - started) * 1000, 1)
    tab = call.tab_used
    refused = error.code in REFUSALS and not call.outcome.acting
    if command.acts and tab is not None and runtime.settings.failure_screenshots and not refused:
        shot = await evidence_screenshot(
            runtime.settings.artifacts_dir, call.session_name, tab, command.name, "failure"
        )
        if shot is not None:
            call.keep(shot, "screenshot", "failure")
            call.outcome.evidence.append(shot)
            error.data["artifacts"] = [*error.data.get("artifacts", []), shot]
