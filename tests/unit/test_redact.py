from __future__ import annotations

from typing import Any

from steadyhand.redact import REDACTED, redact


def test_secret_keys_and_paths_are_redacted_in_a_copy() -> None:
    params: dict[str, Any] = {
        "ref": "e3",
        "text": "typed",
        "password": "p",
        "api_key": "k",
        "nested": {"Authorization": "Bearer x", "author": "Ann"},
        "fields": {"e5": "visible", "e7": "hidden"},
        "token": "",
    }
    out = redact(params, [("text",), ("fields", "e7"), ("no", "such", "path")])
    assert out == {
        "ref": "e3",
        "text": REDACTED,
        "password": REDACTED,
        "api_key": REDACTED,
        "nested": {"Authorization": REDACTED, "author": "Ann"},
        "fields": {"e5": "visible", "e7": REDACTED},
        "token": "",
    }
    assert params["text"] == "typed" and params["fields"]["e7"] == "hidden", "input untouched"


def test_paths_are_tuples_so_keys_may_contain_dots() -> None:
    out = redact({"fields": {"e5.": "secret", "e5": "plain"}}, [("fields", "e5.")])
    assert out == {"fields": {"e5.": REDACTED, "e5": "plain"}}
    whole = redact({"fields": ["not", "a", "dict"]}, [("fields",)])
    assert whole == {"fields": REDACTED}
