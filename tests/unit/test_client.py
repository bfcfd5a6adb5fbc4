"""The Python client's pieces that need no browser: typed errors, names, params, waits."""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path

import pytest
from pydantic import BaseModel

import steadyhand
from steadyhand import client_stubs, rpc_client
from steadyhand.client import (
    Client,
    DaemonBackend,
    LocalClient,
    SyncClient,
    _plain,
    command_for,
    in_browser,
    method_name,
)
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import (
    CommandTimeoutError,
    ErrorCode,
    StaleRefError,
    SteadyhandError,
    error_type,
)
from steadyhand.fronts.schema import flatten, model_schema
from steadyhand.rpc_client import reply_wait_s


def test_every_code_has_its_own_exception_class() -> None:
    classes = {error_type(code) for code in ErrorCode}
    assert len(classes) == len(ErrorCode)
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


def test_select_text_is_a_method_too() -> None:
    assert method_name("select-text") == "select_text"
    assert command_for("select_text").name == "select-text"


def test_the_typed_methods_are_the_tables() -> None:
    """client_methods.py is written from COMMANDS: `make spec` after changing the table."""
    assert client_stubs.render() == client_stubs.METHODS_PATH.read_text(), (
        "client_methods.py is out of step with the command table: run `make spec`"
    )
    for command in COMMANDS.values():  # at run time, __getattr__ makes every method
        assert not hasattr(Client, method_name(command.name))
    own = client_stubs.own_names(SyncClient)
    assert "close" in own and "close" not in client_stubs.own_names(Client)


def test_engine_is_local_clients_old_name() -> None:
    with pytest.warns(DeprecationWarning, match="LocalClient"):
        old = steadyhand.Engine
    assert old is LocalClient is steadyhand.LocalClient
    with pytest.warns(DeprecationWarning):
        from steadyhand.client import Engine
    assert Engine is LocalClient
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert steadyhand.Client is Client and steadyhand.SyncClient is SyncClient


def test_a_started_daemon_warms_the_browser_for_the_browsers_commands() -> None:
    for command in COMMANDS.values():
        assert in_browser(command.name) is command.in_browser
    assert in_browser("live.frames"), "the live view's methods are the browser's"


def test_both_transports_find_no_daemon_alike(tmp_path: Path) -> None:
    settings = Settings(state_dir=tmp_path)
    with pytest.raises(SteadyhandError) as sync_error:
        rpc_client.call(settings, "daemon.status", autostart=False)
    backend = DaemonBackend(settings, autostart=False)
    with pytest.raises(SteadyhandError) as async_error:
        asyncio.run(backend.call("daemon.status", {}))
    assert sync_error.value.to_dict() == async_error.value.to_dict()
    assert sync_error.value.code == ErrorCode.DAEMON_UNAVAILABLE
    assert rpc_client.start_may_help(sync_error.value, autostart=True)
    assert not rpc_client.start_may_help(sync_error.value, autostart=False)


def test_a_request_sent_is_never_sent_again() -> None:
    lost = rpc_client.no_answer("click", TimeoutError())
    assert lost.message == "the daemon did not answer click: TimeoutError"
    assert not rpc_client.start_may_help(lost, autostart=True)
    stale = rpc_client.no_answer("click", ConnectionResetError("reset"), sent=False)
    assert stale.message == "the daemon did not answer click: reset"
    assert rpc_client.start_may_help(stale, autostart=True)


def test_replies_and_progress_notes_are_read_one_way() -> None:
    line = rpc_client.encode("snapshot", {"session": "s"}, 7, progress=True, cli_cwd="/w")
    assert line.endswith(b"\n")
    sent = rpc_client.decode(line)
    assert sent == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "snapshot",
        "params": {"session": "s"},
        "progress": True,
        "cli_cwd": "/w",
    }
    notes: list[tuple[int, int | None, str]] = []
    progress = {"done": 2, "total": 5, "message": "m"}
    note = json.dumps({"jsonrpc": "2.0", "method": "progress", "params": progress}).encode()
    assert rpc_client.take_reply(note, lambda *n: notes.append(n)) is None
    assert notes == [(2, 5, "m")]
    reply = rpc_client.take_reply(b'{"jsonrpc": "2.0", "id": 7, "result": {"a": 1}}', None)
    assert reply is not None and rpc_client.result_of(reply) == {"a": 1}
    failed = {"jsonrpc": "2.0", "id": 7, "error": StaleRefError("stale_ref", "m").to_rpc_error()}
    with pytest.raises(StaleRefError):
        rpc_client.result_of(failed)
    with pytest.raises(ValueError):
        rpc_client.decode(b"[1]")
