"""Secrets by name (steadyhand/vault.py): loading, reloading, scopes and masking."""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.observe.log import _formatter
from steadyhand.redact import REDACTED, SecretName, redact
from steadyhand.store.sqlite import Store
from steadyhand.vault import (
    MIN_MASK,
    Secret,
    Vault,
    mask_data,
    mask_error,
    mask_text,
    mask_zip,
    only_references,
    uses_secret,
)

ENV = {"STEADYHAND_SECRET_ENV_ONE": "env-value-1", "STEADYHAND_SECRET_": "no name", "OTHER": "x"}


def write(path: Path, text: str, mode: int = 0o600) -> None:
    path.write_text(text)
    path.chmod(mode)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


@pytest.fixture
def vaults() -> Iterator[list[Vault]]:
    """Vaults made by a test; dropped after it, so their values stop being masked."""
    made: list[Vault] = []
    yield made
    made.clear()


def vault(state: Path, made: list[Vault], env: dict[str, str] = ENV, **settings: Any) -> Vault:
    v = Vault(Settings.load(state_dir=state, **settings), env)
    made.append(v)
    return v


def test_file_and_environment_are_merged(state: Path, vaults: list[Vault]) -> None:
    write(
        state / "secrets.toml",
        'PLAIN = "plain-value"\n'
        '[SCOPED]\nvalue = "scoped-value"\ndomains = ["Bank.Example."]\n'
        '[ENV_ONE]\ndomains = ["env.example"]\n',
    )
    v = vault(state, vaults)
    found = {s.name: s for s in v.secrets()}
    assert set(found) == {"PLAIN", "SCOPED", "ENV_ONE"}
    assert found["PLAIN"] == Secret("PLAIN", "plain-value", "file")
    assert found["SCOPED"].domains == ("bank.example",)
    # A table with no value takes the environment's, under the file's domains.
    assert found["ENV_ONE"] == Secret("ENV_ONE", "env-value-1", "file+env", ("env.example",))
    assert "plain-value" not in repr(found["PLAIN"])


def test_environment_only_and_prefix(state: Path, vaults: list[Vault]) -> None:
    v = vault(state, vaults)
    assert [(s.name, s.source) for s in v.secrets()] == [("ENV_ONE", "env")]
    other = vault(state, vaults, {"MY_X": "abcdef"}, secrets_env_prefix="MY_")
    assert [s.name for s in other.secrets()] == ["X"]
    off = vault(state, vaults, {"X": "abcdef"}, secrets_env_prefix="")
    assert off.secrets() == []


def test_explicit_file_setting(state: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("conf") / "mine.toml"
    write(elsewhere, 'MINE = "mine-value"\n')
    v = Vault(Settings.load(state_dir=state, secrets_file=str(elsewhere)), {})
    assert v.path == elsewhere and [s.name for s in v.secrets()] == ["MINE"]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_file_open_to_others_is_refused(state: Path, vaults: list[Vault], mode: int) -> None:
    write(state / "secrets.toml", 'PLAIN = "plain-value"\n', mode)
    v = vault(state, vaults)
    with pytest.raises(SteadyhandError) as caught:
        v.secrets()
    assert caught.value.code == ErrorCode.POLICY_DENIED
    assert f"mode {mode:o}" in caught.value.message and "chmod 600" in caught.value.hint
    with pytest.raises(SteadyhandError):  # fail closed: not even the environment's
        v.expand("{{secret:ENV_ONE}}", "https://a.example/", "e1")
    (state / "secrets.toml").chmod(0o400)
    assert {s.name for s in v.secrets()} == {"PLAIN", "ENV_ONE"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('PLAIN = "unterminated\n', "not valid TOML"),
        ("PLAIN = 3\n", "neither a string nor a table"),
        ('"bad name" = "v"\n', "is not a name"),
        ('[T]\nvalue = "v"\ncolour = "red"\n', "unknown key(s) colour"),
        ('[T]\nvalue = "v"\ndomains = "a.example"\n', "not a list of host names"),
        ('[T]\nvalue = "v"\ndomains = ["https://a.example"]\n', "not a bare host name"),
        ('[T]\ndomains = ["a.example"]\n', "no value, and the environment has no"),
    ],
)
def test_bad_files_are_refused_naming_the_entry_not_the_value(
    state: Path, vaults: list[Vault], text: str, says: str
) -> None:
    write(state / "secrets.toml", text)
    with pytest.raises(SteadyhandError) as caught:
        vault(state, vaults).secrets()
    assert caught.value.code == ErrorCode.BAD_REQUEST
    assert says in caught.value.message
    assert "unterminated" not in caught.value.message and "red" not in caught.value.message


def test_the_file_is_reloaded_when_it_changes(state: Path, vaults: list[Vault]) -> None:
    path = state / "secrets.toml"
    v = vault(state, vaults, {})
    assert v.secrets() == []  # no file yet
    write(path, 'FIRST = "first-value"\n')
    assert [s.name for s in v.secrets()] == ["FIRST"]
    write(path, 'FIRST = "first-value"\nSECOND = "second-value"\n')
    os.utime(path, ns=(1, 1))  # whatever the clock's resolution, the stamp differs
    assert [s.name for s in v.secrets()] == ["FIRST", "SECOND"]
    path.unlink()
    assert v.secrets() == []
    # A value no longer defined is still masked: the page may hold it yet.
    assert mask_text("second-value") == "{{secret:SECOND}}"


