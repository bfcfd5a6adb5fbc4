"""Run one task with one driver: open its page, let the solver work, check the page."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tests.agent.agent import Agent, Driver, Record, Stuck
from tests.agent.task import Task

CHECK_S = 3.0  # the page may show the effect of the last act a little later


@dataclass
class Outcome:
    task: Task
    driver: str
    solved: bool
    record: Record
    seconds: float
    first_chars: int  # characters of the page's first snapshot


def run(task: Task, driver: Driver, site: str) -> Outcome:
    agent = Agent(driver)
    started = time.monotonic()
    driver.open(f"{site}/{task.page}")
    try:
        task.solve(agent)
    except Stuck as exc:
        agent.record.failure = str(exc)
    solved = False
    if not agent.record.failure:
        solved = _holds(driver, task.check)
        if not solved:
            agent.record.failure = f"the page's check failed: {task.check}"
    seconds = time.monotonic() - started
    first = agent.record.chars[0] if agent.record.chars else 0
    return Outcome(task, driver.name, solved, agent.record, seconds, first)


def _holds(driver: Driver, check: str) -> bool:
    until = time.monotonic() + CHECK_S
    while True:
        try:
            value: Any = driver.evaluate(
                f"(() => {{ try {{ return !!({check}); }} catch (e) {{ return false; }} }})()"
            )
        except Stuck:
            value = False
        if value or time.monotonic() > until:
            return bool(value)
        time.sleep(0.1)
