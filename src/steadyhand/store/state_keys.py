"""The keys that seal what the store keeps of a session's secrets (store/sealing.py).

A key is 32 random bytes (AES-256). Where they come from, first found wins:

1. `STEADYHAND_STATE_KEY` in the daemon's environment (64 hex digits or base64 of 32
   bytes), with `STEADYHAND_STATE_KEY_OLD` (comma-separated) for rows sealed before a
   rotation: what a fleet sharing one PostgreSQL store uses, every daemon the same;
2. the OS keyring (the `keyring` package, when it is installed and has a real backend:
   Secret Service, KWallet, macOS Keychain), entry `steadyhand` / the state dir;
3. a key file only the user can read, beside the state dir (setting `state_key_file`;
   "" = `STATE_DIR.key`), made on first use.

A keyring or a key file holds one key per line, the current one first, older ones after it
(kept by `state rekey --keep-old` so that files sealed before the rotation still open).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.private_files import write_private

KEY_BYTES = 32
ENV_KEY = "STEADYHAND_STATE_KEY"
ENV_OLD_KEYS = "STEADYHAND_STATE_KEY_OLD"
KEYRING_SERVICE = "steadyhand"
MAKE_ONE = "make one with `python -c 'import secrets; print(secrets.token_hex(32))'`"


def key_id(key: bytes) -> str:
    """A short public name for a key: which key sealed a value, without revealing it."""
    return hashlib.sha256(b"steadyhand state key\0" + key).hexdigest()[:8]


def parse_key(text: str, where: str) -> bytes:
    """A key written as 64 hex digits or as base64 of 32 bytes."""
    text = text.strip()
    try:
        key = (
            bytes.fromhex(text)
            if len(text) == 2 * KEY_BYTES
            else base64.b64decode(
                text + "=" * (-len(text) % 4),
                altchars=b"-_" if "-" in text or "_" in text else None,
            )
        )
    except (ValueError, binascii.Error):
        key = b""
    if len(key) != KEY_BYTES:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"{where} is not a state key (32 bytes as 64 hex digits or base64)",
            MAKE_ONE,
        )
    return key


class KeyStore(Protocol):
    """Where keys are kept: read, and written on creation and rotation."""

    where: str

    def read(self) -> list[bytes] | None: ...

    def write(self, keys: list[bytes]) -> None: ...

    def create(self, keys: list[bytes]) -> bool:
        """Write `keys` unless keys are there already (another process made them first)."""
        ...


class KeyFile:
    """A file of keys, one per line (hex), 0600 and the user's own, else refused."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = f"the key file {path}"

    def read(self) -> list[bytes] | None:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{self.where} cannot be read: {exc.strerror}",
                "point the setting state_key_file at a regular file of your own",
            ) from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"{self.where} is not a regular file",
                    "point the setting state_key_file at a regular file of your own",
                )
            if info.st_uid != os.geteuid() or info.st_mode & 0o077:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"{self.where} is open to others (mode {info.st_mode & 0o7777:o}) or not "
                    "yours: a key others can read protects nothing",
                    f"chmod 600 {self.path} (and make it yours), or point state_key_file elsewhere",
                )
            text = handle.read().decode("ascii", "replace")
        return _parse_lines(text, self.where)

    def write(self, keys: list[bytes]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_private(self.path, _lines(keys))

    def create(self, keys: list[bytes]) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:  # O_EXCL: of two processes making the first key, one wins and both use it
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as out:
            out.write(_lines(keys))
        return True


class KeyringEntry:
    """The OS keyring's entry for a state dir (the `keyring` package's backend)."""

    def __init__(self, backend: Any, account: str) -> None:
        self.backend = backend
        self.account = account
        self.where = f"the keyring entry {KEYRING_SERVICE}/{account}"

    def read(self) -> list[bytes] | None:
        try:
            text = self.backend.get_password(KEYRING_SERVICE, self.account)
        except Exception as exc:  # a locked or vanished keyring: said, never guessed past
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{self.where} cannot be read: {exc}",
                "unlock the keyring, or turn it off (setting state_keyring = false) and "
                f"give the key in {ENV_KEY}",
            ) from None
        return None if text is None else _parse_lines(str(text), self.where)

    def write(self, keys: list[bytes]) -> None:
        self.backend.set_password(KEYRING_SERVICE, self.account, _lines(keys))

    def create(self, keys: list[bytes]) -> bool:
        if self.read():  # (a keyring has no create-if-absent: read, then write)
            return False
        self.write(keys)
        return True


def os_keyring() -> Any:
    """The keyring package's backend when one that really stores is there, else None."""
    try:
        import keyring  # type: ignore[import-not-found,unused-ignore]
        from keyring.backends import fail  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
        usable = not isinstance(backend, fail.Keyring) and float(backend.priority) > 0
    except Exception:
        return None
    return backend if usable else None


