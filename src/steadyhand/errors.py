"""One error taxonomy: a stable code, a message a model can act on, and a hint.

Standard library only: the thin CLI imports this module on its hot path.
Each code maps to a CLI exit code, a JSON-RPC error code and an HTTP status.
"""

from __future__ import annotations

from enum import StrEnum

TYPE_CHECKING = False  # typing costs the CLI's hot path milliseconds; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


class ErrorCode(StrEnum):
    BAD_REQUEST = "bad_request"
    UNKNOWN_COMMAND = "unknown_command"
    INVALID_URL = "invalid_url"
    UNKNOWN_SESSION = "unknown_session"
    UNKNOWN_TAB = "unknown_tab"
    NOT_FOUND = "not_found"
    STALE_REF = "stale_ref"
    AMBIGUOUS = "ambiguous"
    NOT_ACTIONABLE = "not_actionable"
    VERIFICATION_FAILED = "verification_failed"
    DIALOG_OPEN = "dialog_open"
    ACTION_FAILED = "action_failed"
    TIMEOUT = "timeout"
    NAVIGATION_FAILED = "navigation_failed"
    BROWSER_NOT_FOUND = "browser_not_found"
    BROWSER_CRASHED = "browser_crashed"
    POOL_EXHAUSTED = "pool_exhausted"
    PROFILE_IN_USE = "profile_in_use"
    SESSION_SUSPENDED = "session_suspended"
    SESSION_LEASED = "session_leased"
    SESSION_PAUSED = "session_paused"
    DAEMON_UNAVAILABLE = "daemon_unavailable"
    POLICY_DENIED = "policy_denied"
    APPROVAL_DENIED = "approval_denied"
    INTERNAL = "internal"


class ErrorClass:
    """How one code is reported by each front. (Not a dataclass: see config.Settings.)"""

    __slots__ = ("exit_code", "http_status", "retryable", "rpc_code")

    def __init__(
        self, exit_code: int, rpc_code: int, http_status: int, retryable: bool = False
    ) -> None:
        self.exit_code = exit_code
        self.rpc_code = rpc_code
        self.http_status = http_status
        self.retryable = retryable


# Exit codes group codes by what the caller should do next:
# 2 fix the input, 3 take a new snapshot, 4 try again later, 5 fix the browser, 6 the daemon.
ERROR_CLASSES: dict[ErrorCode, ErrorClass] = {
    ErrorCode.BAD_REQUEST: ErrorClass(2, -32602, 400),
    ErrorCode.UNKNOWN_COMMAND: ErrorClass(2, -32601, 404),
    ErrorCode.INVALID_URL: ErrorClass(2, -32003, 400),
    ErrorCode.UNKNOWN_SESSION: ErrorClass(2, -32004, 404),
    ErrorCode.UNKNOWN_TAB: ErrorClass(2, -32005, 404),
    ErrorCode.NOT_FOUND: ErrorClass(3, -32010, 404),
    ErrorCode.STALE_REF: ErrorClass(3, -32011, 409),
    ErrorCode.AMBIGUOUS: ErrorClass(3, -32012, 409),
    ErrorCode.NOT_ACTIONABLE: ErrorClass(3, -32014, 409, retryable=True),
    ErrorCode.VERIFICATION_FAILED: ErrorClass(3, -32015, 422),
    ErrorCode.DIALOG_OPEN: ErrorClass(3, -32016, 409),
    ErrorCode.ACTION_FAILED: ErrorClass(3, -32013, 422, retryable=True),
    ErrorCode.TIMEOUT: ErrorClass(4, -32020, 504, retryable=True),
    ErrorCode.NAVIGATION_FAILED: ErrorClass(4, -32021, 502, retryable=True),
    ErrorCode.BROWSER_NOT_FOUND: ErrorClass(5, -32030, 503),
    ErrorCode.BROWSER_CRASHED: ErrorClass(5, -32031, 503, retryable=True),
    ErrorCode.POOL_EXHAUSTED: ErrorClass(4, -32022, 429, retryable=True),
    ErrorCode.PROFILE_IN_USE: ErrorClass(4, -32023, 409, retryable=True),
    ErrorCode.SESSION_SUSPENDED: ErrorClass(2, -32006, 409),
    ErrorCode.SESSION_LEASED: ErrorClass(2, -32007, 409),
    ErrorCode.SESSION_PAUSED: ErrorClass(2, -32008, 409, retryable=True),
    ErrorCode.DAEMON_UNAVAILABLE: ErrorClass(6, -32040, 503, retryable=True),
    ErrorCode.POLICY_DENIED: ErrorClass(7, -32050, 403),
    ErrorCode.APPROVAL_DENIED: ErrorClass(7, -32051, 403),
    ErrorCode.INTERNAL: ErrorClass(1, -32603, 500),
}

_BY_RPC_CODE = {cls.rpc_code: code for code, cls in ERROR_CLASSES.items()}


