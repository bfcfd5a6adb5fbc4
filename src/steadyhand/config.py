"""One Settings object: defaults, then an optional TOML file, then STEADYHAND_* variables.

Standard library only: the thin CLI reads the state dir from here on its hot path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from steadyhand.errors import ErrorCode, SteadyhandError

TYPE_CHECKING = False  # typing costs the hot path milliseconds; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ENV_PREFIX = "STEADYHAND_"
TIERS = ("short", "medium", "long")
MAX_TIMEOUT_MS = 600_000
DIALOG_POLICIES = ("report", "accept", "dismiss")
ACT_INPUTS = ("cdp", "playwright")
CONTENT_BOUNDARIES = ("agents", "all", "off")  # fronts/boundary.py
RESTORE_POLICIES = ("on_use", "at_start", "never")
# restore_sessions was a boolean: true meant at_start, false left sessions suspended until
# asked (which on_use now does for the asking command).
RESTORE_ALIASES = {word: "at_start" for word in ("true", "1", "yes", "on")} | {
    word: "on_use" for word in ("false", "0", "no", "off")
}
# What `desktop watch` reports and the desktop webhook can post (steadyhand/desktop/events.py).
DESKTOP_EVENT_KINDS = (
    "focus",
    "window.created",
    "window.destroyed",
    "name.changed",
    "value.changed",
    "text.changed",
    "state.changed",
    "selection.changed",
    "caret.moved",
    "children.changed",
    "app.started",
    "app.exited",
)


def default_state_dir() -> Path:
    """`$XDG_RUNTIME_DIR/steadyhand` when the runtime dir exists, else XDG state home."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "steadyhand"
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "steadyhand"


SESSION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_session_name(name: str) -> None:
    if not SESSION_NAME.match(name):
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"invalid session name {name!r}",
            "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )


def default_config_file() -> Path:
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home) / "steadyhand" / "config.toml"


LOG_LEVELS = ("debug", "info", "warning", "error")


