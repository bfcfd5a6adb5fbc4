"""Input on a wlroots Wayland desktop (sway): a virtual pointer and a virtual keyboard.

Wayland has no XTEST: a client may send input only through the compositor's protocols for
it, here `zwlr_virtual_pointer_v1` and `zwp_virtual_keyboard_v1` (wlroots). This is a small
client of the Wayland wire protocol, standard library only (and libxkbcommon through ctypes
for the keymap the keyboard announces). Both devices are made once per daemon and kept: a
device made just before a click loses it (the application binds the new pointer late), so
the first use waits DEVICE_READY_S.

The keyboard types US ASCII through a US keymap (evdev key codes); other characters are
refused with a clear error (fields take any text through AT-SPI, the router's first try).
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import threading
import time

from steadyhand.errors import ErrorCode, SteadyhandError

DEVICE_READY_S = 0.3
ANSWER_S = 2.0  # how long the compositor may take to answer a roundtrip
BUTTONS = {1: 0x110, 2: 0x112, 3: 0x111}  # X button numbers -> evdev BTN_LEFT/MIDDLE/RIGHT
# US layout: character -> (evdev key code, needs shift)
_ROWS = {
    "1234567890-=": 2,
    "qwertyuiop[]": 16,
    "asdfghjkl;'`": 30,
    "zxcvbnm,./": 44,
}
_SHIFTED = {
    "1234567890-=": "!@#$%^&*()_+",
    "qwertyuiop[]": "QWERTYUIOP{}",
    "asdfghjkl;'`": 'ASDFGHJKL:"~',
    "zxcvbnm,./": "ZXCVBNM<>?",
}
CHARS: dict[str, tuple[int, bool]] = {" ": (57, False), "\n": (28, False), "\t": (15, False)}
CHARS |= {"\\": (43, False), "|": (43, True)}
for _row, _first in _ROWS.items():
    for _i, (_plain, _shift) in enumerate(zip(_row, _SHIFTED[_row], strict=True)):
        CHARS[_plain] = (_first + _i, False)
        CHARS[_shift] = (_first + _i, True)
NAMED = {
    "return": 28, "enter": 28, "backspace": 14, "tab": 15, "escape": 1, "esc": 1,
    "delete": 111, "del": 111, "insert": 110, "home": 102, "end": 107, "left": 105,
    "right": 106, "up": 103, "down": 108, "prior": 104, "pageup": 104, "next": 109,
    "pagedown": 109, "space": 57,
    **{f"f{n}": 58 + n for n in range(1, 11)}, "f11": 87, "f12": 88,
}  # fmt: skip
MODIFIERS = {  # name -> (key code, xkb modifier mask)
    "shift": (42, 1),
    "ctrl": (29, 4),
    "control": (29, 4),
    "alt": (56, 8),
    "super": (125, 64),
    "meta": (125, 64),
}


class Wire:
    """One connection to the compositor: requests out, events in."""

    def __init__(self) -> None:
        runtime = os.environ.get("XDG_RUNTIME_DIR", "")
        name = os.environ.get("WAYLAND_DISPLAY", "")
        if not runtime or not name:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                "no Wayland display (WAYLAND_DISPLAY and XDG_RUNTIME_DIR are not set)",
                "run the daemon in a Wayland session: `steadyhand desktop session --wayland`",
            )
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # A compositor that stops answering must not hold the AT-SPI thread for good.
        self.sock.settimeout(ANSWER_S)
        self._next = 2
        self._buf = b""
        self.globals: dict[str, tuple[int, int]] = {}
        self.registry = self.new_id()
        try:
            self.sock.connect(name if name.startswith("/") else os.path.join(runtime, name))
            self.send(1, 1, struct.pack("=I", self.registry))  # wl_display.get_registry
            self.roundtrip()
        except BaseException:
            self.sock.close()
            raise

    def new_id(self) -> int:
        self._next += 1
        return self._next - 1

    def send(self, obj: int, opcode: int, payload: bytes = b"", fd: int | None = None) -> None:
        header = struct.pack("=II", obj, ((8 + len(payload)) << 16) | opcode)
        if fd is None:
            self.sock.sendall(header + payload)
        else:
            rights = struct.pack("=i", fd)
            self.sock.sendmsg([header + payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])

    def bind(self, interface: str, version: int) -> int:
        found = self.globals.get(interface)
        if found is None:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED,
                f"the Wayland compositor does not offer {interface}",
                "input needs a wlroots compositor (sway); GNOME and KDE do not offer it",
            )
        new = self.new_id()
        payload = struct.pack("=I", found[0]) + _string(interface)
        self.send(self.registry, 0, payload + struct.pack("=II", min(version, found[1]), new))
        return new

    def roundtrip(self) -> None:
        """Wait until the compositor has handled every request sent so far."""
        done = self.new_id()
        self.send(1, 0, struct.pack("=I", done))  # wl_display.sync
        while True:
            for obj, opcode, payload in self._events():
                if obj == 1 and opcode == 0:  # wl_display.error
                    raise SteadyhandError(
                        ErrorCode.ACTION_FAILED,
                        "the Wayland compositor refused input: "
                        + payload[12:].rstrip(b"\0").decode(errors="replace"),
                        "see the compositor's log",
                    )
                if obj == done:
                    return
                if obj == self.registry and opcode == 0:  # wl_registry.global
                    name, length = struct.unpack_from("=II", payload)
                    interface = payload[8 : 8 + length - 1].decode()
                    (version,) = struct.unpack_from("=I", payload, 8 + length + (-length % 4))
                    self.globals[interface] = (name, version)

    def _events(self) -> list[tuple[int, int, bytes]]:
        try:
            chunk = self.sock.recv(65536)
        except TimeoutError as exc:
            raise SteadyhandError(
                ErrorCode.TIMEOUT,
                f"the Wayland compositor did not answer within {ANSWER_S:g} s",
                "the compositor may be hung; the desktop session may need a restart",
            ) from exc
        if not chunk:
            raise SteadyhandError(
                ErrorCode.ACTION_FAILED, "the Wayland compositor closed the connection", ""
            )
        self._buf += chunk
        found = []
        while len(self._buf) >= 8:
            obj, word = struct.unpack_from("=II", self._buf)
            size = word >> 16
            if len(self._buf) < size:
                break
            found.append((obj, word & 0xFFFF, self._buf[8:size]))
            self._buf = self._buf[size:]
        return found

    def close(self) -> None:
        self.sock.close()


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)


def _now() -> int:
    return int(time.monotonic() * 1000) & 0xFFFFFFFF


class Devices:
    """The virtual pointer and keyboard, made on first use and kept."""

    def __init__(self, width: int, height: int) -> None:
        self.size = (width, height)
        self.wire = Wire()
        try:
            self._make()
        except BaseException:
            self.wire.close()
            raise

    def _make(self) -> None:
        wire = self.wire
        manager = wire.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = wire.new_id()
        wire.send(manager, 0, struct.pack("=II", 0, self.pointer))  # the default seat
        seat = wire.bind("wl_seat", 1)
        keyboards = wire.bind("zwp_virtual_keyboard_manager_v1", 1)
        self.keyboard = wire.new_id()
        wire.send(keyboards, 0, struct.pack("=II", seat, self.keyboard))
        keymap = us_keymap()
        fd = os.memfd_create("steadyhand-keymap")
        try:
            os.write(fd, keymap)
            wire.send(self.keyboard, 0, struct.pack("=II", 1, len(keymap)), fd=fd)
        finally:
            os.close(fd)
        wire.roundtrip()
        time.sleep(DEVICE_READY_S)  # applications bind the new devices

    # ---------------------------------------------------------------- pointer

    def move(self, x: int, y: int) -> None:
        width, height = self.size
        self.wire.send(self.pointer, 1, struct.pack("=IIIII", _now(), x, y, width, height))
        self.wire.send(self.pointer, 4)  # frame

    def button(self, button: int, pressed: bool) -> None:
        code = BUTTONS.get(button, 0x110)
        self.wire.send(self.pointer, 2, struct.pack("=III", _now(), code, int(pressed)))
        self.wire.send(self.pointer, 4)

    def wheel(self, axis: int, steps: int) -> None:
        """`steps` notches of the wheel (axis 0: vertical, down positive; 1: horizontal)."""
        self.wire.send(self.pointer, 5, struct.pack("=I", 0))  # axis_source: wheel
        value = int(15 * steps * 256)  # wl_fixed: 15 pixels a notch
        self.wire.send(self.pointer, 7, struct.pack("=IIii", _now(), axis, value, steps))
        self.wire.send(self.pointer, 4)

    # ---------------------------------------------------------------- keyboard

    def key(self, code: int, pressed: bool) -> None:
        self.wire.send(self.keyboard, 1, struct.pack("=III", _now(), code, int(pressed)))

    def modifiers(self, mask: int) -> None:
        self.wire.send(self.keyboard, 2, struct.pack("=IIII", mask, 0, 0, 0))

    def sync(self) -> None:
        self.wire.roundtrip()


def us_keymap() -> bytes:
    """The US keymap as libxkbcommon writes it (the text the keyboard announces)."""
    try:
        xkb = ctypes.CDLL("libxkbcommon.so.0")
    except OSError as exc:
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            "the Wayland keyboard needs libxkbcommon (libxkbcommon0), not found",
            "apt-get install libxkbcommon0 (sway depends on it)",
        ) from exc
    xkb.xkb_context_new.restype = ctypes.c_void_p
    xkb.xkb_keymap_new_from_names.restype = ctypes.c_void_p
    xkb.xkb_keymap_new_from_names.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    xkb.xkb_keymap_get_as_string.restype = ctypes.c_void_p
    xkb.xkb_keymap_get_as_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
    xkb.xkb_keymap_unref.argtypes = [ctypes.c_void_p]
    xkb.xkb_context_unref.argtypes = [ctypes.c_void_p]
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    context = xkb.xkb_context_new(0)
    keymap = xkb.xkb_keymap_new_from_names(context, None, 0)  # evdev, pc105, us
    text = xkb.xkb_keymap_get_as_string(keymap, 1)
    try:
        return ctypes.string_at(text) + b"\0"
    finally:
        libc.free(text)
        xkb.xkb_keymap_unref(keymap)
        xkb.xkb_context_unref(context)


_made: dict[str, Devices] = {}  # the daemon's, by WAYLAND_DISPLAY
_lock = threading.Lock()


def devices(size: tuple[int, int]) -> Devices:
    """The daemon's virtual devices (made on first use; again after they failed)."""
    key = os.environ.get("WAYLAND_DISPLAY", "")
    with _lock:
        if key not in _made:
            _made[key] = Devices(*size)
        return _made[key]


