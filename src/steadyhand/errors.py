"""One error taxonomy: a stable code, a message a model can act on, and a hint.

Standard library only: the thin CLI imports this module on its hot path.
`ErrorCode` is the one table of codes: each row gives a code's CLI exit code, JSON-RPC
error code, HTTP status, whether it may pass on a retry, and its exception class (name and
doc); the exception classes and the lookups are made from it.
"""

from __future__ import annotations

from enum import StrEnum

TYPE_CHECKING = False  # typing costs the CLI's hot path milliseconds; mypy reads this as True
if TYPE_CHECKING:
    from typing import Any


class ErrorCode(StrEnum):
    """A failure's stable code; a member also carries how each front reports it."""

    _value_: str
    exit_code: int
    rpc_code: int
    http_status: int
    retryable: bool
    class_name: str  # its exception class, made below
    class_doc: str

    def __new__(cls, value: str, *row: Any) -> ErrorCode:
        # Untyped row: mypy takes a lookup, ErrorCode("stale_ref"), for a call of __new__.
        member = str.__new__(cls, value)
        member._value_ = value
        (
            member.exit_code,
            member.rpc_code,
            member.http_status,
            member.retryable,
            member.class_name,
            member.class_doc,
        ) = row
        return member

    # Exit codes group codes by what the caller should do next: 2 fix the input, 3 take a
    # new snapshot, 4 try again later, 5 fix the browser, 6 the daemon, 7 policy, 1 a bug.
    # fmt: off
    # NAME = (code, exit code, JSON-RPC code, HTTP status, retryable, exception class,
    #         the class's doc)
    BAD_REQUEST = (
        "bad_request", 2, -32602, 400, False, "BadRequestError",
        "The input is wrong: a param, a value, a setting or a usage error.",
    )
    UNKNOWN_COMMAND = (
        "unknown_command", 2, -32601, 404, False, "UnknownCommandError",
        "No command of that name.",
    )
    INVALID_URL = (
        "invalid_url", 2, -32003, 400, False, "InvalidUrlError",
        "A URL that is not one a page can be opened at.",
    )
    UNKNOWN_SESSION = (
        "unknown_session", 2, -32004, 404, False, "UnknownSessionError",
        "No session of that name.",
    )
    UNKNOWN_TAB = (
        "unknown_tab", 2, -32005, 404, False, "UnknownTabError",
        "No tab of that id in the session.",
    )
    NOT_FOUND = (
        "not_found", 3, -32010, 404, False, "NotFoundError",
        "A ref never handed out, or nothing matched a locator.",
    )
    STALE_REF = (
        "stale_ref", 3, -32011, 409, False, "StaleRefError",
        "The ref's element is gone (its page changed): take a new snapshot.",
    )
    AMBIGUOUS = (
        "ambiguous", 3, -32012, 409, False, "AmbiguousError",
        "Several elements matched where one was needed.",
    )
    NOT_ACTIONABLE = (
        "not_actionable", 3, -32014, 409, True, "NotActionableError",
        "The element is there but hidden, covered, disabled or moving.",
    )
    VERIFICATION_FAILED = (
        "verification_failed", 3, -32015, 422, False, "VerificationFailedError",
        "The action ran but the page did not show its effect.",
    )
    DIALOG_OPEN = (
        "dialog_open", 3, -32016, 409, False, "DialogOpenError",
        "A JavaScript dialog blocks the tab: answer it with `dialog`.",
    )
    FLOW_DIVERGED = (
        "flow_diverged", 3, -32017, 409, False, "FlowDivergedError",
        "A flow's step found no one element to act on, or what it expected did not show.",
    )
    ACTION_FAILED = (
        "action_failed", 3, -32013, 422, True, "ActionFailedError",
        "The browser refused the action.",
    )
    TIMEOUT = (
        "timeout", 4, -32020, 504, True, "CommandTimeoutError",
        "The command did not finish within its deadline.",
    )
    NAVIGATION_FAILED = (
        "navigation_failed", 4, -32021, 502, True, "NavigationFailedError",
        "A page load failed (network, TLS, refused).",
    )
    BROWSER_NOT_FOUND = (
        "browser_not_found", 5, -32030, 503, False, "BrowserNotFoundError",
        "No Chromium to launch.",
    )
    BROWSER_CRASHED = (
        "browser_crashed", 5, -32031, 503, True, "BrowserCrashedError",
        "The browser or the tab's renderer died.",
    )
    POOL_EXHAUSTED = (
        "pool_exhausted", 4, -32022, 429, True, "PoolExhaustedError",
        "Every session slot is taken.",
    )
    PROFILE_IN_USE = (
        "profile_in_use", 4, -32023, 409, True, "ProfileInUseError",
        "The profile is open in another session.",
    )
    SESSION_SUSPENDED = (
        "session_suspended", 2, -32006, 409, False, "SessionSuspendedError",
        "The session is suspended: `session restore NAME` brings it back.",
    )
    SESSION_LEASED = (
        "session_leased", 2, -32007, 409, False, "SessionLeasedError",
        "Another daemon sharing the store runs the session (its lease is live).",
    )
    SESSION_PAUSED = (
        "session_paused", 2, -32008, 409, True, "SessionPausedError",
        "A person took the session over (live view); the agent waits for the hand back.",
    )
    DAEMON_UNAVAILABLE = (
        "daemon_unavailable", 6, -32040, 503, True, "DaemonUnavailableError",
        "No daemon answers on the socket.",
    )
    STATE_LOCKED = (
        "state_locked", 6, -32041, 423, False, "StateLockedError",
        "Stored state is sealed with a key this daemon does not hold, or was altered.",
    )
    POLICY_DENIED = (
        "policy_denied", 7, -32050, 403, False, "PolicyDeniedError",
        "A setting forbids this.",
    )
    APPROVAL_DENIED = (
        "approval_denied", 7, -32051, 403, False, "ApprovalDeniedError",
        "A person denied the action, or nobody approved it in time.",
    )
    INTERNAL = (
        "internal", 1, -32603, 500, False, "InternalError",
        "A bug: see daemon.log.",
    )
    # fmt: on


