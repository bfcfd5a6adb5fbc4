"""Take secrets out of params and URLs before they reach a log line, an error or the store.

Standard library only, below every other module but errors: config redacts a store_url
with it, and the store, logs, fronts and engine all do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[redacted]"
SECRET_KEY = re.compile(
    r"passw(or)?d|passphrase|secret|token|api[_-]?key|credential|authorization|cookie", re.I
)


class SecretName(str):
    """The name of a secret (`type --secret NAME`) under a secret-looking key: a reference
    to a value the daemon holds, not the value, so redaction keeps it."""


def redact(params: dict[str, Any], paths: Iterable[tuple[str, ...]] = ()) -> dict[str, Any]:
    """A copy of `params` with secret-looking keys and the given paths redacted.

    `paths` name values that are or may be secret (text typed into a password field):
    ("text",) a whole param, ("fields", "e7") one value inside a mapping.
    """
    out = _redact_keys(params)
    for path in paths:
        _redact_path(out, list(path))
    assert isinstance(out, dict)
    return out


def _redact_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: REDACTED
            if SECRET_KEY.search(str(k)) and v not in (None, "") and not isinstance(v, SecretName)
            else _redact_keys(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact_keys(v) for v in value]
    return value


def _redact_path(value: Any, parts: list[str]) -> None:
    if not parts or not isinstance(value, dict) or parts[0] not in value:
        return
    if len(parts) == 1:
        value[parts[0]] = REDACTED
    else:
        _redact_path(value[parts[0]], parts[1:])


# Query and fragment keys whose values are credentials often enough to hide (sig: signed URLs).
SECRET_URL_KEY = re.compile(r"token|key|passw(or)?d|secret|auth|session|sig|credential", re.I)


def redact_url(url: str) -> str:
    """`url` with secret-looking query/fragment values and any userinfo password hidden.

    Works on the text rather than a parse-and-rebuild, so everything else in the URL stays
    byte for byte as the page asked for it.
    """
    scheme, sep, rest = url.partition("://")
    if sep:
        cut = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
        user, at, host = rest[:cut].rpartition("@")
        if at and ":" in user:
            url = f"{scheme}{sep}{user.split(':', 1)[0]}:{REDACTED}@{host}{rest[cut:]}"
    head, hash_, fragment = url.partition("#")
    path, question, query = head.partition("?")
    out = path + question + _redact_pairs(query) if question else head
    return out + hash_ + _redact_pairs(fragment) if hash_ else out


def _redact_pairs(text: str) -> str:
    pairs = []
    for pair in text.split("&"):
        key, eq, value = pair.partition("=")
        pairs.append(key + eq + REDACTED if eq and value and SECRET_URL_KEY.search(key) else pair)
    return "&".join(pairs)


# Headers that carry credentials by what they are, whatever their value looks like.
SECRET_HEADERS = frozenset(
    {"cookie", "set-cookie", "authorization", "proxy-authorization", "x-csrf-token", "x-xsrf-token"}
)


def redact_headers(headers: dict[str, str]) -> list[tuple[str, str]]:
    """A request's or response's headers, credentials and secret-looking ones redacted."""
    return [
        (name, REDACTED if name.lower() in SECRET_HEADERS or SECRET_URL_KEY.search(name) else value)
        for name, value in headers.items()
    ]
