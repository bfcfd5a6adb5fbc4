"""Which command calls a person must approve first, and why: the approval settings as rules.

Pure decisions on what is known without touching the page (a ref's identity from the
tab's registry, a URL, the command's name); execute/gate.py gathers those facts for a call.

- `approval_names` (a case-insensitive regex, searched in the accessible name): a click
  (double-click too), download, check, uncheck, select, or press on an element (`press
  KEY --ref`) whose name matches. A select also when a chosen option (value or label, as
  given) matches: picking "Delete account" in an "Action" menu is the decision.
- `approval_domains` (comma-separated hosts; subdomains included): open, navigate and
  tab.new to such a host, and any of the element acts above on a link that leads there.
- `approval_uploads`: every upload.
- Acts that submit a form (`type --submit`, `press Enter` in a field) when the form's submit
  button matches approval_names or it is sent to an approval_domains host; `press Space`
  or `press Enter` on a focused element as a click on it; `fill` when a field's name or
  the value given for it matches approval_names.
- `request_approval`: always (the agent asks a person explicitly).

Empty settings gate nothing (the default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from steadyhand.config import Settings
from steadyhand.engine.nav_policy import hosts
from steadyhand.errors import ErrorCode, SteadyhandError


@dataclass(frozen=True)
class Element:
    """What is known of an element an act aims at."""

    role: str
    name: str
    url: str = ""  # a link's href as the snapshot showed it (may be relative)

    def label(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role


@dataclass(frozen=True)
class Form:
    """What is known of the form an act would submit."""

    action: str  # where it is sent (absolute)
    submits: tuple[str, ...]  # the names of its submit buttons


class Policy:
    """The approval settings, parsed once."""

    def __init__(self, names: str = "", domains: str = "", uploads: bool = False) -> None:
        try:
            self.names = re.compile(names, re.IGNORECASE) if names else None
        except re.error as exc:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                f"setting approval_names={names!r} is not a regular expression: {exc}",
                'e.g. "pay|buy|place order|delete" (matched anywhere in the name, any case)',
            ) from exc
        self.domains = hosts(domains)
        self.uploads = uploads

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(settings.approval_names, settings.approval_domains, settings.approval_uploads)

    @property
    def active(self) -> bool:
        """Whether anything at all is gated by the settings."""
        return bool(self.names or self.domains or self.uploads)

    def name_matches(self, text: str) -> bool:
        return bool(self.names and text and self.names.search(text))

    def listed_domain(self, url: str, base: str = "") -> str | None:
        """The approval_domains entry `url`'s host falls under (relative to `base`)."""
        if not self.domains or not url:
            return None
        try:
            host = (urlsplit(urljoin(base, url)).hostname or "").rstrip(".").lower()
        except ValueError:
            return None
        return next((d for d in self.domains if host == d or host.endswith("." + d)), None)

    # Each rule below gives the reason a call needs approval, in words for a person; None
    # when it needs none. Which commands each rule applies to is the table's to say
    # (`navigates`, `on_element`): the gate (execute/gate.py) asks only those.

    def navigation(self, command: str, url: str) -> str | None:
        """A navigating command (`open`, `navigate`, `tab.new`) going to `url`."""
        domain = self.listed_domain(url)
        return None if domain is None else f"{command} to {domain} (listed in approval_domains)"

    def element(
        self,
        command: str,
        element: Element,
        page_url: str = "",
        values: tuple[str, ...] = (),
    ) -> str | None:
        """Acting on `element` with a command that acts on one element, such as `click`
        (`values`: the options the command picks, as `select` does)."""
        label = element.label()
        if self.name_matches(element.name):
            return f"{command} on {label}: its name matches approval_names"
        chosen = next((v for v in values if self.name_matches(v)), None)
        if chosen is not None:
            return f"{command} {chosen!r} in {label}: it matches approval_names"
        domain = self.listed_domain(element.url, page_url) if element.role == "link" else None
        if domain is not None:
            return f"{command} on {label} leads to {domain} (listed in approval_domains)"
        return None

    def field(self, element: Element, value: str) -> str | None:
        """`fill` of one field: its name, or what goes in it (typing DELETE into a
        confirmation box is the decision), matches approval_names."""
        if self.name_matches(element.name):
            return f"fill of {element.label()}: its name matches approval_names"
        if self.name_matches(value):
            return f"fill of {element.label()}: the value matches approval_names"
        return None

    def form(self, command: str, what: str, form: Form) -> str | None:
        """An act that submits `form` (Enter in one of its fields, `type --submit`): the
        form's submit button or its destination decides."""
        named = next((n for n in form.submits if self.name_matches(n)), None)
        if named is not None:
            return f"{command} on {what} submits a form with {named!r} (matches approval_names)"
        domain = self.listed_domain(form.action)
        if domain is not None:
            return f"{command} on {what} submits a form to {domain} (listed in approval_domains)"
        return None

    def locator(self, command: str, spec: str) -> str | None:
        """A locator whose own text matches approval_names (its element may not exist yet)."""
        if self.name_matches(spec):
            return f"{command} on {spec}: the locator matches approval_names"
        return None

    def upload(self) -> str | None:
        return "upload (approval_uploads is on)" if self.uploads else None
