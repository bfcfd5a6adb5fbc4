"""`emulate`: change what a live session emulates (`open --device ...` sets it at start)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, command
from steadyhand.engine.emulation import (
    AT_START,
    FLAGS,
    change_live,
    describe,
    parse_geolocation,
    parse_viewport,
)
from steadyhand.errors import ErrorCode, SteadyhandError

ColorScheme = Literal["light", "dark", "no-preference"]


class EmulateParams(Params):
    color_scheme: ColorScheme | None = Field(None, description="prefers-color-scheme")
    geolocation: str | None = Field(
        None, description="LAT,LON[,ACCURACY] (granted to pages), or off"
    )
    viewport: str | None = Field(None, description="WIDTHxHEIGHT of every tab")

    @model_validator(mode="before")
    @classmethod
    def _at_start_only(cls, data: object) -> object:
        """A device, user agent, locale or timezone needs a new context: say how."""
        fixed = [k for k in AT_START if isinstance(data, dict) and k in data]
        if fixed:
            flags = " ".join(f"{FLAGS[k]} ..." for k in fixed)
            raise ValueError(
                f"{', '.join(FLAGS[k] for k in fixed)} is set when a session opens: "
                f"`open URL --session NEW {flags}` (or close this session and open it again "
                "with it); `emulate` changes --color-scheme, --geolocation and --viewport"
            )
        return data


class Emulated(Result):
    session: str
    emulation: str | None = Field(
        None, description="what it emulates: device, user agent, locale, timezone, geo, scheme"
    )
    viewport: str | None = Field(None, description="the current tab's viewport, WIDTHxHEIGHT")


@command("emulate", caps="sessions")
async def emulate(call: Call, params: EmulateParams) -> Emulated:
    """Change a live session's colour scheme, geolocation or viewport; none: show them."""
    geolocation: dict[str, float] | Literal["off"] | None = None
    if params.geolocation is not None:
        off = params.geolocation.strip().lower() in ("off", "none")
        geolocation = "off" if off else parse_geolocation(params.geolocation)
    viewport = parse_viewport(params.viewport) if params.viewport is not None else None
    session = await call.session()
    if session.attached is not None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"session {session.name!r} is attached to a running application: its browser's "
            "emulation is not steadyhand's to change",
            "open a session of your own (`open URL --session NAME --color-scheme dark`)",
        )
    changes: dict[str, Any] = {"color_scheme": params.color_scheme, "viewport": viewport}
    changes["geolocation"] = geolocation
    if any(v is not None for v in changes.values()):
        await change_live(session, **changes)
        await call.engine.checkpoint(session, "emulate")  # a restore brings the change back
    tab = session.current_tab()
    size = tab.page.viewport_size if tab is not None else None
    return Emulated(
        session=session.name,
        emulation=describe(session.emulation) or None,
        viewport=f"{size['width']}x{size['height']}" if size else None,
    )
