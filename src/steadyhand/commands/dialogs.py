"""Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) stopping a tab."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import Field

from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import TabParams, command, positional

PARKED_WAIT_S = 5.0  # the action the dialog stopped finishes once it is answered


class DialogParams(TabParams):
    answer: Literal["accept", "dismiss"] = positional("accept (OK) or dismiss (Cancel)")
    text: str | None = Field(None, description="text to enter in a prompt() before accepting")


class DialogResult(PageResult):
    answered: dict[str, Any]
    dialog: dict[str, Any] | None = Field(None, description="a dialog that opened next, if any")


@command("dialog", destructive=True)
async def dialog(call: Call, params: DialogParams) -> DialogResult:
    """Answer the dialog that stops a tab; the action it interrupted then completes."""
    tab = await call.tab(params.tab, dialog_ok=True)
    events = tab.events
    parked = set(events.parked)
    answered = await events.answer(params.answer == "accept", params.text)
    if parked:
        # Let the interrupted action finish (or another dialog open) before reporting.
        opened = asyncio.ensure_future(events.dialog_opened.wait())
        try:
            await asyncio.wait(
                {*parked, opened},
                timeout=min(PARKED_WAIT_S, call.remaining_ms() / 1000),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            opened.cancel()
    return DialogResult(**await page_result(tab), answered=answered, dialog=events.dialog_info())
