"""The Python client's typed methods, as mypy reads them (client_methods.py).

This module is checked by the project's `mypy --strict` run, which warns of an unused
`type: ignore`: each misuse below must stay an error mypy reports, and each
`assert_type` the type it infers. The functions never run (they would need a daemon).
"""

from __future__ import annotations

from typing import assert_type

from steadyhand import Client, LocalClient, SyncClient
from steadyhand.act.results import ActionResult, NavigationResult
from steadyhand.commands.snapshots import SnapshotResult
from steadyhand.commands.tabs import TabList


async def _async_methods(client: Client, local: LocalClient) -> None:
    assert_type(await client.click(ref="e1"), ActionResult)
    assert_type(await client.snapshot(interactive=True), SnapshotResult)
    assert_type(await local.tabs(), TabList)
    assert_type(await client.open(url="http://127.0.0.1/"), NavigationResult)
    await client.click(reff="e1")  # type: ignore[call-arg]
    await client.click()  # type: ignore[call-arg]
    await client.click(ref=1)  # type: ignore[arg-type]
    await client.click(ref="e1", button="sideways")  # type: ignore[arg-type]
    await client.clik(ref="e1")  # type: ignore[attr-defined]


def _blocking_methods(client: SyncClient) -> None:
    assert_type(client.click(ref="e1"), ActionResult)
    assert_type(client.select_text(ref="e1"), ActionResult)
    client.click(reff="e1")  # type: ignore[call-arg]
    client.snapshot(depth="deep")  # type: ignore[arg-type]
    client.close()  # the client's own close; the command is client.run("close")


def test_the_checks_are_mypys() -> None:
    assert _async_methods.__doc__ is None and _blocking_methods.__doc__ is None
