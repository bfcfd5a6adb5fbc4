"""One Settings object: defaults, then an optional TOML file, then STEADYHAND_* variables.

Standard library only: the thin CLI reads the state dir from here on its hot path.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from steadyhand.errors import ErrorCode, SteadyhandError

ENV_PREFIX = "STEADYHAND_"


def default_state_dir() -> Path:
    """`$XDG_RUNTIME_DIR/steadyhand` when the runtime dir exists, else XDG state home."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "steadyhand"
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "steadyhand"


def default_config_file() -> Path:
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home) / "steadyhand" / "config.toml"


@dataclass(frozen=True)
class Settings:
    """Everything tunable. Env names are the field names upper-cased with STEADYHAND_."""

    state_dir: Path = field(default_factory=default_state_dir)
    chromium: str = ""
    headless: bool = True
    command_timeout_ms: int = 30_000
    viewport_width: int = 1280
    viewport_height: int = 800
    daemon_start_timeout_s: float = 20.0

    @property
    def socket_path(self) -> Path:
        return self.state_dir / "daemon.sock"

    @property
    def pid_path(self) -> Path:
        return self.state_dir / "daemon.pid"

    @property
    def lock_path(self) -> Path:
        return self.state_dir / "daemon.lock"

    @property
    def browsers_path(self) -> Path:
        """Where the daemon records the Chromium it launched, so a successor can reap it."""
        return self.state_dir / "browsers.json"

    @property
    def log_path(self) -> Path:
        return self.state_dir / "daemon.log"

    @property
    def store_path(self) -> Path:
        return self.state_dir / "steadyhand.sqlite"

    @property
    def artifacts_dir(self) -> Path:
        return self.state_dir / "artifacts"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    @classmethod
    def load(cls, config_file: Path | None = None, **overrides: Any) -> Settings:
        """Defaults < TOML file < environment < explicit overrides."""
        values: dict[str, Any] = {}
        path = config_file or Path(os.environ.get(ENV_PREFIX + "CONFIG") or default_config_file())
        if path.is_file():
            import tomllib  # only when there is a file: it costs the CLI milliseconds

            try:
                values.update(tomllib.loads(path.read_text()))
            except tomllib.TOMLDecodeError as exc:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"config file {path} is not valid TOML: {exc}",
                    "fix the file or point STEADYHAND_CONFIG elsewhere",
                ) from exc
        for f in fields(cls):
            env = os.environ.get(ENV_PREFIX + f.name.upper())
            if env is not None and env != "":
                values[f.name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown setting(s): {', '.join(sorted(unknown))}",
                "known settings: " + ", ".join(f.name for f in fields(cls)),
            )
        return cls(**{name: _coerce(cls, name, value) for name, value in values.items()})


def _coerce(cls: type[Settings], name: str, value: Any) -> Any:
    kind = {f.name: f.type for f in fields(cls)}[name]
    try:
        if kind == "Path":
            return Path(value).expanduser()
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"not a boolean: {value!r}")
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"setting {name}={value!r} is not a valid {kind}",
            f"set {ENV_PREFIX}{name.upper()} to a {kind}",
        ) from exc
