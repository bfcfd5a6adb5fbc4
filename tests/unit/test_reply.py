"""reply.render(): the short text of a result. The golden files of
tests/integration/test_replies.py show every command's; these pin the rules."""

from __future__ import annotations

import time
from typing import Any

from steadyhand.fronts.reply import failed_step, render, when

NOW = 1_800_000_000.0
PAGE = {"tab": "t1", "url": "http://x/a", "title": "A"}
ACT_DEFAULTS: dict[str, Any] = {
    "ok": True,
    "ref": None,
    "data": {},
    "retries": 0,
    "duration_ms": 0.0,
    "artifacts": [],
    "navigated": False,
    "reresolved": {},
    "watchdog": [],
    "dialog": None,
    "dialogs_answered": [],
    "popups": [],
    "downloads": [],
    "dom_changed": None,
    "changes": None,
}


def act(**fields: Any) -> dict[str, Any]:
    """An act's result as the daemon sends it: every field, mostly at its default."""
    return PAGE | ACT_DEFAULTS | {"action": "click", "ref": "e6", "duration_ms": 204.4} | fields


def reply(
    result: Any,
    defaults: dict[str, Any] | None = None,
    kind: str = "fields",
    forms: dict[str, Any] | None = None,
) -> str:
    """The reply to `result` of a command whose result is written as `kind`."""
    return render(result, {"reply": kind, "result_defaults": defaults or {}}, NOW, forms)


def act_reply(result: Any, defaults: dict[str, Any] | None = None) -> str:
    return reply(result, defaults, "act")


# ---------------------------------------------------------------- fields


def test_empty_and_default_fields_are_left_out() -> None:
    result: dict[str, Any] = {
        "name": "shop",
        "note": None,
        "tags": [],
        "extra": {},
        "path": "",
        "kept": 3,
    }
    assert reply(result) == "name: shop\nkept: 3"
    defaults = {"truncated": False, "offset": 0, "status": None}
    assert reply({"rows": 2, "truncated": False, "offset": 0}, defaults) == "rows: 2"
    assert reply({"rows": 2, "offset": 40}, defaults) == "rows: 2\noffset: 40"


def test_a_flag_is_shown_when_it_differs_from_its_default_or_has_none() -> None:
    # `navigated` defaults to true on a page load: false (history ran out) is news.
    stuck = PAGE | {"status": 200, "navigated": False}
    assert (
        reply(stuck, {"navigated": True, "status": None})
        == "# t1 · A · http://x/a\nnavigated: false"
    )
    # A required flag (no default) says something either way.
    assert reply({"browser_running": False, "headless": True}) == (
        "browser_running: false\nheadless: true"
    )


def test_a_page_is_one_header_line_and_a_normal_load_says_nothing_more() -> None:
    assert reply(PAGE | {"status": 200, "navigated": True}, {"navigated": True}) == (
        "# t1 · A · http://x/a"
    )
    assert reply(PAGE | {"status": 404}) == "# t1 · A · http://x/a\nstatus: 404"


def test_counts_that_only_say_nothing_went_wrong_are_left_out_at_zero() -> None:
    assert reply({"actions": 6, "failed": 0, "images_inlined": 0}) == "actions: 6"
    assert reply({"actions": 6, "failed": 1}) == "actions: 6\nfailed: 1"


def test_epochs_are_ages_or_local_times_and_units_join_their_numbers() -> None:
    assert reply({"created_at": NOW - 5}) == "created: 5 s ago"
    assert reply({"checkpoint_at": NOW - 180, "since": NOW - 7200}) == (
        "checkpoint: 3 min ago\nsince: 2 h ago"
    )
    old = NOW - 3 * 86400
    assert reply({"created_at": old}) == "created: " + time.strftime(
        "%Y-%m-%d %H:%M", time.localtime(old)
    )
    assert when(NOW - 59.4, NOW) == "59 s ago"
    assert reply({"last_seq": 27, "uptime_s": 2.738, "waited_ms": 143.2}) == (
        "last_seq: 27\nuptime: 3 s\nwaited: 143 ms"
    )