_BY_RPC_CODE = {code.rpc_code: code for code in ErrorCode}


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
        # The code's own class when made as SteadyhandError or as its group's class; any
        # other subclass (an act loop's signal) is itself, with its own arguments.
        if cls is SteadyhandError or cls in GROUPS.values():
            target = _BY_CODE.get(ErrorCode(code), cls)
            return super().__new__(target if issubclass(target, cls) else cls)
        return super().__new__(cls)

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
    def error_class(self) -> ErrorCode:
        """The old name of `code`, which carries exit_code, rpc_code, http_status, retryable."""
        return self.code

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code), "message": self.message, "hint": self.hint}
        if self.data:
            out["data"] = self.data
        return out

    def to_rpc_error(self) -> dict[str, Any]:
        return {
            "code": self.code.rpc_code,
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


# The groups, by what the caller does next (the exit codes): each code's class is one of
# its group's, so a caller can catch a whole group (`except TryLaterError`).
class InputError(SteadyhandError):
    """Fix the input: a param, a name, a session or tab that is not there (exit 2)."""


class PageError(SteadyhandError):
    """The page is not as the call assumed: look again (a new snapshot) and act (exit 3)."""


class TryLaterError(SteadyhandError):
    """Nothing is wrong with the call: the same call may pass later (exit 4)."""


class BrowserError(SteadyhandError):
    """The browser is missing or died (exit 5)."""


class DaemonError(SteadyhandError):
    """No daemon to talk to (exit 6)."""


class PolicyError(SteadyhandError):
    """A setting or a person said no (exit 7)."""


GROUPS: dict[int, type[SteadyhandError]] = {
    2: InputError,
    3: PageError,
    4: TryLaterError,
    5: BrowserError,
    6: DaemonError,
    7: PolicyError,
}


# Each code's own exception class, made from its row of ErrorCode under its group's class
# (a bug, exit 1, directly under SteadyhandError). mypy cannot see classes made at run
# time: it reads these declarations instead, which test_errors keeps in step with the
# table (same names, same order, same bases).
if TYPE_CHECKING:

    class BadRequestError(InputError): ...

    class UnknownCommandError(InputError): ...

    class InvalidUrlError(InputError): ...

    class UnknownSessionError(InputError): ...

    class UnknownTabError(InputError): ...

    class NotFoundError(PageError): ...

    class StaleRefError(PageError): ...

    class AmbiguousError(PageError): ...

    class NotActionableError(PageError): ...

    class VerificationFailedError(PageError): ...

    class DialogOpenError(PageError): ...

    class FlowDivergedError(PageError): ...

    class ActionFailedError(PageError): ...

    class CommandTimeoutError(TryLaterError): ...

    class NavigationFailedError(TryLaterError): ...

    class BrowserNotFoundError(BrowserError): ...

    class BrowserCrashedError(BrowserError): ...

    class PoolExhaustedError(TryLaterError): ...

    class ProfileInUseError(TryLaterError): ...

    class SessionSuspendedError(InputError): ...

    class SessionLeasedError(InputError): ...

    class SessionPausedError(InputError): ...

    class DaemonUnavailableError(DaemonError): ...

    class StateLockedError(DaemonError): ...

    class PolicyDeniedError(PolicyError): ...

    class ApprovalDeniedError(PolicyError): ...

    class InternalError(SteadyhandError): ...
else:
    for _code in ErrorCode:
        globals()[_code.class_name] = type(
            _code.class_name,
            (GROUPS.get(_code.exit_code, SteadyhandError),),
            {"__doc__": _code.class_doc, "__module__": __name__, "__qualname__": _code.class_name},
        )
    del _code

_BY_CODE: dict[ErrorCode, type[SteadyhandError]] = {
    code: globals()[code.class_name] for code in ErrorCode
}


def error_type(code: ErrorCode | str) -> type[SteadyhandError]:
    """The exception class of one code."""
    return _BY_CODE[ErrorCode(code)]


def exit_code_for(code: ErrorCode | str) -> int:
    try:
        return ErrorCode(code).exit_code
    except ValueError:
        return 1


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Playwright's go on with a call log), or
    its type's name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def error_table() -> str:
    """The error codes as a Markdown table (docs/reference/errors.md)."""
    rows = [
        "| code | exit | JSON-RPC | HTTP | may pass if retried | Python class: what happened |",
        "|---|---|---|---|---|---|",
    ]
    for code in ErrorCode:
        retry = "yes" if code.retryable else "no"
        rows.append(
            f"| `{code}` | {code.exit_code} | {code.rpc_code} | {code.http_status} | {retry} "
            f"| `{code.class_name}`: {code.class_doc} |"
        )
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(error_table(), end="")
