"""Secrets by name: values the daemon types for the agent and never shows anyone.

A secret has a name, a value and optionally the domains it may be typed on. Two sources:

- the secrets file (setting `secrets_file`; "" = `state_dir/secrets.toml`): TOML, mode
  0600 or stricter and the daemon user's own, else refused. Reloaded when it changes
  (mtime, size, inode, mode), so a secret added while the daemon runs is there for the next
  command::

      BANK_PASSWORD = "hunter2"                 # typed anywhere

      [MAIL_TOKEN]
      value = "s3cr3t-t0ken"
      domains = ["mail.example.com"]            # only into pages of these hosts (subdomains too)

      [BANK_PIN]                                # no value: the environment's, scoped here
      domains = ["bank.example"]

- the daemon's environment: `STEADYHAND_SECRET_BANK_PASSWORD=x` (prefix: setting
  `secrets_env_prefix`; "" turns these off) defines `BANK_PASSWORD`. A file entry of the
  same name wins (its value, or the environment's value under its domains).

An agent names a secret (`type e5 --secret BANK_PASSWORD`, or `{{secret:NAME}}` inside the
text of `type` and `fill`); the daemon puts the value in at the last moment, in the
handler, and everything that leaves the daemon goes through `mask`: every loaded value (and
every value loaded before in this process) of at least MIN_MASK characters is replaced by
its `{{secret:NAME}}` reference, in its plain, JSON-escaped, URL-encoded and HTML-escaped
forms. The choke points that call it: command results, errors and progress notes
(execute/run.py), the action log and approvals rows (store/sqlite.py), every log line
(observe/log.py), webhook bodies (webhook.py), snapshot, extract and evaluate text before it
is cut into parts, and Playwright trace files (trace stop). Masking cannot see a value a
script transformed, so `evaluate` is refused on a page a secret was typed into
(commands/evaluate.py). Pixels: the field a secret is typed into is painted over in the
page (act/pixel_mask.py).

Standard library only.
"""

from __future__ import annotations

import html
import json
import os
import re
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REFERENCE = re.compile(r"\{\{secret:([A-Za-z_][A-Za-z0-9_]*)\}\}")
# Shorter values are typed, but not masked: they would mask half the page's words.
MIN_MASK = 4
ENTRY_KEYS = frozenset({"value", "domains"})

_VAULTS: weakref.WeakSet[Vault] = weakref.WeakSet()  # every vault of this process


def reference(name: str) -> str:
    return "{{secret:" + name + "}}"


def uses_secret(text: str) -> bool:
    """Whether the text names a secret (`{{secret:NAME}}`)."""
    return "{{secret:" in text and REFERENCE.search(text) is not None


def only_references(text: str) -> bool:
    """The text is secret references and nothing else: showing it shows no value."""
    return uses_secret(text) and not REFERENCE.sub("", text)


@dataclass(frozen=True)
class Secret:
    name: str
    value: str = field(repr=False)
    source: str  # "file", "env", or "file+env" (the value from the environment)
    domains: tuple[str, ...] = ()

    def allows(self, host: str) -> bool:
        """Whether it may be typed into a document of this host (subdomains included)."""
        if not self.domains:
            return True
        host = host.lower().rstrip(".")
        return bool(host) and any(host == d or host.endswith("." + d) for d in self.domains)


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def _forms(value: str) -> set[str]:
    """How a value may show up in text: as is, inside JSON, in a URL, in HTML."""
    forms = {
        value,
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value)[1:-1],
        quote(value, safe=""),
        quote_plus(value, safe=""),
        html.escape(value, quote=True),
    }
    return {f for f in forms if len(f) >= MIN_MASK}