# THE table of settings, a row each: (name, kind, default, doc). The kinds (Path, str, bool,
# int or float), the defaults, `Settings`' slots and the docs' table of settings (its page
# included) all come from here; a callable default is called for each Settings. A setting
# added here is also annotated on `Settings`, for mypy: test_config checks the two agree.
# Plain tuples of constants: Python builds them when it compiles the module, not at import.
SETTINGS: tuple[tuple[str, str, object, str], ...] = (
    ("state_dir", "Path", default_state_dir, "socket, store, logs, profiles, artifacts"),
    (
        "chromium",
        "str",
        "",
        "the Chromium to launch; empty: the headless shell when headless, else chromium on PATH",
    ),
    ("headless", "bool", True, "launch Chromium headless"),
    # Deadline tiers: a command's --timeout is a tier name or milliseconds. Reading and
    # acting commands default to medium, page loads to long, status to short.
    ("timeout_short_ms", "int", 5_000, "the short deadline tier (status)"),
    ("timeout_medium_ms", "int", 15_000, "the medium tier (reading and acting)"),
    ("timeout_long_ms", "int", 45_000, "the long tier (page loads)"),
    (
        "act_retries",
        "int",
        3,
        "tries after the first, for errors that may pass (detached, covered)",
    ),
    (
        "upload_dirs",
        "str",
        "",
        "where `upload` may take files from (os.pathsep-separated); empty: state dir's uploads",
    ),
    # Downloads go one folder per session, under the names sites give them.
    (
        "downloads_dir",
        "str",
        "",
        "where downloads are saved; empty: the session's artifacts (under retention)",
    ),
    # "report" holds a JavaScript dialog open for `dialog accept|dismiss`; "accept" or
    # "dismiss" answers it at once (and says so in the result).
    ("dialogs", "str", "report", "JavaScript dialogs: report, accept or dismiss"),
    ("failure_screenshots", "bool", True, "a screenshot of the page when an action fails"),
    # Before acting, dismiss known interruptions (consent banners, newsletter modals, chat
    # widgets over the target).
    ("watchdog", "bool", True, "dismiss known interruptions before acting"),
    ("watchdog_patterns", "str", "", "a JSON file of extra watchdog patterns"),
    # A fixed banner no pattern knows, over the target after a try: its one accept or close
    # control is clicked (act/cover.py says when).
    (
        "watchdog_generic_banners",
        "bool",
        True,
        "click the one accept/close control of an unknown fixed banner over the target",
    ),
    ("viewport_width", "int", 1280, "a new page's viewport width"),
    ("viewport_height", "int", 800, "a new page's viewport height"),
    ("daemon_start_timeout_s", "float", 20.0, "how long the CLI waits for a new daemon"),
    # A snapshot longer than this is cut (with a marker saying how to get the rest).
    ("snapshot_max_chars", "int", 40_000, "a snapshot longer than this is cut"),
    ("act_changes", "bool", True, "act commands return their changes (--no-changes)"),
    # Clicks and fills: sent as CDP input after one check in the page, or Playwright's own.
    ("act_input", "str", "cdp", "how acts send clicks and text: cdp or playwright"),
    # A page's text in a reply to a model goes between markers the page cannot forge.
    (
        "content_boundaries",
        "str",
        "agents",
        "mark page text in replies: agents (MCP, LLM tools), all (the CLI too) or off",
    ),
    # `evaluate` runs arbitrary JavaScript in pages; a deployment may not want agents to.
    ("allow_evaluate", "bool", True, "allow `evaluate` (arbitrary JavaScript)"),
    # Live sessions (browser contexts) at once; a new one past the cap waits up to
    # pool_wait_ms for a slot, then fails with pool_exhausted.
    ("max_sessions", "int", 4, "live sessions at once"),
    ("pool_wait_ms", "int", 0, "how long a session past max_sessions waits for a slot"),
    # A session's state (tab URLs, cookies, storage, viewport) is checkpointed after each
    # navigation, every this many actions, and when it is suspended.
    ("checkpoint_every", "int", 10, "checkpoint a session every this many actions"),
    # Sessions a stopped daemon left (suspended): "on_use" restores one when a command
    # names it, "at_start" restores them all when the daemon starts, "never" leaves them to
    # `session restore NAME` (a command on one is refused).
    ("restore_sessions", "str", "on_use", "suspended sessions: on_use, at_start or never"),
    # `open`/`tab new` beyond it fail naming the oldest tab.
    ("max_tabs", "int", 20, "tabs a session may hold open"),
    # Health probes: every tab answers a trivial evaluate within health_probe_ms; after
    # health_failures failed probes in a row the session is recreated from its checkpoint.
    ("health_interval_s", "float", 30.0, "seconds between health probes; 0: off"),
    ("health_probe_ms", "int", 5_000, "how long a tab has to answer a probe"),
    ("health_failures", "int", 3, "failed probes in a row before a session is recreated"),
    # HTTP API (`steadyhand serve --http`): loopback only unless http_allow_remote; a bearer
    # token from http.token in the state dir; request bodies capped.
    ("http_host", "str", "127.0.0.1", "the HTTP front's address"),
    ("http_port", "int", 8787, "the HTTP front's port"),
    ("http_allow_remote", "bool", False, "let the HTTP front listen beyond loopback"),
    ("http_max_body_bytes", "int", 1 << 20, "the HTTP front's largest request body"),
    # `steadyhand mcp --http`: an MCP session idle this long ends, and the browser session
    # it made (mcp-<hex>) closes with it: a client that exits without saying so.
    ("mcp_idle_s", "float", 1800.0, "seconds an idle MCP HTTP session lives; 0: forever"),
    # The relay of the Chrome extension (extension/, `steadyhand extension pair`): a
    # WebSocket on 127.0.0.1 at this port, for the pairing token only.
    ("extension_port", "int", 9224, "the extension relay's port; 0: any free port"),
    # The live view (`/` of the HTTP front): a watched tab's screencast.
    ("live_max_fps", "float", 5.0, "the live view's most frames a second"),
    ("live_quality", "int", 60, "the live view's JPEG quality (1-100)"),
    # Navigation policy, enforced on every document a page loads (top level, redirects,
    # popups, iframes), the host's DNS answers included: file: URLs are refused unless
    # allow_file_urls; link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10,
    # fd00:ec2::254, metadata.google.internal ...) unless block_link_local is off; private
    # ranges (RFC 1918, loopback, fc00::/7, 100.64.0.0/10) when block_private.
    # allowed_hosts and blocked_hosts narrow it further. A session may tighten it, never
    # loosen it. The rules: steadyhand/engine/nav_policy.py.
    ("allow_file_urls", "bool", False, "let pages load file: URLs"),
    ("block_link_local", "bool", True, "refuse link-local and cloud metadata addresses"),
    ("block_private", "bool", False, "refuse private address ranges"),
    ("allowed_hosts", "str", "", "the only hosts pages may load (comma-separated); empty: any"),
    ("blocked_hosts", "str", "", "hosts pages may not load (comma-separated)"),
    # Files commands write (screenshot, pdf, trace, report, desktop see, profile export,
    # downloads) or read (upload, profile import) must resolve, symlinks followed, under
    # the state dir's artifacts, the upload roots (upload_dirs, else the state dir's
    # uploads), downloads_dir, or file_roots; a CLI call may also use its working
    # directory when cli_cwd_files (not /, home or above it, and no hidden names under
    # it). The rules: steadyhand/files_policy.py.
    (
        "file_roots",
        "str",
        "",
        "more dirs commands may read and write files in (os.pathsep-separated)",
    ),
    ("cli_cwd_files", "bool", True, "a CLI call may use files in its working directory"),
    # Secrets by name, typed in the daemon and never shown.
    (
        "secrets_file",
        "str",
        "",
        "a TOML file of secrets (mode 0600); empty: state dir's secrets.toml",
    ),
    ("secrets_env_prefix", "str", "STEADYHAND_SECRET_", "environment variables that hold secrets"),
    # The key that seals checkpoints and exported profiles at rest: STEADYHAND_STATE_KEY
    # when set, else the OS keyring (the `keyring` package) when reachable, else this file.
    (
        "state_key_file",
        "str",
        "",
        "the state key's file (mode 0600); empty: STATE_DIR.key beside the state dir",
    ),
    ("state_keyring", "bool", True, "keep the state key in the OS keyring when one is reachable"),
    # Approvals need the approver: over HTTP the approver token (approver.token in the
    # state dir, apart from http.token), over the socket the socket's owner; never MCP.
    ("approver_token", "bool", False, "approvers over HTTP use their own token"),
    # Approval gate (nothing is gated by default): a click, download, check, uncheck,
    # select or press on an element whose accessible name matches approval_names (e.g.
    # "pay|buy|place order|delete|confirm|submit payment"), a navigation (or a link) to one
    # of approval_domains (subdomains included), and uploads when approval_uploads, wait
    # for `steadyhand approve ID`, up to approval_timeout_s, then are denied.
    # approval_webhook, when set, is POSTed each request as JSON. The rules:
    # steadyhand/approvals/policy.py.
    (
        "approval_names",
        "str",
        "",
        "a case-insensitive regex of names whose actions wait for approval",
    ),
    (
        "approval_domains",
        "str",
        "",
        "domains whose navigation waits for approval (comma-separated)",
    ),
    ("approval_uploads", "bool", False, "uploads wait for approval"),
    ("approval_timeout_s", "float", 120.0, "how long an approval waits before it is denied"),
    ("approval_webhook", "str", "", "a URL each approval request is POSTed to"),
    # Wake webhook: each desktop event of a kind in desktop_webhook_events (`window` means
    # window.created and window.destroyed) is POSTed as JSON to desktop_webhook, in order,
    # in the background. The listeners start with the daemon when it runs in a desktop
    # (DISPLAY and a session bus), else with the first desktop command. See
    # steadyhand/desktop/events.py.
    ("desktop_webhook", "str", "", "a URL desktop events are POSTed to; empty: off"),
    (
        "desktop_webhook_events",
        "str",
        "window.created,app.started,app.exited",
        "the desktop event kinds it posts (comma-separated)",
    ),
    # A desktop snapshot reuses an application's last walk for this long while no AT-SPI
    # event of it arrived and no desktop action ran since. Window moves send no event: the
    # time bounds how stale boxes can be.
    ("desktop_cache_ms", "int", 2000, "how long a desktop walk is reused; 0: always walk"),
    # Logs: JSON lines to state_dir/logs/steadyhand.jsonl (rotated at log_max_bytes,
    # log_backups kept) at log_level, and to stderr (the daemon's daemon.log) at
    # log_stderr_level. Levels: debug (DOM details), info, warning (retries), error.
    ("log_level", "str", "info", "the JSON log's level"),
    ("log_stderr_level", "str", "warning", "daemon.log's level"),
    ("log_max_bytes", "int", 10 << 20, "the JSON log's size before it rotates"),
    ("log_backups", "int", 5, "rotated JSON logs kept"),
    # Off by default: each costs a capture, tens of ms.
    ("step_screenshots", "bool", False, "screenshots before and after every act, for the report"),
    # Artifact retention, applied when the daemon starts and hourly: the files of all but
    # the artifacts_keep_sessions most recent sessions go, then the oldest files until the
    # rest fit in artifacts_max_bytes.
    ("artifacts_keep_sessions", "int", 100, "sessions whose artifacts are kept"),
    ("artifacts_max_bytes", "int", 2 << 30, "the artifacts' most bytes"),
    # Browsers steadyhand did not launch: "NAME=URL [HEADER=VALUE ...]" entries separated
    # by ";". http(s):// and ws://.../devtools/... URLs are DevTools (CDP) endpoints, other
    # ws(s):// URLs Playwright browser servers (`playwright run-server`). A header value
    # may hold {{secret:NAME}} (from the secrets store). default_browser: where a new
    # session runs: "local" (a Chromium launched here), an endpoint's NAME, or "auto" (the
    # least loaded of local and every endpoint). See engine/endpoints.py.
    ("browser_endpoints", "str", "", "browsers steadyhand did not launch (NAME=URL; ...)"),
    ("default_browser", "str", "local", "where a new session runs: local, auto or an endpoint"),
    # The store: a daemon leases each session it runs for lease_s (renewed at a third of
    # it); another daemon takes over a session whose lease ran out.
    (
        "store_url",
        "str",
        "",
        "postgresql://... shared by several daemons; empty: SQLite in the state dir",
    ),
    ("lease_s", "float", 15.0, "how long a daemon's lease on a session lasts"),
    ("daemon_name", "str", "", "this daemon's name in `sessions`; empty: host:pid"),
)
_NAMES = tuple([row[0] for row in SETTINGS])


