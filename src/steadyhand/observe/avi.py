"""A video file written frame by frame: JPEG frames at a fixed rate in an MJPEG AVI.

Why this format: a tab's frames come from Chromium's screencast already JPEG-encoded, and
an AVI of JPEG frames (Motion JPEG) needs no encoder, only a container written in plain
Python; ffmpeg, ffplay, mpv and VLC all play it. Playwright's own video (WebM) needs
Playwright's downloaded ffmpeg build, which these machines cannot fetch.

The layout is AVI 1.0: `RIFF 'AVI '` holding the `hdrl` list (`avih`, then one `strl` with
`strh` and `strf`), the `movi` list of `00dc` chunks (one JPEG each), and the `idx1` index.
The headers have a fixed size, so they are written as zeros first and filled in by
`close`, with the index; until then the file is written to a hidden `.part` beside its
path, which only a finished file replaces: the path never holds a broken container.

An AVI has one frame rate, and a screencast sends frames only when the page changes, so
`FixedRateVideo` turns frames stamped with their time into that rate: each slot of 1/fps s
shows the newest frame by its time (a frame repeated while the page stays still, frames
between two slots dropped), and the video lasts as long as the recording did.

Standard library only; every method blocks (file writes): run them off the event loop.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

AVIF_HASINDEX = 0x10
AVIIF_KEYFRAME = 0x10
# Past this the file stops growing (the recording says so): readers of AVI 1.0 files count
# on sizes within 1 GiB, and every size field is 32 bits.
MAX_BYTES = 1 << 30
CHUNK = b"00dc"  # stream 0, compressed video
HEADER_BYTES = 224  # RIFF..hdrl..movi list header, fixed (see _header)
MOVI_AT = HEADER_BYTES - 4  # the 'movi' fourcc; idx1 offsets count from it
SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # not DHT, JPG, DAC


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, or None when `data` is no JPEG."""
    if not data.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in SOF_MARKERS and at + 9 <= len(data):
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return width, height
        if marker == 0xDA:  # scan data starts: no frame header came before it
            return None
        at += 2 + length
    return None


@dataclass(frozen=True)
class VideoInfo:
    """A finished video: where it is and what it holds."""

    path: str
    frames: int
    fps: int
    width: int
    height: int
    bytes: int
    full: bool  # it reached MAX_BYTES and stopped taking frames

    @property
    def seconds(self) -> float:
        return self.frames / self.fps


