"""Which Chromium binary a session launches (engine/chromium.py): the headless shell for a
headless browser when one is installed, the full browser for a window, and what the
setting or STEADYHAND_CHROMIUM name before either."""

from __future__ import annotations

from pathlib import Path

import pytest

from steadyhand.engine import chromium
from steadyhand.engine.chromium import find_chromium, missing_packages
from steadyhand.errors import SteadyhandError


def installed(bin_dir: Path, *names: str) -> dict[str, Path]:
    bin_dir.mkdir(exist_ok=True)
    made = {}
    for name in names:
        made[name] = bin_dir / name
        made[name].write_text("#!/bin/sh\n")
        made[name].chmod(0o755)
    return made


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PATH of our own, and no Debian binary outside it."""
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("STEADYHAND_CHROMIUM", raising=False)
    monkeypatch.setattr(chromium, "SHELL_BINARIES", ())
    return tmp_path / "bin"


def test_headless_takes_the_shell_and_a_window_the_full_browser(bin_dir: Path) -> None:
    made = installed(bin_dir, "chromium", "chromium-headless-shell")
    assert find_chromium(headless=True) == made["chromium-headless-shell"]
    assert find_chromium(headless=False) == made["chromium"]
    assert missing_packages() == []


def test_without_the_shell_headless_runs_the_full_browser(bin_dir: Path) -> None:
    made = installed(bin_dir, "chromium")
    assert find_chromium(headless=True) == made["chromium"]
    assert missing_packages() == ["chromium-headless-shell"]


def test_the_shell_alone_cannot_open_a_window(bin_dir: Path) -> None:
    made = installed(bin_dir, "chromium-headless-shell")
    assert find_chromium(headless=True) == made["chromium-headless-shell"]
    with pytest.raises(SteadyhandError) as refused:
        find_chromium(headless=False)
    assert refused.value.code == "browser_not_found"
    assert "PATH:chromium-headless-shell" not in refused.value.message
    assert missing_packages() == ["chromium"]


def test_nothing_installed_names_both_packages(bin_dir: Path) -> None:
    with pytest.raises(SteadyhandError) as refused:
        find_chromium()
    assert "PATH:chromium-headless-shell" in refused.value.message
    assert "chromium-headless-shell" in refused.value.hint
    assert missing_packages() == ["chromium", "chromium-headless-shell"]


def test_the_shell_binary_comes_before_a_wrapper_on_path(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed(bin_dir, "chromium", "chromium-headless-shell")
    binary = installed(tmp_path / "lib", "chromium-headless-shell")["chromium-headless-shell"]
    monkeypatch.setattr(chromium, "SHELL_BINARIES", (str(binary),))
    assert find_chromium(headless=True) == binary


def test_a_named_binary_wins_headless_or_not(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed(bin_dir, "chromium", "chromium-headless-shell")
    mine = installed(tmp_path / "mine", "my-chrome")["my-chrome"]
    assert find_chromium(str(mine), headless=True) == mine
    monkeypatch.setenv("STEADYHAND_CHROMIUM", str(mine))
    assert find_chromium(headless=True) == mine
    assert find_chromium(headless=False) == mine
    assert missing_packages() == []
