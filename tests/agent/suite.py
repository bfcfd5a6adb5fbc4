"""Every task of the agent's-eye suite: the TASKS of each `tasks_*.py` module here."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from tests.agent.task import Task


def modules() -> list[str]:
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("tasks_"))


def tasks(only: list[str] | None = None, gaps: bool = False) -> list[Task]:
    """All tasks (or those whose id or module is in `only`), in module order; `gaps`: the
    known gaps too (a module's GAPS: tasks no tool solves yet)."""
    found: list[Task] = []
    for name in modules():
        module = importlib.import_module(f"tests.agent.{name}")
        for task in [*module.TASKS, *(getattr(module, "GAPS", []) if gaps else [])]:
            if only is None or task.id in only or name in only:
                found.append(task)
    ids = [t.id for t in found]
    duplicated = {i for i in ids if ids.count(i) > 1}
    assert not duplicated, f"task ids must be unique: {duplicated}"
    return found
