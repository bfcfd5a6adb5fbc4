"""PageLog keeps a bounded log; URL redaction; how wait matches URLs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from steadyhand.act.conditions import url_matcher
from steadyhand.engine.page_log import ConsoleEntry, PageLog
from steadyhand.redact import REDACTED, redact_url


@dataclass(eq=False)
class FakeRequest:
    """The little of a Playwright Request the log reads."""

    url: str
    method: str = "GET"
    resource_type: str = "fetch"
    failure: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def request(url: str) -> Any:
    return cast(Any, FakeRequest(url))


def test_console_log_keeps_the_last_entries_and_counts_the_rest() -> None:
    log = PageLog(limit=3)
    for n in range(5):
        log.add_console(ConsoleEntry("log", "log", f"m{n}", "", 0.0))
    assert [e.text for e in log.console] == ["m2", "m3", "m4"]
    assert log.console_dropped == 2
    log.clear_console()
    assert not log.console and log.console_dropped == 0


def test_network_log_is_bounded_and_forgets_evicted_requests_in_flight() -> None:
    log = PageLog(limit=2)
    first, second, third = request("http://a/1"), request("http://a/2"), request("http://a/3")
    for r in (first, second, third):
        log.on_request(r)
    assert [e.url for e in log.network] == ["http://a/2", "http://a/3"]
    assert log.network_dropped == 1
    log.on_request_finished(first)  # evicted while in flight: nothing to update
    second.failure = "net::ERR_FAILED"
    log.on_request_failed(second)
    log.on_request_finished(third)
    entries = list(log.network)
    assert entries[0].failure == "net::ERR_FAILED" and entries[0].failed and entries[0].done
    assert entries[1].done and not entries[1].failed


def test_secret_query_and_fragment_values_are_redacted_in_urls() -> None:
    assert (
        redact_url("https://x.test/a?token=abc&page=2")
        == f"https://x.test/a?token={REDACTED}&page=2"
    )
    assert redact_url("https://x.test/?API_KEY=1&Signature=2&q=sessions") == (
        f"https://x.test/?API_KEY={REDACTED}&Signature={REDACTED}&q=sessions"
    )
    assert redact_url("https://x.test/cb#access_token=t&state=s") == (
        f"https://x.test/cb#access_token={REDACTED}&state=s"
    )
    assert (
        redact_url("https://ann:pw@x.test/p?password=")
        == f"https://ann:{REDACTED}@x.test/p?password="
    )
    plain = "https://x.test/a/b?q=1&flag#top"
    assert redact_url(plain) == plain
    assert redact_url("data:text/plain,hello") == "data:text/plain,hello"


def test_url_patterns_are_globs_only_with_a_star() -> None:
    how, pattern = url_matcher("*/done?id=*")
    assert how == "glob"
    assert pattern.fullmatch("http://h/done?id=7")
    assert not pattern.fullmatch("http://h/done-not?id=7")
    how, pattern = url_matcher("done?id=7")
    assert how == "substring" and pattern.search("http://h/done?id=7#x")
    assert not pattern.search("http://h/doneXid=7")
