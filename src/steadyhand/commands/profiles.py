"""Commands for persistent profiles: create, list, delete, export, import."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command, file_path, positional
from steadyhand.engine.profiles import ProfileInfo
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.private_files import write_private
from steadyhand.store.sealing import open_document, seal_document
from steadyhand.store.state_keys import StateKeys


class ProfileParams(Params):
    name: str = positional("profile name")


class Profile(Result):
    name: str
    path: str = Field(description="the profile's Chromium user-data dir")
    created_at: float
    size_bytes: int
    in_use_by: str | None = Field(description="the session that has it open")


def profile_result(info: ProfileInfo) -> Profile:
    return Profile(
        name=info.name,
        path=info.path,
        created_at=info.created_at,
        size_bytes=info.size_bytes,
        in_use_by=info.in_use_by,
    )


@command("profile.create", touches_page=False, timeout="short", caps="storage")
async def profile_create(call: Call, params: ProfileParams) -> Profile:
    """Create a persistent profile (open sessions on it with `open URL --profile NAME`)."""
    return profile_result(await asyncio.to_thread(call.engine.profiles.create, params.name))


class ProfileList(Result):
    profiles: list[Profile]


@command("profile.list", reads_only=True, touches_page=False, timeout="short", caps="storage")
async def profile_list(call: Call, params: Params) -> ProfileList:
    """List persistent profiles, their size and the session using each."""
    infos = await asyncio.to_thread(call.engine.profiles.list)
    return ProfileList(profiles=[profile_result(i) for i in infos])


class Deleted(Result):
    deleted: str


@command("profile.delete", destructive=True, touches_page=False, timeout="short", caps="storage")
async def profile_delete(call: Call, params: ProfileParams) -> Deleted:
    """Delete a profile and everything Chromium kept in it (refused while it is open)."""
    await asyncio.to_thread(call.engine.profiles.delete, params.name)
    return Deleted(deleted=params.name)


class ExportParams(ProfileParams):
    out: str | None = file_path(
        "write the storage state to this file (0600), sealed with the state key"
    )
    plain: bool = Field(
        False,
        description="with --out: write Playwright's storage-state JSON in clear (any "
        "Playwright reads it; so does anyone who reads the file)",
    )


class Exported(Result):
    PAGE_TEXT: ClassVar[bool] = True  # without --out: the cookies and storage pages set
    name: str
    path: str | None = Field(description="the file written, when --out was given")
    sealed: bool = Field(False, description="the file is sealed: only `profile import` opens it")
    cookies: int
    origins: int
    state: dict[str, Any] | None = Field(description="the storage state, without --out")


@command("profile.export", reads_only=True, touches_page=False, timeout="long", caps="storage")
async def profile_export(call: Call, params: ExportParams) -> Exported:
    """Export a profile's cookies and localStorage as Playwright storage-state JSON (to a
    file: sealed with the state key unless --plain)."""
    state = await call.engine.export_profile(params.name)
    path = None
    if params.out:
        target = await call.output_path(params.out, "profile.export", label=params.name, ext="json")
        written = state if params.plain else await asyncio.to_thread(seal_state, call, state)
        await asyncio.to_thread(write_private, target, json.dumps(written, indent=2))
        path = str(target)
    return Exported(
        name=params.name,
        path=path,
        sealed=bool(path) and not params.plain,
        cookies=len(state.get("cookies", [])),
        origins=len(state.get("origins", [])),
        state=None if path else state,
    )


class ImportParams(ProfileParams):
    file: str | None = file_path(
        "a storage-state file: `profile export`'s (sealed or not) or Playwright's",
        positional=True,
    )


class Imported(Result):
    name: str
    cookies: int
    origins: int


@command("profile.import", destructive=True, touches_page=False, timeout="long", caps="storage")
async def profile_import(call: Call, params: ImportParams) -> Imported:
    """Import a storage-state JSON file (cookies, localStorage) into a profile."""
    if not params.file:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "profile import needs a storage-state file",
            "`profile import NAME FILE`; `profile export NAME --out FILE` writes one",
        )
    (path,) = await call.input_paths([params.file], "profile import")
    state = await asyncio.to_thread(read_state, path, call.runtime.store.keys)
    await call.engine.import_profile(params.name, state)
    return Imported(name=params.name, cookies=len(state["cookies"]), origins=len(state["origins"]))


STORAGE_STATE = "storage state"  # the purpose an exported profile is sealed for


def seal_state(call: Call, state: dict[str, Any]) -> dict[str, Any]:
    return seal_document(call.runtime.store.keys, STORAGE_STATE, state)


def read_state(path: Path, keys: StateKeys) -> dict[str, Any]:
    """A storage state from a file (opened when sealed), checked for the shape Playwright
    writes."""
    try:
        state = json.loads(path.read_text())
        if isinstance(state, dict) and state.get("steadyhand") == STORAGE_STATE:
            state = open_document(keys, state, f"the exported profile {path}")
    except FileNotFoundError:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND, f"no file {path}", "give the path `profile export` wrote"
        ) from None
    except (OSError, ValueError) as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{path} is not a storage-state JSON file: {exc}",
            'expected {"cookies": [...], "origins": [...]} as `profile export` writes',
        ) from None
    if (
        not isinstance(state, dict)
        or not isinstance(state.get("cookies", []), list)
        or not isinstance(state.get("origins", []), list)
    ):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{path} is not a storage-state JSON file",
            'expected {"cookies": [...], "origins": [...]} as `profile export` writes',
        )
    return {"cookies": state.get("cookies", []), "origins": state.get("origins", [])}
