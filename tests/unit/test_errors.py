from __future__ import annotations

import ast
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from steadyhand import errors
from steadyhand.act.failures import translate
from steadyhand.errors import (
    ErrorCode,
    SteadyhandError,
    error_type,
    exit_code_for,
)


def test_every_code_has_distinct_rpc_code_and_a_class() -> None:
    rpc_codes = [c.rpc_code for c in ErrorCode]
    assert len(rpc_codes) == len(set(rpc_codes))
    assert all(c.exit_code != 0 for c in ErrorCode)


def test_rpc_round_trip_keeps_code_hint_and_data() -> None:
    err = SteadyhandError(ErrorCode.STALE_REF, "ref e3 is stale", "snapshot again", {"ref": "e3"})
    back = SteadyhandError.from_rpc_error(err.to_rpc_error())
    assert (back.code, back.message, back.hint, back.data) == (
        ErrorCode.STALE_REF,
        "ref e3 is stale",
        "snapshot again",
        {"ref": "e3"},
    )
    assert err.to_dict() == {
        "code": "stale_ref",
        "message": "ref e3 is stale",
        "hint": "snapshot again",
        "data": {"ref": "e3"},
    }


def test_unknown_codes_degrade_to_internal() -> None:
    plain = SteadyhandError.from_rpc_error({"code": -32700, "message": "parse error"})
    assert plain.code == ErrorCode.INTERNAL and plain.message == "parse error"
    by_number = SteadyhandError.from_rpc_error({"code": -32011, "message": "m"})
    assert by_number.code == ErrorCode.STALE_REF
    assert exit_code_for("stale_ref") == 3 and exit_code_for("no-such-code") == 1


def test_playwright_errors_map_onto_the_taxonomy() -> None:
    detached = PlaywrightError("Element is not attached to the DOM")
    assert translate(detached).code == ErrorCode.STALE_REF
    # The same words while the command's tab was being closed: the close is the cause.
    closed = translate(detached, tab_closed=True)
    assert closed.code == ErrorCode.ACTION_FAILED
    assert "closed while the command ran" in closed.message
    gone = PlaywrightError("Target page, context or browser has been closed")
    assert translate(gone).code == ErrorCode.ACTION_FAILED
    assert translate(gone, browser_running=False).code == ErrorCode.BROWSER_CRASHED
    assert translate(PlaywrightTimeout("Timeout 50ms exceeded.")).code == ErrorCode.TIMEOUT


def test_the_declared_exception_classes_are_the_tables() -> None:
    # The classes are made from ErrorCode at import; mypy reads the declarations under
    # `if TYPE_CHECKING:` instead. They must name the same classes, in the table's order.
    tree = ast.parse(Path(errors.__file__).read_text())
    (block,) = (
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
        and any(isinstance(child, ast.ClassDef) for child in node.body)
    )
    declared = {
        node.name: ast.unparse(node.bases[0])
        for node in block.body
        if isinstance(node, ast.ClassDef)
    }
    assert list(declared) == [code.class_name for code in ErrorCode]
    for code in ErrorCode:
        cls = getattr(errors, code.class_name)
        assert cls is error_type(code) and cls.__doc__ == code.class_doc
        assert (cls.__module__, cls.__qualname__) == ("steadyhand.errors", code.class_name)
        assert issubclass(cls, SteadyhandError)
        assert cls.__bases__[0].__name__ == declared[code.class_name], "mypy's view is the same"


def test_codes_are_grouped_by_what_the_caller_does_next() -> None:
    """A class for each exit code's group: catch one group, or the code's own class."""
    for code in ErrorCode:
        group = errors.GROUPS.get(code.exit_code)
        cls = error_type(code)
        assert cls.__bases__ == ((group,) if group else (SteadyhandError,)), code
    made = SteadyhandError(ErrorCode.TIMEOUT, "slow")
    assert isinstance(made, errors.CommandTimeoutError) and isinstance(made, errors.TryLaterError)
    assert isinstance(errors.PageError(ErrorCode.STALE_REF, "gone"), errors.StaleRefError)
    assert not isinstance(made, errors.PageError)
    assert type(SteadyhandError(ErrorCode.INTERNAL, "bug")).__bases__ == (SteadyhandError,)
    over_rpc = SteadyhandError.from_rpc_error(made.to_rpc_error())
    assert type(over_rpc) is type(made), "a client gets the same class, group and all"
