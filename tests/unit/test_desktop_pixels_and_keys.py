"""Pure parts of the desktop's watch and Wayland input: pixel changes (a caret's blink is
not one), the PPM grim writes, the US keys the virtual keyboard types, and AT-SPI's state
bits as the bulk reader decodes them."""

from __future__ import annotations

import pytest

from steadyhand.desktop.atspi import Box
from steadyhand.desktop.effects import changed
from steadyhand.desktop.see import blank
from steadyhand.desktop.sway import ppm
from steadyhand.desktop.wayland import CHARS, NAMED, _code
from steadyhand.errors import SteadyhandError

WIDTH = 40


def image(height: int = 10) -> bytearray:
    return bytearray(WIDTH * height * 4)


def paint(data: bytearray, x: int, y: int, w: int, h: int) -> bytearray:
    out = bytearray(data)
    for row in range(y, y + h):
        for col in range(x, x + w):
            out[(row * WIDTH + col) * 4 : (row * WIDTH + col) * 4 + 4] = b"\xff\xff\xff\x00"
    return out


def test_a_caret_is_not_a_change_a_label_is() -> None:
    before = image()
    caret = paint(before, 10, 2, 1, 6)  # a 1-pixel line
    assert not changed(bytes(before), bytes(caret), WIDTH)
    label = paint(before, 5, 3, 12, 4)
    assert changed(bytes(before), bytes(label), WIDTH)
    assert not changed(bytes(before), bytes(before), WIDTH)


def test_boxes_left_out_are_blanked_in_both_grabs() -> None:
    """What an object that changed just before does (its animation) is not compared."""
    before = image()
    animated = paint(before, 5, 3, 12, 2)
    for data in (before, animated):
        blank(data, WIDTH, (0, 0, WIDTH, 10), Box(5, 3, 12, 2), 1)
    assert not changed(bytes(before), bytes(animated), WIDTH)
    elsewhere = paint(animated, 20, 8, 12, 1)
    assert changed(bytes(before), bytes(elsewhere), WIDTH)


def test_ppm_as_grim_writes_it() -> None:
    pixels = b"\x01\x02\x03\x04\x05\x06"
    assert ppm(b"P6\n2 1\n255\n" + pixels) == (2, 1, pixels)
    assert ppm(b"P6 # a comment\n1 1 255\n\x07\x08\x09") == (1, 1, b"\x07\x08\x09")


def test_the_us_keys() -> None:
    assert CHARS["a"] == (30, False) and CHARS["A"] == (30, True)
    assert CHARS["1"] == (2, False) and CHARS["!"] == (2, True)
    assert CHARS["/"] == (53, False) and CHARS["?"] == (53, True)
    assert len({c for c in CHARS if c.isprintable()}) == 95  # every printable ASCII character
    assert NAMED["return"] == 28 and _code("BackSpace", "BackSpace") == (14, False)
    with pytest.raises(SteadyhandError, match="no key"):
        _code("Hyper_Q", "ctrl+Hyper_Q")


@pytest.mark.parametrize("data", [b"", b"P6", b"P6\n2 1\n255\n\x01", b"P5\n1 1\n255\n\x00", b"# x"])
def test_no_image_from_grim_is_an_error_not_a_hang(data: bytes) -> None:
    with pytest.raises(SteadyhandError, match="no P6"):
        ppm(data)