class Settings:
    """Everything tunable, immutable. Env names are the field names upper-cased with
    STEADYHAND_.

    A plain class rather than a dataclass: importing dataclasses costs the CLI's hot path
    about 9 ms a call.
    """

    __slots__ = _NAMES
    # mypy's view of the slots, one per row of SETTINGS, in its order (test_config checks).
    state_dir: Path
    chromium: str
    headless: bool
    timeout_short_ms: int
    timeout_medium_ms: int
    timeout_long_ms: int
    act_retries: int
    upload_dirs: str
    downloads_dir: str
    dialogs: str
    failure_screenshots: bool
    watchdog: bool
    watchdog_patterns: str
    watchdog_generic_banners: bool
    viewport_width: int
    viewport_height: int
    daemon_start_timeout_s: float
    snapshot_max_chars: int
    act_changes: bool
    act_input: str
    content_boundaries: str
    allow_evaluate: bool
    max_sessions: int
    pool_wait_ms: int
    checkpoint_every: int
    restore_sessions: str
    max_tabs: int
    health_interval_s: float
    health_probe_ms: int
    health_failures: int
    http_host: str
    http_port: int
    http_allow_remote: bool
    http_max_body_bytes: int
    mcp_idle_s: float
    extension_port: int
    live_max_fps: float
    live_quality: int
    allow_file_urls: bool
    block_link_local: bool
    block_private: bool
    allowed_hosts: str
    blocked_hosts: str
    file_roots: str
    cli_cwd_files: bool
    secrets_file: str
    secrets_env_prefix: str
    state_key_file: str
    state_keyring: bool
    approver_token: bool
    approval_names: str
    approval_domains: str
    approval_uploads: bool
    approval_timeout_s: float
    approval_webhook: str
    desktop_webhook: str
    desktop_webhook_events: str
    desktop_cache_ms: int
    log_level: str
    log_stderr_level: str
    log_max_bytes: int
    log_backups: int
    step_screenshots: bool
    artifacts_keep_sessions: int
    artifacts_max_bytes: int
    browser_endpoints: str
    default_browser: str
    store_url: str
    lease_s: float
    daemon_name: str

    def __init__(self, **values: Any) -> None:
        unknown = values.keys() - set(_NAMES)
        if unknown:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"unknown setting(s): {', '.join(sorted(unknown))}",
                "known settings: " + ", ".join(_NAMES),
            )
        for name, kind, default, _doc in SETTINGS:
            if name in values:
                value = values[name]
            elif callable(default):
                value = default()
            else:
                value = default
            object.__setattr__(self, name, _coerce(name, kind, value))
        word = self.restore_sessions.strip().lower()
        restore = RESTORE_ALIASES.get(word, word)
        object.__setattr__(self, "restore_sessions", restore)
        if restore not in RESTORE_POLICIES:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting restore_sessions={restore!r} is not one of "
                + ", ".join(RESTORE_POLICIES),
                "on_use restores a suspended session when a command names it; at_start all "
                "of them when the daemon starts; never leaves them to `session restore`",
            )
        if self.max_tabs < 1:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting max_tabs={self.max_tabs} must be at least 1",
                "the default is 20",
            )
        if self.act_input not in ACT_INPUTS:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting act_input={self.act_input!r} is not one of {', '.join(ACT_INPUTS)}",
                "cdp sends clicks and text straight to the browser after one check in the "
                "page (Playwright's path where it cannot); playwright always uses Playwright's",
            )
        if self.content_boundaries not in CONTENT_BOUNDARIES:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting content_boundaries={self.content_boundaries!r} is not one of "
                + ", ".join(CONTENT_BOUNDARIES),
                "agents marks page text in MCP and LLM tool replies; all in the CLI's too",
            )
        if self.dialogs not in DIALOG_POLICIES:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting dialogs={self.dialogs!r} is not one of {', '.join(DIALOG_POLICIES)}",
                "report holds a dialog open for `dialog accept|dismiss`; accept/dismiss answer it",
            )
        for name in ("approval_webhook", "desktop_webhook"):
            check_webhook_url(name, getattr(self, name))
        event_kinds(self.desktop_webhook_events, "setting desktop_webhook_events")
        for name in ("log_level", "log_stderr_level"):
            if getattr(self, name) not in LOG_LEVELS:
                raise SteadyhandError(
                    ErrorCode.BAD_REQUEST,
                    f"setting {name}={getattr(self, name)!r} is not one of "
                    + ", ".join(LOG_LEVELS),
                    "debug shows DOM details; info each action; warning retries; error failures",
                )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Settings are immutable; use .replace(...)")

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _NAMES}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().items()))

    def __repr__(self) -> str:
        from steadyhand.redact import redact_url  # a store_url's password never shows

        shown = self.as_dict() | {"store_url": redact_url(self.store_url)}
        return "Settings(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

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
    def log_path(self) -> Path:
        return self.state_dir / "daemon.log"

    @property
    def store_path(self) -> Path:
        return self.state_dir / "steadyhand.sqlite"

    @property
    def profiles_dir(self) -> Path:
        return self.state_dir / "profiles"

    @property
    def http_token_path(self) -> Path:
        return self.state_dir / "http.token"

    @property
    def artifacts_dir(self) -> Path:
        return self.state_dir / "artifacts"

    @property
    def upload_roots(self) -> list[Path]:
        if not self.upload_dirs:
            return [self.state_dir / "uploads"]
        return [Path(p).expanduser().absolute() for p in self.upload_dirs.split(os.pathsep) if p]

    @property
    def downloads_root(self) -> Path | None:
        """The `downloads_dir` setting; None: downloads are the session's artifacts."""
        return Path(self.downloads_dir).expanduser().absolute() if self.downloads_dir else None

    def timeout_ms(self, value: int | str | None, tier: str = "medium") -> int:
        """Milliseconds for a --timeout value: a tier name, `2500`/`2500ms`, `2.5s`, or None
        (the command's own tier)."""
        chosen = tier if value is None or value == "" else value
        text = str(chosen).strip().lower()
        if text in TIERS:
            return int(getattr(self, f"timeout_{text}_ms"))
        scale, number = (1000, text[:-1]) if text.endswith("s") else (1, text)
        if text.endswith("ms"):
            scale, number = 1, text[:-2]
        try:
            ms = int(float(number) * scale)
        except (ValueError, OverflowError):  # not a number; inf
            ms = 0
        if not 1 <= ms <= MAX_TIMEOUT_MS:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"--timeout {value!r} is neither a tier nor a duration up to 10 minutes",
                "give short, medium or long, or milliseconds (2500), or seconds (2.5s)",
            )
        return ms

    def replace(self, **changes: Any) -> Settings:
        return Settings(**(self.as_dict() | changes))

    @classmethod
    def load(
        cls,
        config_file: Path | None = None,
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> Settings:
        """Defaults < TOML file < environment < explicit overrides.

        `environ` stands for this process's environment: the daemon loads a relayed CLI
        call's settings from the caller's (fronts/cli/host.py).
        """
        env_vars = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_file or Path(env_vars.get(ENV_PREFIX + "CONFIG") or default_config_file())
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
        for name in _NAMES:
            env = env_vars.get(ENV_PREFIX + name.upper())
            if env is not None and env != "":
                values[name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def check_webhook_url(name: str, url: str) -> None:
    """Refuse a webhook setting that is set but not an http(s) URL with a host."""
    scheme, sep, rest = url.partition("://")
    if not url or (sep and scheme.lower() in ("http", "https") and rest.split("/")[0]):
        return
    from steadyhand.redact import redact_url  # only on the way to an error

    raise SteadyhandError(
        ErrorCode.BAD_REQUEST,
        f"setting {name}={redact_url(url)!r} is not an http(s) URL",
        "give a URL such as https://hooks.example.com/steadyhand, or leave it empty",
    )


def event_kinds(text: str, what: str = "--events") -> frozenset[str]:
    """Desktop event kinds from `focus,window.created`; a family (`window`, `app`) names all
    of its kinds; "" names none."""
    chosen: set[str] = set()
    for word in (w.strip().lower() for w in text.split(",")):
        if not word:
            continue
        found = {k for k in DESKTOP_EVENT_KINDS if k == word or k.split(".")[0] == word}
        if not found:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"{what}: {word!r} is not a desktop event kind",
                "kinds: " + ", ".join(DESKTOP_EVENT_KINDS) + " (or a family: window, app)",
            )
        chosen |= found
    return frozenset(chosen)


def _coerce(name: str, kind: str, value: Any) -> Any:
    try:
        if kind == "Path":
            # Absolute: the daemon runs in another working directory than the CLI.
            return Path(value).expanduser().absolute()
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