class StateKeys:
    """The current key (made on first use when none exists) and every key that may open a
    sealed value, by key id. Thread-safe; read once, then kept."""

    def __init__(
        self,
        *,
        env_key: str | None = None,
        env_old: str | None = None,
        stores: list[KeyStore] | None = None,
    ) -> None:
        self._env_key = env_key or None
        self._env_old = [k for k in (env_old or "").split(",") if k.strip()]
        self._stores = stores or []
        self._lock = threading.Lock()
        self._keys: list[bytes] | None = None  # current first
        self._store: KeyStore | None = None  # where they were read (None: the environment)

    @classmethod
    def for_state_dir(
        cls,
        state_dir: Path,
        *,
        environ: Mapping[str, str] | None = None,
        key_file: str = "",
        use_keyring: bool = False,
    ) -> StateKeys:
        env = os.environ if environ is None else environ
        stores: list[KeyStore] = []
        backend = os_keyring() if use_keyring else None
        if backend is not None:
            stores.append(KeyringEntry(backend, str(state_dir)))
        path = Path(key_file).expanduser() if key_file else beside(state_dir)
        stores.append(KeyFile(path))
        return cls(env_key=env.get(ENV_KEY), env_old=env.get(ENV_OLD_KEYS), stores=stores)

    @classmethod
    def in_memory(cls) -> StateKeys:
        """One random key for this process only (a store opened without settings)."""
        return cls(env_key=secrets.token_hex(KEY_BYTES))

    @property
    def source(self) -> str:
        """Where the current key comes from, for `doctor` and errors."""
        with self._lock:
            self._load(create=False)
            if self._env_key:
                return f"the environment ({ENV_KEY})"
            store = self._store or (self._stores[0] if self._stores else None)
            return store.where if store is not None else "nowhere"

    @property
    def owned(self) -> bool:
        """Whether steadyhand keeps the keys (and may rotate them) rather than the
        environment."""
        return not self._env_key

    def current(self) -> bytes:
        with self._lock:
            keys = self._load(create=True)
            return keys[0]

    def by_id(self) -> dict[str, bytes]:
        """Every key that may open a value (none made here)."""
        with self._lock:
            return {key_id(k): k for k in self._load(create=False)}

    def rotate(self) -> tuple[list[str], str]:
        """A new current key, the old ones kept after it; (old ids, new id). The caller
        re-seals the store, then calls `forget_old` unless it keeps them."""
        if not self.owned:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the key comes from {ENV_KEY}: steadyhand cannot change the environment",
                f"start the daemon with the new key in {ENV_KEY} and the old one in "
                f"{ENV_OLD_KEYS}, then run `state rekey`: it re-seals every row under the new "
                "key",
            )
        with self._lock:
            old = self._load(create=True)
            new = secrets.token_bytes(KEY_BYTES)
            store = self._store or self._stores[0]
            store.write([new, *old])
            self._keys = [new, *old]
            self._store = store
            return [key_id(k) for k in old], key_id(new)

    def forget_old(self) -> list[str]:
        """Keep only the current key; the ids forgotten."""
        with self._lock:
            keys = self._load(create=True)
            if self.owned and len(keys) > 1:
                (self._store or self._stores[0]).write(keys[:1])
                self._keys = keys[:1]
                return [key_id(k) for k in keys[1:]]
            return []

    def _load(self, create: bool) -> list[bytes]:
        if self._keys is not None:
            return self._keys
        if self._env_key:
            keys = [parse_key(self._env_key, ENV_KEY)]
            keys += [parse_key(k, ENV_OLD_KEYS) for k in self._env_old]
            self._keys = keys
            return keys
        for store in self._stores:
            found = store.read()
            if found:
                self._keys, self._store = found, store
                return found
        if not create:
            return []
        if not self._stores:  # pragma: no cover - in_memory always has its env key
            raise RuntimeError("no place to keep a state key")
        store = self._stores[0]
        made = [secrets.token_bytes(KEY_BYTES)]
        if not store.create(made):  # another process made it first: use theirs
            made = store.read() or made
        self._keys, self._store = made, store
        return made


def beside(state_dir: Path) -> Path:
    """The default key file: next to the state dir, not in it (a copy of the state dir
    alone does not carry its key)."""
    state_dir = state_dir.expanduser()
    return state_dir.parent / (state_dir.name + ".key")


def _lines(keys: list[bytes]) -> str:
    return "".join(k.hex() + "\n" for k in keys)


def _parse_lines(text: str, where: str) -> list[bytes]:
    lines = [line.strip() for line in text.splitlines()]
    return [parse_key(line, where) for line in lines if line and not line.startswith("#")]
