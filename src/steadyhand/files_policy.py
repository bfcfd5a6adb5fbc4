"""Confined files: every path a command writes or reads must resolve inside a file root.

Why: commands that take a path (screenshot, pdf, trace stop, report, desktop see, profile
export write one; upload and profile import read one) run in the daemon with the user's
rights, on behalf of whoever reached a front (an agent over MCP, a page-driven prompt
injection over HTTP). Unconfined, `screenshot --path ~/.bashrc` overwrites a dotfile and
`upload e3 ~/.ssh/id_ed25519` sends a key to a site. So the daemon, where the command runs,
checks every such path the same way whatever front it came through.

The rule:

- A path is resolved first: `~` expanded, a relative path joined to its base (the CLI's
  working directory for a CLI call; the session's artifacts folder for every other front),
  then `os.path.realpath`: every symlink followed (the last part too, dangling or not, so
  an existing link is written through to its target, and is judged by it) and `..`
  resolved against the real directories. The command then uses the resolved path.
- It must lie inside a root, also resolved (a root may itself be a symlink): the state
  dir's `artifacts`, the upload dirs (`upload_dirs`, default the state dir's `uploads`),
  `downloads_dir` when set, the `file_roots` setting (os.pathsep-separated), and for a CLI
  call its working directory when `cli_cwd_files` (the default).
- The working directory is the loosest root, so two limits apply to it: it does not count
  when it is `/`, the home directory or an ancestor of it, and a hidden name (a part
  starting with `.`) under it is refused, so an agent in a repository cannot write
  `.git/hooks/...` or read `.env`.
- Outside every root: `policy_denied`, naming the resolved path, the rule, the roots and
  the setting that adds one. A NUL character or an unknown `~user` is `bad_request`.

Standard library only; nothing here touches the file system but to resolve paths.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError

CWD = "the CLI's working directory"


@dataclass(frozen=True)
class Root:
    """One directory files may be in (resolved), and what made it one (for messages)."""

    path: Path
    why: str
    hidden_ok: bool = True  # whether names starting with "." under it may be used


@dataclass(frozen=True)
class FileRoots:
    """The roots of one call and the directory its relative paths start from."""

    roots: tuple[Root, ...]
    base: Path  # where a relative path is joined (not resolved: it may not exist yet)

    def shown(self) -> str:
        """The roots as a hint lists them."""
        return "; ".join(f"{r.path} ({r.why})" for r in self.roots) or "none"


def real(path: Path | str) -> Path:
    """`path` with every symlink followed and `..` resolved (the missing tail lexically)."""
    return Path(os.path.realpath(path))


def file_roots(settings: Settings, base: Path, cli_cwd: str | None = None) -> FileRoots:
    """The roots a call may use: configured ones, plus a CLI call's working directory.

    `base`: where a relative path starts when the call is not the CLI's (the session's
    artifacts folder); a CLI call's relative paths start at its working directory.
    """
    roots = [Root(real(settings.artifacts_dir), "the artifacts dir")]
    roots += [Root(real(p), "upload_dirs") for p in settings.upload_roots]
    if settings.downloads_root is not None:
        roots.append(Root(real(settings.downloads_root), "downloads_dir"))
    for given in settings.file_roots.split(os.pathsep):
        if given.strip():
            roots.append(Root(real(Path(given.strip()).expanduser().absolute()), "file_roots"))
    if cli_cwd is not None:
        base = Path(cli_cwd)
        cwd = real(cli_cwd)
        if settings.cli_cwd_files and not too_wide(cwd):
            roots.append(Root(cwd, CWD, hidden_ok=False))
    return FileRoots(tuple(roots), base)


def too_wide(directory: Path) -> bool:
    """Whether a working directory is `/`, the home dir or above it: no root of files."""
    home = real(Path.home())
    return directory == directory.parent or home.is_relative_to(directory)


def resolved(given: str, base: Path) -> Path:
    """`given` as the path a command will use: `~` expanded, joined to `base`, resolved."""
    if "\0" in given:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the path {given!r} contains a NUL character",
            "give a path without NUL characters",
        )
    if not given:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, "an empty path", "give a file path")
    try:
        path = Path(given).expanduser()
    except RuntimeError as exc:  # `~name` of no such user
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{given!r}: {exc}",
            "give an absolute path (or ~/ for your own home)",
        ) from exc
    return real(base / path)  # an absolute `path` replaces base


def allowed_by(path: Path, roots: FileRoots) -> Root | None:
    """The root that allows `path` (already resolved), if one does."""
    for root in roots.roots:
        if not path.is_relative_to(root.path):
            continue
        inside = path.relative_to(root.path).parts
        if root.hidden_ok or not any(part.startswith(".") for part in inside):
            return root
    return None


def confine(given: str, roots: FileRoots, *, write: bool, command: str) -> Path:
    """The resolved path of a file `command` writes (or reads), if a root allows it;
    `policy_denied` (exit code 7, HTTP 403) otherwise."""
    path = resolved(given, roots.base)
    if allowed_by(path, roots) is not None:
        return path
    verb = "write" if write else "read"
    shown = given if given == str(path) else f"{given} → {path}"
    hidden = any(r.why == CWD and path.is_relative_to(r.path) for r in roots.roots)
    rule = (
        f"hidden names (starting with '.') under {CWD} are not used"
        if hidden
        else "files a command writes or reads must resolve, symlinks followed, inside a file root"
    )
    raise SteadyhandError(
        ErrorCode.POLICY_DENIED,
        f"{command} may not {verb} {shown}: {rule}",
        ("write inside a root" if write else "copy the file into a root")
        + f" — {roots.shown()} — or add a directory to the file_roots setting "
        "(STEADYHAND_FILE_ROOTS, os.pathsep-separated)",
        {"path": str(path), "roots": [str(r.path) for r in roots.roots]},
    )


def inside_folder(path: Path, folder: Path) -> Path:
    """`path`, resolved, when it stays in `folder` (a download's own folder): a link
    planted there never sends a file elsewhere."""
    target = real(path)
    if target.is_relative_to(real(folder)):
        return target
    raise SteadyhandError(
        ErrorCode.POLICY_DENIED,
        f"the download would be written to {target}, outside {folder} (a symlink)",
        "remove the link from the downloads folder",
        {"path": str(target)},
    )