class MjpegAvi:
    """JPEG frames appended as they come; `close` writes the index and the headers and
    puts the file at its path."""

    def __init__(self, path: Path, fps: int) -> None:
        self.path = path
        self.fps = fps
        self.frames = 0
        self.width = self.height = 0
        self.full = False
        self._index = bytearray()
        self._biggest = 0
        self._at = HEADER_BYTES  # where the next chunk goes
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        self._temp = Path(temp)
        self._file = os.fdopen(fd, "wb")  # mkstemp made it 0600
        self._file.write(bytes(HEADER_BYTES))

    def add(self, jpeg: bytes) -> bool:
        """Append one frame; False (and nothing written) once the file is full."""
        padded = len(jpeg) + (len(jpeg) & 1)
        if self.full or self._at + 8 + padded + 16 * (self.frames + 1) + 8 > MAX_BYTES:
            self.full = True
            return False
        if not self.frames:
            self.width, self.height = jpeg_size(jpeg) or (0, 0)
        self._file.write(CHUNK + struct.pack("<I", len(jpeg)) + jpeg + b"\0" * (padded - len(jpeg)))
        self._index += struct.pack("<4sIII", CHUNK, AVIIF_KEYFRAME, self._at - MOVI_AT, len(jpeg))
        self._at += 8 + padded
        self._biggest = max(self._biggest, len(jpeg))
        self.frames += 1
        return True

    def close(self) -> VideoInfo:
        """Write the index and the headers, and move the file to its path."""
        try:
            self._file.write(b"idx1" + struct.pack("<I", len(self._index)) + self._index)
            size = self._file.tell()
            self._file.seek(0)
            self._file.write(self._header(size))
            self._file.close()
            os.replace(self._temp, self.path)
        except BaseException:
            self.discard()
            raise
        return VideoInfo(
            str(self.path), self.frames, self.fps, self.width, self.height, size, self.full
        )

    def discard(self) -> None:
        """Drop the unfinished file."""
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._temp)

    def _header(self, size: int) -> bytes:
        fps, frames, width, height = self.fps, self.frames, self.width, self.height
        buffer = self._biggest + 8
        avih = struct.pack(
            "<14I",
            round(1_000_000 / fps),  # microseconds per frame
            buffer * fps,  # max bytes per second
            0,  # padding granularity
            AVIF_HASINDEX,
            frames,
            0,  # initial frames
            1,  # streams
            buffer,
            width,
            height,
            *(0, 0, 0, 0),
        )
        strh = struct.pack(
            "<4s4sIHHIIIIIIiI4h",
            b"vids",
            b"MJPG",
            0,  # flags
            0,  # priority
            0,  # language
            0,  # initial frames
            1,  # scale: rate / scale = frames a second
            fps,
            0,  # start
            frames,  # length, in frames
            buffer,
            -1,  # quality: the default
            0,  # sample size: frames vary
            *(0, 0, width, height),  # the frame's rectangle
        )
        strf = struct.pack(
            "<IiiHH4sIiiII", 40, width, height, 1, 24, b"MJPG", width * height * 3, 0, 0, 0, 0
        )
        strl = b"strl" + _chunk(b"strh", strh) + _chunk(b"strf", strf)
        hdrl = b"hdrl" + _chunk(b"avih", avih) + _chunk(b"LIST", strl)
        movi_bytes = self._at - MOVI_AT  # 'movi' and its chunks
        header = (
            b"RIFF"
            + struct.pack("<I", size - 8)
            + b"AVI "
            + _chunk(b"LIST", hdrl)
            + b"LIST"
            + struct.pack("<I", movi_bytes)
            + b"movi"
        )
        assert len(header) == HEADER_BYTES
        return header


def _chunk(fourcc: bytes, data: bytes) -> bytes:
    return fourcc + struct.pack("<I", len(data)) + data


class FixedRateVideo:
    """Frames stamped with their time (seconds), written at `fps` frames a second.

    Slot k (at the first frame's time + k/fps) shows the newest frame stamped at or before
    it: a still page repeats its frame, and frames that come between two slots give way to
    the newest. `end` fills the slots up to the end of the recording, and one more when the
    newest frame came after the last slot: the video ends on the page as it was.
    """

    def __init__(self, path: Path, fps: int) -> None:
        self.fps = fps
        self._avi = MjpegAvi(path, fps)
        self._start: float | None = None
        self._last: bytes | None = None
        self._last_shown = False  # the newest frame is in a slot already

    @property
    def frames(self) -> int:
        return self._avi.frames

    def frame(self, jpeg: bytes, at: float) -> None:
        """The page as it looks from `at` on."""
        if self._start is None:
            self._start = at
        self.hold(at)
        self._last, self._last_shown = jpeg, False

    def hold(self, at: float) -> None:
        """Write the slots before `at` (the page did not change until then): a recording
        of a still page is kept written up to date, so `end` has little left to write."""
        if self._start is not None and self._last is not None:
            self._fill(math.ceil(round((at - self._start) * self.fps, 6)))

    def end(self, at: float) -> VideoInfo:
        """Finish at `at`: the last frame lasts until then; the file is put at its path."""
        if self._start is not None and self._last is not None:
            slots = max(0, math.floor(round((at - self._start) * self.fps, 6))) + 1
            self._fill(max(slots, self._avi.frames + (not self._last_shown)))
        return self._avi.close()

    def discard(self) -> None:
        self._avi.discard()

    def _fill(self, slots: int) -> None:
        """Repeat the newest frame until `slots` slots are written."""
        assert self._last is not None
        while self._avi.frames < slots and self._avi.add(self._last):
            self._last_shown = True
