"""Read an MJPEG AVI back as a player would, checking its container on the way.

Written apart from steadyhand/observe/avi.py (which writes them) and from the AVI 1.0
layout, so a writer bug is not read back as right: the RIFF sizes must add up to the file,
the headers must name one MJPG video stream, and `idx1` must point at every `00dc` chunk
of `movi`, in order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Avi:
    total_frames: int  # avih dwTotalFrames
    length: int  # strh dwLength
    fps: float  # strh dwRate / dwScale
    micro_s_per_frame: int  # avih
    width: int  # avih
    height: int
    handler: bytes  # strh fccHandler
    compression: bytes  # strf biCompression
    frames: list[bytes]  # the 00dc chunks of movi, in order
    index_entries: int  # idx1 entries


def chunks(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """(fourcc, data offset, size) of each chunk between start and end (word-aligned)."""
    found = []
    at = start
    while at < end:
        assert at + 8 <= end, f"a chunk header runs past its list at {at}"
        fourcc = data[at : at + 4]
        (size,) = struct.unpack_from("<I", data, at + 4)
        assert at + 8 + size <= end, f"chunk {fourcc!r} at {at} runs past its list"
        found.append((fourcc, at + 8, size))
        at += 8 + size + (size & 1)
    assert at == end, "the chunks do not fill their list"
    return found


def read_avi(path: Path) -> Avi:
    data = path.read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"AVI ", "not a RIFF AVI"
    (riff_size,) = struct.unpack_from("<I", data, 4)
    assert riff_size + 8 == len(data), "the RIFF size is not the file's"
    top = chunks(data, 12, len(data))
    lists = {data[at : at + 4]: (at, size) for fourcc, at, size in top if fourcc == b"LIST"}
    assert [f for f, _, _ in top if f != b"JUNK"] == [b"LIST", b"LIST", b"idx1"]
    hdrl_at, hdrl_size = lists[b"hdrl"]
    hdrl = {f: (at, size) for f, at, size in chunks(data, hdrl_at + 4, hdrl_at + hdrl_size)}
    avih_at, avih_size = hdrl[b"avih"]
    assert avih_size == 56
    micro, _max_rate, _pad, flags, total, _initial, streams, _buffer, width, height = (
        struct.unpack_from("<10I", data, avih_at)
    )
    assert streams == 1 and flags & 0x10, "one stream, with an index"
    strl_at, strl_size = hdrl[b"LIST"]
    assert data[strl_at : strl_at + 4] == b"strl"
    strl = {f: (at, size) for f, at, size in chunks(data, strl_at + 4, strl_at + strl_size)}
    strh_at, _ = strl[b"strh"]
    kind, handler = data[strh_at : strh_at + 4], data[strh_at + 4 : strh_at + 8]
    scale, rate, _start, length = struct.unpack_from("<4I", data, strh_at + 20)
    assert kind == b"vids"
    strf_at, _ = strl[b"strf"]
    compression = data[strf_at + 16 : strf_at + 20]
    movi_at, movi_size = lists[b"movi"]
    movi_fourcc_at = movi_at
    frames, offsets = [], []
    for fourcc, at, size in chunks(data, movi_at + 4, movi_at + movi_size):
        assert fourcc == b"00dc", f"a {fourcc!r} chunk in movi"
        frames.append(data[at : at + size])
        offsets.append((at - 8 - movi_fourcc_at, size))
    (idx_at, idx_size) = next((at, size) for f, at, size in top if f == b"idx1")
    assert idx_size % 16 == 0
    entries = [struct.unpack_from("<4sIII", data, idx_at + i) for i in range(0, idx_size, 16)]
    assert [(e[2], e[3]) for e in entries] == offsets, "idx1 does not point at the chunks"
    assert all(e[0] == b"00dc" and e[1] & 0x10 for e in entries), "every frame a key frame"
    return Avi(
        total_frames=total,
        length=length,
        fps=rate / scale,
        micro_s_per_frame=micro,
        width=width,
        height=height,
        handler=handler,
        compression=compression,
        frames=frames,
        index_entries=len(entries),
    )


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a baseline or progressive JPEG, from its SOF0/SOF2 segment."""
    assert data[:2] == b"\xff\xd8", "no JPEG SOI"
    at = 2
    while True:
        assert data[at] == 0xFF, f"no marker at {at}"
        marker = data[at + 1]
        (length,) = struct.unpack_from(">H", data, at + 2)
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack_from(">HH", data, at + 5)
            return width, height
        assert marker != 0xDA, "scan data before any frame header"
        at += 2 + length
