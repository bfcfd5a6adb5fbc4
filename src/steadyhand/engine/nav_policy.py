"""Where a session's pages may go: the navigation policy as rules on URLs, hosts and the
addresses a host resolves to.

Pure decisions; `nav_proxy.py` applies them to every connection a session's browser opens
(so redirects, popups, iframes and DNS answers are covered), and `open`/`navigate` apply
them before loading anything. Each refusal names its rule:

- `file_urls`: a file: URL, unless the setting allow_file_urls.
- `metadata`: a cloud metadata host or address (169.254.169.254, fd00:ec2::254,
  metadata.google.internal, 100.100.100.200 ...), while block_link_local is on.
- `link_local`: 169.254.0.0/16 or fe80::/10, while block_link_local is on.
- `private`: RFC 1918, loopback, 100.64.0.0/10 (carrier NAT), fc00::/7, when block_private.
- `blocked_hosts`: a host listed there (subdomains included).
- `allowed_hosts`: a host not listed there, when the list is not empty.
- `approval`: (the proxy's, not a rule here) a connection to an approval_domains host a
  person did not approve.

A session may tighten the daemon's policy (block more, allow fewer hosts), never loosen it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from steadyhand.config import Settings
from steadyhand.errors import ErrorCode, SteadyhandError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_HOSTS = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
        "metadata.oraclecloud.com",
        "metadata.platformequinix.com",
    }
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
LINK_LOCAL = tuple(ipaddress.ip_network(n) for n in ("169.254.0.0/16", "fe80::/10"))
PRIVATE = tuple(
    ipaddress.ip_network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "127.0.0.0/8",
        "100.64.0.0/10",
        "0.0.0.0/8",
        "::1/128",
        "::/128",
        "fc00::/7",
    )
)
HINTS = {
    "file_urls": "file: URLs are off; a deployment that needs them sets allow_file_urls",
    "metadata": "cloud metadata addresses hold credentials and are never loaded; "
    "a deployment that must turns block_link_local off",
    "link_local": "link-local addresses are blocked (block_link_local)",
    "private": "private and loopback addresses are blocked (the setting block_private, or "
    "the session was started with `open URL --block-private`)",
    "blocked_hosts": "the host is blocked (blocked_hosts, or the session's --block-hosts)",
    "approval": "a person did not approve connecting to this approval_domains host; "
    "ask the user (`steadyhand approvals`)",
    "allowed_hosts": "only the allowed hosts may be loaded (allowed_hosts, or the session's "
    "--allow-hosts)",
}


@dataclass(frozen=True)
class Refusal:
    """Why a URL or a connection is refused: the rule and what it matched."""

    rule: str
    subject: str  # the URL, host or address that matched

    def error(self, what: str) -> SteadyhandError:
        return SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"{what} is refused by the navigation policy (rule {self.rule}: {self.subject})",
            HINTS[self.rule] + "; `policy` shows this session's rules",
            {"rule": self.rule, "subject": self.subject},
        )


@dataclass(frozen=True)
class NavPolicy:
    allow_file: bool = False
    block_link_local: bool = True
    block_private: bool = False
    allowed: tuple[str, ...] = ()  # empty: any host
    blocked: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> NavPolicy:
        return cls(
            allow_file=settings.allow_file_urls,
            block_link_local=settings.block_link_local,
            block_private=settings.block_private,
            allowed=hosts(settings.allowed_hosts),
            blocked=hosts(settings.blocked_hosts),
        )

    @property
    def checks_loopback(self) -> bool:
        """Whether connections to loopback must go through the checks too (Chromium
        reaches loopback directly otherwise)."""
        return self.block_private or bool(self.allowed or self.blocked)

    def tightened(self, block_private: bool = False, allow: str = "", block: str = "") -> NavPolicy:
        """This policy with more blocked: a session's own rules on top of the daemon's.
        An allow-list narrows the daemon's (only hosts both allow), never widens it."""
        allowed = self.allowed
        wanted = hosts(allow)
        if wanted:
            allowed = (
                tuple(h for h in wanted if any(under(h, a) for a in self.allowed))
                if self.allowed
                else wanted
            )
            if not allowed:
                allowed = ("-",)  # nothing both allow: no host at all
        return replace(
            self,
            block_private=self.block_private or block_private,
            allowed=allowed,
            blocked=tuple(dict.fromkeys(self.blocked + hosts(block))),
        )

    def describe(self) -> list[str]:
        """The rules in force, in words."""
        rules = ["file: URLs " + ("allowed" if self.allow_file else "blocked")]
        if self.block_link_local:
            rules.append("link-local and metadata addresses blocked")
        if self.block_private:
            rules.append("private and loopback addresses blocked")
        if self.allowed:
            rules.append("only " + ", ".join(self.allowed))
        if self.blocked:
            rules.append("never " + ", ".join(self.blocked))
        return rules

    def url(self, url: str) -> Refusal | None:
        """A URL's own refusal (scheme and host name or literal address), before DNS."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return None  # not a URL: the caller's own checks refuse it
        if parts.scheme == "file":
            return None if self.allow_file else Refusal("file_urls", url)
        if parts.scheme not in ("http", "https", "ws", "wss"):
            return None  # about:, data:, blob:: no network
        return self.host(parts.hostname or "")

    def host(self, host: str) -> Refusal | None:
        """A host name's (or literal address's) refusal, before it is resolved."""
        name = host.strip("[]").rstrip(".").lower()
        if not name:
            return None
        address = literal(name)
        if address is not None:
            found = self.address(address)
            if found is not None:
                return found
        elif self.block_link_local and name in METADATA_HOSTS:
            return Refusal("metadata", name)
        if any(under(name, b) for b in self.blocked):
            return Refusal("blocked_hosts", name)
        if self.allowed and not any(under(name, a) for a in self.allowed):
            return Refusal("allowed_hosts", name)
        return None

    def address(self, address: Address) -> Refusal | None:
        """A resolved address's refusal (what a host name's DNS answer may not be)."""
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        shown = str(address)
        if self.block_link_local:
            if address in METADATA_ADDRESSES:
                return Refusal("metadata", shown)
            if any(address in net for net in LINK_LOCAL):
                return Refusal("link_local", shown)
        if self.block_private and any(address in net for net in PRIVATE):
            return Refusal("private", shown)
        return None


def literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def under(host: str, entry: str) -> bool:
    """`host` is `entry` or one of its subdomains."""
    return host == entry or host.endswith("." + entry)


def hosts(text: str) -> tuple[str, ...]:
    """Host entries from a comma-separated setting: `Example.com`, `*.example.com` and
    `https://example.com/x` all name example.com."""
    found = []
    for entry in text.split(","):
        word = entry.strip().lower()
        if "://" in word:
            word = urlsplit(word).hostname or ""
        word = word.split("/", 1)[0].removeprefix("*.").strip(".")
        if word.startswith("["):
            word = word[1:].split("]", 1)[0]
        elif word.count(":") == 1:
            word = word.split(":", 1)[0]
        if word:
            found.append(word)
    return tuple(dict.fromkeys(found))
