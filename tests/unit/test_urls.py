from __future__ import annotations

import pytest

from steadyhand.engine.urls import normalize_url
from steadyhand.errors import SteadyhandError


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("https://example.com/a?b=1", "https://example.com/a?b=1"),
        ("example.com", "https://example.com"),
        ("localhost:8000/x", "http://localhost:8000/x"),
        ("127.0.0.1:9000", "http://127.0.0.1:9000"),
        ("  about:blank ", "about:blank"),
        ("file:///tmp/x.html", "file:///tmp/x.html"),
        ("data:text/html,<p>hi</p>", "data:text/html,<p>hi</p>"),
    ],
)
def test_normalize(raw: str, url: str) -> None:
    assert normalize_url(raw) == url


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "javascript:alert(1)",
        "not a url",
        "http://",
        "ftp://x/",
        "http://[::1",  # urlsplit raises on these: once a 500
        "http://a:99999/",
        "http://a:x/",
    ],
)
def test_rejects(raw: str) -> None:
    with pytest.raises(SteadyhandError) as info:
        normalize_url(raw)
    assert info.value.code == "invalid_url" and "https://" in info.value.hint
