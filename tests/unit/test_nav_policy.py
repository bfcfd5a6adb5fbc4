"""The navigation policy's rules, and the proxy's check of DNS answers."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from steadyhand.config import Settings
from steadyhand.engine.nav_policy import NavPolicy, hosts
from steadyhand.engine.nav_proxy import resolve_checked, url_refusal
from steadyhand.errors import ErrorCode


def rule(policy: NavPolicy, url: str) -> str | None:
    refusal = policy.url(url)
    return None if refusal is None else refusal.rule


def test_defaults_refuse_files_and_metadata_and_allow_the_rest() -> None:
    policy = NavPolicy.from_settings(Settings())
    assert rule(policy, "file:///etc/passwd") == "file_urls"
    assert rule(policy, "http://169.254.169.254/latest/meta-data/") == "metadata"
    assert rule(policy, "http://[fd00:ec2::254]/") == "metadata"
    assert rule(policy, "http://metadata.google.internal/computeMetadata/v1/") == "metadata"
    assert rule(policy, "http://METADATA.google.internal./") == "metadata"
    assert rule(policy, "http://100.100.100.200/") == "metadata"
    assert rule(policy, "http://169.254.1.9:8080/") == "link_local"
    assert rule(policy, "http://[fe80::1]/") == "link_local"
    assert rule(policy, "http://[::ffff:169.254.169.254]/") == "metadata"  # v4-mapped
    for fine in ("http://127.0.0.1:8000/", "http://10.0.0.1/", "https://example.com/", "data:,x"):
        assert rule(policy, fine) is None, fine


def test_private_ranges_when_asked() -> None:
    policy = NavPolicy(block_private=True)
    for url in (
        "http://127.0.0.1/",
        "http://10.1.2.3/",
        "http://172.20.0.1/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[fd12::1]/",
        "http://0.0.0.0/",
    ):
        assert rule(policy, url) == "private", url
    assert rule(policy, "http://8.8.8.8/") is None
    assert policy.checks_loopback and not NavPolicy().checks_loopback


def test_host_lists_include_subdomains() -> None:
    policy = NavPolicy(allowed=hosts("example.com, *.docs.test"), blocked=hosts("bad.example.com"))
    assert rule(policy, "https://example.com/") is None
    assert rule(policy, "https://www.example.com/") is None
    assert rule(policy, "https://a.docs.test/") is None
    assert rule(policy, "https://bad.example.com/x") == "blocked_hosts"
    assert rule(policy, "https://notexample.com/") == "allowed_hosts"
    assert rule(policy, "https://example.com.evil.test/") == "allowed_hosts"
    assert hosts("HTTPS://Example.com:8443/path, [::1]:80, localhost:9, ") == (
        "example.com",
        "::1",
        "localhost",
    )


def test_a_session_tightens_and_never_loosens() -> None:
    base = NavPolicy(allowed=("example.com",))
    assert base.tightened(block_private=True).block_private
    assert base.tightened(block="evil.test").blocked == ("evil.test",)
    narrowed = base.tightened(allow="docs.example.com")
    assert narrowed.allowed == ("docs.example.com",)
    widened = base.tightened(allow="other.test")  # not allowed by the daemon: nothing is
    assert rule(widened, "https://other.test/") == "allowed_hosts"
    assert rule(widened, "https://example.com/") == "allowed_hosts"
    assert NavPolicy(block_private=True).tightened().block_private  # kept


def test_a_dns_answer_is_checked_not_only_the_name() -> None:
    async def check(policy: NavPolicy, host: str) -> str | None:
        refusal, _addresses = await resolve_checked(policy, host, 80)
        return None if refusal is None else f"{refusal.rule} {refusal.subject}"

    private = NavPolicy(block_private=True)
    assert asyncio.run(check(private, "localhost")) in (
        "private localhost -> 127.0.0.1",
        "private localhost -> ::1",
    )
    refusal, addresses = asyncio.run(resolve_checked(NavPolicy(), "localhost", 80))
    assert refusal is None and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def test_refusal_is_a_policy_denied_error_naming_the_rule() -> None:
    refusal = asyncio.run(url_refusal(NavPolicy(), "http://169.254.169.254/"))
    assert refusal is not None
    error = refusal.error("loading http://169.254.169.254/")
    assert error.code == ErrorCode.POLICY_DENIED
    assert "rule metadata" in error.message and "block_link_local" in (error.hint or "")
    assert error.data == {"rule": "metadata", "subject": "169.254.169.254"}


@pytest.mark.parametrize("url", ["about:blank", "data:text/html,x", "blob:http://a/b"])
def test_urls_without_a_network_pass(url: str) -> None:
    assert asyncio.run(url_refusal(NavPolicy(block_private=True), url)) is None
