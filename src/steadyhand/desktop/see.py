"""`desktop see`: the X screen as a PNG, optionally with every visible ref boxed and labelled.

The screen is read with XGetImage (python-xlib), boxes are drawn into the pixels, and the
PNG is encoded here (zlib): no imaging library needed. Labels use a 3x5 bitmap font scaled
up, on a filled tab at the box's top-left corner, like the browser's labelled screenshots.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from steadyhand.desktop import xinput
from steadyhand.desktop.atspi import Box

RED = b"\xd0\x10\x30"
WHITE = b"\xff\xff\xff"
SCALE = 2  # label pixels per font pixel
FONT = {  # 3 wide, 5 high; rows top to bottom, bits left to right
    "d": ("001", "001", "111", "101", "111"),
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
}


@dataclass
class Canvas:
    """RGB pixels, row after row."""

    width: int
    height: int
    pixels: bytearray

    def fill(self, x: int, y: int, w: int, h: int, colour: bytes) -> None:
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + w), min(self.height, y + h)
        if x0 >= x1 or y0 >= y1:
            return
        row = colour * (x1 - x0)
        for yy in range(y0, y1):
            start = (yy * self.width + x0) * 3
            self.pixels[start : start + len(row)] = row

    def frame(self, box: Box, colour: bytes, thickness: int = 2) -> None:
        self.fill(box.x, box.y, box.width, thickness, colour)
        self.fill(box.x, box.y + box.height - thickness, box.width, thickness, colour)
        self.fill(box.x, box.y, thickness, box.height, colour)
        self.fill(box.x + box.width - thickness, box.y, thickness, box.height, colour)

    def label(self, x: int, y: int, text: str) -> None:
        """`text` in white on a red tab whose top-left corner is (x, y)."""
        glyph_w, pad = 3 * SCALE, SCALE
        width = len(text) * (glyph_w + SCALE) + pad * 2 - SCALE
        self.fill(x, y, width, 5 * SCALE + pad * 2, RED)
        for i, char in enumerate(text):
            rows = FONT.get(char)
            if rows is None:
                continue
            left = x + pad + i * (glyph_w + SCALE)
            for r, bits in enumerate(rows):
                for c, bit in enumerate(bits):
                    if bit == "1":
                        self.fill(left + c * SCALE, y + pad + r * SCALE, SCALE, SCALE, WHITE)

    def png(self, level: int = 6) -> bytes:
        """The canvas as a PNG (zlib `level`: 1 is fast, 6 small)."""
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * stride : (y + 1) * stride]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, level))
            + chunk(b"IEND", b"")
        )


def grab(display: Any = None) -> Canvas:
    """The whole X screen now, through `display` (default: the desktop worker's shared
    connection, xinput.display())."""
    from Xlib import X

    display = display if display is not None else xinput.display()
    screen = display.screen()
    root = screen.root
    width, height = int(screen.width_in_pixels), int(screen.height_in_pixels)
    image = root.get_image(0, 0, width, height, X.ZPixmap, 0xFFFFFFFF)
    data = image.data if isinstance(image.data, bytes) else bytes(image.data, "latin-1")
    pixels = bytearray(width * height * 3)
    pixels[0::3] = data[2::4]  # XGetImage gives BGRX at 24/32 bits per pixel
    pixels[1::3] = data[1::4]
    pixels[2::3] = data[0::4]
    return Canvas(width, height, pixels)


def annotate(canvas: Canvas, boxes: list[tuple[str, Box]]) -> None:
    """Box every (ref, box) and label it with its ref."""
    for _ref, box in boxes:
        canvas.frame(box, RED)
    for ref, box in boxes:  # labels over every frame
        canvas.label(box.x, max(0, box.y - (5 * SCALE + 2 * SCALE)), ref)


def region_pixels(
    region: Box | None, skips: Sequence[Box], margin: int, display: Any = None
) -> bytes:
    """The raw pixels of `region` of the X screen (all of it when None), with `skips` (grown
    by `margin`) blanked: what an action's watch compares before and after."""
    from Xlib import X

    display = display if display is not None else xinput.display()
    screen = display.screen()
    area = clip(region, int(screen.width_in_pixels), int(screen.height_in_pixels))
    if area is None:
        return b""
    x0, y0, x1, y1 = area
    image = screen.root.get_image(x0, y0, x1 - x0, y1 - y0, X.ZPixmap, 0xFFFFFFFF)
    data = bytearray(image.data if isinstance(image.data, bytes) else image.data.encode("latin-1"))
    for skip in skips:
        blank(data, x1 - x0, (x0, y0, x1, y1), skip, margin)
    return bytes(data)


def clip(region: Box | None, width: int, height: int) -> tuple[int, int, int, int] | None:
    """`region` (None: all) within a `width`x`height` screen as (x0, y0, x1, y1); None
    when nothing of it is on the screen."""
    x0, y0, x1, y1 = 0, 0, width, height
    if region is not None:
        x0, y0 = max(0, region.x), max(0, region.y)
        x1, y1 = min(width, region.x + region.width), min(height, region.y + region.height)
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def blank(
    data: bytearray, width: int, area: tuple[int, int, int, int], skip: Box, margin: int
) -> None:
    """Zero `skip` (grown by `margin`) in `data`, the pixels (4 bytes each, `width` a row)
    of the screen's `area` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = area
    stride = width * 4
    left = max(x0, skip.x - margin) - x0
    right = min(x1, skip.x + skip.width + margin) - x0
    top = max(y0, skip.y - margin) - y0
    bottom = min(y1, skip.y + skip.height + margin) - y0
    if left < right and top < bottom:
        zeros = bytes((right - left) * 4)
        for row in range(top, bottom):
            data[row * stride + left * 4 : row * stride + right * 4] = zeros
