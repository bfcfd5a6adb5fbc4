"""A person's clicks, keys and wheel turns in the live view, played on the X screen.

The desktop's frames are the whole X screen, so the page's coordinates are screen pixels.
Events go through XTEST (desktop/display.py) on the AT-SPI thread, which owns the display
connection, in order. Only while a person has taken the desktop over: the agent's
`desktop.*` commands that act are refused meanwhile, so the two never type into each other.
"""

from __future__ import annotations

from steadyhand.desktop import display
from steadyhand.desktop.deadline import Deadline
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.live.remote_input import Click, InputEvent, Key, Pointer, Text, Wheel
from steadyhand.live.takeover import Takeover

BUTTONS = {"left": 1, "middle": 2, "right": 3}
# KeyboardEvent.key names (what the page sends) that X names otherwise.
KEYS = {
    "Enter": "Return",
    "Backspace": "BackSpace",
    "ArrowLeft": "Left",
    "ArrowRight": "Right",
    "ArrowUp": "Up",
    "ArrowDown": "Down",
    "PageUp": "Prior",
    "PageDown": "Next",
    " ": "space",
}
MODIFIERS = {"Control": "ctrl", "Alt": "alt", "Shift": "shift", "Meta": "super"}


def play(events: list[InputEvent], held: Takeover, _deadline: Deadline) -> None:
    """Play `events` on the X screen in order, counting them on the takeover."""
    width, height = display.size()
    for event in events:
        if isinstance(event, Click | Pointer | Wheel):
            x, y = int(event.x), int(event.y)
            if not (0 <= x < width and 0 <= y < height):
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"({x}, {y}) is off the {width}x{height} screen",
                    "send screen pixels, as the desktop frames' size gives them",
                )
        if isinstance(event, Click):
            display.click(x, y, BUTTONS[event.button], event.count)
            held.clicks += 1
        elif isinstance(event, Pointer):
            display.pointer(event.type, x, y, BUTTONS[event.button])
            held.clicks += event.type == "down"
        elif isinstance(event, Key):
            _key(event)
            held.keys += 1
        elif isinstance(event, Text):
            display.type_text(event.text)
            held.keys += len(event.text)
        else:
            display.scroll(x, y, _steps(event.dx), _steps(event.dy))


def _key(event: Key) -> None:
    name = KEYS.get(event.key, event.key)
    mods = [MODIFIERS[m] for m in event.modifiers if m != "Shift" or len(name) > 1]
    if len(name) == 1 and not mods:  # a character: typed as the keymap has it
        display.type_text(name)
        return
    display.press("+".join([*mods, name.lower() if len(name) == 1 else name]))


def _steps(pixels: float) -> int:
    """Wheel steps for a page's wheel delta (about 100 pixels a notch)."""
    if not pixels:
        return 0
    return int(max(1, min(20, round(abs(pixels) / 100)))) * (1 if pixels > 0 else -1)
