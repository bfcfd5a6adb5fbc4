"""Write `client_methods.py`: every command as a typed method of the Python client.

`Client` and `SyncClient` run a command by its method name at run time (`__getattr__`);
this module writes, from the command table, the signatures a type checker reads instead:
keyword params with their params model's types, returning its result model. Run
`python -m steadyhand.client_stubs` (or `make spec`); a test fails when the file and the
table disagree.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from steadyhand.client import Client, SyncClient, method_name
from steadyhand.commands import COMMANDS, Command

METHODS_PATH = Path(__file__).with_name("client_methods.py")

HEADER = '''"""Typed methods of the Python client, one per command. Generated: do not edit.

Written from the command table by `python -m steadyhand.client_stubs` (`make spec`). The
methods exist for type checkers only: at run time `Client.__getattr__` runs the command.
"""

# ruff: noqa: E501, ASYNC109  (the table's docs and its `timeout` param, as they are)

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
{imports}

'''


class Imports:
    """The names the signatures use, as `from module import name` lines."""

    def __init__(self) -> None:
        self.names: dict[str, set[str]] = {}

    def use(self, module: str, name: str) -> str:
        self.names.setdefault(module, set()).add(name)
        return name

    def lines(self) -> list[str]:
        """Sorted as isort does: the standard library's, then ours."""
        groups: list[list[str]] = []
        for ours in (False, True):
            modules = sorted(m for m in self.names if m.startswith("steadyhand") == ours)
            group = [f"import {m}" for m in modules if self.names[m] == {m}]
            group += [
                f"from {m} import {', '.join(sorted(self.names[m]))}"
                for m in modules
                if self.names[m] != {m}
            ]
            groups.append(group)
        return [*groups[0], "", *groups[1]]


def annotation(given: Any, imports: Imports) -> str:
    """A field's annotation as source text."""
    if given is type(None):
        return "None"
    origin = get_origin(given)
    if origin in (Union, types.UnionType):
        return " | ".join(annotation(a, imports) for a in get_args(given))
    if origin is Literal:
        literal = imports.use("typing", "Literal")
        return f"{literal}[{', '.join(repr(a) for a in get_args(given))}]"
    if origin in (list, dict, tuple):
        return f"{origin.__name__}[{', '.join(annotation(a, imports) for a in get_args(given))}]"
    if given in (str, int, float, bool):
        return str(given.__name__)
    if isinstance(given, type) and given.__qualname__ == given.__name__:
        return imports.use(given.__module__, given.__name__)
    raise TypeError(f"no source form for {given!r}")


def parameter(name: str, field: FieldInfo, imports: Imports) -> str:
    text = annotation(field.annotation, imports)
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    if extra.get("file_path"):  # the client sends a path object as its text
        imports.use("os", "os")
        text = text.replace("str", "str | os.PathLike[str]", 1)
    return f"{name}: {text}" + ("" if field.is_required() else " = ...")


def method(command: Command, imports: Imports, blocking: bool) -> str:
    fields = command.params.model_fields.items()
    # The command's required params first (`click(ref=...)`), then the rest as declared.
    ordered = sorted(fields, key=lambda item: not item[1].is_required())
    params = [parameter(name, field, imports) for name, field in ordered]
    result = annotation(command.result, imports)
    signature = "".join(f"    {param},\n" for param in ["self", "*", *params] if params)
    prefix = "def" if blocking else "async def"
    return (
        f"{prefix} {method_name(command.name)}(\n{signature or '    self'}) -> {result}:\n"
        f'    """{command.doc}"""\n'
    )


def commands_class(name: str, doc: str, taken: set[str], imports: Imports, blocking: bool) -> str:
    """The class of typed methods; a command whose name the client already uses for one of
    its own (SyncClient.close) stays reachable through `run` and `call`."""
    body = [
        method(c, imports, blocking) for c in COMMANDS.values() if method_name(c.name) not in taken
    ]
    methods = "\n".join(body)
    nested = "".join(f"        {line}\n" if line else "\n" for line in methods.splitlines())
    return f'class {name}:\n    """{doc}"""\n\n    if TYPE_CHECKING:\n{nested}'


def own_names(cls: type) -> set[str]:
    """The attributes a client class defines itself (and no generated mixin)."""
    mixins = ("steadyhand.client_methods", "builtins")
    return {name for klass in cls.__mro__ if klass.__module__ not in mixins for name in vars(klass)}


def render() -> str:
    imports = Imports()
    classes = [
        commands_class(
            "AsyncCommands",
            "Every command as an async method of `Client`.",
            own_names(Client),
            imports,
            blocking=False,
        ),
        commands_class(
            "SyncCommands",
            "Every command as a blocking method of `SyncClient`.",
            own_names(SyncClient),
            imports,
            blocking=True,
        ),
    ]
    text = HEADER.format(imports="\n".join(f"    {line}".rstrip() for line in imports.lines()))
    text += "\n\n".join(classes)
    return formatted(text)


def formatted(text: str) -> str:
    """The source as `ruff format` leaves it (the checked-in file is formatted like all)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(METHODS_PATH), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def main() -> int:
    METHODS_PATH.write_text(render())
    print(f"wrote {METHODS_PATH} ({len(COMMANDS)} commands)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