def test_listed_items_are_rows_with_ages_bare_names_and_flags() -> None:
    sessions = {
        "sessions": [
            {
                "name": "shop",
                "status": "active",
                "profile": None,
                "tabs": [{"id": "t1", "url": "http://x/a", "title": "A", "current": True}],
                "created_at": NOW - 12,
                "last_action": {
                    "command": "click",
                    "ok": False,
                    "error_code": "timeout",
                    "at": NOW,
                },
                "checkpoint_at": None,
                "health": {"status": "ok", "failures": 0},
            }
        ],
        "live": 1,
    }
    assert reply(sessions) == (
        "sessions:\n"
        "  shop  active  1 tab (t1 http://x/a)  created 12 s ago  last click timeout 0 s ago\n"
        "live: 1"
    )
    window = {"id": "0x1", "title": "Form", "x": 0, "y": 5, "width": 600, "height": 400}
    window |= {"mapped": True, "focused": False, "instance": "form", "wm_class": "Form"}
    assert reply({"windows": [window]}) == (
        "windows:\n  0x1  title=Form  0,5 600x400  mapped  wm_class=Form"
    ), "a false flag left out, and the instance its class repeats"
    tabs = [{"id": "t1", "url": "u1", "title": "", "current": False}]
    tabs.append({"id": "t2", "url": "u2", "title": "B", "current": True})
    assert reply({"tabs": tabs}) == "tabs:\n   t1 - · u1\n  *t2 B · u2"


def test_nested_values_are_compact_and_documents_stay_json() -> None:
    assert reply({"viewport": {"width": 800, "height": 600}}) == "viewport: 800x600"
    latency = {"click": {"count": 3, "p50_ms": 540.9}}
    assert reply({"latency": latency}) == "latency:\n  click  count=3  p50=541 ms"
    state = {"cookies": [], "origins": [{"origin": "http://x"}]}
    assert reply({"state": state}) == 'state: {"cookies":[],"origins":[{"origin":"http://x"}]}'


def test_params_an_approval_already_shows_are_not_repeated() -> None:
    row = {"id": "a1", "status": "pending", "command": "click", "target": 'e1 (button "Pay")'}
    shown = reply({"approvals": [row | {"params": {"ref": "e1"}}]})
    assert shown == 'approvals:\n  a1  pending  click  target=e1 (button "Pay")'
    uploads = reply({"approvals": [row | {"params": {"ref": "e1", "files": ["cv.txt"]}}]})
    assert uploads.endswith("params {ref: e1, files: cv.txt}")


def test_evaluate_shows_the_value_as_json_and_only_an_unusual_type() -> None:
    evaluated = PAGE | {"value": "Form", "type": "string", "truncated": False}
    said = {"truncated": False}
    assert reply(evaluated, said, "evaluated") == '# t1 · A · http://x/a\nvalue: "Form"'
    cut = PAGE | {"value": '{"a": "lo', "type": "object", "truncated": True}
    assert reply(cut, said, "evaluated").endswith('\nvalue: {"a": "lo\ntruncated: true')
    an_object = PAGE | {"value": {"a": [1]}, "type": "object"}
    assert reply(an_object, kind="evaluated").endswith('\nvalue: {"a":[1]}')
    undefined = PAGE | {"value": None, "type": "undefined"}
    assert reply(undefined, kind="evaluated").endswith("\nvalue: null (undefined)")


def test_a_text_block_stands_under_the_page_header_with_what_happened_first() -> None:
    restored = {"checkpoint": NOW - 120, "tabs": ["t1 http://x/a"], "lost": ["t2: gone"]}
    shot = PAGE | {"snapshot": "- button [ref=e1]", "refs": 1, "restored": restored}
    assert reply(shot, kind="snapshot") == (
        "# t1 · A · http://x/a\n"
        "restored from the checkpoint of 2 min ago: t1 http://x/a; lost: t2: gone\n"
        "- button [ref=e1]"
    )
    timeline = {"session": "s", "text": "session s · 3 actions"}
    assert reply(timeline, kind="text") == "session s · 3 actions"


def test_a_windows_before_shows_only_what_changed() -> None:
    before = {"id": "0x1", "x": 0, "y": 0, "width": 600, "height": 400, "focused": False}
    after = before | {"x": 10, "y": 20, "focused": True}
    moved = reply({"id": "0x1", "action": "move", "before": before, "window": after}, kind="window")
    assert "before: x=0, y=0, focused=false\nwindow: 0x1  10,20 600x400  focused" in moved


# ---------------------------------------------------------------- acts


