"""What a command handler is given: the runtime it works in and its own deadline."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from steadyhand.approvals import Decision
from steadyhand.engine.engine import Engine
from steadyhand.engine.session import Session, Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.files_policy import FileRoots, confine, file_roots
from steadyhand.runtime import Runtime
from steadyhand.store.artifacts import output_path, safe_name
from steadyhand.store.base import ArtifactFile


# Runs one command of the table as a call of its own (execute/run.py's `execute`: validated,
# gated, timed, logged), given its name and params: how `batch` runs its steps.
class Execute(Protocol):
    """How a call runs another command as a call of its own; `part_of` names what it is a
    step of (a flow's step: its action-log row and the live timeline say so)."""

    def __call__(
        self, name: str, params: dict[str, Any], part_of: str | None = None
    ) -> Awaitable[Any]: ...


# Where an act's time goes (its result's `timing`, in ms). resolve: from ref or locator to
# the element; check: the watchdog's sweep, the baseline read and the checks before input;
# input: the rest of each try (Playwright's own checks and the input itself); settle: waiting
# for the page to settle after; changes: reading what changed and what else the act caused
# (tabs, downloads, expectations); record: writing the action log. Dispatch and the pauses
# between tries are in none of them.
STAGES = ("resolve", "check", "input", "settle", "changes", "record")


@dataclass
class StageClock:
    """Seconds spent per stage of one act, summed over its tries."""

    spent: dict[str, float] = field(default_factory=dict)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    # How the input went: "cdp" (steadyhand's own, act/own_input.py) or "playwright: WHY"
    # (the act result's `route`).
    route: str | None = None

    def add(self, stage: str, seconds: float) -> None:
        self.spent[stage] = self.spent.get(stage, 0.0) + max(0.0, seconds)

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as `name`, less what stages inside it took (theirs)."""
        began, staged = self.clock(), self.total()
        try:
            yield
        finally:
            self.add(name, self.clock() - began - (self.total() - staged))

    def total(self) -> float:
        return sum(self.spent.values())

    def shown(self) -> dict[str, float]:
        """Milliseconds per stage, in STAGES' order, for the stages that ran."""
        return {s: round(self.spent[s] * 1000, 1) for s in STAGES if s in self.spent}


@dataclass
class Outcome:
    """What a command did besides its result: its result reports it, and so does its
    error's data when it fails."""

    restored: dict[str, Any] | None = None  # the suspended session it restored first
    recovered: dict[str, Any] | None = None  # the crash recovery its session went through
    reresolved: dict[str, str] = field(default_factory=dict)  # a stale ref -> its new ref
    watchdog: list[dict[str, str]] = field(default_factory=list)  # interruptions cleared
    retries: int = 0  # tries after the first
    evidence: list[str] = field(default_factory=list)  # screenshots of its failure
    downloads: list[dict[str, Any]] = field(default_factory=list)  # what the act reported
    acting: bool = False  # an act got as far as acting (a try passed Act.ready)
    # The session was recovered from its checkpoint after this run had used it: what the
    # run did to the page may be gone (execute/run.py says so in the recovery's `lost`).
    undone: bool = False
    timing: StageClock = field(default_factory=StageClock)  # an act's stages
    # What each ref or locator the act was given named (role, name, context, nth): the
    # action log keeps it, so that `flow save` can find the element again another day.
    targets: dict[str, dict[str, Any]] = field(default_factory=dict)

    def shown(self) -> dict[str, Any]:
        """What an error's data says of it: the parts that happened."""
        parts = {
            "restored": self.restored,
            "recovered": self.recovered,
            "reresolved": self.reresolved,
            "watchdog": self.watchdog,
            "retries": self.retries,
        }
        return {name: value for name, value in parts.items() if value}


@dataclass
class Call:
    """One command in flight."""

    runtime: Runtime
    session_name: str
    deadline: float  # time.monotonic() after which the command has failed
    tab_id: str | None = None
    tab_used: Tab | None = None  # the tab the command acted on, once it asked for one
    session_used: Session | None = None
    started: float = field(default_factory=time.monotonic)
    # What the command did so far (retries, watchdog, re-resolved refs): in its result, and
    # in its error's data when it fails.
    outcome: Outcome = field(default_factory=Outcome)
    # Param paths kept out of logs and the store, e.g. ("text",) or ("fields", "e7").
    redactions: set[tuple[str, ...]] = field(default_factory=set)
    approval: Decision | None = None  # the person's approval this call waited for, if any
    files: list[ArtifactFile] = field(default_factory=list)  # written, indexed with the action
    request_id: str = ""  # names the call in log lines and its action_log row
    # Where progress of long work goes (the front's, when its caller asked for it).
    progress: Callable[[int, int | None, str], Awaitable[None]] | None = None
    # Where a notice goes: one line the caller must see at once, whatever it asked of
    # progress (the approval it waits on, and how to decide it).
    notice: Callable[[str], Awaitable[None]] | None = None
    # The working directory of the CLI that sent this call (absolute); None from any other
    # front. Its relative paths start there, and it may be a file root (files_policy.py).
    cli_cwd: str | None = None
    # How this call runs another command (a batch's step) as a call of its own.
    execute: Execute | None = None

    @property
    def engine(self) -> Engine:
        return self.runtime.engine

    def remaining_ms(self) -> float:
        """Time left, less a margin so Playwright's own timeout fires before ours."""
        return float(max(1, int((self.deadline - time.monotonic()) * 1000) - 100))

    def restart(self) -> None:
        """Forget what a first run did (it ran into a crash): the command runs again."""
        self.tab_id = self.tab_used = self.session_used = None
        # A restore happened before the first run: still true.
        self.outcome = Outcome(restored=self.outcome.restored)

    def keep(self, path: Path | str, kind: str, label: str) -> None:
        """Index a file this command wrote (screenshot, pdf, download, trace) with its action."""
        try:
            size = os.stat(path).st_size
        except OSError:
            return  # not written after all
        self.files.append(ArtifactFile(kind, label, str(path), size))

    def file_roots(self, folder: str | None = None) -> FileRoots:
        """Where this call's file paths must resolve (files_policy.py). A relative path
        starts at the CLI's working directory, or for other fronts at the artifacts folder
        of `folder` (default: the call's session). Blocking (it resolves the roots)."""
        settings = self.runtime.settings
        base = settings.artifacts_dir / safe_name(folder or self.session_name)
        return file_roots(settings, base, self.cli_cwd)

    async def output_path(
        self, given: str | None, command: str, *, label: str, ext: str, folder: str | None = None
    ) -> Path:
        """Where `command` writes its file: the caller's path, confined to the file roots,
        or an artifact of `folder` (default: the call's session)."""
        folder = folder or self.session_name

        def chosen() -> Path:
            artifacts = self.runtime.settings.artifacts_dir
            roots = self.file_roots(folder)
            return output_path(given, command, artifacts, folder, label=label, ext=ext, roots=roots)

        return await asyncio.to_thread(chosen)

    async def input_paths(self, given: list[str], command: str) -> list[Path]:
        """Files `command` reads, resolved and confined to the file roots."""

        def chosen() -> list[Path]:
            roots = self.file_roots()
            return [confine(path, roots, write=False, command=command) for path in given]

        return await asyncio.to_thread(chosen)

    async def report_progress(self, done: int, total: int | None, message: str) -> None:
        """Tell the caller how far long work got, when its front can show it."""
        if self.progress is not None:
            await self.progress(done, total, message)

    async def notify(self, message: str) -> None:
        """Tell the caller at once what the call waits on, when its front can show it."""
        if self.notice is not None:
            await self.notice(message)

    def redact(self, *path: str) -> None:
        """Keep the param at this path out of logs and the store."""
        self.redactions.add(path)

    def reveal(self, *path: str) -> None:
        """The param at this path proved not secret (e.g. not typed into a password field)."""
        self.redactions.discard(path)

    async def claim(self, name: str | None = None) -> None:
        """Hold the lease of the session this command acts on (`name`, else its session)
        when the store is shared: `session_leased` if another daemon runs it."""
        if self.runtime.leases is not None:
            await self.runtime.leases.claim(name or self.session_name)

    async def restore_suspended(self) -> bool:
        """Restore the command's session if a stopped daemon left it suspended (unless the
        setting `restore_sessions` is `never`); whether this command restored it."""
        if self.runtime.settings.restore_sessions == "never":
            return False
        report = await self.engine.restore_on_use(self.session_name)
        if report is None:
            return False
        self.outcome.restored = {
            "checkpoint": report["from"],
            "tabs": report["restored"],
            "lost": report["lost"],
        }
        return True

    async def session(
        self,
        create: bool = False,
        profile: str | None = None,
        rules: dict[str, Any] | None = None,
        browser: str | None = None,
        emulation: dict[str, Any] | None = None,
    ) -> Session:
        """The command's session; a recovery it went through since is reported once.

        A suspended session (a stopped daemon left it) is restored first, unless the
        setting `restore_sessions` is `never`; the command reports it as `restored`.
        """
        await self.restore_suspended()
        session = await self.engine.session(
            self.session_name,
            create=create,
            profile=profile,
            rules=rules,
            browser=browser,
            emulation=emulation,
        )
        if session.recovered is not None:
            self.outcome.recovered, session.recovered = session.recovered, None
            # Picked up after this run used the session the crash took: its work went too.
            self.outcome.undone = self.session_used is not None and self.session_used is not session
        self.session_used = session
        return session

    async def tab(self, tab_id: str | None, dialog_ok: bool = False) -> Tab:
        """The tab a command acts on (named, or the session's last used), noted for the log.

        A tab stopped by an open dialog answers nothing until the dialog is answered, so
        commands other than those that handle it (`dialog_ok`) are refused at once.
        """
        tab = (await self.session()).tab(tab_id)
        self.tab_id = tab.id
        self.tab_used = tab
        info = tab.events.dialog_info()
        if info is not None and not dialog_ok:
            raise SteadyhandError(
                ErrorCode.DIALOG_OPEN,
                f"tab {tab.id} is stopped by a {info['type']} dialog: {info['message']!r}",
                "answer it first: `dialog accept` (or `dialog accept --text T` for a prompt) "
                "or `dialog dismiss`",
                {"dialog": info, "tab": tab.id},
            )
        return tab

    def tab_closed(self) -> bool:
        """Whether the tab this command acts on was closed under it."""
        return self.tab_used is not None and self.tab_used.page.is_closed()
