"""Route patterns and bodies as `route` takes them, and routes as checkpoints keep them."""

from __future__ import annotations

import pytest

from steadyhand.commands.network_control import _json_body, check_pattern
from steadyhand.engine.net_control import Rule
from steadyhand.errors import SteadyhandError


@pytest.mark.parametrize(
    "pattern",
    ["**/api/users*", "**/*.{png,jpg}", "http://127.0.0.1:8000/api/*", "*://x/**", "**/a\\{b"],
)
def test_patterns_that_can_match_a_url_are_taken(pattern: str) -> None:
    assert check_pattern(pattern) == pattern


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("/api/users", "matches none"),
        ("api/users", "matches none"),
        ("**/{a,{b}}", "nested"),
        ("**/a}", "unbalanced"),
        ("**/{a", "unclosed"),
        ("**/a b", "spaces"),
        ("", "needs a URL pattern"),
    ],
)
def test_patterns_that_match_nothing_are_refused_with_the_fix(pattern: str, said: str) -> None:
    with pytest.raises(SteadyhandError) as caught:
        check_pattern(pattern)
    assert caught.value.code == "bad_request" and said in caught.value.message
    assert caught.value.hint


def test_a_body_is_json_else_a_path_and_broken_json_is_refused() -> None:
    assert _json_body('{"a": [1, 2]}') == b'{"a": [1, 2]}'
    assert _json_body("42") == b"42"
    assert _json_body('"text"') == b'"text"'
    assert _json_body("users.json") is None
    assert _json_body("NaN") is None  # not JSON: a file of that name
    with pytest.raises(SteadyhandError, match="not valid JSON"):
        _json_body('{"a": ')


def test_a_checkpoint_keeps_a_route_whole() -> None:
    text = Rule("**/a", block=False, status=201, body=b'{"x":1}', content_type="application/json")
    binary = Rule("**/b.png", block=False, body=bytes(range(256)), content_type="image/png")
    block = Rule("**/ads/**", block=True)
    for rule in (text, binary, block):
        back = Rule.from_saved(rule.saved())
        assert (back.pattern, back.block, back.status, back.body, back.content_type) == (
            rule.pattern,
            rule.block,
            rule.status,
            rule.body,
            rule.content_type,
        )
    assert "body" in text.saved() and "body_b64" in binary.saved()
    assert block.saved() == {"pattern": "**/ads/**", "block": True}
