"""Commands own their rules: no module outside commands/ tells commands apart by name.

What the approval gate asks about is declared on the command (GateRule), what a front
offers comes from the table's traits; a comparison of a variable with a command's name
(`command == "fill"`, `name in ("type", "press")`) outside the table is the knowledge this
forbids. Protocol method names that are no command (`tools/list`, `live.screen`) are fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

from steadyhand.commands import COMMANDS

SRC = Path(__file__).resolve().parents[2] / "src" / "steadyhand"
NAMES = frozenset(COMMANDS)
# Names that hold a command's name where they are compared (not `kind`: desktop actions'
# and artifacts' kinds share words with commands, click or screenshot, and are no commands).
HOLDERS = frozenset({"command", "name", "method", "command_name"})


def _holder(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in HOLDERS
    return isinstance(node, ast.Attribute) and node.attr in HOLDERS


def _command_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for item in node.elts for name in _command_names(item)]
    return []


def branches_on_names(path: Path, root: Path = SRC) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(_holder(side) for side in sides):
            continue
        named = [name for side in sides for name in _command_names(side)]
        if named:
            found.append(f"{path.relative_to(root)}:{node.lineno} compares with {named}")
    return found


def test_no_module_outside_the_table_branches_on_a_command_name() -> None:
    outside = [p for p in SRC.rglob("*.py") if "commands" not in p.relative_to(SRC).parts]
    assert len(outside) > 100
    found = [line for path in outside for line in branches_on_names(path)]
    assert found == []


def test_the_check_sees_such_a_branch(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'def f(command, spec):\n    return command in ("fill", "nope") or spec.name == "type"\n'
    )
    assert branches_on_names(sample, tmp_path) == [
        "sample.py:2 compares with ['fill']",
        "sample.py:2 compares with ['type']",
    ]