def ready(size: tuple[int, int]) -> None:
    """Make the devices now (the first keyboard focuses a window: an event of its own)."""
    devices(size)


def forget() -> None:
    """Drop the devices after an error (a compositor restarted, a broken socket)."""
    with _lock:
        for made in _made.values():
            made.wire.close()
        _made.clear()


def click(size: tuple[int, int], x: int, y: int, button: int = 1, times: int = 1) -> None:
    d = devices(size)
    d.move(x, y)
    for _ in range(times):
        d.button(button, True)
        d.button(button, False)
    d.sync()


def pointer(size: tuple[int, int], kind: str, x: int, y: int, button: int = 1) -> None:
    d = devices(size)
    d.move(x, y)
    if kind in ("down", "up"):
        d.button(button, kind == "down")
    d.sync()


def scroll(size: tuple[int, int], x: int, y: int, dx: int, dy: int) -> None:
    d = devices(size)
    d.move(x, y)
    if dy:
        d.wheel(0, dy)
    if dx:
        d.wheel(1, dx)
    d.sync()


def drag(size: tuple[int, int], start: tuple[int, int], end: tuple[int, int]) -> None:
    d = devices(size)
    d.move(*start)
    d.button(1, True)
    d.sync()
    try:
        for step in range(1, 11):
            d.move(
                start[0] + (end[0] - start[0]) * step // 10,
                start[1] + (end[1] - start[1]) * step // 10,
            )
            d.sync()
            time.sleep(0.01)
    finally:
        d.button(1, False)
        d.sync()