def test_an_act_is_one_status_line_then_its_changes() -> None:
    assert act_reply(act(changes="# no changes since the last snapshot")) == (
        "ok click e6 · 204 ms · no change"
    )
    assert act_reply(act(changes="~ paragraph: 1   (was: 0)")) == (
        "ok click e6 · 204 ms\n~ paragraph: 1   (was: 0)"
    )
    assert act_reply(act(dom_changed=True, changes="# no changes since the last snapshot")) == (
        "ok click e6 · 204 ms · DOM changed, nothing shown did"
    )
    assert act_reply(act()) == "ok click e6 · 204 ms", "--no-changes: nothing said about them"


def test_an_acts_status_line_names_each_thing_it_caused() -> None:
    assert act_reply(act(retries=1)) == "ok click e6 · 204 ms · 1 retry"
    assert act_reply(act(retries=2, reresolved={"e6": "e9"})) == (
        "ok click e6 · 204 ms · 2 retries · e6 re-resolved as e9"
    )
    went = act(navigated=True, url="http://x/b", title="B")
    assert act_reply(went) == 'ok click e6 · 204 ms · → http://x/b "B"'
    assert act_reply(act(popups=["t3"])) == "ok click e6 · 204 ms · popups: t3"
    confirm = {"type": "confirm", "message": "Sure?", "open": True}
    assert act_reply(act(dialog=confirm)) == 'ok click e6 · 204 ms · dialog open: confirm "Sure?"'
    prompt = {"type": "prompt", "message": "Name?", "open": True, "default": "anon"}
    assert act_reply(act(dialog=prompt)).endswith('dialog open: prompt "Name?" (default "anon")')
    answered = {"type": "alert", "message": "Hi", "answer": "accepted", "by": "policy"}
    assert act_reply(act(dialogs_answered=[answered])).endswith(
        'dialog answered: alert "Hi" accepted'
    )
    saved = {"filename": "r.csv", "url": "http://x/r.csv", "path": "/d/1-r.csv", "bytes": 25}
    assert act_reply(act(downloads=[saved])).endswith("downloaded /d/1-r.csv (25 bytes)")
    renamed = saved | {"path": "/d/report"}
    assert act_reply(act(downloads=[renamed])).endswith("downloaded /d/report as r.csv (25 bytes)")
    failed = {"filename": "r.csv", "url": "http://x/r.csv", "error": "canceled"}
    assert act_reply(act(downloads=[failed])).endswith("download r.csv failed: canceled")
    banner = {"kind": "cookie-consent", "name": "lib", "action": "clicked", "label": "OK"}
    assert act_reply(act(watchdog=[banner])).endswith(
        'dismissed cookie-consent (lib): clicked "OK"'
    )
    approved = act_reply(act(approval={"id": "a1b2c3", "waited_ms": 600.2}))
    assert approved == "ok click e6 · 204 ms · approval a1b2c3 (waited 600 ms)"


def test_an_acts_data_is_shown_once_and_without_options_not_taken() -> None:
    typed = act(action="type", data={"submitted": False, "value": "Ada Lovelace"})
    assert act_reply(typed) == 'ok type e6 · 204 ms · value="Ada Lovelace"'
    chose = act(action="select", data={"selected": ["Cheese"], "labels": ["Cheese"]})
    assert act_reply(chose) == "ok select e6 · 204 ms · selected=Cheese"
    dragged = act(action="drag", data={"source": "e6", "target": "e7", "dropped_at": [3.0, 4.5]})
    assert act_reply(dragged) == "ok drag e6 · 204 ms · target=e7 · dropped_at=3,4.5"
    reformatted = act(action="type", data={"reformatted": {"typed": "5", "value": "(5)"}})
    assert act_reply(reformatted).endswith('reformatted: typed "5", field shows "(5)"')
    secret = {"reformatted": {"typed_length": 4, "value_length": 6}}
    assert act_reply(act(action="type", data=secret)).endswith(
        "reformatted: typed 4 characters, field shows 6 characters"
    )
    two = {"e1": {"typed": "5", "value": "(5)"}, "e2": {"typed": "ab", "value": "a-b"}}
    filled = act(action="fill", ref=None, data={"filled": ["e1", "e2"], "reformatted": two})
    assert act_reply(filled) == (
        'ok fill · 204 ms · filled=e1, e2 · e1 reformatted: typed "5", field shows "(5)" · '
        'e2 reformatted: typed "ab", field shows "a-b"'
    )


