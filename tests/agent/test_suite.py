"""The agent's-eye suite on steadyhand: a solver that reads only the snapshot's text and
acts only by ref solves every task, checked by the page's own state (bench/agent.py runs
the same tasks on raw Playwright beside it)."""

from __future__ import annotations

import pytest

from tests.agent.drivers import Steadyhand
from tests.agent.run import run
from tests.agent.suite import tasks
from tests.agent.task import Task
from tests.conftest import Daemon

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("task", tasks(), ids=lambda t: t.id)
def test_steadyhand_solves(task: Task, daemon: Daemon, site: str) -> None:
    driver = Steadyhand(daemon.call, f"agent-{task.id}")
    try:
        outcome = run(task, driver, site)
    finally:
        driver.close()
    assert outcome.solved, f"{task.instruction}: {outcome.record.failure}"
