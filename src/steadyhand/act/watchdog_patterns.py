"""The interruptions the watchdog knows: built-in patterns, a user's file, and their selectors.

A pattern's selectors are CSS, with two additions:

- a comma-separated list is an ORDER OF PREFERENCE for `dismiss` (the first alternative
  with a visible match is clicked), so "accept all" can come before "reject all" and the
  close icon last; for `container` any alternative matches;
- an alternative may end with Playwright's `:has-text("...")`: the element's rendered text
  must contain that text (case-insensitive, whitespace collapsed). CSS cannot see text, and
  a generic newsletter modal, or a close button drawn as a multiplication sign, is
  recognised by nothing else.

Standard library only (no Playwright): patterns are loaded and checked without a browser;
`watchdog.py` runs them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from steadyhand.errors import ErrorCode, SteadyhandError

KINDS = ("cookie-consent", "newsletter", "chat-widget")
FIELDS = ("kind", "name", "container", "dismiss")
FILE_HINT = (
    'the file must be a JSON list of objects with the string keys "kind" '
    '(cookie-consent | newsletter | chat-widget), "name", "container" (CSS selector of the '
    'banner root) and "dismiss" (CSS selector of the button inside it; "" hides the container, '
    "and must be empty for chat widgets)"
)


@dataclass(frozen=True)
class Pattern:
    """One known interruption: where its root is and what dismisses it."""

    kind: str  # "cookie-consent" | "newsletter" | "chat-widget"
    name: str  # e.g. "vanilla-cookieconsent", "OneTrust", "Cookiebot", "Didomi", ...
    container: str  # CSS selector of the banner/modal/widget root
    dismiss: str  # CSS selector (inside container) of the button; "" = hide the container


@dataclass(frozen=True)
class Alternative:
    """One alternative of a selector list: CSS, and text the element must show (or None)."""

    css: str
    text: str | None = None


# Consent buttons are listed "accept all" first: it is the answer that unblocks the most
# content (embedded media, checkout widgets), and every library records it the same way.
_CONSENT: tuple[tuple[str, str, str], ...] = (
    # name, container, dismiss
    (
        "vanilla-cookieconsent",  # orestbida/cookieconsent v3: #cc-main is a 0x0 fixed root
        "#cc-main .cm, #cc-main .pm",
        'button[data-role="all"], button[data-role="necessary"]',
    ),
    (
        "OneTrust",
        "#onetrust-banner-sdk",
        "#onetrust-accept-btn-handler, #onetrust-reject-all-handler, .onetrust-close-btn-handler",
    ),
    (
        "Cookiebot",
        "#CybotCookiebotDialog",
        "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll, "
        "#CybotCookiebotDialogBodyButtonAccept, #CybotCookiebotDialogBodyButtonDecline",
    ),
    (
        "Didomi",
        "#didomi-notice, .didomi-popup-notice",
        "#didomi-notice-agree-button, #didomi-notice-disagree-button, "
        ".didomi-continue-without-agreeing",
    ),
    (
        "Quantcast Choice",
        "#qc-cmp2-ui",
        '.qc-cmp2-summary-buttons > button[mode="primary"], #disagree-btn',
    ),
    ("TrustArc", "#truste-consent-track", "#truste-consent-button, #truste-consent-required"),
    (
        "cookieconsent",  # Osano's open-source cookieconsent v3; .cc-invisible = fading out
        ".cc-window:not(.cc-invisible)",
        ".cc-btn.cc-allow, .cc-btn.cc-dismiss, .cc-btn.cc-deny, .cc-close",
    ),
    (
        "Osano",
        ".osano-cm-dialog",
        ".osano-cm-accept-all, .osano-cm-denyAll, .osano-cm-dialog__close",
    ),
    (
        "Klaro",
        ".klaro .cookie-notice:not(.cookie-notice-hidden), .klaro .cookie-modal",
        ".cm-btn-accept-all, .cn-buttons .cm-btn-success, .cm-btn-accept, .cn-decline, "
        ".cm-btn-decline",
    ),
    (
        "Complianz",
        "#cmplz-cookiebanner-container .cmplz-cookiebanner",
        ".cmplz-accept, .cmplz-deny",
    ),
    (
        "CookieYes",
        ".cky-consent-container",
        '[data-cky-tag="accept-button"], [data-cky-tag="reject-button"]',
    ),
    (
        "CookieYes (GDPR Cookie Consent, legacy)",
        "#cookie-law-info-bar",
        '[data-cli_action="accept_all"], [data-cli_action="accept"], [data-cli_action="reject"]',
    ),
    ("cookie-notice", "#cookie-notice", "#cn-accept-cookie, #cn-refuse-cookie, #cn-close-notice"),
    (
        "tarteaucitron",
        "#tarteaucitronAlertBig",
        "#tarteaucitronPersonalize2, #tarteaucitronAllDenied2, #tarteaucitronCloseAlert",
    ),
    (
        "HubSpot cookie banner",
        "#hs-eu-cookie-confirmation",
        "#hs-eu-confirmation-button, #hs-eu-decline-button",
    ),
    (
        "Usercentrics",  # the banner lives in #usercentrics-root's open shadow root
        "#usercentrics-root",
        '[data-testid="uc-accept-all-button"], [data-testid="uc-deny-all-button"]',
    ),
    (
        "Usercentrics (legacy)",
        "#usercentrics-button",
        "#uc-btn-accept-banner, #uc-btn-deny-banner",
    ),
)

# A generic newsletter modal must ask for an email address AND say so: a dialog that merely
# mentions a subscription (a plan, an account page) is left alone.
_NEWSLETTER_ROOTS = ('[role="dialog"]', "dialog[open]", ".modal")
_NEWSLETTER_WORDS = ("newsletter", "subscribe")
_CLOSE_BUTTONS = (
    '[aria-label="close" i], [aria-label="close dialog" i], [aria-label="dismiss" i], '
    '[data-dismiss="modal"], [data-bs-dismiss="modal"], button:has-text("\u00d7"), '
    'button:has-text("\u2715"), button:has-text("no thanks"), a:has-text("no thanks")'
)
_NEWSLETTER: tuple[tuple[str, str, str], ...] = (
    (
        "newsletter modal",
        ", ".join(
            f'{root}:has(input[type="email"]):has-text("{word}")'
            for root in _NEWSLETTER_ROOTS
            for word in _NEWSLETTER_WORDS
        ),
        _CLOSE_BUTTONS,
    ),
    ("Klaviyo form", '[role="dialog"]:has(.klaviyo-close-form)', ".klaviyo-close-form"),
    ("Mailchimp popup", ".mc-modal", ".mc-closeModal"),
)

# Chat widgets are hidden, never clicked (a click opens the chat), and only when one covers
# the element about to be acted on: a launcher in a corner is harmless elsewhere.
_CHAT: tuple[tuple[str, str], ...] = (
    (
        "Intercom",
        '#intercom-container, .intercom-lightweight-app, iframe[name="intercom-launcher-frame"], '
        ".intercom-launcher-frame",
    ),
    (
        "Drift",
        "#drift-widget-container, #drift-frame-controller, #drift-frame-chat, iframe#drift-widget",
    ),
    ("Crisp", ".crisp-client, #crisp-chatbox"),
    ("Tawk", '#tawkchat-container, .tawk-min-container, iframe[title="chat widget"]'),
    (
        "Zendesk",
        'iframe#launcher, iframe#webWidget, iframe[title="Button to launch messaging window"], '
        'iframe[title="Messaging window"]',
    ),
    ("HubSpot", "#hubspot-messages-iframe-container"),
)

BUILTIN: tuple[Pattern, ...] = (
    *(Pattern("cookie-consent", n, c, d) for n, c, d in _CONSENT),
    *(Pattern("newsletter", n, c, d) for n, c, d in _NEWSLETTER),
    *(Pattern("chat-widget", n, c, "") for n, c in _CHAT),
)


def builtin_patterns() -> list[Pattern]:
    """The patterns steadyhand ships: common consent libraries, newsletter modals, chats."""
    return list(BUILTIN)


def patterns_for(setting: str) -> list[Pattern]:
    """The watchdog's patterns for a `watchdog_patterns` setting: built-ins plus that file,
    read once per process (a file that fails to load is read again next time)."""
    return list(_loaded(setting))


@lru_cache(maxsize=8)
def _loaded(setting: str) -> tuple[Pattern, ...]:
    return tuple(load_patterns(Path(setting).expanduser() if setting else None))


def load_patterns(extra: Path | None) -> list[Pattern]:
    """Built-ins plus a user's JSON file (list of objects with the four keys).

    The user's patterns come first, so that one written for a site claims its banner before
    a built-in does. A bad file is `bad_request`: a watchdog silently running without the
    patterns its user wrote would be worse than no start at all.
    """
    if extra is None:
        return builtin_patterns()
    return [*_read_file(extra), *BUILTIN]


def _read_file(path: Path) -> list[Pattern]:
    def bad(message: str) -> SteadyhandError:
        return SteadyhandError(
            ErrorCode.BAD_REQUEST, f"watchdog patterns {path}: {message}", FILE_HINT
        )

    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise bad(f"cannot be read ({exc})") from exc
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise bad(f"is not JSON ({exc})") from exc
    if not isinstance(data, list):
        raise bad(f"holds a JSON {type(data).__name__}, not a list of patterns")
    patterns = []
    for index, item in enumerate(data):
        try:
            patterns.append(pattern_from_json(item))
        except ValueError as exc:
            raise bad(f"pattern {index}: {exc}") from exc
    return patterns


def pattern_from_json(item: Any) -> Pattern:
    """A pattern from one JSON object; ValueError says what is wrong with it."""
    if not isinstance(item, dict):
        raise ValueError(f"is a JSON {type(item).__name__}, not an object")
    missing = [f for f in FIELDS if f not in item]
    unknown = sorted(set(item) - set(FIELDS))
    if missing or unknown:
        parts = [f"missing {', '.join(missing)}"] if missing else []
        parts += [f"unknown key(s) {', '.join(unknown)}"] if unknown else []
        raise ValueError("; ".join(parts))
    not_text = [f for f in FIELDS if not isinstance(item[f], str)]
    if not_text:
        raise ValueError(f"{', '.join(not_text)} must be string(s)")
    pattern = Pattern(**{f: item[f].strip() for f in FIELDS})
    check_pattern(pattern)
    return pattern


def check_pattern(pattern: Pattern) -> None:
    """ValueError unless the pattern can be swept (known kind, parseable selectors)."""
    label = f"({pattern.name or 'unnamed'})"
    if pattern.kind not in KINDS:
        raise ValueError(f"{label} kind {pattern.kind!r} is not one of {', '.join(KINDS)}")
    if not pattern.name:
        raise ValueError("name is empty")
    if not pattern.container:
        raise ValueError(f"{label} container is empty")
    if pattern.kind == "chat-widget" and pattern.dismiss:
        raise ValueError(f"{label} chat widgets are hidden, not clicked: leave dismiss empty")
    for key in ("container", "dismiss"):
        try:
            parse_selector(getattr(pattern, key))
        except ValueError as exc:
            raise ValueError(f"{label} {key}: {exc}") from exc


def compile_patterns(patterns: list[Pattern]) -> str:
    """The patterns as the sweep script reads them: JSON, selectors split into alternatives.

    JSON text, not a structure: Playwright serialises a nested argument value by value, which
    costs a sweep of 35 patterns ~15 ms a call; one string costs well under one.
    """
    return "[" + ",".join(compile_pattern(p) for p in patterns) + "]"


@lru_cache(maxsize=512)  # sweeps run before every action, with the same few patterns
def compile_pattern(pattern: Pattern) -> str:
    """One pattern as the sweep script reads it (JSON)."""

    def alts(selector: str) -> list[list[str | None]]:
        return [[a.css, a.text] for a in parse_selector(selector)]

    return json.dumps(
        {
            "kind": pattern.kind,
            "name": pattern.name,
            "container": alts(pattern.container),
            "dismiss": alts(pattern.dismiss),
        }
    )


def parse_selector(selector: str) -> list[Alternative]:
    """A selector list split into its alternatives, in order; ValueError if malformed."""
    return [parse_alternative(part) for part in split_alternatives(selector)]


def split_alternatives(selector: str) -> list[str]:
    """Split a selector list at its top-level commas (not inside (), [] or quotes)."""
    parts: list[str] = []
    closing = {"(": ")", "[": "]"}
    stack: list[str] = []
    quote = ""
    start = 0
    i = 0
    while i < len(selector):
        ch = selector[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "\\":
            i += 1  # an escaped character in an identifier (e.g. `#a\,b`) is not syntax
        elif ch in closing:
            stack.append(closing[ch])
        elif ch in ")]":
            if not stack or stack.pop() != ch:
                raise ValueError(f"unbalanced {ch!r} at {i} in {selector!r}")
        elif ch == "," and not stack:
            parts.append(selector[start:i])
            start = i + 1
        i += 1
    if quote:
        raise ValueError(f"unclosed {quote} in {selector!r}")
    if stack:
        raise ValueError(f"unclosed {stack[-1]!r} (missing) in {selector!r}")
    parts.append(selector[start:])
    stripped = [p.strip() for p in parts]
    if len(stripped) > 1 and not all(stripped):
        raise ValueError(f"empty alternative in {selector!r}")
    return [p for p in stripped if p]


_HAS_TEXT = re.compile(r""":has-text\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\)\s*$""")


def parse_alternative(part: str) -> Alternative:
    """One alternative: its CSS and the text of a trailing `:has-text("...")`, if any."""
    match = _HAS_TEXT.search(part)
    css, text = part, None
    if match:
        css = part[: match.start()]
        # `:has-text` alone, or after a combinator (` `, `>`, `+`, `~`), means any element.
        if not css.strip() or css[-1] in " \t\n>+~":
            css += "*"
        css = css.strip()
        text = " ".join(re.sub(r"\\(.)", r"\1", match.group(1)[1:-1]).split()).lower()
        if not text:
            raise ValueError(f':has-text("") matches everything in {part!r}')
    if ":has-text(" in css:
        raise ValueError(f':has-text("...") must come last in {part!r}')
    return Alternative(css, text)
