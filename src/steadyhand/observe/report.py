"""The session report: one self-contained HTML file a person opens to see what an agent did.

`render` turns a session's trace entries (observe/trace.py) into the page: a summary header
(time span, actions, failures, retries, time spent, the commonest errors) and a timeline with
one `<li class="action" data-id=ID>` per action — its params, outcome, duration, retries,
error and hint, the page it was on, what it changed, and its screenshots inline. The
session's videos (`record`) are linked (`file:` URIs) from the header and their actions.

Self-contained: the CSS and the one small script are inline and screenshots are `data:`
URIs, so the file can be mailed or archived on its own. Its Content-Security-Policy lets it
load nothing else and run nothing but its own script. Everything that came from the store
(params, page titles, errors) is escaped: a page may put `<script>` in any of them.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steadyhand.observe.report_style import CSS, SCRIPT
from steadyhand.observe.trace import ArtifactInfo, TraceEntry
from steadyhand.version import __version__

# Screenshots inlined per report, in bytes of image (base64 adds a third): enough for a few
# hundred viewport screenshots, while a browser still opens the file without strain.
INLINE_IMAGE_BYTES = 40 * 1024 * 1024
PROGRESS_EVERY = 25  # entries between two progress reports
PARAM_CHARS = 200
CHANGES_CHARS = 4000
CHANGES_OPEN_LINES = 8  # a diff this short is shown open
FAILURES_LISTED = 20
SLOW_MS = 5000
MIME_BY_MAGIC = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}
SHOT_ORDER = {"before": 0, "after": 1, "failure": 2}
VIDEO_NOTE = "Motion-JPEG AVI files: they play in VLC, mpv or ffplay, not in a browser."

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Report:
    html: str
    actions: int  # timeline entries
    failed: int
    images_inlined: int
    images_left_out: int  # screenshots shown as a path: deleted, unreadable, or over the cap


def render(
    session: str,
    items: Sequence[TraceEntry],
    *,
    results: Mapping[int, Mapping[str, Any]] | None = None,
    status: str | None = None,
    total: int | None = None,
    now: float | None = None,
    image_budget: int = INLINE_IMAGE_BYTES,
    progress: Progress | None = None,
    videos: Sequence[ArtifactInfo] = (),
) -> Report:
    """The report of `items` (oldest first) from session `session`.

    `results`: each action's stored result by action id (the page it was on, what it
    changed); `total`: how many actions the session ran when `items` are only the last ones;
    `progress(done, total, message)` is told every PROGRESS_EVERY entries and at the end;
    `videos`: the session's recordings (`record`), linked from the header.
    """
    images = Images(items, image_budget)
    results = results or {}
    cards: list[str] = []
    for done, item in enumerate(items, 1):
        cards.append(card(item, results.get(item.id, {}), images))
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(items)):
            progress(done, len(items), f"report: {done} of {len(items)} actions")
    if progress is not None and not items:
        progress(0, 0, "report: no actions")
    failed = sum(not e.ok for e in items)
    style_hash = _csp_hash(CSS)
    script_hash = _csp_hash(SCRIPT)
    policy = (
        "default-src 'none'; img-src data:; "
        f"style-src '{style_hash}'; script-src '{script_hash}'; base-uri 'none'; form-action 'none'"
    )
    timeline = (
        '<ol class="timeline">\n' + "\n".join(cards) + "\n</ol>"
        if cards
        else '<p class="empty">This session has no actions on record.</p>'
    )
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_esc(policy)}">
<meta name="generator" content="steadyhand {_esc(__version__)}">
<title>steadyhand report · {_esc(session)}</title>
<style>{CSS}</style>
</head>
<body>
<main>
{summary(session, items, status, total, images, videos=videos)}
<div class="toolbar"><h2>Timeline</h2>
<label><input type="checkbox" id="only-failed"{" disabled" if not failed else ""}>
Failures only</label>
<span class="shown">{len(items)} actions · {failed} failed</span></div>
{timeline}
<footer>Written by steadyhand {_esc(__version__)} on {_esc(_datetime(now or time.time()))}.
Times are the daemon's local time; each action's time is when it ended.</footer>
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""
    return Report(page, len(items), failed, images.inlined, images.left_out)


def summary(
    session: str,
    items: Sequence[TraceEntry],
    status: str | None,
    total: int | None,
    images: Images,
    *,
    videos: Sequence[ArtifactInfo] = (),
) -> str:
    """The header: what the session was, in numbers, and where it went wrong; its videos."""
    failed = [e for e in items if not e.ok]
    retries = sum(e.retries for e in items)
    spent_ms = sum(e.duration_ms for e in items)
    status_html = f'<span class="status">{_esc(status)}</span>' if status else ""
    if items:
        start = items[0].at - items[0].duration_ms / 1000
        end = items[-1].at
        span = (
            f"{_esc(_datetime(start))} → {_esc(_clock(end, millis=False))}"
            f" · {_esc(_duration(max(0.0, end - start) * 1000))} from first to last"
        )
    else:
        span = "no actions on record"
    shown = len(items)
    of_total = f" <span>of {total}</span>" if total is not None and total > shown else ""
    stats = [
        ("", f"{shown}{of_total}", "actions"),
        ("bad" if failed else "", str(len(failed)), "failed"),
        ("warn" if retries else "", str(retries), "retries"),
        ("", _esc(_duration(spent_ms)), "spent in actions"),
        ("", str(images.count), "screenshots"),
    ]
    tiles = "".join(
        f'<li class="{cls}"><b>{value}</b><span>{label}</span></li>' for cls, value, label in stats
    )
    command_chips = _chips(Counter(e.command for e in items), "")
    error_chips = _chips(Counter(e.outcome for e in failed), "bad", 5)
    facts = f'<div><h2>Commands</h2><ul class="chips">{command_chips or "<li>none</li>"}</ul>'
    if error_chips:
        facts += f'<h2 class="gap">Most common errors</h2><ul class="chips">{error_chips}</ul>'
    facts += "</div>"
    if failed:
        listed = "".join(
            f'<li><a href="#a{e.id}">#{e.id} {_esc(e.command)}</a> <code>{_esc(e.outcome)}</code>'
            f" {_esc(e.error or '')}</li>"
            for e in failed[:FAILURES_LISTED]
        )
        more = len(failed) - FAILURES_LISTED
        if more > 0:
            listed += f"<li>… and {more} more (tick “Failures only” below)</li>"
        facts += f'<div><h2>Failures</h2><ul class="failures">{listed}</ul></div>'
    if videos:
        linked = "".join(_file(v) for v in {v.path: v for v in videos}.values())
        facts += (
            f'<div class="videos"><h2>Videos</h2><ul class="files">{linked}</ul>'
            f'<p class="note">{VIDEO_NOTE}</p></div>'
        )
    strip = "".join(
        f'<a href="#a{e.id}" class="{_strip_class(e)}" '
        f'title="#{e.id} {_esc(e.command)}: {_esc(e.outcome)}"></a>'
        for e in items
    )
    left_out = (
        f" {images.left_out} screenshot(s) shown as paths: {_esc(images.why_left_out())}."
        if images.left_out
        else ""
    )
    return f"""<header class="summary">
