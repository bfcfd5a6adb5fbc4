"""The sway compositor of a Wayland desktop: its IPC (windows and where they are) and its
screen (`grim`, wlr-screencopy).

Under Wayland an application does not know where its windows are: AT-SPI gives boxes
relative to the window. Sway's tree does (`rect` + `window_rect`), so a point of an element
on the screen is its box moved by its window's origin there.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
from typing import Any

from steadyhand.desktop.atspi import Box
from steadyhand.errors import ErrorCode, SteadyhandError

MAGIC = b"i3-ipc"
RUN_COMMAND, GET_OUTPUTS, GET_TREE = 0, 3, 4
GRIM_TIMEOUT_S = 5.0


def is_wayland() -> bool:
    """Whether the daemon's desktop is a Wayland one (no X display)."""
    return bool(os.environ.get("WAYLAND_DISPLAY")) and not os.environ.get("DISPLAY")


def ipc(kind: int, payload: str = "") -> Any:
    """One request to sway over SWAYSOCK; its JSON answer."""
    path = os.environ.get("SWAYSOCK", "")
    if not path:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "no sway IPC socket (SWAYSOCK is not set)",
            "run the daemon in `steadyhand desktop session --wayland`",
        )
    data = payload.encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        sock.connect(path)
        sock.sendall(MAGIC + struct.pack("=II", len(data), kind) + data)
        header = _read(sock, 14)
        length, _kind = struct.unpack("=II", header[6:])
        return json.loads(_read(sock, length))


def _read(sock: socket.socket, count: int) -> bytes:
    chunks = b""
    while len(chunks) < count:
        got = sock.recv(count - len(chunks))
        if not got:
            raise SteadyhandError(ErrorCode.ACTION_FAILED, "sway closed its IPC socket", "")
        chunks += got
    return chunks


def screen_size() -> tuple[int, int]:
    """The size of the first active output."""
    for output in ipc(GET_OUTPUTS):
        if output.get("active"):
            rect = output["rect"]
            return int(rect["width"]), int(rect["height"])
    raise SteadyhandError(ErrorCode.ACTION_FAILED, "sway has no active output", "")


def windows() -> list[dict[str, Any]]:
    """Every application window in sway's tree (tiled and floating)."""
    found: list[dict[str, Any]] = []
    stack = [ipc(GET_TREE)]
    while stack:
        node = stack.pop()
        if node.get("pid") and node.get("type") in ("con", "floating_con"):
            found.append(node)
        stack.extend(node.get("nodes", []))
        stack.extend(node.get("floating_nodes", []))
    return found


def window(pid: int, title: str) -> dict[str, Any]:
    """Sway's window of application `pid` titled `title` (its only one, whatever its title);
    `not_found` when there is none, or several and none so titled."""
    mine = [w for w in windows() if w.get("pid") == pid]
    titled = [w for w in mine if " ".join(str(w.get("name")).split()) == title]
    chosen = titled or (mine if len(mine) == 1 else [])
    if not chosen:
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"sway shows no window {title!r} of pid {pid}",
            "the window may be closed or not mapped yet; snapshot again",
        )
    return chosen[0]


def origin(pid: int, title: str) -> tuple[int, int]:
    """Where the window of application `pid` titled `title` has its content on the screen."""
    chosen = window(pid, title)
    rect, inner = chosen["rect"], chosen.get("window_rect") or {"x": 0, "y": 0}
    return int(rect["x"]) + int(inner["x"]), int(rect["y"]) + int(inner["y"])


def command(text: str) -> None:
    """Run a sway command (`[pid=123] focus`); an error when sway refuses it."""
    for answer in ipc(RUN_COMMAND, text):
        if not answer.get("success"):
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"sway refused {text!r}: {answer.get('error', 'no reason given')}",
                "",
            )


def grab(region: Box | None = None) -> tuple[int, int, bytes]:
    """The screen (or `region` of it) through grim: (width, height, RGB bytes)."""
    grim = shutil.which("grim")
    if grim is None:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "screenshots of a Wayland desktop need grim, which is not installed",
            "apt-get install grim (scripts/ensure-desktop does, as root)",
        )
    args = [grim, "-t", "ppm"]
    if region is not None:
        args += ["-g", f"{region.x},{region.y} {region.width}x{region.height}"]
    done = subprocess.run([*args, "-"], capture_output=True, timeout=GRIM_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "grim could not read the screen: " + done.stderr.decode(errors="replace").strip(),
            "the compositor must offer wlr-screencopy (sway does)",
        )
    return ppm(done.stdout)


def ppm(data: bytes) -> tuple[int, int, bytes]:
    """A binary PPM (P6, 8 bits) as (width, height, RGB bytes)."""
    bad = SteadyhandError(ErrorCode.ACTION_FAILED, "grim wrote no P6 image", "")
    fields: list[bytes] = []
    at = 0
    while len(fields) < 4:
        while at < len(data) and data[at : at + 1].isspace():
            at += 1
        if at >= len(data):
            raise bad
        if data[at : at + 1] == b"#":
            at = data.find(b"\n", at) + 1
            if at == 0:
                raise bad
            continue
        end = at
        while end < len(data) and not data[end : end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    if fields[0] != b"P6" or fields[3] != b"255" or not (fields[1] + fields[2]).isdigit():
        raise bad
    width, height = int(fields[1]), int(fields[2])
    pixels = data[at + 1 : at + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise bad
    return width, height, pixels