def test_a_scroll_says_where_it_went_or_that_it_could_not() -> None:
    start, end = {"x": 0, "y": 0, "max_x": 0, "max_y": 900}, {"x": 0, "y": 900, "max_x": 0}
    scrolled = act(action="scroll", ref=None, scroller="window", before=start, moved=True)
    assert act_reply(scrolled | {"after": end | {"max_y": 900}}) == (
        "ok scroll · 204 ms · window 0,0 → 0,900 (max 0,900)"
    )
    stuck = scrolled | {"before": end | {"max_y": 900}, "after": end | {"max_y": 900}}
    assert act_reply(stuck | {"moved": False}).endswith("window did not move: at 0,900 (max 0,900)")


def test_a_desktop_action_is_one_line_too() -> None:
    done = {"ref": "d14", "transport": "xinput", "action": "drag", "verified": False}
    done |= {"effect": "partial", "evidence": "the screen changed; the tree said nothing"}
    done |= {"tried": ["atspi: skipped"], "role": "panel", "name": "Pad", "states": ["visible"]}
    assert reply(done | {"value": None}, kind="desktop_act") == (
        'drag d14 panel "Pad" · via xinput · partial: the screen changed; the tree said nothing'
        " · tried: atspi: skipped · states: visible"
    )


def test_a_value_that_is_not_an_object_is_json() -> None:
    assert reply([1, "a"]) == '[1,"a"]'


def test_what_the_navigation_policy_refused_or_holds_is_one_line_each() -> None:
    blocked = [{"host": "169.254.169.254", "rule": "metadata", "subject": "169.254.169.254"}]
    shown = reply(PAGE | {"blocked": blocked, "held": ["bank.example"]}).splitlines()
    assert shown[0] == "# t1 · A · http://x/a"
    assert sorted(shown[1:]) == [
        "blocked: 169.254.169.254 (metadata)",
        "held for approval: bank.example (see `steadyhand approvals`)",
    ]
    act_shown = act_reply(act(blocked=blocked), ACT_DEFAULTS)
    assert act_shown.startswith("ok click e6 · 204 ms") and "blocked: 169.254.169.254" in act_shown


def test_a_batch_is_a_line_a_step_and_the_last_step_that_ran_says_all() -> None:
    snapshot = PAGE | {"snapshot": '- button "Go" [ref=e1]', "refs": 1}
    failed = {"code": "not_found", "message": "no e9", "hint": "take a snapshot"}
    result: dict[str, Any] = {
        "steps": [
            {"command": "open", "ok": True, "result": PAGE | {"status": 200}},
            {"command": "click", "ok": True, "result": act(changes="+ e7 text")},
            {"command": "snapshot", "ok": True, "result": snapshot},
            {"command": "click", "ok": False, "error": failed},
            {"command": "type", "ok": False, "skipped": True},
        ],
        "ran": 4,
        "ok": 3,
        "failed": 1,
        "skipped": 1,
    }
    forms: dict[str, Any] = {"click": {"reply": "act"}, "snapshot": {"reply": "snapshot"}}
    forms["open"] = {"reply": "snapshot", "result_defaults": {"navigated": True}}
    assert reply(result, kind="batch", forms=forms).splitlines() == [
        "1 ok open: t1 · A · http://x/a",
        "2 ok click e6 · 204 ms",
        "3 ok snapshot: t1 · A · http://x/a",
        "4 failed click: [not_found] no e9",
        "  hint: take a snapshot",
        "5 skipped type",
        "ran 4 of 5: 3 ok, 1 failed, 1 skipped",
    ]
    assert failed_step(result, {"reply": "batch"}) == "not_found"
    assert failed_step(result, {"reply": "fields"}) is None, "a batch's by its command only"
    result = dict(result, steps=result["steps"][:3], ran=3, failed=0, skipped=0)
    assert reply(result, kind="batch", forms=forms).splitlines()[2:] == [
        "3 ok snapshot: t1 · A · http://x/a",
        '- button "Go" [ref=e1]',
    ]
    assert failed_step(result, {"reply": "batch"}) is None
    assert failed_step({"steps": []}, {"reply": "batch"}) is None
