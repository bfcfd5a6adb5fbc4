from __future__ import annotations

from pathlib import Path

import pytest

from steadyhand.commands.files import allowed_files
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.files_policy import FileRoots, file_roots


def roots(tmp_path: Path) -> FileRoots:
    return file_roots(Settings(state_dir=tmp_path, upload_dirs=str(tmp_path)), tmp_path)


def test_a_home_of_no_such_user_is_bad_input(tmp_path: Path) -> None:
    # Found by fuzzing the HTTP API: expanduser raised RuntimeError, answered as a 500.
    with pytest.raises(SteadyhandError) as info:
        allowed_files(["~no-such-user-\x90/cv.txt"], roots(tmp_path))
    assert info.value.code == "bad_request" and "~/" in (info.value.hint or "")


def test_files_inside_the_roots_are_resolved(tmp_path: Path) -> None:
    (tmp_path / "cv.txt").write_text("x")
    assert allowed_files([str(tmp_path / "cv.txt")], roots(tmp_path)) == [tmp_path / "cv.txt"]


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(SteadyhandError) as info:
        allowed_files([str(tmp_path)], roots(tmp_path))
    assert info.value.code == "bad_request"
