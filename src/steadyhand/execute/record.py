"""What a command leaves behind: its action-log row (with the files it wrote), its count in
the metrics, its log line and its event in the live feed.

Read from the call (its outcome, files and redactions) and the command's result as it
leaves the daemon, already masked.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from steadyhand.call import Call
from steadyhand.commands import Command
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.observe.log import action_logged
from steadyhand.redact import SecretName, redact
from steadyhand.runtime import Runtime
from steadyhand.store.base import ArtifactFile
from steadyhand.vault import NAME, REFERENCE, mask_data, mask_text


async def record(
    runtime: Runtime,
    command: Command,
    *,
    raw: dict[str, Any],
    call: Call | None,
    session: str,
    started: float,
    request_id: str,
    error: SteadyhandError | None = None,
    result: Any = None,
    part_of: str | None = None,
) -> None:
    """The action's row in the store (with the files it wrote), its count in the metrics,
    and its log line. A command that touches no page has one only when policy refused it
    (a file outside the roots): refusals are evidence."""
    if not command.touches_page and (error is None or error.code != ErrorCode.POLICY_DENIED):
        return
    params = mask_data({k: v for k, v in raw.items() if k != "session"})
    named = params.get("secret")
    if "secret" in command.params.model_fields and isinstance(named, str) and NAME.fullmatch(named):
        params["secret"] = SecretName(named)  # a secret's name, kept: not its value
    paths = call.redactions if call else whole(command)
    params = redact(params, [p for p in paths if not _only_references(params, p)])
    full = error.to_dict() if error is not None else result if isinstance(result, dict) else None
    if error is None and full is not None and command.sensitive_result:
        full = redact(full, [(name,) for name in command.sensitive_result])
    if full is not None and call is not None and call.outcome.targets:
        # What the refs named, for `flow save` (kept in the log, not sent in the reply).
        full = {**full, "targets": mask_data(call.outcome.targets)}
    part_of = mask_text(part_of) if part_of else None
    if full is not None and part_of:
        full = {**full, "part_of": part_of}
    duration_ms = round((time.monotonic() - started) * 1000, 3)
    retries = call.outcome.retries if call else 0
    files = [*call.files, *_downloads(call.outcome.downloads)] if call else []
    row: dict[str, Any] = {
        "session": session,
        "tab": call.tab_id if call else None,
        "command": command.name,
        "params": params,
        "ok": error is None,
        "error_code": str(error.code) if error else None,
        "error_message": error.message if error else None,
        "duration_ms": duration_ms,
        "retries": retries,
        "artifacts": list(call.outcome.evidence) if call else [],
    }
    action_id = await asyncio.to_thread(
        runtime.store.log_action, **row, result=full, request_id=request_id, files=files
    )
    runtime.metrics.action(command.name, str(error.code) if error else "ok", duration_ms, retries)
    runtime.live.feed.publish(
        "action", id=action_id, hint=error.hint if error else None, part_of=part_of, **row
    )
    fields = {
        "session_id": session,
        "tab": call.tab_id if call else None,
        "action_id": action_id,
        "request_id": request_id,
        "command": command.name,
        "duration_ms": duration_ms,
        "retries": retries,
        "ok": error is None,
    }
    action_logged(
        fields,
        error=None
        if error is None
        else {"error_code": str(error.code), "error": error.message, "hint": error.hint},
        details={"params": params, "result": full, "files": [f.path for f in files]},
    )


async def refusal(
    runtime: Runtime,
    command: Command,
    raw: dict[str, Any],
    *,
    started: float,
    request_id: str,
    refused: SteadyhandError,
) -> None:
    """Params refused as unstorable are logged without them."""
    named = raw.get("session")
    session = named.encode(errors="backslashreplace").decode() if isinstance(named, str) else ""
    await record(
        runtime,
        command,
        raw={"params": "(not storable: see the error)"},
        call=None,
        session=session or "default",
        started=started,
        request_id=request_id,
        error=refused,
    )


def _only_references(params: dict[str, Any], path: tuple[str, ...]) -> bool:
    """Whether the value at `path` is nothing but `{{secret:NAME}}` references: names, not
    values, kept so that the log (and a flow saved from it) still says which secret went
    where."""
    value: Any = params
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return isinstance(value, str) and bool(value) and ONLY_REFERENCES.fullmatch(value) is not None


ONLY_REFERENCES = re.compile(rf"(?:{REFERENCE.pattern})+")


def whole(command: Command) -> set[tuple[str, ...]]:
    """Every sensitive param redacted in full: the state before a handler looks closer."""
    return {(name,) for name in command.sensitive}


def _downloads(reported: list[dict[str, Any]]) -> list[ArtifactFile]:
    """The files an act reported downloaded, to index with it, masked as its reply is."""
    return [
        ArtifactFile(
            "download",
            mask_text(str(d.get("filename", ""))),
            mask_text(str(d["path"])),
            int(d.get("bytes", 0)),
        )
        for d in reported
        if d.get("path")
    ]
