"""The session report's HTML, built from hand-made trace entries (no browser)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from steadyhand.observe.report import PROGRESS_EVERY, render
from steadyhand.observe.trace import ArtifactInfo, TraceEntry

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def png(path: Path, width: int, height: int) -> Path:
    """Write a grey PNG of that size (stdlib only) and return its path."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return path


def shot(path: Path, label: str) -> ArtifactInfo:
    return ArtifactInfo(
        kind="screenshot",
        label=label,
        path=str(path),
        bytes=path.stat().st_size if path.exists() else 0,
        exists=path.exists(),
    )


def entry(action_id: int, command: str = "click", **fields: Any) -> TraceEntry:
    values: dict[str, Any] = {
        "id": action_id,
        "at": 1_700_000_000.0 + action_id,
        "command": command,
        "tab": "t1",
        "params": {"ref": f"e{action_id}"},
        "ok": True,
        "outcome": "ok",
        "duration_ms": 120.0,
        "retries": 0,
    }
    return TraceEntry(**(values | fields))


def failed(action_id: int, code: str, **fields: Any) -> TraceEntry:
    problem = {"error": f"{code} happened", "hint": "do this"}
    return entry(action_id, ok=False, outcome=code, **(problem | fields))


def timeline_ids(page: str) -> list[int]:
    found = re.findall(r'<li class="action [a-z]+" id="a\d+" data-id="(\d+)"', page)
    return [int(i) for i in found]


def test_one_timeline_entry_per_action_and_the_summary_counts_them() -> None:
    items = [
        entry(1, "open"),
        entry(2, "type", retries=2),
        failed(3, "not_found"),
        failed(4, "timeout", retries=1),
        failed(5, "not_found"),
        entry(6),
    ]
    report = render("work", items, status="active", total=10)

    assert timeline_ids(report.html) == [1, 2, 3, 4, 5, 6]
    assert report.html.count('<li class="action failed"') == 3
    assert (report.actions, report.failed) == (6, 3)
    assert "6 <span>of 10</span>" in report.html  # only the last 6 of 10 are shown
    assert "<b>3</b><span>failed</span>" in report.html
    assert "<b>3</b><span>retries</span>" in report.html
    assert "<b>720 ms</b><span>spent in actions</span>" in report.html
    errors = report.html.split("Most common errors")[1]
    assert errors.index("not_found") < errors.index("timeout")
    assert "not_found <small>&times;2</small>" in errors
    assert '<a href="#a4">#4 click</a>' in report.html  # the failure list links to the card
    assert '<span class="status">active</span>' in report.html


def test_an_empty_session_says_so() -> None:
    report = render("idle", [])
    assert timeline_ids(report.html) == []
    assert "no actions on record" in report.html
    assert (report.actions, report.failed, report.images_inlined) == (0, 0, 0)


def test_everything_from_the_store_is_escaped(tmp_path: Path) -> None:
    picture = png(tmp_path / "evil.png", 4, 3)
    item = failed(
        7,
        "action_failed",
        command=EVIL,
        tab=EVIL,
        params={EVIL: EVIL, "n": [EVIL]},
        error=EVIL,
        hint=EVIL,
        note=f"{EVIL} note",
        artifacts=[
            shot(picture, EVIL),
            ArtifactInfo(kind=EVIL, label=EVIL, path=EVIL, bytes=1, exists=False),
        ],
    )
    result = {"url": EVIL, "title": EVIL, "changes": f"# {EVIL}\n~ {EVIL}"}
    page = render(EVIL, [item], results={7: result}, status=EVIL).html

    assert page.count("<script") == 1  # the report's own, at the end
    assert "<img src=x" not in page
    assert "onerror=alert(1)>" not in page
    assert page.count("&lt;script&gt;") >= 12
    assert '<img src="data:image/png;base64,' in page  # the file itself is still shown


def test_screenshots_are_inlined_as_data_uris_before_after_failure(tmp_path: Path) -> None:
    after = png(tmp_path / "after.png", 40, 30)
    before = png(tmp_path / "before.png", 40, 20)
    failure = png(tmp_path / "failure.png", 40, 10)
    item = failed(1, "timeout", artifacts=[shot(failure, "failure"), shot(after, "after")])
    report = render("s", [item, entry(2, artifacts=[shot(before, "before")])])

    for path in (after, before, failure):
        encoded = base64.b64encode(path.read_bytes()).decode()
        assert f'src="data:image/png;base64,{encoded}"' in report.html
    assert 'width="40" height="30"' in report.html  # read from the PNG header
    first_card = report.html.split('data-id="1"')[1].split('data-id="2"')[0]
    assert first_card.index(">after<") < first_card.index(">failure<")
    assert (report.images_inlined, report.images_left_out) == (3, 0)
    assert "file://" not in report.html
    assert "http" not in report.html.split("<body>")[1]  # nothing to fetch


