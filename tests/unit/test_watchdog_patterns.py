"""Watchdog patterns: built-ins, a user's file, and the selector alternatives they are made of."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from steadyhand.act.watchdog import Pattern, builtin_patterns, load_patterns
from steadyhand.act.watchdog_patterns import (
    KINDS,
    Alternative,
    check_pattern,
    compile_pattern,
    compile_patterns,
    parse_alternative,
    parse_selector,
    split_alternatives,
)
from steadyhand.errors import ErrorCode, SteadyhandError

PROMO = {"kind": "newsletter", "name": "promo", "container": ".promo", "dismiss": ".promo-x"}


def test_selector_lists_split_at_top_level_commas_only() -> None:
    assert split_alternatives("#a, .b > c ,d") == ["#a", ".b > c", "d"]
    assert split_alternatives(':is(a, b), [title="x, y"], e\\,f') == [
        ":is(a, b)",
        '[title="x, y"]',
        "e\\,f",
    ]
    assert split_alternatives("button:has-text('a, \\'b')") == ["button:has-text('a, \\'b')"]
    assert split_alternatives("") == []


@pytest.mark.parametrize("bad", [":is(a, b", "a)", "[x=1", 'a[title="x]', "a,,b", "a, "])
def test_malformed_selector_lists_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        split_alternatives(bad)


def test_a_trailing_has_text_becomes_the_text_to_find() -> None:
    assert parse_alternative("#x") == Alternative("#x", None)
    assert parse_alternative('button:has-text("No  Thanks")') == Alternative("button", "no thanks")
    assert parse_alternative(":has-text('\u00d7')") == Alternative("*", "\u00d7")
    assert parse_alternative('.modal > :has-text("x")') == Alternative(".modal > *", "x")
    assert parse_alternative('.modal :has-text("x")') == Alternative(".modal *", "x")
    assert parse_alternative('a:has-text("say \\"hi\\"")') == Alternative("a", 'say "hi"')
    assert parse_selector('#a, b:has-text("Go")') == [Alternative("#a"), Alternative("b", "go")]


@pytest.mark.parametrize("bad", ['a:has-text("x") > b', 'a:has-text("  ")'])
def test_has_text_must_come_last_and_say_something(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_alternative(bad)


def test_builtins_are_sweepable_and_cover_each_kind() -> None:
    patterns = builtin_patterns()
    for pattern in patterns:
        check_pattern(pattern)
    names = [p.name for p in patterns]
    assert len(names) == len(set(names))
    assert {p.kind for p in patterns} == set(KINDS)
    assert all(p.dismiss == "" for p in patterns if p.kind == "chat-widget")
    assert all(p.dismiss for p in patterns if p.kind != "chat-widget")
    for name in ("vanilla-cookieconsent", "OneTrust", "Cookiebot", "Didomi", "Quantcast Choice"):
        assert name in names
    assert builtin_patterns() is not builtin_patterns(), "callers may edit their copy"


def test_consent_buttons_prefer_accepting_all() -> None:
    cc = next(p for p in builtin_patterns() if p.name == "vanilla-cookieconsent")
    assert [a.css for a in parse_selector(cc.dismiss)] == [
        'button[data-role="all"]',
        'button[data-role="necessary"]',
    ]


def test_compiled_patterns_are_json_the_sweep_script_reads() -> None:
    pattern = Pattern("newsletter", "n", '[role="dialog"]:has-text("Subscribe")', "#x, .y")
    compiled = json.loads(compile_pattern(pattern))
    assert compiled == {
        "kind": "newsletter",
        "name": "n",
        "container": [['[role="dialog"]', "subscribe"]],
        "dismiss": [["#x", None], [".y", None]],
    }
    assert json.loads(compile_patterns([pattern, pattern])) == [compiled, compiled]


def write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "patterns.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_no_file_means_the_builtins_and_a_file_comes_first(tmp_path: Path) -> None:
    assert load_patterns(None) == builtin_patterns()
    loaded = load_patterns(write(tmp_path, [PROMO, {**PROMO, "name": "p2", "dismiss": ""}]))
    assert loaded[:2] == [
        Pattern("newsletter", "promo", ".promo", ".promo-x"),
        Pattern("newsletter", "p2", ".promo", ""),
    ]
    assert loaded[2:] == builtin_patterns()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("[{", "is not JSON"),
        ({"kind": "newsletter"}, "not a list"),
        (["x"], "pattern 0: is a JSON str"),
        ([PROMO, {"kind": "newsletter", "name": "n", "container": "c"}], "1: missing dismiss"),
        ([{**PROMO, "colour": "red"}], "unknown key(s) colour"),
        ([{**PROMO, "dismiss": None}], "dismiss must be string"),
        ([{**PROMO, "kind": "popup"}], "kind 'popup' is not one of"),
        ([{**PROMO, "name": " "}], "name is empty"),
        ([{**PROMO, "container": ""}], "container is empty"),
        ([{**PROMO, "kind": "chat-widget"}], "leave dismiss empty"),
        ([{**PROMO, "container": ".a[x=1"}], "container: unclosed"),
        ([{**PROMO, "dismiss": 'b:has-text("x") i'}], "must come last"),
    ],
)
def test_a_bad_file_is_a_bad_request_saying_what_is_wrong(
    tmp_path: Path, content: Any, says: str
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(SteadyhandError) as caught:
        load_patterns(path)
    err = caught.value
    assert err.code == ErrorCode.BAD_REQUEST
    assert str(path) in err.message and says in err.message, err.message
    assert '"kind"' in err.hint and "chat-widget" in err.hint


def test_a_missing_file_is_a_bad_request(tmp_path: Path) -> None:
    with pytest.raises(SteadyhandError) as caught:
        load_patterns(tmp_path / "nope.json")
    assert caught.value.code == ErrorCode.BAD_REQUEST
    assert "cannot be read" in caught.value.message