class SteadyhandError(Exception):
    """A failure every front can report: code, message, hint and optional data.

    `SteadyhandError(code, ...)` is an instance of that code's own class (`StaleRefError`
    for `stale_ref`, ...), in the daemon and in clients alike, so callers can catch one code
    by type; every class is still a SteadyhandError.
    """

    def __new__(
        cls,
        code: ErrorCode | str,
        message: str = "",
        hint: str = "",
        data: dict[str, Any] | None = None,
    ) -> SteadyhandError:
        target = _BY_CODE.get(ErrorCode(code), cls) if cls is SteadyhandError else cls
        return super().__new__(target)

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        hint: str = "",
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.hint = hint
        self.data = data or {}

    @property
    def error_class(self) -> ErrorClass:
        return ERROR_CLASSES[self.code]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code), "message": self.message, "hint": self.hint}
        if self.data:
            out["data"] = self.data
        return out

    def to_rpc_error(self) -> dict[str, Any]:
        return {
            "code": self.error_class.rpc_code,
            "message": self.message,
            "data": {"code": str(self.code), "hint": self.hint, **self.data},
        }

    @classmethod
    def from_rpc_error(cls, error: dict[str, Any]) -> SteadyhandError:
        data = dict(error.get("data") or {})
        name = data.pop("code", None)
        try:
            code = ErrorCode(name) if name else _BY_RPC_CODE[int(error.get("code", 0))]
        except (ValueError, KeyError):
            code = ErrorCode.INTERNAL
        hint = str(data.pop("hint", ""))
        return cls(code, str(error.get("message", "")), hint, data)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" (hint: {self.hint})" if self.hint else "")


class BadRequestError(SteadyhandError):
    """The input is wrong: a param, a value, a setting or a usage error."""


class UnknownCommandError(SteadyhandError):
    """No command of that name."""


class InvalidUrlError(SteadyhandError):
    """A URL that is not one a page can be opened at."""


class UnknownSessionError(SteadyhandError):
    """No session of that name."""


class UnknownTabError(SteadyhandError):
    """No tab of that id in the session."""


class NotFoundError(SteadyhandError):
    """A ref never handed out, or nothing matched a locator."""


class StaleRefError(SteadyhandError):
    """The ref's element is gone (its page changed): take a new snapshot."""


class AmbiguousError(SteadyhandError):
    """Several elements matched where one was needed."""


class NotActionableError(SteadyhandError):
    """The element is there but hidden, covered, disabled or moving."""


class VerificationFailedError(SteadyhandError):
    """The action ran but the page did not show its effect."""


class DialogOpenError(SteadyhandError):
    """A JavaScript dialog blocks the tab: answer it with `dialog`."""


class ActionFailedError(SteadyhandError):
    """The browser refused the action."""


class CommandTimeoutError(SteadyhandError):
    """The command did not finish within its deadline."""


class NavigationFailedError(SteadyhandError):
    """A page load failed (network, TLS, refused)."""


class BrowserNotFoundError(SteadyhandError):
    """No Chromium to launch."""


class BrowserCrashedError(SteadyhandError):
    """The browser or the tab's renderer died."""


class PoolExhaustedError(SteadyhandError):
    """Every session slot is taken."""


class ProfileInUseError(SteadyhandError):
    """The profile is open in another session."""


class SessionSuspendedError(SteadyhandError):
    """The session is suspended: `session restore NAME` brings it back."""


class SessionLeasedError(SteadyhandError):
    """Another daemon sharing the store runs the session (its lease is live)."""


class SessionPausedError(SteadyhandError):
    """A person took the session over (live view); the agent waits for the hand back."""


class DaemonUnavailableError(SteadyhandError):
    """No daemon answers on the socket."""


class PolicyDeniedError(SteadyhandError):
    """A setting forbids this."""


class ApprovalDeniedError(SteadyhandError):
    """A person denied the action, or nobody approved it in time."""


class InternalError(SteadyhandError):
    """A bug: see daemon.log."""


_BY_CODE: dict[ErrorCode, type[SteadyhandError]] = {
    ErrorCode.BAD_REQUEST: BadRequestError,
    ErrorCode.UNKNOWN_COMMAND: UnknownCommandError,
    ErrorCode.INVALID_URL: InvalidUrlError,
    ErrorCode.UNKNOWN_SESSION: UnknownSessionError,
    ErrorCode.UNKNOWN_TAB: UnknownTabError,
    ErrorCode.NOT_FOUND: NotFoundError,
    ErrorCode.STALE_REF: StaleRefError,
    ErrorCode.AMBIGUOUS: AmbiguousError,
    ErrorCode.NOT_ACTIONABLE: NotActionableError,
    ErrorCode.VERIFICATION_FAILED: VerificationFailedError,
    ErrorCode.DIALOG_OPEN: DialogOpenError,
    ErrorCode.ACTION_FAILED: ActionFailedError,
    ErrorCode.TIMEOUT: CommandTimeoutError,
    ErrorCode.NAVIGATION_FAILED: NavigationFailedError,
    ErrorCode.BROWSER_NOT_FOUND: BrowserNotFoundError,
    ErrorCode.BROWSER_CRASHED: BrowserCrashedError,
    ErrorCode.POOL_EXHAUSTED: PoolExhaustedError,
    ErrorCode.PROFILE_IN_USE: ProfileInUseError,
    ErrorCode.SESSION_SUSPENDED: SessionSuspendedError,
    ErrorCode.SESSION_LEASED: SessionLeasedError,
    ErrorCode.SESSION_PAUSED: SessionPausedError,
    ErrorCode.DAEMON_UNAVAILABLE: DaemonUnavailableError,
    ErrorCode.POLICY_DENIED: PolicyDeniedError,
    ErrorCode.APPROVAL_DENIED: ApprovalDeniedError,
    ErrorCode.INTERNAL: InternalError,
}


def error_type(code: ErrorCode | str) -> type[SteadyhandError]:
    """The exception class of one code."""
    return _BY_CODE[ErrorCode(code)]


def exit_code_for(code: ErrorCode | str) -> int:
    try:
        return ERROR_CLASSES[ErrorCode(code)].exit_code
    except ValueError:
        return 1


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Playwright's go on with a call log), or
    its type's name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
