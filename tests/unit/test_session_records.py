"""The engine's one state machine of a session's lifecycle (engine/records.py)."""

from __future__ import annotations

import asyncio

import pytest

from steadyhand.engine.records import MOVES, SessionRecords


def test_a_session_goes_through_its_lifecycle_by_the_moves_drawn() -> None:
    records = SessionRecords()
    for status in ("active", "suspended", "restoring", "active", "recovering", "lost"):
        records.move("s", status)
    assert records.status("s") == "lost"
    records.move("s", "closed")
    assert records.named("closed") == {"s"} and records.named("active") == set()


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        (("active", "recovering"), "suspended"),  # a recovery ends active or lost
        (("active", "suspended"), "recovering"),  # nothing runs to crash
        (("active", "closed"), "lost"),
        ((), "recovering"),  # a session never opened here
    ],
)
def test_a_move_the_table_does_not_draw_is_refused_as_a_bug(
    path: tuple[str, ...], refused: str
) -> None:
    records = SessionRecords()
    for status in path:
        records.move("s", status)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="no move"):
        records.move("s", refused)  # type: ignore[arg-type]
    assert records.status("s") == (path[-1] if path else None), "the record is unchanged"


def test_every_status_is_drawn_and_reachable() -> None:
    statuses = {"active", "suspended", "restoring", "recovering", "lost", "closed"}
    assert set(MOVES) - {None} == statuses
    assert set().union(*MOVES.values()) == statuses


def test_work_in_flight_is_kept_only_while_restoring_or_recovering() -> None:
    async def run() -> None:
        records = SessionRecords()
        records.move("s", "suspended")
        before = records.get("s")
        task = asyncio.get_running_loop().create_task(asyncio.sleep(0))
        records.move("s", "restoring", task=task)
        assert records.in_flight("s") is task
        records.put_back(before, "s")  # the restore failed: as it was
        assert records.status("s") == "suspended" and records.in_flight("s") is None
        records.move("s", "active", task=task)
        assert records.in_flight("s") is None
        await task

    asyncio.run(run())