<h1>Session <span class="name">{_esc(session)}</span>{status_html}</h1>
<p class="sub">{span}.{left_out}</p>
<ul class="stats">{tiles}</ul>
<div class="facts">{facts}</div>
<nav class="strip" aria-label="every action, in order">{strip}</nav>
</header>"""


def card(item: TraceEntry, result: Mapping[str, Any], images: Images) -> str:
    """One action of the timeline."""
    state = "ok" if item.ok else "failed"
    retries = (
        f'<span class="badge retries">{item.retries} {"retry" if item.retries == 1 else "retries"}'
        "</span>"
        if item.retries
        else ""
    )
    navigated = '<span class="badge plain">navigated</span>' if result.get("navigated") else ""
    slow = ' class="slow"' if item.duration_ms >= SLOW_MS else ""
    tab = f"<span>{_esc(item.tab)}</span>" if item.tab else ""
    parts = [
        f'<li class="action {state}" id="a{item.id}" data-id="{item.id}" '
        f'data-outcome="{_esc(item.outcome)}">',
        '<div class="head">'
        f'<a class="seq" href="#a{item.id}">#{item.id}</a>'
        f'<span class="clock">{_esc(_clock(item.at))}</span>'
        f'<span class="cmd">{_esc(item.command)}</span>'
        f'<span class="badge">{_esc(item.outcome)}</span>{retries}{navigated}'
        f'<span class="right"><span{slow}>{_esc(_duration(item.duration_ms))}</span>{tab}</span>'
        "</div>",
    ]
    if item.params:
        chips = "".join(
            f"<code><i>{_esc(key)}=</i>{_esc(_value(value))}</code>"
            for key, value in item.params.items()
        )
        parts.append(f'<div class="params">{chips}</div>')
    title, url = result.get("title"), result.get("url")
    if isinstance(url, str) and url:
        named = f"<b>{_esc(title)}</b> · " if isinstance(title, str) and title else ""
        parts.append(f'<p class="page">{named}{_esc(url)}</p>')
    said = {url, f"→ {url}", *(a.path for a in item.artifacts)}  # shown anyway
    if item.note and item.note not in said:
        parts.append(f'<p class="note">{_esc(item.note)}</p>')
    if not item.ok:
        hint = f'<p class="hint"><b>Hint</b>{_esc(item.hint)}</p>' if item.hint else ""
        parts.append(
            f'<div class="problem"><p class="error"><code>{_esc(item.outcome)}</code>'
            f"{_esc(item.error or 'failed')}</p>{hint}</div>"
        )
    changes = result.get("changes")
    if isinstance(changes, str) and changes.strip():
        parts.append(_changes(changes))
    shots = sorted(
        (a for a in item.artifacts if a.kind == "screenshot"),
        key=lambda a: SHOT_ORDER.get(a.label, 3),
    )
    if shots:
        parts.append('<div class="shots">' + "".join(images.figure(a) for a in shots) + "</div>")
    files = [a for a in item.artifacts if a.kind != "screenshot"]
    if files:
        parts.append('<ul class="files">' + "".join(_file(a) for a in files) + "</ul>")
    parts.append("</li>")
    return "\n".join(parts)


class Images:
    """Which screenshots go inline, within the byte budget: failures' first, then in order."""

    def __init__(self, items: Sequence[TraceEntry], budget: int) -> None:
        shots = [a for e in items for a in e.artifacts if a.kind == "screenshot"]
        self.count = len(shots)
        self.inlined = 0
        self.left_out = 0
        self._reasons: Counter[str] = Counter()
        self._allowed: set[str] = set()
        self._gone: set[str] = set()
        self._budget = budget
        spent = 0
        for shot in sorted(shots, key=lambda a: a.label != "failure"):
            if not shot.exists or shot.path in self._allowed:
                continue
            size = _size(shot.path)
            if size is None:
                self._gone.add(shot.path)
            elif spent + size <= budget:
                self._allowed.add(shot.path)
                spent += size

    def figure(self, shot: ArtifactInfo) -> str:
        """The screenshot inline, or a placeholder that says where it is and why not."""
        caption = shot.label if shot.label in SHOT_ORDER else f"screenshot · {shot.label}"
        inner = self._image(shot)
        return (
            f'<figure class="shot {_esc(shot.label)}"><figcaption>{_esc(caption)}</figcaption>'
            f"{inner}</figure>"
        )

    def why_left_out(self) -> str:
        return ", ".join(f"{count} {why}" for why, count in self._reasons.most_common())

    def _image(self, shot: ArtifactInfo) -> str:
        if not shot.exists or shot.path in self._gone:
            return self._placeholder(shot, "deleted")
        if shot.path not in self._allowed:
            return self._placeholder(
                shot, f"over the report's {_bytes(self._budget)} cap on inlined images"
            )
        try:
            data = Path(shot.path).read_bytes()
        except OSError:
            return self._placeholder(shot, "deleted")
        mime = next((m for magic, m in MIME_BY_MAGIC.items() if data.startswith(magic)), None)
        if mime is None:
            return self._placeholder(shot, "not a PNG or JPEG")
        self.inlined += 1
        size = _png_size(data)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        encoded = base64.b64encode(data).decode("ascii")
        return f'<img src="data:{mime};base64,{encoded}"{dims} alt="{_esc(shot.label)}">'

    def _placeholder(self, shot: ArtifactInfo, why: str) -> str:
        self.left_out += 1
        self._reasons[why] += 1
        return f'<div class="missing">Not shown ({_esc(why)}): <code>{_esc(shot.path)}</code></div>'


