"""The MJPEG AVI writer: frames at a fixed rate from frames stamped with their time, in a
container read back by tests/avi_file.py (a reader written apart from it)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from steadyhand.observe import avi
from steadyhand.observe.avi import FixedRateVideo, MjpegAvi, jpeg_size
from tests.avi_file import jpeg_size as read_jpeg_size
from tests.avi_file import read_avi


def fake_jpeg(tag: bytes, width: int = 64, height: int = 48) -> bytes:
    """The markers of a JPEG (SOI, a comment holding `tag`, SOF0, EOI): enough for a
    container, which never decodes its frames."""
    comment = b"\xff\xfe" + struct.pack(">H", 2 + len(tag)) + tag
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + comment + sof + b"\xff\xd9"


A, B, C = fake_jpeg(b"a"), fake_jpeg(b"bb"), fake_jpeg(b"ccc")


def test_frames_fill_the_slots_they_were_on_screen_for(tmp_path: Path) -> None:
    path = tmp_path / "v.avi"
    video = FixedRateVideo(path, fps=10)
    video.frame(A, 100.0)
    video.frame(B, 100.25)  # slots at 100.0, 100.1, 100.2 showed A
    video.frame(C, 101.0)  # slots 100.3 .. 100.9 showed B
    info = video.end(101.5)  # slots 101.0 .. 101.5 show C
    read = read_avi(path)
    assert read.frames == [A] * 3 + [B] * 7 + [C] * 6
    assert (info.frames, info.seconds, info.fps) == (16, 1.6, 10)
    assert (read.total_frames, read.length, read.index_entries) == (16, 16, 16)
    assert (read.fps, read.micro_s_per_frame, read.width, read.height) == (10, 100_000, 64, 48)
    assert (read.handler, read.compression) == (b"MJPG", b"MJPG")
    assert info.bytes == path.stat().st_size and not info.full


def test_a_still_page_repeats_its_frame_until_the_end(tmp_path: Path) -> None:
    video = FixedRateVideo(tmp_path / "still.avi", fps=4)
    video.frame(A, 5.0)
    video.hold(5.6)  # written up to now: slots 5.0, 5.25, 5.5
    assert video.frames == 3
    info = video.end(6.0)
    assert read_avi(tmp_path / "still.avi").frames == [A] * 5  # .. 5.75, 6.0
    assert info.seconds == 1.25


def test_the_video_ends_on_the_newest_frame_even_between_two_slots(tmp_path: Path) -> None:
    video = FixedRateVideo(tmp_path / "late.avi", fps=10)
    video.frame(A, 0.0)
    video.frame(B, 0.35)  # the page changed just before the stop, after the last slot
    video.end(0.38)
    assert read_avi(tmp_path / "late.avi").frames == [A] * 4 + [B]


def test_frames_out_of_order_or_in_one_slot_keep_the_newest(tmp_path: Path) -> None:
    video = FixedRateVideo(tmp_path / "o.avi", fps=10)
    video.frame(A, 1.0)
    video.frame(B, 1.02)  # A never reached a slot after the first
    video.frame(C, 1.01)  # stamped earlier, came later: the newest all the same
    video.end(1.1)
    assert read_avi(tmp_path / "o.avi").frames == [A, C]


def test_odd_frames_are_padded_and_indexed_by_their_own_size(tmp_path: Path) -> None:
    assert len(B) % 2 == 1 and len(A) % 2 == 0
    writer = MjpegAvi(tmp_path / "pad.avi", fps=2)
    for frame in (A, B, A):
        assert writer.add(frame)
    writer.close()
    assert read_avi(tmp_path / "pad.avi").frames == [A, B, A]  # the reader checks idx1


def test_the_path_only_ever_holds_a_finished_file(tmp_path: Path) -> None:
    path = tmp_path / "v.avi"
    video = FixedRateVideo(path, fps=10)
    video.frame(A, 0.0)
    video.hold(1.0)
    assert not path.exists()
    (part,) = tmp_path.glob(".v.avi.*.part")
    assert part.stat().st_mode & 0o777 == 0o600
    video.end(1.0)
    assert [p.name for p in tmp_path.iterdir()] == ["v.avi"]
    dropped = FixedRateVideo(tmp_path / "w.avi", fps=10)
    dropped.frame(A, 0.0)
    dropped.discard()
    assert [p.name for p in tmp_path.iterdir()] == ["v.avi"]


def test_a_full_file_stops_taking_frames_and_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(avi, "MAX_BYTES", avi.HEADER_BYTES + 400)
    video = FixedRateVideo(tmp_path / "full.avi", fps=10)
    video.frame(A, 0.0)
    info = video.end(10.0)
    assert info.full and 0 < info.frames < 101
    assert read_avi(tmp_path / "full.avi").frames == [A] * info.frames
    assert info.bytes <= avi.MAX_BYTES


def test_jpeg_sizes_are_read_from_the_frame_header() -> None:
    jpeg = fake_jpeg(b"x", width=1280, height=800)
    assert jpeg_size(jpeg) == read_jpeg_size(jpeg) == (1280, 800)
    assert jpeg_size(b"\x89PNG\r\n\x1a\n") is None
    assert jpeg_size(b"\xff\xd8\xff\xda\x00\x02") is None  # a scan before any frame header
