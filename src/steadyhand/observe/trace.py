"""A session's action timeline, read back from the store: what `steadyhand trace` prints
and the session report draws.

Each entry is one action_log row: the command, its (redacted) params, its outcome (`ok` or
the error code, with the message and hint), duration, retries, the files it wrote, and a
one-line note of what it did (the URL it reached, what an element now holds, ...).
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from steadyhand.store.base import ActionRow, ArtifactRow, Store

KIND_BY_EXT = {
    ".png": "screenshot",
    ".pdf": "pdf",
    ".zip": "trace",
    ".html": "report",
    ".avi": "video",
}
NOTE_CHARS = 160


class ArtifactInfo(BaseModel):
    kind: str = Field(description="screenshot, pdf, download, trace, report or video")
    label: str = Field(description="e.g. failure, before, after, or a tab id")
    path: str
    bytes: int = Field(description="size when written (0: not indexed)")
    exists: bool = Field(description="false once retention (or anyone) deleted the file")


class TraceEntry(BaseModel):
    id: int = Field(description="the action_log row id")
    at: float = Field(description="when it ended (Unix time)")
    command: str
    tab: str | None
    params: dict[str, Any] = Field(description="as stored: secrets redacted")
    ok: bool
    outcome: str = Field(description="ok, or the error code")
    error: str | None = None
    hint: str | None = None
    duration_ms: float
    retries: int
    note: str = Field("", description="what it did, in one line")
    request_id: str | None = None
    artifacts: list[ArtifactInfo] = Field(default_factory=list)


def entries_with_results(
    store: Store, session: str, navigations: Collection[str], every_life: bool = False
) -> list[tuple[TraceEntry, dict[str, Any]]]:
    """The session's actions, oldest first, each with its stored result (for a failure:
    the error with its data). `navigations`: the commands that go to a URL they are given
    (the table's `navigates`).

    A name can be reused: after `close` the next `open` starts a new session of the same
    name. Only the actions of its latest life are returned (those after the last `close`
    that something followed), unless `every_life`.
    """
    after = 0 if every_life else store.life_start(session)
    rows = store.actions(session, limit=1 << 62, after=after)
    indexed: dict[int, list[ArtifactRow]] = {}
    for artifact in store.artifacts(session):
        if artifact.action_id is not None:
            indexed.setdefault(artifact.action_id, []).append(artifact)
    return [(entry(row, indexed.get(row.id, []), navigations), row.result or {}) for row in rows]


def videos(store: Store, session: str, since: float = 0.0) -> list[ArtifactInfo]:
    """The session's recordings (`record`) indexed at or after `since`, oldest first: those
    an action saved, and those a close saved with no action to hold them."""
    return [
        ArtifactInfo(
            kind=a.kind, label=a.label, path=a.path, bytes=a.bytes, exists=Path(a.path).exists()
        )
        for a in store.artifacts(session)
        if a.kind == "video" and a.ts >= since
    ]


def entry(row: ActionRow, indexed: list[ArtifactRow], navigations: Collection[str]) -> TraceEntry:
    result = row.result or {}
    files = [
        ArtifactInfo(
            kind=a.kind, label=a.label, path=a.path, bytes=a.bytes, exists=Path(a.path).exists()
        )
        for a in indexed
    ]
    known = {a.path for a in indexed}
    for path in row.artifacts:  # rows from before the index (store version 4) name paths only
        if path not in known:
            exists = Path(path).exists()
            kind = KIND_BY_EXT.get(Path(path).suffix, "download")
            files.append(
                ArtifactInfo(
                    kind=kind,
                    label="failure" if "failure" in Path(path).name else "",
                    path=path,
                    bytes=Path(path).stat().st_size if exists else 0,
                    exists=exists,
                )
            )
    return TraceEntry(
        id=row.id,
        at=row.ts,
        command=row.command,
        tab=row.tab,
        params=row.params,
        ok=row.ok,
        outcome="ok" if row.ok else (row.error_code or "error"),
        error=row.error_message,
        hint=result.get("hint") if not row.ok else None,
        duration_ms=row.duration_ms,
        retries=row.retries,
        note=note(row.command, result, navigations) if row.ok else "",
        request_id=row.request_id,
        artifacts=files,
    )


def note(command: str, result: dict[str, Any], navigations: Collection[str]) -> str:
    """One line on what a successful action did, from its stored result."""
    parts: list[str] = []
    if result.get("navigated") and result.get("url"):
        parts.append(f"→ {result['url']}")
    elif command in navigations and result.get("url"):
        parts.append(str(result["url"]))
    if "refs" in result and "chars" in result:
        parts.append(f"{result['refs']} refs, {result['chars']} chars")
    if result.get("reresolved"):
        parts.append("re-resolved " + json.dumps(result["reresolved"]))
    for key in ("value", "checked", "selected"):
        if key in result and result[key] not in (None, "", []):
            parts.append(f"{key}={json.dumps(result[key], ensure_ascii=False)}")
    for key, label in (("downloads", "downloaded"), ("popups", "popup"), ("dialog", "dialog")):
        if result.get(key):
            parts.append(label)
    text = "; ".join(parts)
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def timeline_text(session: str, items: list[TraceEntry], total: int, failed: int) -> str:
    """The timeline as a person (or a model) reads it: `total` actions, `failed` of them
    failed, `items` shown."""
    spent = sum(e.duration_ms for e in items) / 1000
    shown = f" ({len(items)} shown)" if len(items) < total else ""
    lines = [f"session {session} · {total} actions{shown} · {failed} failed"]
    lines[0] += f" · {spent:.2f} s in the actions shown"
    width = max((len(e.command) for e in items), default=0)
    for e in items:
        clock = time.strftime("%H:%M:%S", time.localtime(e.at)) + f".{int(e.at * 1000) % 1000:03d}"
        retries = f" +{e.retries} retries" if e.retries else ""
        params = _params_text(e.params)
        lines.append(
            f"#{e.id:<5} {clock}  {e.command:<{width}}  {e.outcome:<10} "
            f"{e.duration_ms:>8.0f} ms{retries}  {params}".rstrip()
        )
        if e.note:
            lines.append(f"       {e.note}")
        if e.error:
            lines.append(f"       error: {e.error}")
        if e.hint:
            lines.append(f"       hint: {e.hint}")
        for a in e.artifacts:
            what = f"{a.kind} {a.label}" if a.label else a.kind
            lines.append(f"       {what}: {a.path}" + ("" if a.exists else " (deleted)"))
    return "\n".join(lines)


def _params_text(params: dict[str, Any]) -> str:
    text = " ".join(
        f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
        for k, v in params.items()
    )
    return text if len(text) <= 120 else text[:119] + "…"
