"""The har command: a tab's network log as a HAR 1.2 file, the format every HTTP tool reads.

What the log holds goes in: each request's method, URL, headers and query, its response's
status, headers and MIME type, when it started and how long it took. Bodies are not kept
(`content.size` 0, no `text`), nor are timings finer than the whole (all of it is `wait`).
Credentials never reach the file: URLs are redacted as everywhere (secret-looking query
values, a URL's password), Cookie, Set-Cookie, Authorization and secret-looking headers
are `[redacted]`, and the `cookies` lists stay empty.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import Field

from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.pdf import save_private
from steadyhand.commands.table import TabParams, command, file_path
from steadyhand.engine.page_log import NetworkEntry
from steadyhand.redact import redact_url
from steadyhand.version import __version__

PAGE_ID = "page_1"


class HarParams(TabParams):
    path: str | None = file_path(
        "where to write the HAR file (default: the artifacts dir)", positional=True
    )
    filter: str | None = Field(None, description="only requests whose URL contains this")


class HarResult(PageResult):
    path: str
    entries: int = Field(description="requests written")
    bytes: int


def iso(seconds: float) -> str:
    """ISO 8601 in UTC, to the millisecond, as HAR's dates are."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int(seconds * 1000) % 1000:03d}Z"


def _pairs(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in pairs]


def har_entry(entry: NetworkEntry) -> dict[str, Any]:
    url = redact_url(entry.url)
    headers = {name.lower(): value for name, value in entry.response_headers}
    took = entry.duration_ms or 0.0
    response: dict[str, Any] = {
        "status": entry.status or 0,  # 0: no response, as browsers write it
        "statusText": entry.status_text,
        "httpVersion": "",  # not known here
        "cookies": [],
        "headers": _pairs(entry.response_headers),
        "content": {"size": 0, "mimeType": headers.get("content-type", "")},
        "redirectURL": redact_url(headers.get("location", "")),
        "headersSize": -1,
        "bodySize": -1,
    }
    if entry.failure:
        response["_error"] = entry.failure
    out = {
        "pageref": PAGE_ID,
        "startedDateTime": iso(entry.time),
        "time": took,
        "request": {
            "method": entry.method,
            "url": url,
            "httpVersion": "",
            "cookies": [],
            "headers": _pairs(entry.request_headers),
            "queryString": _pairs(parse_qsl(urlsplit(url).query, keep_blank_values=True)),
            "headersSize": -1,
            "bodySize": -1,
        },
        "response": response,
        "cache": {},
        "timings": {"send": 0, "wait": took, "receive": 0},
        "_resourceType": entry.resource_type,
    }
    if entry.route:
        out["_route"] = entry.route  # a session's `route` answered it
    return out


def har_document(entries: list[NetworkEntry], url: str, title: str) -> dict[str, Any]:
    started = entries[0].time if entries else time.time()
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "steadyhand", "version": __version__},
            "pages": [
                {
                    "startedDateTime": iso(started),
                    "id": PAGE_ID,
                    "title": title or redact_url(url),
                    "pageTimings": {},
                }
            ],
            "entries": [har_entry(e) for e in entries],
        }
    }


@command("har", reads_only=True, caps="observe")
async def har(call: Call, params: HarParams) -> HarResult:
    """Write the tab's network log as a HAR 1.2 file (credentials redacted)."""
    tab = await call.tab(params.tab)
    entries = [e for e in list(tab.log.network) if not params.filter or params.filter in e.url]
    where = await page_result(tab)
    data = json.dumps(har_document(entries, where["url"], where["title"]), indent=1).encode()
    path = await call.output_path(params.path, "har", label=tab.id, ext="har")
    await save_private(path, data)
    call.keep(path, "har", tab.id)
    return HarResult(**where, path=str(path), entries=len(entries), bytes=len(data))
