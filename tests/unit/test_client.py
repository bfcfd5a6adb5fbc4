"""The Python client's pieces that need no browser: typed errors, names, params, waits."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from steadyhand.client import _plain, command_for, reply_wait_s
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import (
    ERROR_CLASSES,
    CommandTimeoutError,
    ErrorCode,
    StaleRefError,
    SteadyhandError,
    error_type,
)
from steadyhand.fronts.schema import flatten, model_schema


def test_every_code_has_its_own_exception_class() -> None:
    classes = {error_type(code) for code in ErrorCode}
    assert len(classes) == len(ErrorCode) == len(ERROR_CLASSES)
    for code in ErrorCode:
        error = SteadyhandError(code, "m", "h", {"k": 1})
        assert type(error) is error_type(code)
        assert isinstance(error, SteadyhandError)
        assert (error.code, error.message, error.hint, error.data) == (code, "m", "h", {"k": 1})
        # Over the wire and back, it is still that class.
        assert type(SteadyhandError.from_rpc_error(error.to_rpc_error())) is type(error)
    with pytest.raises(CommandTimeoutError):
        raise SteadyhandError("timeout", "late")
    assert not issubclass(StaleRefError, CommandTimeoutError)


def test_method_names_map_to_commands() -> None:
    assert command_for("snapshot").name == "snapshot"
    assert command_for("tab_new").name == "tab.new"
    assert command_for("session_restore").name == "session.restore"
    with pytest.raises(AttributeError, match="no command 'fly'"):
        command_for("fly")


def test_params_become_json_with_file_paths_as_given(tmp_path: Path) -> None:
    # The daemon resolves a relative path in the session's artifacts folder: this client
    # serves the MCP front too, whose working directory is not its agent's.
    class Box(BaseModel):
        x: int

    params = _plain(
        COMMANDS["screenshot"], {"path": "shot.png", "ref": None, "tab": "t1", "box": Box(x=1)}
    )
    assert params == {"path": "shot.png", "tab": "t1", "box": {"x": 1}}
    assert _plain(None, {"p": tmp_path}) == {"p": str(tmp_path)}
    assert _plain(None, {"p": Path("a/b.png")}) == {"p": "a/b.png"}


def test_a_client_waits_out_the_deadline_and_an_approval(tmp_path: Path) -> None:
    settings = Settings(state_dir=tmp_path, timeout_long_ms=45_000, approval_timeout_s=120)
    assert reply_wait_s(settings, {}) == 45 + 120 + 10
    assert reply_wait_s(settings, {"timeout": "2s"}) == 2 + 120 + 10


def test_flat_schemas_have_no_unions_titles_or_markers() -> None:
    schema = model_schema(COMMANDS["type"].params)
    assert "ref" in schema["required"]
    text = repr(schema)
    for word in ("anyOf", "title", "positional", "sensitive", "$ref"):
        assert word not in text
    assert schema["properties"]["timeout"]["type"] == "string"
    defs = {"B": {"type": "object", "title": "B", "properties": {"title": {"type": "string"}}}}
    flat = flatten({"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}], "default": None}, defs)
    # A field named `title` survives; the schema keyword `title` does not.
    assert flat == {"type": "object", "properties": {"title": {"type": "string"}}}
    with pytest.raises(TypeError):
        flatten({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {})
