"""The file roots (steadyhand/files_policy.py): what a command may write or read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError
from steadyhand.files_policy import FileRoots, confine, file_roots, inside_folder


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    (state / "artifacts").mkdir(parents=True)
    (state / "uploads").mkdir()
    return state


def roots_of(state: Path, cli_cwd: str | None = None, **settings: str) -> FileRoots:
    chosen = Settings(state_dir=state, **settings)
    return file_roots(chosen, state / "artifacts" / "s", cli_cwd)


def denied(given: str, roots: FileRoots, *, write: bool = True) -> SteadyhandError:
    with pytest.raises(SteadyhandError) as info:
        confine(given, roots, write=write, command="screenshot")
    assert info.value.code == "policy_denied"
    return info.value


def test_a_path_inside_a_root_is_resolved(state: Path) -> None:
    roots = roots_of(state)
    target = state / "artifacts" / "new" / "x.png"  # its parent does not exist yet
    assert confine(str(target), roots, write=True, command="screenshot") == target
    upload = state / "uploads" / "cv.txt"
    assert confine(str(upload), roots, write=False, command="upload") == upload


def test_outside_every_root_is_denied_naming_the_path_roots_and_setting(
    state: Path, tmp_path: Path
) -> None:
    error = denied(str(tmp_path / "elsewhere.png"), roots_of(state))
    assert str(tmp_path / "elsewhere.png") in error.message
    assert "inside a file root" in error.message
    assert str(state / "artifacts") in (error.hint or "")
    assert "file_roots" in (error.hint or "") and "STEADYHAND_FILE_ROOTS" in (error.hint or "")
    assert error.data["path"] == str(tmp_path / "elsewhere.png")
    assert denied("/etc/x.png", roots_of(state)).data["path"] == "/etc/x.png"


def test_dot_dot_is_resolved_before_the_check(state: Path) -> None:
    escaping = f"{state}/artifacts/../secrets.toml"
    error = denied(escaping, roots_of(state))
    assert error.data["path"] == str(state / "secrets.toml")
    assert f"→ {state / 'secrets.toml'}" in error.message  # what was given, and where it leads
    back_in = f"{state}/uploads/../artifacts/a.png"
    assert confine(back_in, roots_of(state), write=True, command="pdf") == state / "artifacts/a.png"


def test_a_symlinked_dir_escaping_a_root_is_denied(state: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (state / "artifacts" / "out").symlink_to(outside)
    error = denied(str(state / "artifacts" / "out" / "x.png"), roots_of(state))
    assert error.data["path"] == str(outside / "x.png")


def test_a_symlinked_file_pointing_outside_is_followed_and_denied(
    state: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text("untouched")
    (state / "artifacts" / "shot.png").symlink_to(victim)
    (state / "uploads" / "cv.txt").symlink_to(victim)
    (state / "artifacts" / "dangling.png").symlink_to(tmp_path / "not-yet")
    assert denied(str(state / "artifacts" / "shot.png"), roots_of(state)).data["path"] == str(
        victim
    )
    denied(str(state / "uploads" / "cv.txt"), roots_of(state), write=False)
    denied(str(state / "artifacts" / "dangling.png"), roots_of(state))  # would create it


def test_a_root_that_is_a_symlink_counts_as_its_target(state: Path, tmp_path: Path) -> None:
    real_root = tmp_path / "real-root"
    real_root.mkdir()
    link = tmp_path / "linked-root"
    link.symlink_to(real_root)
    roots = roots_of(state, file_roots=str(link))
    assert confine(str(link / "a.png"), roots, write=True, command="pdf") == real_root / "a.png"
    assert confine(str(real_root / "b.png"), roots, write=True, command="pdf") == (
        real_root / "b.png"
    )


def test_a_nonexistent_parent_inside_a_root_is_fine_outside_it_is_not(
    state: Path, tmp_path: Path
) -> None:
    deep = state / "artifacts" / "a" / "b" / "c.png"
    assert confine(str(deep), roots_of(state), write=True, command="pdf") == deep
    denied(str(tmp_path / "nope" / "nope" / "c.png"), roots_of(state))
    # `..` over directories that do not exist cannot climb out either
    denied(f"{state}/artifacts/x/../../../y.png", roots_of(state))


def test_configured_roots_count(state: Path, tmp_path: Path) -> None:
    extra, more, downloads = tmp_path / "extra", tmp_path / "more", tmp_path / "dl"
    roots = roots_of(
        state,
        file_roots=os.pathsep.join([str(extra), str(more)]),
        downloads_dir=str(downloads),
        upload_dirs=str(tmp_path / "up"),
    )
    for path in (extra / "a", more / "b", downloads / "c", tmp_path / "up" / "d"):
        assert confine(str(path), roots, write=True, command="pdf") == path
    denied(str(state / "uploads" / "x"), roots)  # upload_dirs replaced the default


def test_relative_paths_start_in_the_sessions_artifacts_or_the_cli_cwd(
    state: Path, tmp_path: Path
) -> None:
    roots = roots_of(state)
    assert confine("x.png", roots, write=True, command="pdf") == state / "artifacts" / "s" / "x.png"
    denied("../../../x.png", roots)
    project = tmp_path / "project"
    project.mkdir()
    cli = roots_of(state, str(project))
    assert confine("out/x.png", cli, write=True, command="pdf") == project / "out" / "x.png"
    assert confine(str(project / "y.png"), cli, write=True, command="pdf") == project / "y.png"
    off = roots_of(state, str(project), cli_cwd_files="false")
    denied("x.png", off)  # still relative to the cwd, which is no root now


def test_hidden_names_under_the_cli_cwd_are_denied(state: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git" / "hooks").mkdir(parents=True)
    cli = roots_of(state, str(project))
    error = denied(".git/hooks/pre-commit", cli)
    assert "hidden" in error.message
    denied(".env", cli, write=False)
    # under a configured root they are the user's to allow
    assert confine(".env", roots_of(state, str(project), file_roots=str(project)), write=False,
                   command="upload") == project / ".env"  # fmt: skip


def test_a_cwd_of_home_or_root_is_no_root(
    state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    denied(str(home / "x.png"), roots_of(state, str(home)))
    denied("/etc/x.png", roots_of(state, "/"))
    denied(str(home / "x.png"), roots_of(state, str(tmp_path)))  # an ancestor of home
    work = roots_of(state, str(home / "work"))
    assert confine("x.png", work, write=True, command="pdf") == home / "work" / "x.png"


def test_bad_paths_are_bad_input(state: Path) -> None:
    for given in ("a\0b", "", "~no-such-user-\x90/cv.txt"):
        with pytest.raises(SteadyhandError) as info:
            confine(given, roots_of(state), write=False, command="upload")
        assert info.value.code == "bad_request"


def test_a_download_never_leaves_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    assert inside_folder(folder / "a.csv", folder) == folder / "a.csv"
    (folder / "b.csv").symlink_to(tmp_path / "elsewhere.csv")
    with pytest.raises(SteadyhandError) as info:
        inside_folder(folder / "b.csv", folder)
    assert info.value.code == "policy_denied"
