"""Approvals waiting and decided, on a real SQLite store (no browser needed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from steadyhand import rpc_client
from steadyhand.approvals.registry import Approvals, Decision, waiting_notice
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.store.sqlite import ApprovalRow, Store

T = TypeVar("T")


def run(
    tmp_path: Path, body: Callable[[Approvals, asyncio.Event], Awaitable[T]], **settings: float
) -> T:
    async def main() -> T:
        store = Store(tmp_path / "s.sqlite")
        stopping = asyncio.Event()
        try:
            return await body(
                Approvals(Settings(state_dir=tmp_path, **settings), store, stopping), stopping
            )
        finally:
            store.close()

    return asyncio.run(main())


async def ask(approvals: Approvals) -> tuple[asyncio.Task[Decision], str]:
    """Start a request; its task and id once it waits."""
    task = asyncio.create_task(
        approvals.request(session="s", command="click", target="e1", reason="r", params={})
    )
    for _ in range(500):
        pending = [a for a in approvals.listing(False) if a.status == "pending"]
        if pending:
            return task, pending[0].id
        await asyncio.sleep(0.01)
    raise AssertionError("the request was never stored")


def test_a_decision_wakes_the_request_at_once(tmp_path: Path) -> None:
    async def body(approvals: Approvals, _: asyncio.Event) -> None:
        task, approval_id = await ask(approvals)
        assert len(approval_id) == 6 and int(approval_id, 16) >= 0
        row = await approvals.decide(approval_id.upper(), True, "ok")
        assert (row.status, row.note) == ("approved", "ok")
        decision = await asyncio.wait_for(task, 5)
        assert decision.approved and decision.waited_ms < 5_000
        assert approvals.store.approval(approval_id) == row

    run(tmp_path, body, approval_timeout_s=60)


def test_unknown_and_decided_ids_are_refused(tmp_path: Path) -> None:
    async def body(approvals: Approvals, _: asyncio.Event) -> None:
        with pytest.raises(SteadyhandError) as unknown:
            await approvals.decide("ffffff", True, None)
        assert unknown.value.code == "not_found" and "approvals" in unknown.value.hint
        task, approval_id = await ask(approvals)
        await approvals.decide(approval_id, False, None)
        assert (await task).status == "denied"
        with pytest.raises(SteadyhandError) as twice:
            await approvals.decide(approval_id, True, None)
        assert twice.value.code == "bad_request" and "denied" in twice.value.message

    run(tmp_path, body, approval_timeout_s=60)


def test_no_decision_expires_and_stopping_cancels(tmp_path: Path) -> None:
    async def body(approvals: Approvals, stopping: asyncio.Event) -> None:
        started = time.monotonic()
        task, approval_id = await ask(approvals)
        assert (await task).status == "expired"
        assert 0.3 <= time.monotonic() - started < 3
        assert approvals.store.approval(approval_id).status == "expired"  # type: ignore[union-attr]
        approvals.timeout_s = 60
        task, approval_id = await ask(approvals)
        stopping.set()
        assert (await asyncio.wait_for(task, 5)).status == "cancelled"
        assert approvals.store.approval(approval_id).status == "cancelled"  # type: ignore[union-attr]

    run(tmp_path, body, approval_timeout_s=0.3)


def test_an_abandoned_call_cancels_its_approval(tmp_path: Path) -> None:
    async def body(approvals: Approvals, _: asyncio.Event) -> str | None:
        task, approval_id = await ask(approvals)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        row = approvals.store.approval(approval_id)
        return row.status if row else None

    assert run(tmp_path, body, approval_timeout_s=60) == "cancelled"


def test_pending_rows_left_behind_are_cancelled(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    try:
        left = ApprovalRow("abc123", "s", "click", "e1", {"ref": "e1"}, "r", "pending", 1.0)
        assert store.add_approval(left)
        assert not store.add_approval(left), "an id is used once"
        assert store.cancel_pending_approvals("the daemon that asked is gone") == 1
        row = store.approval("abc123")
        assert row is not None and (row.status, row.note) == (
            "cancelled",
            "the daemon that asked is gone",
        )
        assert not store.settle_approval("abc123", "approved", None, 2.0), "decided once"
    finally:
        store.close()


def test_the_cli_client_waits_for_the_person_too(tmp_path: Path) -> None:
    settings = Settings(state_dir=tmp_path, approval_timeout_s=300)
    long_s = settings.timeout_long_ms / 1000
    assert rpc_client.reply_wait_s(settings, {}) == long_s + 300 + rpc_client.REPLY_GRACE_S
    assert (
        rpc_client.reply_wait_s(settings, {"timeout": "2s"}) == 2 + 300 + rpc_client.REPLY_GRACE_S
    )


def test_the_caller_is_told_at_once_and_a_caller_gone_still_gets_its_decision(
    tmp_path: Path,
) -> None:
    async def body(approvals: Approvals, _: asyncio.Event) -> tuple[list[str], Decision]:
        told: list[str] = []
        came = asyncio.Event()

        async def notify(text: str) -> None:
            told.append(text)
            came.set()
            raise ConnectionError("the caller went")  # logged; the request waits on

        task = asyncio.create_task(
            approvals.request(
                session="s",
                command="click",
                target='e12 (button "Delete")',
                reason="r",
                params={},
                notify=notify,
            )
        )
        await asyncio.wait_for(came.wait(), 30)
        approval_id = told[0].split()[3]
        assert not task.done()
        await approvals.decide(approval_id, False, None)
        return told, await asyncio.wait_for(task, 5)

    told, decision = run(tmp_path, body)
    assert told == [
        f'waiting for approval {decision.id} (click e12 (button "Delete")): '
        f"steadyhand approve {decision.id} | steadyhand deny {decision.id}"
    ]
    assert decision.status == "denied"


def test_a_request_without_a_target_names_its_reason() -> None:
    row = ApprovalRow(
        id="a1b2c3",
        session="s",
        command="request_approval",
        target="",
        params={},
        reason="pay 42 EUR",
        status="pending",
        requested_at=0.0,
    )
    assert waiting_notice(row) == (
        "waiting for approval a1b2c3 (request_approval: pay 42 EUR): "
        "steadyhand approve a1b2c3 | steadyhand deny a1b2c3"
    )
