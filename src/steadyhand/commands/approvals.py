"""Approvals: a person lists what waits, approves or denies it; an agent asks explicitly.

What is gated, and how a gated call waits, is in steadyhand/approvals. None of these
needs a session or a page; `approvals`, `approve` and `deny` cover every session.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import GateRule, Params, Result, command, positional
from steadyhand.store.sqlite import ApprovalRow


class ApprovalInfo(Result):
    id: str
    status: str = Field(description="pending, approved, denied, expired or cancelled")
    session: str | None
    command: str
    target: str = Field(description="what the call acts on (element, URL), for a person")
    reason: str = Field(description="why it needs approval")
    params: dict[str, Any] = Field(description="the call's params, secrets redacted")
    requested_at: float
    decided_at: float | None
    note: str | None


def info(row: ApprovalRow) -> ApprovalInfo:
    return ApprovalInfo.model_validate(row, from_attributes=True)


class ApprovalsParams(Params):
    all: bool = Field(False, description="every decision, not just the latest ones")


class ApprovalList(Result):
    PAGE_TEXT: ClassVar[bool] = True
    approvals: list[ApprovalInfo] = Field(description="pending first, then latest decisions")
    pending: int


@command(
    "approvals",
    reads_only=True,
    touches_page=False,
    autostart=False,
    timeout="short",
    caps="approvals",
)
async def approvals(call: Call, params: ApprovalsParams) -> ApprovalList:
    """List approvals: pending first (approve or deny them), then the latest decisions."""
    rows = await asyncio.to_thread(call.runtime.approvals.listing, params.all)
    return ApprovalList(
        approvals=[info(row) for row in rows],
        pending=sum(row.status == "pending" for row in rows),
    )


class DecideParams(Params):
    id: str = positional("the approval's id, as `approvals` lists it")
    note: str | None = Field(None, description="a note for the record (and the agent)")


@command(
    "approve",
    touches_page=False,
    autostart=False,
    timeout="short",
    for_agents=False,
    decides=True,
    caps="approvals",
)
async def approve(call: Call, params: DecideParams) -> ApprovalInfo:
    """Approve a pending request: the call waiting for it goes on."""
    return info(await call.runtime.approvals.decide(params.id, True, params.note))


@command(
    "deny",
    touches_page=False,
    autostart=False,
    timeout="short",
    for_agents=False,
    decides=True,
    caps="approvals",
)
async def deny(call: Call, params: DecideParams) -> ApprovalInfo:
    """Deny a pending request: the call waiting for it fails with approval_denied."""
    return info(await call.runtime.approvals.decide(params.id, False, params.note))


class RequestApprovalParams(Params):
    reason: str = Field(
        min_length=1, description="what is about to happen and why, for the person deciding"
    )


class ApprovalGranted(Result):
    approved: bool
    id: str


@command("request_approval", touches_page=False, caps="approvals", gate_rule=GateRule(always=True))
async def request_approval(call: Call, params: RequestApprovalParams) -> ApprovalGranted:
    """Ask a person before an irreversible step; waits for `approve` (else approval_denied)."""
    # The gate (execute/gate.py) asked and waited before this runs: reaching here means approved.
    assert call.approval is not None and call.approval.approved
    return ApprovalGranted(approved=True, id=call.approval.id)