def _changes(text: str) -> str:
    lines = text.splitlines()
    head, body = (lines[0], lines[1:]) if lines[0].startswith("#") else ("page changes", lines)
    shown = "\n".join(body)
    if len(shown) > CHANGES_CHARS:
        cut = shown[:CHANGES_CHARS]
        shown = f"{cut}\n… {len(shown) - len(cut)} more characters"
    opened = " open" if len(body) <= CHANGES_OPEN_LINES else ""
    summary = head.lstrip("# ")
    return (
        f'<details class="changes"{opened}><summary>{_esc(summary)}</summary>'
        f"<pre>{_esc(shown)}</pre></details>"
    )


def _file(artifact: ArtifactInfo) -> str:
    what = f"{artifact.kind} {artifact.label}".strip()
    size = f" ({_bytes(artifact.bytes)})" if artifact.bytes else ""
    gone = " — deleted" if not artifact.exists else ""
    shown = f"<code>{_esc(artifact.path)}</code>"
    if artifact.kind == "video" and artifact.exists and Path(artifact.path).is_absolute():
        shown = f'<a href="{_esc(Path(artifact.path).as_uri())}">{shown}</a>'
    return f"<li><b>{_esc(what)}</b> {shown}{size}{gone}</li>"


def _chips(counts: Counter[str], cls: str, most: int | None = None) -> str:
    return "".join(
        f'<li class="{cls}">{_esc(name)} <small>&times;{count}</small></li>'
        for name, count in counts.most_common(most)
    )


def _strip_class(item: TraceEntry) -> str:
    return "failed" if not item.ok else "retried" if item.retries else "ok"


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= PARAM_CHARS else text[: PARAM_CHARS - 1] + "…"


def _size(path: str) -> int | None:
    try:
        return Path(path).stat().st_size
    except OSError:
        return None


def _png_size(data: bytes) -> tuple[int, int] | None:
    if not data.startswith(b"\x89PNG") or len(data) < 24:
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _clock(at: float, millis: bool = True) -> str:
    clock = time.strftime("%H:%M:%S", time.localtime(at))
    return clock + f".{int(at * 1000) % 1000:03d}" if millis else clock


def _datetime(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _duration(ms: float) -> str:
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.2f} s"
    minutes, seconds = divmod(ms / 1000, 60)
    return f"{minutes:.0f} min {seconds:.0f} s"


def _bytes(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
