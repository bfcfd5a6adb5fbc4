"""Files in and out of the page: upload into a file input, download by clicking."""

from __future__ import annotations

import asyncio
from pathlib import Path

from steadyhand.act.loop import Act
from steadyhand.act.results import ActionResult
from steadyhand.act.verify import FILES_JS, Unverified
from steadyhand.call import Call
from steadyhand.commands.act_on_elements import TARGET_HELP, ActParams, click_once
from steadyhand.commands.table import GateRule, command, positional
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.files_policy import FileRoots, confine


class UploadParams(ActParams):
    ref: str = positional(TARGET_HELP)
    files: list[str] = positional("files to upload (inside a file root: see `file_roots`)")


def allowed_files(paths: list[str], roots: FileRoots) -> list[Path]:
    """The files, resolved, if each lies inside a file root (files_policy.py);
    `policy_denied` else. Blocking."""
    found = []
    for given in paths:
        path = confine(given, roots, write=False, command="upload")
        if not path.is_file():
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST, f"{given} is not a file", "give paths of existing files"
            )
        found.append(path)
    return found


@command("upload", acts=True, caps="files", gate_rule=GateRule(files=True))
async def upload(call: Call, params: UploadParams) -> ActionResult:
    """Put files into a file input (files only from inside the file roots); verified."""
    if not params.files:
        raise SteadyhandError(ErrorCode.BAD_REQUEST, "upload needs a file", "give file paths")
    files = await asyncio.to_thread(lambda: allowed_files(params.files, call.file_roots()))
    async with Act(call, params) as act:

        async def body() -> None:
            async with act.target(params.ref) as aim:
                await act.ready(aim)
                await aim.handle.set_input_files(files, timeout=call.remaining_ms())
                names = await aim.handle.evaluate(FILES_JS)
                wanted = [f.name for f in files]
                if names is not None and names != wanted:
                    raise Unverified(
                        f"{aim.what} holds {names} after uploading {wanted}",
                        "the page cleared or refused the files: check its rules (type, size)",
                    )
                act.detail["files"] = wanted

        await act.run(body)
    return await act.result("upload", params.ref)


class DownloadParams(ActParams):
    ref: str = positional(TARGET_HELP)


@command("download", acts=True, timeout="long", on_element=True, caps="files")
async def download(call: Call, params: DownloadParams) -> ActionResult:
    """Click an element that downloads a file; the file is saved and its path reported."""
    async with Act(call, params) as act:
        await act.run(lambda: click_once(act, params.ref, {}))
    done = await act.result("download", params.ref)
    if not done.downloads and done.dialog is None:
        raise SteadyhandError(
            ErrorCode.VERIFICATION_FAILED,
            f"clicking {params.ref} started no download",
            "take a snapshot: the link may open a page instead (use click), or need a choice first",
            {"result": done.model_dump(mode="json", exclude={"changes"})},
        )
    failed = [d for d in done.downloads if "path" not in d]
    if failed:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"the download did not complete: {failed[0].get('error', 'unknown error')}",
            "try again; check the server and the `downloads_dir` setting",
            {"downloads": done.downloads},
        )
    return done