def press(size: tuple[int, int], combo: str) -> None:
    """Press `ctrl+s`, `Return`, `shift+Tab`: modifiers held (and announced), the key tapped."""
    d = devices(size)
    parts = [p.strip() for p in combo.split("+") if p.strip()]
    held = [MODIFIERS[p.lower()] for p in parts[:-1] if p.lower() in MODIFIERS]
    if len(held) != len(parts) - 1:
        raise bad_key(combo)
    last = parts[-1] if parts else ""
    code, shift = _code(last, combo)
    if shift:
        held.append(MODIFIERS["shift"])
    _tap(d, code, held)
    d.sync()


def type_text(size: tuple[int, int], text: str) -> None:
    d = devices(size)
    for char in text:
        found = CHARS.get(char)
        if found is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the Wayland keyboard types US ASCII; {char!r} is not on it",
                "set the text through the field (`desktop type` tries AT-SPI first)",
            )
        code, shift = found
        _tap(d, code, [MODIFIERS["shift"]] if shift else [])
    d.sync()


def _tap(d: Devices, code: int, held: list[tuple[int, int]]) -> None:
    mask = 0
    for key, bit in held:
        d.key(key, True)
        mask |= bit
    if mask:
        d.modifiers(mask)
    d.key(code, True)
    d.key(code, False)
    if mask:
        d.modifiers(0)
    for key, _bit in reversed(held):
        d.key(key, False)


def _code(name: str, combo: str) -> tuple[int, bool]:
    if name.lower() in NAMED:
        return NAMED[name.lower()], False
    if name.lower() in MODIFIERS:
        return MODIFIERS[name.lower()][0], False
    if len(name) == 1 and name in CHARS:
        return CHARS[name]
    raise bad_key(combo)


def bad_key(combo: str) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"no key {combo!r} on the Wayland keyboard (US layout)",
        "write keys joined by +: ctrl+s, Return, alt+F4, shift+Tab",
    )
