"""The CDP events of a click (act/own_input.mouse_events): order, buttons, counts, keys."""

from __future__ import annotations

from steadyhand.act.own_input import Aimed, mouse_events


def test_a_plain_click_is_move_press_release_at_the_point() -> None:
    events = mouse_events(Aimed(True, x=10.5, y=20.0), "left", 1, [])
    assert [(m, p["type"]) for m, p in events] == [
        ("Input.dispatchMouseEvent", "mouseMoved"),
        ("Input.dispatchMouseEvent", "mousePressed"),
        ("Input.dispatchMouseEvent", "mouseReleased"),
    ]
    pressed, released = events[1][1], events[2][1]
    assert (pressed["x"], pressed["y"], pressed["buttons"], pressed["clickCount"]) == (
        10.5,
        20,
        1,
        1,
    )
    assert released["buttons"] == 0 and released["button"] == "left"


def test_a_double_right_click_counts_up_and_holds_its_keys_around_it() -> None:
    events = mouse_events(Aimed(True, x=1, y=2), "right", 2, ["Shift", "ControlOrMeta"])
    kinds = [p["type"] for _, p in events]
    assert kinds == [
        "rawKeyDown", "rawKeyDown", "mouseMoved", "mousePressed", "mouseReleased",
        "mousePressed", "mouseReleased", "keyUp", "keyUp",
    ]  # fmt: skip
    presses = [p for _, p in events if p["type"] == "mousePressed"]
    assert [p["clickCount"] for p in presses] == [1, 2]
    assert all(p["buttons"] == 2 and p["modifiers"] == 8 | 2 for p in presses)
    assert [p["key"] for _, p in events if p["type"] == "keyUp"] == ["Control", "Shift"]