def test_unknown_names_list_the_known_ones(state: Path, vaults: list[Vault]) -> None:
    write(state / "secrets.toml", 'PLAIN = "plain-value"\n')
    v = vault(state, vaults)
    with pytest.raises(SteadyhandError) as caught:
        v.expand("{{secret:NOPE}}", "https://a.example/", "e1")
    assert caught.value.code == ErrorCode.NOT_FOUND
    assert "ENV_ONE, PLAIN" in caught.value.hint
    assert "plain-value" not in str(caught.value) and "env-value" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://bank.example/login", True),
        ("https://www.bank.example:8443/login", True),
        ("https://BANK.EXAMPLE./", True),
        ("https://evilbank.example/", False),
        ("https://bank.example.evil.test/", False),
        ("http://127.0.0.1:8000/", False),
        ("about:blank", False),
        ("", False),
    ],
)
def test_scoped_secrets_go_only_to_their_domains(
    state: Path, vaults: list[Vault], url: str, allowed: bool
) -> None:
    write(state / "secrets.toml", '[PIN]\nvalue = "pin-value"\ndomains = ["bank.example"]\n')
    v = vault(state, vaults, {})
    if allowed:
        assert v.expand("a {{secret:PIN}} b", url, "e1") == "a pin-value b"
        return
    with pytest.raises(SteadyhandError) as caught:
        v.expand("a {{secret:PIN}} b", url, "e1")
    assert caught.value.code == ErrorCode.POLICY_DENIED
    assert "bank.example" in caught.value.message
    assert caught.value.data["domains"] == ["bank.example"]
    assert "pin-value" not in str(caught.value)


def test_masking_covers_every_form_and_nests(state: Path, vaults: list[Vault]) -> None:
    write(
        state / "secrets.toml",
        'PW = "p@ss w\\"rd&<1>"\nSHORT = "abc"\nLONGER = "p@ss w\\"rd&<1>-and-more"\n',
    )
    vault(state, vaults, {})
    value = 'p@ss w"rd&<1>'
    forms = [value, json.dumps(value)[1:-1], "p%40ss%20w%22rd%26%3C1%3E", "p%40ss+w%22rd%26%3C1%3E"]
    forms.append("p@ss w&quot;rd&amp;&lt;1&gt;")
    for form in forms:
        assert mask_text(f"<{form}>") == "<{{secret:PW}}>", form
    assert mask_text(value + "-and-more") == "{{secret:LONGER}}"  # the longest wins
    assert mask_text("abc") == "abc" and len("abc") < MIN_MASK  # too short to mask
    data = {"a": [value, {"k": 1, value: "x"}], "n": None}
    assert mask_data(data) == {"a": ["{{secret:PW}}", {"k": 1, "{{secret:PW}}": "x"}], "n": None}
    error = SteadyhandError(ErrorCode.ACTION_FAILED, f"fill({value!r})", value, {"v": value})
    mask_error(error)
    assert value not in str(error) + json.dumps(error.to_dict()) + str(error.args)


def test_references(state: Path) -> None:
    assert uses_secret("x {{secret:A_1}} y") and not uses_secret("{{secret:1A}}")
    assert only_references("{{secret:A}}{{secret:B}}") and not only_references("x{{secret:A}}")


def test_a_secret_name_survives_redaction_a_value_does_not() -> None:
    out = redact({"secret": SecretName("BANK"), "nested": {"secret": "BANK"}})
    assert out == {"secret": "BANK", "nested": {"secret": REDACTED}}


def test_log_lines_and_store_rows_are_masked(state: Path, vaults: list[Vault]) -> None:
    write(state / "secrets.toml", 'PW = "log-secret-1"\n')
    vault(state, vaults, {})
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_formatter())
    logger = logging.getLogger("steadyhand.test_vault")
    logger.addHandler(handler)
    try:
        try:
            raise ValueError("bad log-secret-1")
        except ValueError:
            logger.exception("typed %s", "log-secret-1", extra={"result": {"v": "log-secret-1"}})
    finally:
        logger.removeHandler(handler)
    line = stream.getvalue()
    assert "log-secret-1" not in line and line.count("{{secret:PW}}") >= 3
    store = Store(state / "store.sqlite")
    try:
        store.log_action(
            session="s",
            tab="t1",
            command="type",
            params={"text": "log-secret-1"},
            ok=False,
            error_code="action_failed",
            error_message="typed log-secret-1",
            duration_ms=1.0,
            result={"message": "log-secret-1"},
        )
        (row,) = store.actions("s")
    finally:
        store.close()
    assert row.params == {"text": "{{secret:PW}}"}
    assert row.error_message == "typed {{secret:PW}}"
    for path in state.glob("store.sqlite*"):
        assert b"log-secret-1" not in path.read_bytes()


def test_a_zip_is_masked_but_its_images(state: Path, vaults: list[Vault]) -> None:
    write(state / "secrets.toml", 'PW = "zip-secret-1"\n')
    vault(state, vaults, {})
    path = state / "trace.zip"
    jpeg = b"\xff\xd8\xff\xe0zip-secret-1"
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("trace.trace", '{"params": {"value": "zip-secret-1"}}\n')
        out.writestr("resources/post.dat", "password=zip-secret-1")
        out.writestr("resources/frame.jpeg", jpeg)
    assert mask_zip(path) == 2
    with zipfile.ZipFile(path) as back:
        assert b"zip-secret-1" not in back.read("trace.trace")
        assert back.read("resources/post.dat") == b"password={{secret:PW}}"
        assert back.read("resources/frame.jpeg") == jpeg
    assert path.stat().st_mode & 0o777 == 0o600