def test_a_deleted_or_unreadable_screenshot_is_a_placeholder_with_its_path(
    tmp_path: Path,
) -> None:
    gone = tmp_path / "gone.png"  # indexed, then deleted by retention
    vanished = png(tmp_path / "vanished.png", 2, 2)
    listed = shot(vanished, "after")  # exists when the trace was read ...
    vanished.unlink()  # ... deleted before the report read it
    not_png = tmp_path / "not.png"
    not_png.write_text("<svg onload=alert(1)>")
    item = entry(1, artifacts=[shot(gone, "before"), listed, shot(not_png, "t1")])
    report = render("s", [item])

    assert "data:" not in report.html.split("<body>")[1]
    assert f"Not shown (deleted): <code>{gone}</code>" in report.html
    assert f"Not shown (deleted): <code>{vanished}</code>" in report.html
    assert f"Not shown (not a PNG or JPEG): <code>{not_png}</code>" in report.html
    assert (report.images_inlined, report.images_left_out) == (0, 3)
    assert "3 screenshot(s) shown as paths: 2 deleted, 1 not a PNG or JPEG" in report.html


def test_inlined_images_stop_at_the_cap_failures_first(tmp_path: Path) -> None:
    first = png(tmp_path / "first.png", 30, 30)
    second = png(tmp_path / "second.png", 30, 30)
    failure = png(tmp_path / "failure.png", 30, 30)
    budget = first.stat().st_size + failure.stat().st_size  # room for two of the three
    items = [
        entry(1, artifacts=[shot(first, "after")]),
        entry(2, artifacts=[shot(second, "after")]),
        failed(3, "not_found", artifacts=[shot(failure, "failure")]),
    ]
    report = render("s", items, image_budget=budget)

    assert (report.images_inlined, report.images_left_out) == (2, 1)
    assert base64.b64encode(failure.read_bytes()).decode() in report.html
    assert base64.b64encode(first.read_bytes()).decode() in report.html
    why = html.escape(f"over the report's {budget} B cap on inlined images")
    assert f"Not shown ({why}): <code>{second}</code>" in report.html


def test_other_files_are_listed_with_their_paths(tmp_path: Path) -> None:
    pdf = ArtifactInfo(kind="pdf", label="t1", path="/x/a.pdf", bytes=2048, exists=True)
    zipped = ArtifactInfo(kind="trace", label="playwright", path="/x/t.zip", bytes=9, exists=False)
    page = render("s", [entry(1, "pdf", artifacts=[pdf, zipped])]).html
    assert "<b>pdf t1</b> <code>/x/a.pdf</code> (2.0 KB)" in page
    assert "<b>trace playwright</b> <code>/x/t.zip</code> (9 B) — deleted" in page


def test_videos_are_linked_from_the_summary_and_their_action(tmp_path: Path) -> None:
    made = tmp_path / "a b.avi"
    made.write_bytes(b"RIFF")
    video = ArtifactInfo(kind="video", label="t1", path=str(made), bytes=4, exists=True)
    gone = ArtifactInfo(kind="video", label="t2", path="/x/<gone>.avi", bytes=9, exists=False)
    page = render(
        "s", [entry(1, "record.stop", artifacts=[video])], videos=[video, gone, video]
    ).html
    link = f'<a href="{html.escape(made.as_uri())}"><code>{html.escape(str(made))}</code></a>'
    assert page.count(link) == 2  # once in the summary (listed once), once in its action
    assert "<b>video t2</b> <code>/x/&lt;gone&gt;.avi</code> (9 B) — deleted" in page
    assert "<h2>Videos</h2>" in page and "VLC" in page
    assert "<h2>Videos</h2>" not in render("s", [entry(1)]).html


def test_the_page_and_its_changes_come_from_the_stored_result() -> None:
    changes = '# 1 changed, 0 added, 0 removed since the last snapshot\n~ paragraph: "done"'
    result = {"url": "http://127.0.0.1/a", "title": "Shop", "changes": changes}
    page = render("s", [entry(1, "click")], results={1: result}).html
    assert '<p class="page"><b>Shop</b> · http://127.0.0.1/a</p>' in page
    assert "<summary>1 changed, 0 added, 0 removed since the last snapshot</summary>" in page
    assert "<pre>~ paragraph: &quot;done&quot;</pre>" in page


def test_the_content_security_policy_allows_exactly_its_own_style_and_script() -> None:
    page = render("s", [entry(1)]).html
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    for tag, directive in (("style", "style-src"), ("script", "script-src")):
        body = re.search(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        assert body is not None
        digest = base64.b64encode(hashlib.sha256(body.group(1).encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in html.unescape(policy.group(1))
    assert "default-src 'none'" in html.unescape(policy.group(1))


def test_progress_is_reported_while_building() -> None:
    calls: list[tuple[int, int, str]] = []
    total = 2 * PROGRESS_EVERY + 10
    render(
        "s",
        [entry(i) for i in range(1, total + 1)],
        progress=lambda done, of, msg: calls.append((done, of, msg)),
    )
    assert [(done, of) for done, of, _ in calls] == [
        (PROGRESS_EVERY, total),
        (2 * PROGRESS_EVERY, total),
        (total, total),
    ]
    assert calls[-1][2] == f"report: {total} of {total} actions"
