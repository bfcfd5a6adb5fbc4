"""`har`: a tab's network log as a HAR 1.2 file, valid for HAR readers, credentials out."""

from __future__ import annotations

import json
import stat
from datetime import datetime

import jsonschema
import pytest

from tests.conftest import Daemon

pytestmark = pytest.mark.integration

SECRETS = ("cookie-secret-789", "query-secret-123", "header-secret-456")
PAIRS = {"type": "array", "items": {"type": "object", "required": ["name", "value"]}}
# What HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) requires of each object.
HAR_1_2 = {
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["version", "creator", "entries"],
            "properties": {
                "version": {"const": "1.2"},
                "creator": {"type": "object", "required": ["name", "version"]},
                "pages": {
                    "type": "array",
                    "items": {"required": ["startedDateTime", "id", "title", "pageTimings"]},
                },
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": [
                            *("startedDateTime", "time", "request", "response", "cache"),
                            "timings",
                        ],
                        "properties": {
                            "startedDateTime": {"type": "string"},
                            "time": {"type": "number", "minimum": 0},
                            "request": {
                                "type": "object",
                                "required": [
                                    *("method", "url", "httpVersion", "cookies", "headers"),
                                    *("queryString", "headersSize", "bodySize"),
                                ],
                                "properties": {"headers": PAIRS, "queryString": PAIRS},
                            },
                            "response": {
                                "type": "object",
                                "required": [
                                    *("status", "statusText", "httpVersion", "cookies"),
                                    *("headers", "content", "redirectURL", "headersSize"),
                                    "bodySize",
                                ],
                                "properties": {
                                    "status": {"type": "integer"},
                                    "headers": PAIRS,
                                    "content": {"required": ["size", "mimeType"]},
                                },
                            },
                            "timings": {"required": ["send", "wait", "receive"]},
                        },
                    },
                },
            },
        }
    },
}


def test_har_holds_the_log_without_its_credentials(daemon: Daemon, site: str) -> None:
    s = "har"
    daemon.call("open", session=s, url=f"{site}/har.html")
    daemon.call("wait", session=s, text="done 404", timeout="10s")
    logged = daemon.call("network", session=s)
    target = daemon.settings.artifacts_dir / "tab.har"  # inside a file root
    done = daemon.call("har", session=s, path=str(target))
    assert done["path"] == str(target) and done["entries"] == logged["total"] >= 3
    text = target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert done["bytes"] == len(text.encode())
    assert not [secret for secret in SECRETS if secret in text], "credentials left in the file"
    document = json.loads(text)
    jsonschema.Draft202012Validator(HAR_1_2).validate(document)
    entries = document["log"]["entries"]
    for item in [*entries, *document["log"]["pages"]]:  # ISO 8601, as HAR's dates are
        assert datetime.fromisoformat(item["startedDateTime"]).tzinfo is not None
    api = next(e for e in entries if "/api.html" in e["request"]["url"])
    assert api["request"]["url"] == f"{site}/api.html?token=[redacted]&q=teapot"
    assert {"name": "q", "value": "teapot"} in api["request"]["queryString"]
    sent = {h["name"].lower(): h["value"] for h in api["request"]["headers"]}
    assert sent["authorization"] == "[redacted]" and sent["x-trace"] == "visible-trace"
    assert api["response"]["status"] == 200 and api["response"]["content"]["mimeType"]
    missing = next(e for e in entries if "missing-file.json" in e["request"]["url"])
    assert missing["response"]["status"] == 404
    page = next(e for e in entries if e["request"]["url"] == f"{site}/har.html")
    assert page["_resourceType"] == "document" and page["time"] > 0
    only = daemon.call("har", session=s, filter="api.html")  # to the artifacts dir
    assert only["entries"] == 1
    daemon.call("close", session=s)
