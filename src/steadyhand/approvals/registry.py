"""Approvals in flight: ask a person, wait for `approve`/`deny`, record the decision.

A request is stored as pending (and POSTed to the webhook, if set), then waits up to
approval_timeout_s for a decision. It ends as one of:

- approved / denied: a person ran `steadyhand approve ID` / `deny ID` (with a note);
- expired: nobody decided in time;
- cancelled: the daemon stopped (or the call was abandoned) while it waited. Approvals a
  killed daemon left pending are cancelled by the next daemon on start.

Only `approved` lets the call go on. The stored row, the log lines and the webhook carry
the call's params as redacted for the action log, never typed text. The caller is told at
once, when it listens (`notify`), which id it waits on and how to decide it
(`waiting_notice`): the CLI prints that on stderr, MCP sends it as a notification.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from steadyhand.approvals.policy import Policy
from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.base import ApprovalRow, Store
from steadyhand.webhook import Webhook

log = logging.getLogger("steadyhand.approvals")

PENDING, APPROVED, DENIED, EXPIRED, CANCELLED = (
    "pending",
    "approved",
    "denied",
    "expired",
    "cancelled",
)
LIST_HINT = "list them with `steadyhand approvals --all`"


@dataclass(frozen=True)
class Decision:
    id: str
    status: str
    note: str | None
    decided_at: float
    waited_ms: float = 0.0

    @property
    def approved(self) -> bool:
        return self.status == APPROVED


@dataclass
class _Waiting:
    row: ApprovalRow
    decided: asyncio.Future[Decision]


class Approvals:
    """The runtime's approvals: the policy, the requests waiting, and the decisions."""

    def __init__(self, settings: Settings, store: Store, stopping: asyncio.Event) -> None:
        self.policy = Policy.from_settings(settings)
        self.timeout_s = max(0.0, settings.approval_timeout_s)
        self.webhook = (
            Webhook(settings.approval_webhook, "approval webhook", "approval_webhook")
            if settings.approval_webhook
            else None
        )
        self.store = store
        self._stopping = stopping
        self._waiting: dict[str, _Waiting] = {}
        # approval_domains entries a person approved for a session: its pages may connect.
        self._granted: dict[str, set[str]] = {}
        self._holding: dict[tuple[str, str], asyncio.Future[Decision]] = {}
        # Told of every request as it opens and as it ends (the live view's feed).
        self.on_change: Callable[[dict[str, Any]], None] | None = None

    async def request(
        self,
        *,
        session: str | None,
        command: str,
        target: str,
        reason: str,
        params: Any,
        notify: Callable[[str], Awaitable[None]] | None = None,
    ) -> Decision:
        """Ask for approval and wait for the decision (at most approval_timeout_s).

        `notify` is told `waiting_notice` as soon as the request can be decided."""
        started = time.monotonic()
        waiting = await self._open(session, command, target, reason, params)
        row = waiting.row
        log.info("approval %s requested: %s %s (%s)", row.id, command, target, reason)
        if self.webhook is not None:
            self.webhook.send(self._payload(row), f"approval {row.id}")
        self._tell(row, PENDING, None)
        stopping: asyncio.Future[Any] = asyncio.ensure_future(self._stopping.wait())
        try:
            if notify is not None:
                await _tell_caller(notify, waiting_notice(row))
            await asyncio.wait(
                {waiting.decided, stopping},
                timeout=self.timeout_s,
                return_when=asyncio.FIRST_COMPLETED,
            )
        except asyncio.CancelledError:
            if self._waiting.pop(row.id, None) is not None:
                self.store.settle_approval(row.id, CANCELLED, "the call was abandoned", time.time())
                self._tell(row, CANCELLED, "the call was abandoned")
            raise
        finally:
            stopping.cancel()
        if not waiting.decided.done():
            # Nobody decided: expired, or cancelled by the daemon stopping.
            self._waiting.pop(row.id, None)
            status, note = (
                (CANCELLED, "the daemon stopped")
                if self._stopping.is_set()
                else (EXPIRED, f"no decision within {self.timeout_s:g} s")
            )
            waiting.decided.set_result(Decision(row.id, status, note, time.time()))
            await asyncio.to_thread(self.store.settle_approval, row.id, status, note, time.time())
        decision = replace(waiting.decided.result(), waited_ms=_ms_since(started))
        log.info("approval %s %s", row.id, decision.status)
        self._tell(row, decision.status, decision.note)
        return decision

    def grant(self, session: str | None, url: str) -> None:
        """A person approved going to `url`: its approval_domains entry is open to the
        session's connections from now on (asked once, not once per connection)."""
        domain = self.policy.listed_domain(url)
        if domain is not None and session is not None:
            self._granted.setdefault(session, set()).add(domain)

    def holding(self, session: str | None) -> list[str]:
        """The approval_domains entries the session's connections wait on a person for."""
        return sorted(domain for (held, domain) in self._holding if held == session)

    async def hold(self, session: str, host: str) -> str | None:
        """A connection of the session's browser to `host`: None when it may go (not
        listed in approval_domains, or approved), else why not. Held until a person
        decides; the session's connections to one domain share one request."""
        domain = self.policy.listed_domain(f"http://{host}/")
        if domain is None or domain in self._granted.get(session, set()):
            return None
        key = (session, domain)
        pending = self._holding.get(key)
        if pending is None:
            pending = self._holding[key] = asyncio.ensure_future(
                self.request(
                    session=session,
                    command="navigation",
                    target=host,
                    reason=f"a page connects to {domain} (listed in approval_domains)",
                    params={"host": host},
                )
            )
            pending.add_done_callback(lambda _done: self._holding.pop(key, None))
        decision = await asyncio.shield(pending)
        if decision.approved:
            self._granted.setdefault(session, set()).add(domain)
            return None
        return f"approval {decision.id} {decision.status}"

    async def _open(
        self, session: str | None, command: str, target: str, reason: str, params: Any
    ) -> _Waiting:
        """Store the request as pending and register it as waiting, under a fresh id."""
        while True:
            row = ApprovalRow(
                id=secrets.token_hex(3),
                session=session,
                command=command,
                target=target,
                params=params,
                reason=reason,
                status=PENDING,
                requested_at=time.time(),
            )
            if row.id in self._waiting:
                continue
            # Registered first, so a decision that comes as soon as the row is visible finds it.
            waiting = self._waiting[row.id] = _Waiting(
                row, asyncio.get_running_loop().create_future()
            )
            if await asyncio.to_thread(self.store.add_approval, row):
                break
            del self._waiting[row.id]  # the id was used before
        if waiting.decided.done():  # decided before the row was stored: record it now
            done = waiting.decided.result()
            await asyncio.to_thread(
                self.store.settle_approval, row.id, done.status, done.note, done.decided_at
            )
        return waiting

    async def decide(self, approval_id: str, approve: bool, note: str | None) -> ApprovalRow:
        """A person's decision on a pending approval: the row as decided."""
        key = approval_id.strip().lower()
        status = APPROVED if approve else DENIED
        waiting = self._waiting.pop(key, None)
        if waiting is None:
            raise await self._not_waiting(approval_id, key)
        now = time.time()
        waiting.decided.set_result(Decision(key, status, note, now))
        await asyncio.to_thread(self.store.settle_approval, key, status, note, now)
        log.info("approval %s %s by a person", key, status)
        return replace(waiting.row, status=status, note=note, decided_at=now)

    async def _not_waiting(self, approval_id: str, key: str) -> SteadyhandError:
        row = await asyncio.to_thread(self.store.approval, key)
        if row is None:
            return SteadyhandError(
                ErrorCode.NOT_FOUND,
                f"there is no approval {approval_id!r}",
                f"ids are the 6 characters `approvals` shows; {LIST_HINT}",
                {"approval": approval_id},
            )
        was = row.status if row.status != PENDING else "no longer waiting (it just ended)"
        return SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"approval {key} is already decided: {was}",
            "only a pending approval can be decided; the agent has to ask again "
            f"(a new request, with a new id) if it still needs it; {LIST_HINT}",
            {"approval": key, "status": row.status},
        )

    def listing(self, include_all: bool, recent: int = 20) -> list[ApprovalRow]:
        """Pending first, then the latest decisions (every one with `include_all`)."""
        return self.store.approvals(decided_limit=1_000_000 if include_all else recent)

    def _tell(self, row: ApprovalRow, status: str, note: str | None) -> None:
        if self.on_change is not None:
            self.on_change({**self._payload(row), "status": status, "note": note})

    def _payload(self, row: ApprovalRow) -> dict[str, Any]:
        return {
            "id": row.id,
            "session": row.session,
            "command": row.command,
            "target": row.target,
            "reason": row.reason,
            "params": row.params,
            "requested_at": row.requested_at,
            "expires_at": row.requested_at + self.timeout_s,
            "approve": f"steadyhand approve {row.id}",
            "deny": f"steadyhand deny {row.id}",
        }


def waiting_notice(row: ApprovalRow) -> str:
    """One line for the caller that waits: the id, what it is about, how to decide it."""
    what = f"{row.command} {row.target}" if row.target else f"{row.command}: {row.reason}"
    return (
        f"waiting for approval {row.id} ({what}): "
        f"steadyhand approve {row.id} | steadyhand deny {row.id}"
    )


async def _tell_caller(notify: Callable[[str], Awaitable[None]], text: str) -> None:
    """A caller that cannot be told (its connection went) still gets its decision."""
    try:
        await notify(text)
    except Exception:
        log.warning("could not tell the caller it waits for approval", exc_info=True)


def _ms_since(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