class Vault:
    """The secrets of one runtime: loaded, reloaded, looked up, and masked out of text."""

    def __init__(self, settings: Settings, environ: Mapping[str, str] | None = None) -> None:
        self.explicit = bool(settings.secrets_file)
        self.path = (
            Path(settings.secrets_file).expanduser().absolute()
            if settings.secrets_file
            else settings.state_dir / "secrets.toml"
        )
        self.prefix = settings.secrets_env_prefix
        env = os.environ if environ is None else environ
        self._env = {
            key[len(self.prefix) :]: value
            for key, value in env.items()
            if self.prefix
            and key.startswith(self.prefix)
            and NAME.fullmatch(key[len(self.prefix) :])
        }
        self._lock = threading.Lock()
        self._loaded = False
        self._stamp: tuple[int, ...] | None = None
        self._file: dict[str, dict[str, Any]] = {}
        self._problem: SteadyhandError | None = None
        self._secrets: dict[str, Secret] = {}
        self._masked: dict[str, str] = {}  # form -> reference, for every value ever loaded
        self._pattern: re.Pattern[str] | None = None
        self.refresh()
        _VAULTS.add(self)

    # ------------------------------------------------------------------ loading

    def env_names(self) -> list[str]:
        return sorted(self._env)

    def scrub_environ(self) -> None:
        """Take the secret variables out of this process's environment (the daemon's), so
        the programs it starts (Chromium, `desktop launch`) do not inherit them."""
        for name in self._env:
            os.environ.pop(self.prefix + name, None)

    def refresh(self) -> None:
        """Reload the file if it changed since the last look (one stat)."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            stamp: tuple[int, ...] | None = None
        except OSError as exc:
            with self._lock:
                self._loaded, self._stamp = True, (-1,)
                self._file = {}
                self._problem = SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"the secrets file {self.path} cannot be read: {exc.strerror}",
                    "fix the path (setting secrets_file) or its permissions",
                )
                self._rebuild()
            return
        else:
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode, info.st_uid)
        with self._lock:
            if self._loaded and stamp == self._stamp:
                return
            self._loaded, self._stamp = True, stamp
            self._file, self._problem = {}, None
            if stamp is not None:
                try:
                    self._file = self._read(info.st_mode, info.st_uid)
                except SteadyhandError as exc:
                    self._problem = exc
            self._rebuild()

    def _read(self, mode: int, uid: int) -> dict[str, dict[str, Any]]:
        import tomllib

        path = self.path
        if uid != os.geteuid():
            raise SteadyhandError(
                ErrorCode.POLICY_DENIED,
                f"the secrets file {path} belongs to another user: refused",
                "the file must be the daemon user's own, mode 0600",
            )
        if mode & 0o077:
            raise SteadyhandError(
                ErrorCode.POLICY_DENIED,
                f"the secrets file {path} is open to other users (mode {mode & 0o7777:o}): "
                "refused, no secret is typed until it is fixed",
                f"chmod 600 {path}",
            )
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the secrets file {path} is not valid TOML: {_first(exc)}",
                'write NAME = "value", or a table [NAME] with value = "..." and domains = ["host"]',
            ) from None
        except OSError as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the secrets file {path} cannot be read: {exc.strerror}",
                "fix its permissions (0600, your own)",
            ) from None
        entries: dict[str, dict[str, Any]] = {}
        for name, entry in data.items():
            entries[name] = self._entry(name, entry)
        return entries

    def _entry(self, name: str, entry: Any) -> dict[str, Any]:
        """One file entry checked; its messages name the entry, never its value."""

        def bad(what: str) -> SteadyhandError:
            return SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"the secrets file {self.path}: {name!r} {what}",
                'write NAME = "value", or a table [NAME] with value = "..." and '
                'domains = ["host", ...]; names are letters, digits and _',
            )

        if not NAME.fullmatch(name):
            raise bad("is not a name (letters, digits and _, not starting with a digit)")
        if isinstance(entry, str):
            return {"value": entry, "domains": ()}
        if not isinstance(entry, dict):
            raise bad("is neither a string nor a table")
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            raise bad(f"has unknown key(s) {', '.join(sorted(unknown))}")
        value = entry.get("value")
        if value is not None and not isinstance(value, str):
            raise bad("has a value that is not a string")
        if value is None and name not in self._env:
            raise bad(
                f"has no value, and the environment has no {self.prefix}{name}"
                if self.prefix
                else "has no value"
            )
        domains = entry.get("domains", [])
        if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
            raise bad("has domains that are not a list of host names")
        cleaned = tuple(d.strip().lower().strip(".") for d in domains)
        if any(not d or "/" in d or ":" in d for d in cleaned):
            raise bad("has a domain that is not a bare host name (no scheme, port or path)")
        return {"value": value, "domains": cleaned}

    def _rebuild(self) -> None:
        secrets = {name: Secret(name, value, "env") for name, value in self._env.items()}
        for name, entry in self._file.items():
            if entry["value"] is None:
                secrets[name] = Secret(name, self._env[name], "file+env", entry["domains"])
            else:
                secrets[name] = Secret(name, entry["value"], "file", entry["domains"])
        self._secrets = secrets
        before = len(self._masked)
        for secret in secrets.values():
            for form in _forms(secret.value):
                self._masked.setdefault(form, reference(secret.name))
        if len(self._masked) != before or (self._pattern is None and self._masked):
            ordered = sorted(self._masked, key=len, reverse=True)  # the longest form wins
            self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    # ------------------------------------------------------------------ use

    def secrets(self) -> list[Secret]:
        """Every secret, by name; the file's problem, if it has one, as an error."""
        self.refresh()
        with self._lock:
            if self._problem is not None:
                raise self._problem
            return sorted(self._secrets.values(), key=lambda s: s.name)

    def lookup(self, name: str) -> Secret:
        known = self.secrets()
        for secret in known:
            if secret.name == name:
                return secret
        names = ", ".join(s.name for s in known)
        raise SteadyhandError(
            ErrorCode.NOT_FOUND,
            f"no secret named {name!r}",
            (f"known secrets: {names}" if names else "no secret is defined")
            + f"; add it to {self.path} (mode 0600) or set {self.prefix}{name} in the "
            "daemon's environment; `secrets` lists them",
            {"known": [s.name for s in known]},
        )

    def expand(self, text: str, url: str | None, where: str) -> str:
        """`text` with every `{{secret:NAME}}` replaced by its value, when the document at
        `url` (the target's frame; None: a desktop field, which has no host) may have each;
        nothing is expanded otherwise.

        Refusals: an unknown name (`not_found`, with the known names) or a secret scoped to
        other domains (`policy_denied`, naming the host and the domains).
        """
        if not uses_secret(text):
            return text
        host = "" if url is None else host_of(url)
        values: dict[str, str] = {}
        for name in dict.fromkeys(REFERENCE.findall(text)):
            secret = self.lookup(name)
            if not secret.allows(host):
                shown = host or (
                    "the desktop" if url is None else url.split(":", 1)[0] + ": (no host)"
                )
                raise SteadyhandError(
                    ErrorCode.POLICY_DENIED,
                    f"secret {name} is only typed on {', '.join(secret.domains)} (subdomains "
                    f"included), not into {where} on {shown}: nothing was typed",
                    "check that the page is the site you meant; a secret goes only to its "
                    f"domains (set in {self.path})",
                    {"secret": name, "host": host, "domains": list(secret.domains)},
                )
            values[name] = secret.value
        return REFERENCE.sub(lambda m: values[m.group(1)], text)

    def mask(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None:
            return text
        return pattern.sub(lambda m: self._masked[m.group(0)], text)


def mask_text(text: str) -> str:
    """The text with every secret value any vault of this process loaded replaced by its
    reference (`{{secret:NAME}}`)."""
    for vault in list(_VAULTS):
        text = vault.mask(text)
    return text


def mask_data(value: Any) -> Any:
    """`mask_text` over JSON-like data: every string, keys included."""
    if not any(v._pattern is not None for v in list(_VAULTS)):
        return value
    return _mask(value)


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, dict):
        return {(_mask(k) if isinstance(k, str) else k): _mask(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(v) for v in value]
    return value


def mask_error(error: SteadyhandError) -> SteadyhandError:
    """The error's message, hint and data masked, in place."""
    if any(v._pattern is not None for v in list(_VAULTS)):
        error.message = mask_text(error.message)
        error.hint = mask_text(error.hint)
        error.data = mask_data(error.data)
        error.args = (error.message,)
    return error


IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"RIFF", b"GIF8")


def mask_bytes(data: bytes) -> bytes:
    """`mask_text` over UTF-8 bytes (a file's text parts)."""
    for vault in list(_VAULTS):
        with vault._lock:
            masked = dict(vault._masked)
        for form in sorted(masked, key=len, reverse=True):
            data = data.replace(form.encode(), masked[form].encode())
    return data


def mask_zip(path: Path) -> int:
    """Rewrite a zip (a Playwright trace: its action params, DOM snapshots, network
    bodies) with every secret value masked in each entry that is not an image; how many
    entries changed. Images (screenshots, screencast frames) are pixels: left as they are.
    """
    import zipfile

    if not masking():
        return 0
    changed = 0
    temporary = path.with_name(path.name + ".masking")
    with (
        zipfile.ZipFile(path) as source,
        zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            data = source.read(item)
            if not data.startswith(IMAGE_MAGIC):
                masked = mask_bytes(data)
                changed += masked != data
                data = masked
            target.writestr(item, data, zipfile.ZIP_DEFLATED)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return changed


def masking() -> bool:
    """Whether any value is masked in this process (else masking can be skipped)."""
    return any(v._pattern is not None for v in list(_VAULTS))


def _first(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
