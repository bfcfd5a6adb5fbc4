"""Structured logs: JSON lines to stderr and to a rotating file in the state dir.

Every line is one JSON object with `ts`, `level`, `logger` and `event`. An action's lines
(execute/run.py) also carry `session_id`, `tab`, `action_id`, `request_id`, `command`,
`duration_ms`, `retries` and `ok`: info for an outcome, warning when it took retries,
error when it failed, and debug for the DOM details (the element acted on, the page's
changes). Lines are written through the standard library's logging (fields as `extra`)
and rendered by structlog's formatter, so every logger in the process writes one format,
and a program that embeds steadyhand keeps its own logging set-up.

Secrets: params are redacted before they get here (steadyhand/redact.py), and a last step
redacts any secret-looking key and any URL credential a line still carries; the rendered
line has every value of a named secret (steadyhand/vault.py) replaced by its reference.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import structlog

from steadyhand.config import Settings
from steadyhand.private_files import ensure_private_dir
from steadyhand.redact import REDACTED, SECRET_KEY, SecretName, redact_url
from steadyhand.vault import mask_text

# Fields every action line carries (tests and log readers rely on them).
ACTION_FIELDS = (
    "session_id",
    "tab",
    "action_id",
    "request_id",
    "command",
    "duration_ms",
    "retries",
    "ok",
)
EventDict = MutableMapping[str, Any]


def redact_event(_logger: Any, _method: str, event: EventDict) -> EventDict:
    """The last line of defence: secret-looking keys and URL credentials hidden, at any
    depth (a debug line carries params and results)."""
    for key, value in list(event.items()):
        if key not in ("event", "logger", "level", "ts"):
            event[key] = _scrub(key, value)
    return event


def _scrub(key: str, value: Any) -> Any:
    if SECRET_KEY.search(key) and value not in (None, "") and not isinstance(value, SecretName):
        return REDACTED
    if isinstance(value, dict):
        return {k: _scrub(str(k), v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub("", v) for v in value]
    if isinstance(value, str) and "://" in value and not any(c.isspace() for c in value):
        return redact_url(value)  # one URL (not a text that mentions some)
    return value


def _leading_fields(_logger: Any, _method: str, event: EventDict) -> EventDict:
    """`ts`, `level`, `logger` and `event` first: lines read well with `less` too."""
    head = {k: event.pop(k) for k in ("ts", "level", "logger", "event") if k in event}
    return {**head, **event}


def _shared_processors() -> list[Any]:
    return [
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
        redact_event,
    ]


class _OncePerRecord(logging.Formatter):
    """Renders a record once for all the handlers (the file and stderr)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        line = record.__dict__.get("_steadyhand_line")
        if not isinstance(line, str):
            # Whatever the line carries (a message, params, a traceback), no value of a
            # secret the daemon holds (steadyhand/vault.py) is written.
            line = mask_text(self.inner.format(record))
            record.__dict__["_steadyhand_line"] = line
        return line


class RotatingLog(logging.handlers.RotatingFileHandler):
    """Rolls over once the file has reached `maxBytes` (it may pass it by one line), which
    costs a `tell()`; the standard handler stats the path twice and renders each record
    again to measure it first."""

    def shouldRollover(self, record: logging.LogRecord) -> bool:
        if self.stream is None:  # closed by an earlier rollover
            self.stream = self._open()
        return self.maxBytes > 0 and self.stream.tell() >= self.maxBytes


def _formatter() -> logging.Formatter:
    return _OncePerRecord(_processor_formatter())


def _processor_formatter() -> logging.Formatter:
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.ExtraAdder(), *_shared_processors()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _leading_fields,
            structlog.processors.JSONRenderer(default=str, ensure_ascii=False),
        ],
    )


def log_file(settings: Settings) -> Path:
    return settings.state_dir / "logs" / "steadyhand.jsonl"


def configure(settings: Settings, stderr: bool = True) -> Path:
    """Route every log line of this process, as JSON, to the rotating file (at the
    `log_level` setting) and to stderr (at `log_stderr_level`); return the file's path."""
    path = log_file(settings)
    ensure_private_dir(settings.state_dir)
    path.parent.mkdir(exist_ok=True, mode=0o700)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600))
    file_handler = RotatingLog(
        path, maxBytes=settings.log_max_bytes, backupCount=settings.log_backups, encoding="utf-8"
    )
    file_handler.setLevel(settings.log_level.upper())
    handlers: list[logging.Handler] = [file_handler]
    if stderr:
        stream = logging.StreamHandler(sys.stderr)
        stream.setLevel(settings.log_stderr_level.upper())
        handlers.append(stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    formatter = _formatter()
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(min(h.level for h in handlers))
    logging.getLogger("asyncio").setLevel(logging.WARNING)
    return path


ACTIONS = logging.getLogger("steadyhand.action")


def action_logged(
    fields: dict[str, Any],
    *,
    error: dict[str, Any] | None,
    details: dict[str, Any],
) -> None:
    """One action's outcome line (and its details at debug).

    `fields`: ACTION_FIELDS; `error`: error_code, error and hint of a failure; `details`:
    what only debug shows (redacted params, the element, the page's changes).
    """
    if error is not None:
        ACTIONS.error("action failed", extra={**fields, **error})
    elif fields.get("retries"):
        ACTIONS.warning("action needed retries", extra=fields)
    else:
        ACTIONS.info("action", extra=fields)
    if ACTIONS.isEnabledFor(logging.DEBUG):
        ACTIONS.debug("action details", extra={**fields, **details})
