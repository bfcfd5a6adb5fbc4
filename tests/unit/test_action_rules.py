"""The action engine's pure rules: backoff, deadline shares, error reading, locator forms."""

from __future__ import annotations

import random

import pytest
from playwright.async_api import Error as PlaywrightError

from steadyhand.act.locators import parse
from steadyhand.act.retry import (
    JITTER_S,
    MAX_BACKOFF_S,
    MIN_TRY_MS,
    Retryable,
    backoff_s,
    classify,
    try_budget_ms,
)
from steadyhand.act.verify import Unverified, check_selected, check_value
from steadyhand.errors import ErrorCode, SteadyhandError


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    rng = random.Random(7)
    for tries, base in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (10, MAX_BACKOFF_S)]:
        for _ in range(50):
            pause = backoff_s(tries, rng)
            assert base + JITTER_S[0] <= pause <= base + JITTER_S[1], (tries, pause)


def test_each_try_gets_a_fair_share_of_the_deadline() -> None:
    assert try_budget_ms(12_000, 4) == 3_000
    assert try_budget_ms(12_000, 1) == 12_000
    assert try_budget_ms(2_000, 4) == MIN_TRY_MS, "never less than a usable try"
    assert try_budget_ms(500, 4) == 500, "never more than is left"


def test_only_errors_before_the_action_took_effect_are_retried() -> None:
    detached = classify(PlaywrightError("Element is not attached to the DOM"))
    assert isinstance(detached, Retryable) and detached.code == ErrorCode.STALE_REF
    raced = classify(
        PlaywrightError("Execution context was destroyed, most likely because of a navigation")
    )
    assert raced is not None and raced.code == ErrorCode.NAVIGATION_FAILED
    assert classify(PlaywrightError("Protocol error: something else")) is None


def test_typed_value_checks() -> None:
    assert check_value("f", "abc", "abc", secret=False) == {}
    assert check_value("f", "5551234567", "(555) 123-4567", secret=False) == {
        "reformatted": {"typed": "5551234567", "value": "(555) 123-4567"}
    }
    assert check_value("f", "5551234567", "555-123-4567", secret=True) == {
        "reformatted": {"typed_length": 10, "value_length": 12}
    }
    with pytest.raises(Unverified) as rejected:
        check_value("f", "12ab", "12", secret=False)
    assert rejected.value.message.startswith('f holds "12" after typing "12ab": ')
    assert rejected.value.data == {"typed": "12ab", "value": "12"}
    with pytest.raises(Unverified) as caught:
        check_value("f", "hunter2x", "hunter", secret=True)
    assert "hunter" not in caught.value.message and "6 characters" in caught.value.message
    assert caught.value.code == ErrorCode.VERIFICATION_FAILED


def test_selected_options_match_by_value_or_label() -> None:
    chosen = [["m", "Medium"]]
    assert check_selected("s", ["Medium"], chosen) == chosen
    assert check_selected("s", ["m"], chosen) == chosen
    with pytest.raises(Unverified):
        check_selected("s", ["Large"], chosen)


@pytest.mark.parametrize(
    ("spec", "prefixes"),
    [
        ('role=button[name="Save"]', ["role"]),
        ("text=Save || css=.save", ["text", "css"]),
        ("xpath=//a[@href='x'] || testid=go", ["xpath", "testid"]),
    ],
)
def test_locator_forms(spec: str, prefixes: list[str]) -> None:
    assert [alt.prefix for alt in parse(spec)] == prefixes


@pytest.mark.parametrize("spec", ["", "Save", "bogus=1", "css=", "role=Button", "text=a || nope"])
def test_bad_locators_are_refused_with_the_forms(spec: str) -> None:
    with pytest.raises(SteadyhandError) as caught:
        parse(spec)
    assert caught.value.code == ErrorCode.BAD_REQUEST and "role=button" in caught.value.hint
