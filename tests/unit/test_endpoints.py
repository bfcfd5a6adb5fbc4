"""The `browser_endpoints` setting and `--cdp` values, parsed."""

from __future__ import annotations

import pytest

from steadyhand.engine.endpoints import (
    CDP,
    PLAYWRIGHT,
    cdp_url,
    kind_of,
    least_loaded,
    parse_endpoints,
)
from steadyhand.errors import ErrorCode, SteadyhandError


def test_entries_name_urls_and_headers() -> None:
    parsed = parse_endpoints(
        "box=http://10.0.0.6:9222; grid=wss://grid.example:443/pw "
        "Authorization=Bearer%20{{secret:GRID}} x-team=ops;"
    )
    assert list(parsed) == ["box", "grid"]
    assert parsed["box"].kind == CDP and parsed["box"].headers == {}
    grid = parsed["grid"]
    assert grid.kind == PLAYWRIGHT
    assert grid.headers == {"Authorization": "Bearer {{secret:GRID}}", "x-team": "ops"}
    assert "headers" not in grid.shown()  # values may hold tokens
    assert not grid.on_this_machine
    assert parse_endpoints("") == {}


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://127.0.0.1:9222", CDP),
        ("https://chrome.internal", CDP),
        ("ws://127.0.0.1:9222/devtools/browser/3f2a", CDP),
        ("ws://127.0.0.1:3000/", PLAYWRIGHT),
        ("wss://grid.example/playwright?token=x", PLAYWRIGHT),
    ],
)
def test_the_url_says_which_protocol(url: str, kind: str) -> None:
    assert kind_of(url) == kind


@pytest.mark.parametrize(
    "text",
    [
        "box",  # no URL
        "local=http://h:1",  # reserved
        "auto=http://h:1",
        "a b=http://h:1",
        "box=ftp://h:1",
        "box=http://h:1; box=http://h:2",  # twice
        "box=http://h:1 Authorization",  # header without a value
    ],
)
def test_bad_entries_are_bad_requests(text: str) -> None:
    with pytest.raises(SteadyhandError) as raised:
        parse_endpoints(text)
    assert raised.value.code == ErrorCode.BAD_REQUEST
    assert raised.value.hint


def test_cdp_takes_a_port_a_host_and_port_or_a_url() -> None:
    assert cdp_url("9222") == "http://127.0.0.1:9222"
    assert cdp_url("box:9222") == "http://box:9222"
    assert cdp_url("ws://box:9222/devtools/browser/x") == "ws://box:9222/devtools/browser/x"


def test_least_loaded_first_ties_in_order() -> None:
    assert least_loaded(["local", "a", "b"], {"local": 2, "a": 1}) == ["b", "a", "local"]
    assert least_loaded(["local", "a"], {}) == ["local", "a"]
