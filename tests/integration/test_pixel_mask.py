"""Secrets out of pixels: after a secret is typed into an ordinary text field, a screenshot
(page, element, full page), a PDF and a recording's frames show a black box where the field
is, checked pixel by pixel; `--unmasked` waits for a person's approval, and the box is back
after it. (The live view's frames: tests/integration/test_live_view.py.)"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2
import pytest

from steadyhand.snapshot.lookup import find_ref
from tests.conftest import Daemon, make_settings, running_daemon
from tests.integration.test_approvals import denial, in_background, pending_for
from tests.pixels import avi_frames, black_share, open_image

pytestmark = pytest.mark.integration

SECRET = "pixel-s3cret-value-42"
ACCOUNT_BOX_JS = """() => {
  const r = document.getElementById('account').getBoundingClientRect();
  return [r.x, r.y, r.width, r.height];
}"""


@pytest.fixture(scope="module")
def masked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon whose environment holds the secret PIXEL."""
    settings = make_settings(tmp_path_factory.mktemp("state"))
    with running_daemon(settings, dict(os.environ, STEADYHAND_SECRET_PIXEL=SECRET)) as d:
        yield d


def typed_secret(d: Daemon, site: str, s: str) -> tuple[float, float, float, float]:
    """The remember page open in `s`, its field's box, and the secret typed into it."""
    d.call("open", session=s, url=f"{site}/remember.html")
    box = tuple(d.call("evaluate", session=s, expression=ACCOUNT_BOX_JS)["value"])
    shot = d.call("screenshot", session=s)
    assert black_share(Path(shot["path"]), box) < 0.2, "a white field before"
    field = find_ref(d.snapshot(s), "textbox", "Account number")
    d.call("type", session=s, ref=field, secret="PIXEL")
    assert "kept 21 characters" in d.snapshot(s)  # the value went in
    x, y, w, h = box
    return x, y, w, h


def test_screenshots_and_pdfs_show_the_box_not_the_secret(masked: Daemon, site: str) -> None:
    s = "shots"
    box = typed_secret(masked, site, s)
    for params in ({}, {"full_page": True}, {"labels": True}):
        shot = masked.call("screenshot", session=s, **params)
        assert black_share(Path(shot["path"]), box) > 0.97, params
    field = find_ref(masked.snapshot(s), "textbox", "Account number")
    element = masked.call("screenshot", session=s, ref=field)["path"]
    assert black_share(Path(element), (0, 0, box[2], box[3])) > 0.97

    printed = Path(masked.call("pdf", session=s)["path"])
    document = pypdfium2.PdfDocument(printed)
    page = document[0]
    assert SECRET not in page.get_textpage().get_text_range()  # discs, not the value
    image = page.render(scale=96 / 72).to_pil()  # CSS pixels: the layout starts top left
    assert black_share(image, box) > 0.9
    document.close()
    masked.call("close", session=s)


def test_unmasked_needs_a_person_and_the_box_comes_back(masked: Daemon, site: str) -> None:
    s = "unmasked"
    box = typed_secret(masked, site, s)
    asked = in_background(masked, "screenshot", session=s, unmasked=True)
    pending = pending_for(masked, s, "screenshot")
    assert "without the boxes that cover secrets" in pending["reason"]
    assert masked.cli("approve", pending["id"]).rc == 0
    clear: dict[str, Any] = asked.result(timeout=60)
    assert black_share(Path(clear["path"]), box) < 0.2  # approved: the field as it is
    again = masked.call("screenshot", session=s)
    assert black_share(Path(again["path"]), box) > 0.97  # and covered again

    refused = in_background(masked, "pdf", session=s, unmasked=True)
    assert masked.cli("deny", pending_for(masked, s, "pdf")["id"]).rc == 0
    denial(refused)
    masked.call("close", session=s)


def test_a_recording_s_frames_show_the_box(masked: Daemon, site: str) -> None:
    s = "video"
    masked.call("open", session=s, url=f"{site}/remember.html")
    box = tuple(masked.call("evaluate", session=s, expression=ACCOUNT_BOX_JS)["value"])
    masked.call("record.start", session=s)
    field = find_ref(masked.snapshot(s), "textbox", "Account number")
    masked.call("type", session=s, ref=field, secret="PIXEL")
    time.sleep(0.5)  # a frame or two after the typing
    video = Path(masked.call("record.stop", session=s)["path"])
    frames = avi_frames(video)
    assert len(frames) >= 2
    first, last = open_image(frames[0]), open_image(frames[-1])
    scale = last.size[0] / 1280  # the screencast's frames are at most the viewport's size
    assert black_share(first, box, scale) < 0.2  # before the secret: the page's white field
    assert black_share(last, box, scale) > 0.95
    masked.call("close", session=s)
