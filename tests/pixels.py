"""Pixel checks for the secret masks: how much of a box of a picture is black."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

Box = tuple[float, float, float, float]  # x, y, width, height in the picture's pixels
INSET = 3  # px: a field's border and focus ring are the page's own colours


def black_share(picture: Image.Image | bytes | Path, box: Box, scale: float = 1.0) -> float:
    """The share of the box's pixels (inside its border) that are black or nearly."""
    image = picture if isinstance(picture, Image.Image) else open_image(picture)
    x, y, w, h = (round(v * scale) for v in box)
    inner = image.convert("RGB").crop((x + INSET, y + INSET, x + w - INSET, y + h - INSET))
    raw = inner.tobytes()
    assert raw, f"an empty box {box} in a {image.size} picture"
    pixels = len(raw) // 3
    return sum(max(raw[i : i + 3]) <= 40 for i in range(0, len(raw), 3)) / pixels


def open_image(data: bytes | Path) -> Image.Image:
    raw = data.read_bytes() if isinstance(data, Path) else data
    image = Image.open(io.BytesIO(raw))
    image.load()
    return image


def avi_frames(path: Path) -> list[bytes]:
    """The JPEG frames of an MJPEG AVI (observe/avi.py writes `00dc` chunks)."""
    data = path.read_bytes()
    frames, at = [], data.find(b"movi")
    while (at := data.find(b"00dc", at + 1)) != -1:
        size = int.from_bytes(data[at + 4 : at + 8], "little")
        frame = data[at + 8 : at + 8 + size]
        if frame[:2] == b"\xff\xd8":
            frames.append(frame)
        at += 8 + size - 1
    return frames
