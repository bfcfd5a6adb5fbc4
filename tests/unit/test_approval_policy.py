"""Which calls the approval settings gate: the Policy's rules on plain facts."""

from __future__ import annotations

import pytest

from steadyhand.approvals.policy import Element, Policy
from steadyhand.commands import COMMANDS
from steadyhand.config import Settings
from steadyhand.errors import SteadyhandError

# Which commands each rule applies to is the table's (the gate asks only those).
ELEMENT_ACTS = sorted(name for name, c in COMMANDS.items() if c.on_element)
NAVIGATIONS = sorted(name for name, c in COMMANDS.items() if c.navigates)

ORDER = Element("button", "Place order")
NOTE = Element("button", "Add note")


def test_nothing_is_gated_by_default() -> None:
    policy = Policy.from_settings(Settings())
    assert not policy.active
    for command in ELEMENT_ACTS:
        assert policy.element(command, ORDER) is None
    assert policy.navigation("open", "https://bank.example.com/") is None
    assert policy.upload() is None
    assert policy.locator("click", "text=Delete") is None


def test_names_gate_committing_acts_on_a_matching_element() -> None:
    policy = Policy(names="place order|delete")
    assert policy.active
    assert sorted(("click", "download", "check", "uncheck", "select", "press")) == ELEMENT_ACTS
    for command in ELEMENT_ACTS:
        reason = policy.element(command, ORDER)
        assert reason is not None and 'button "Place order"' in reason
    assert policy.element("click", Element("button", "DELETE account")) is not None, "any case"
    assert policy.element("click", NOTE) is None
    for command in ("hover", "type", "fill", "scroll", "drag", "upload", "open"):
        assert not COMMANDS[command].on_element, command


def test_select_is_gated_by_the_option_it_picks_too() -> None:
    policy = Policy(names="delete")
    menu = Element("combobox", "Action")
    assert policy.element("select", menu, values=("keep",)) is None
    reason = policy.element("select", menu, values=("keep", "Delete everything"))
    assert reason is not None and "'Delete everything'" in reason
    # Which commands pick values is the table's to say (GateRule.picks): select only.
    pickers = {name for name, c in COMMANDS.items() if c.gate_rule.picks is not None}
    assert pickers == {"select"}
    params = COMMANDS["select"].params.model_validate({"ref": "e1", "values": ["a", "b"]})
    assert COMMANDS["select"].gate_rule.picks(params) == ("a", "b")  # type: ignore[misc]


def test_domains_gate_navigation_to_the_host_and_its_subdomains() -> None:
    policy = Policy(domains=" Example.com , *.bank.test:8443, https://pay.shop/checkout")
    assert policy.domains == ("example.com", "bank.test", "pay.shop")
    for url in (
        "https://example.com/",
        "http://www.EXAMPLE.com:8080/x",
        "https://a.b.bank.test/",
        "http://pay.shop./",
    ):
        assert policy.navigation("navigate", url) is not None, url
    for url in ("https://notexample.com/", "https://example.com.evil.test/", "about:blank"):
        assert policy.navigation("open", url) is None, url
    assert policy.navigation("tab.new", "https://example.com/") is not None
    assert NAVIGATIONS == ["navigate", "open", "tab.new"]
    assert not COMMANDS["reload"].navigates


def test_a_link_leading_to_a_listed_domain_is_gated() -> None:
    policy = Policy(domains="localhost")
    link = Element("link", "Partner shop", "http://localhost:9/shop")
    reason = policy.element("click", link)
    assert reason is not None and "leads to localhost" in reason
    relative = Element("link", "Next", "next.html")
    assert policy.element("click", relative, page_url="http://localhost:9/a.html") is not None
    assert policy.element("click", relative, page_url="http://127.0.0.1:9/a.html") is None
    assert policy.element("click", Element("button", "Go", "http://localhost/")) is None


def test_a_locator_naming_a_matching_element_is_gated() -> None:
    policy = Policy(names="place order")
    assert policy.locator("click", 'role=button[name="Place Order"]') is not None
    assert policy.locator("click", "css=#order") is None
    assert not COMMANDS["hover"].on_element  # so the gate does not ask about its locator


def test_uploads_are_gated_when_asked() -> None:
    assert Policy(uploads=True).upload() is not None
    assert Policy(uploads=True).active


def test_ipv6_hosts() -> None:
    assert Policy(domains="[::1]").navigation("open", "http://[::1]:8000/") is not None


def test_a_bad_regex_is_a_clear_error() -> None:
    with pytest.raises(SteadyhandError) as caught:
        Policy(names="pay|(buy")
    assert caught.value.code == "bad_request" and "approval_names" in caught.value.message
