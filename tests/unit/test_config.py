from __future__ import annotations

from pathlib import Path

import pytest

from steadyhand.config import SETTINGS, Settings, default_state_dir
from steadyhand.errors import ErrorCode, SteadyhandError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("STEADYHAND_STATE_DIR", "STEADYHAND_HEADLESS", "STEADYHAND_TIMEOUT_MEDIUM_MS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("STEADYHAND_CONFIG", str(tmp_path / "absent.toml"))


def test_precedence_defaults_file_env_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('timeout_medium_ms = 5000\nheadless = false\nchromium = "/opt/c"\n')
    from_file = Settings.load(config)
    assert (from_file.timeout_medium_ms, from_file.headless, from_file.chromium) == (
        5000,
        False,
        "/opt/c",
    )
    monkeypatch.setenv("STEADYHAND_TIMEOUT_MEDIUM_MS", "7000")
    monkeypatch.setenv("STEADYHAND_HEADLESS", "yes")
    from_env = Settings.load(config)
    assert (from_env.timeout_medium_ms, from_env.headless) == (7000, True)
    assert Settings.load(config, timeout_medium_ms=9).timeout_medium_ms == 9


def test_state_dir_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert default_state_dir() == tmp_path / "steadyhand"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "missing"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert default_state_dir() == tmp_path / "state" / "steadyhand"
    monkeypatch.setenv("STEADYHAND_STATE_DIR", "~/x")
    settings = Settings.load()
    assert settings.state_dir == Path.home() / "x"
    assert settings.socket_path == Path.home() / "x" / "daemon.sock"
    monkeypatch.setenv("STEADYHAND_STATE_DIR", "relative/dir")
    monkeypatch.chdir(tmp_path)
    assert Settings.load().state_dir == tmp_path / "relative" / "dir", "made absolute"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("headless = 'maybe'\n", "not a valid bool"),
        ("timeout_medium_ms = 'soon'\n", "not a valid int"),
        ("colour = 'blue'\n", "unknown setting"),
        ("this is not toml", "not valid TOML"),
    ],
)
def test_bad_settings_are_clear_errors(tmp_path: Path, content: str, words: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(content)
    with pytest.raises(SteadyhandError) as info:
        Settings.load(config)
    assert info.value.code == "bad_request" and words in info.value.message


@pytest.mark.parametrize(
    ("value", "ms"),
    [
        (None, 15_000),
        ("short", 5_000),
        ("LONG", 45_000),
        ("2500", 2500),
        (700, 700),
        ("2.5s", 2500),
        ("40ms", 40),
    ],
)
def test_timeout_tiers_and_durations(value: int | str | None, ms: int) -> None:
    assert Settings().timeout_ms(value) == ms


@pytest.mark.parametrize(
    "value", ["soon", "0", "-5", "601s", "1e9", "INF", "-inf", "nan", "1e400s"]
)
def test_bad_timeouts_are_refused_with_the_forms(value: str) -> None:
    with pytest.raises(SteadyhandError) as caught:
        Settings().timeout_ms(value)
    assert (
        caught.value.code == ErrorCode.BAD_REQUEST and "short, medium or long" in caught.value.hint
    )


def test_dialog_policy_is_checked() -> None:
    with pytest.raises(SteadyhandError):
        Settings(dialogs="ignore")


@pytest.mark.parametrize(
    ("given", "policy"),
    [
        ("on_use", "on_use"),
        ("never", "never"),
        ("at_start", "at_start"),
        (True, "at_start"),
        ("false", "on_use"),
        ("AT_START", "at_start"),
    ],
)
def test_restore_sessions_takes_the_policies_and_the_old_booleans(
    given: object, policy: str
) -> None:
    assert Settings(restore_sessions=given).restore_sessions == policy


def test_restore_policy_and_tab_cap_are_checked() -> None:
    with pytest.raises(SteadyhandError) as caught:
        Settings(restore_sessions="sometimes")
    assert "on_use, at_start, never" in caught.value.message
    with pytest.raises(SteadyhandError) as caught:
        Settings(max_tabs=0)
    assert "max_tabs" in caught.value.message


def test_every_setting_of_the_table_is_annotated_on_settings_and_no_other() -> None:
    # mypy reads Settings' annotations; the slots and everything else come from SETTINGS.
    declared = dict(Settings.__annotations__)
    assert list(declared) == [name for name, _, _, _ in SETTINGS]
    assert declared == {name: kind for name, kind, _, _ in SETTINGS}
    assert Settings.__slots__ == tuple(declared)


def test_every_default_is_of_its_kind_and_every_setting_has_a_doc() -> None:
    kinds = {"Path": Path, "str": str, "bool": bool, "int": int, "float": float}
    settings = Settings()
    for name, kind, default, doc in SETTINGS:
        value = getattr(settings, name)
        assert type(value) is kinds[kind] or isinstance(value, Path), name
        if not callable(default):
            assert value == default, name
        assert doc and "|" not in doc, name
