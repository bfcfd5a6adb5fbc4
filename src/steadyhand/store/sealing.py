"""Seal a value with the state key (AES-256-GCM, `cryptography`'s AESGCM) and open it again.

A sealed value is text: `sealed:1:KEYID:BASE64(nonce + ciphertext + tag)`. The key id says
which key sealed it (store/state_keys.py), so a rotation can find what it must re-seal and
a missing key is named in the error. Each value is bound to what it is (its purpose and,
for a checkpoint, the session): a sealed value copied into another row does not open.

What it protects: a copy of the store (the SQLite file, a backup, a PostgreSQL dump, a
leaked volume) without the key. What it does not: a process running as the user while the
daemon runs (it can read the key file or ask the keyring as the daemon does), nor what
Chromium keeps in a persistent profile's own directory.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import TYPE_CHECKING, Any

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.store.state_keys import ENV_KEY, StateKeys, key_id

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "sealed:1:"
NONCE_BYTES = 12


def is_sealed(text: str) -> bool:
    return text.startswith(PREFIX)


def sealed_key(text: str) -> str | None:
    """The id of the key that sealed `text` (None: not sealed)."""
    return text[len(PREFIX) :].split(":", 1)[0] if is_sealed(text) else None


def seal(keys: StateKeys, purpose: str, binding: str, data: bytes) -> str:
    key = keys.current()
    nonce = os.urandom(NONCE_BYTES)
    box = _aesgcm(key).encrypt(nonce, data, _context(purpose, binding))
    return f"{PREFIX}{key_id(key)}:{base64.b64encode(nonce + box).decode()}"


def unseal(keys: StateKeys, purpose: str, binding: str, text: str, what: str) -> bytes:
    """The value `seal` sealed; a STATE_LOCKED error naming `what` when no key held opens it
    (the value is left as it is)."""
    from cryptography.exceptions import InvalidTag

    kid, _, body = text[len(PREFIX) :].partition(":")
    key = keys.by_id().get(kid)
    if key is None:
        raise locked(what, f"it was sealed with key {kid}, which this daemon does not hold", keys)
    try:
        raw = base64.b64decode(body, validate=True)
        return _aesgcm(key).decrypt(
            raw[:NONCE_BYTES], raw[NONCE_BYTES:], _context(purpose, binding)
        )
    except (binascii.Error, ValueError):
        raise locked(what, "it is damaged (not base64)", keys) from None
    except InvalidTag:  # altered, or moved from another row
        raise locked(
            what, f"it does not open with key {kid} (altered, or not its row)", keys
        ) from None


def seal_document(keys: StateKeys, purpose: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` sealed as a JSON document a file can hold (an exported profile)."""
    box = seal(keys, purpose, "", json.dumps(data, sort_keys=True).encode())
    return {"steadyhand": purpose, "key": sealed_key(box), "sealed": box}


def open_document(keys: StateKeys, document: dict[str, Any], what: str) -> dict[str, Any] | None:
    """What `seal_document` sealed; None for a document that is not sealed."""
    purpose, box = document.get("steadyhand"), document.get("sealed")
    if not isinstance(purpose, str) or not isinstance(box, str) or not is_sealed(box):
        return None
    opened = json.loads(unseal(keys, purpose, "", box, what))
    if not isinstance(opened, dict):
        raise locked(what, "it does not hold a document", keys)
    return opened


def locked(what: str, why: str, keys: StateKeys) -> SteadyhandError:
    return SteadyhandError(
        ErrorCode.STATE_LOCKED,
        f"{what} cannot be opened: {why}",
        f"start the daemon with the key that sealed it (in {ENV_KEY}, or {keys.source}); "
        "nothing was deleted",
    )


def _context(purpose: str, binding: str) -> bytes:
    return f"steadyhand\0{purpose}\0{binding}".encode()


def _aesgcm(key: bytes) -> AESGCM:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM(key)
