from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.observe.log import ACTION_FIELDS, action_logged, configure


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def fields(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "session_id": "s1",
        "tab": "t1",
        "action_id": 7,
        "request_id": "abcd",
        "command": "click",
        "duration_ms": 12.5,
        "retries": 0,
        "ok": True,
    }
    return base | changes


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_action_lines_levels_and_redaction(
    tmp_path: Path, restore_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings.load(state_dir=tmp_path, log_level="debug")
    path = configure(settings)
    assert path.stat().st_mode & 0o777 == 0o600
    action_logged(fields(), error=None, details={"params": {"ref": "e1"}})
    action_logged(fields(retries=2), error=None, details={})
    action_logged(
        fields(ok=False),
        error={"error_code": "not_found", "error": "no e9", "hint": "snapshot again"},
        details={
            "params": {"password": "pw-1234", "url": "https://u:pw-5678@h.test/p?api_key=k-9012"},
            "result": {"nested": [{"token": "t-3456"}], "text": "see https://x.test/?token=ok"},
        },
    )
    logging.getLogger("steadyhand.engine").info("plain %s line", "stdlib")
    written = lines(path)
    assert [(x["level"], x["event"]) for x in written] == [
        ("info", "action"),
        ("debug", "action details"),
        ("warning", "action needed retries"),
        ("debug", "action details"),
        ("error", "action failed"),
        ("debug", "action details"),
        ("info", "plain stdlib line"),
    ]
    assert list(written[0])[:4] == ["ts", "level", "logger", "event"]
    for line in written[:6]:
        assert set(ACTION_FIELDS) <= line.keys()
    assert written[4]["error_code"] == "not_found" and written[4]["hint"] == "snapshot again"
    text = path.read_text()
    for secret in ("pw-1234", "pw-5678", "k-9012", "t-3456"):
        assert secret not in text
    assert "see https://x.test/?token=ok" in text  # prose is not taken for a URL
    # stderr gets warning and up (the daemon's stderr is daemon.log).
    err = capsys.readouterr().err.splitlines()
    assert [json.loads(x)["level"] for x in err] == ["warning", "error"]


def test_info_level_hides_details_and_the_file_rotates(
    tmp_path: Path, restore_logging: None
) -> None:
    settings = Settings.load(state_dir=tmp_path, log_max_bytes=2000, log_backups=2)
    path = configure(settings, stderr=False)
    for i in range(60):
        action_logged(fields(action_id=i), error=None, details={"params": {"x": "y" * 50}})
    logging.getLogger().handlers[0].flush()
    rotated = sorted(p.name for p in path.parent.iterdir())
    assert rotated == ["steadyhand.jsonl", "steadyhand.jsonl.1", "steadyhand.jsonl.2"]
    kept = [x for p in path.parent.iterdir() for x in lines(p)]
    assert all(x["event"] == "action" for x in kept)  # no debug lines at info
    longest = max(
        len(line) + 1 for p in path.parent.iterdir() for line in p.read_text().splitlines()
    )
    assert all(p.stat().st_size < 2000 + longest for p in path.parent.iterdir())
    assert max(int(str(x["action_id"])) for x in kept) == 59


def test_a_bad_level_is_refused() -> None:
    with pytest.raises(SteadyhandError) as info:
        Settings.load(log_level="verbose")
    assert info.value.code == "bad_request" and "debug" in (info.value.hint or "")
