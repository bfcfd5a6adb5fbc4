"""Flows without a browser: saving from action-log rows, finding a step's element on a page
read as text, and the scripts a flow exports."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from steadyhand.commands.flow_build import build
from steadyhand.commands.flow_export import playwright_script, python_script
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.flows.match import find
from steadyhand.flows.model import Flow, FlowTarget, fill_in, fill_target, flow_file, used_params
from steadyhand.snapshot.capture import Capture
from steadyhand.snapshot.tree import parse
from steadyhand.store.base import ActionRow


def row(
    n: int,
    command: str,
    params: dict[str, Any],
    result: dict[str, Any] | None = None,
    ok: bool = True,
) -> ActionRow:
    return ActionRow(
        id=n,
        ts=0.0,
        session="s",
        tab="t1",
        command=command,
        params=params,
        ok=ok,
        error_code=None if ok else "stale_ref",
        error_message=None,
        duration_ms=10.0,
        result=result,
    )


def aimed(ref: str, role: str, name: str, *context: str, **more: Any) -> dict[str, Any]:
    """An act's result as logged: what its ref named."""
    target = {"role": role, "name": name, "context": list(context), "nth": 0, "group": 1}
    return {"action": "act", "targets": {ref: target | more}}


SIGN_IN = [
    row(1, "open", {"url": "http://shop/login"}),
    row(2, "snapshot", {"interactive": True}),
    row(
        3, "type", {"ref": "e4", "text": "ada"}, aimed("e4", "textbox", "User name", "form Sign in")
    ),
    row(
        4,
        "type",
        {"ref": "e5", "text": "[redacted]"},
        aimed("e5", "textbox", "Password", "form Sign in"),
    ),
    row(5, "click", {"ref": "e9"}, ok=False),
    row(
        6,
        "click",
        {"ref": "e6"},
        aimed("e6", "button", "Sign in", "form Sign in")
        | {
            "navigated": True,
            "url": "http://shop/search?from=login",
            "changes": "# a new document since the last snapshot (x): the whole page\n"
            '- heading "Find products" [level=1]',
        },
    ),
    row(
        7,
        "type",
        {"ref": "e13", "text": "desk lamp", "tab": "t1"},
        aimed("e13", "searchbox", "Search products"),
    ),
    row(
        8,
        "click",
        {"ref": "e14"},
        aimed("e14", "button", "Search")
        | {
            "navigated": True,
            "url": "http://shop/results?q=desk+lamp",
            "changes": '# a new document\n- heading "Results for \\"desk lamp\\"" [level=1]\n'
            '- heading "12 found" [level=2]',
        },
    ),
]


def test_a_flow_names_elements_and_values_and_leaves_reads_and_failures_out() -> None:
    built = build("shop", SIGN_IN)
    flow = built.flow
    assert [s.command for s in flow.steps] == ["open", "type", "type", "click", "type", "click"]
    assert dict(built.left_out) == {"snapshot": 1, "failed": 1}
    assert flow.actions == [1, 8] and flow.recorded_ms == 60.0
    typed = flow.steps[1]
    assert typed.params == {"ref": "@ref", "text": "{{user_name}}"}
    assert typed.targets["ref"].role == "textbox" and typed.targets["ref"].context == [
        "form Sign in"
    ]
    assert typed.targets["ref"].locator == 'role=textbox[name="User name"]'
    assert flow.params["user_name"].default == "ada"
    # A password field's value was never stored: the flow needs it, and says so.
    assert flow.params["password"].default is None
    assert any("password" in note for note in built.notes)
    assert "tab" not in flow.steps[4].params  # a replay acts in the current tab
    sign_in = flow.steps[3]
    assert sign_in.expect == {"url": "http://shop/search", "text": "Find products"}
    # The search's value shows again in what followed: the parameter stands there too,
    # and a heading with a number in it (a count, an order number) is not expected.
    assert flow.steps[5].expect == {
        "url": "http://shop/results",
        "text": 'Results for "{{search_products}}"',
    }


def test_save_time_names_rename_parameters_by_their_value() -> None:
    flow = build("shop", SIGN_IN, {"who": "ada", "query": "desk lamp"}).flow
    assert set(flow.params) == {"who", "password", "query"}
    assert flow.steps[1].params["text"] == "{{who}}"
    assert flow.steps[5].expect["text"] == 'Results for "{{query}}"'
    with pytest.raises(SteadyhandError) as refused:
        build("shop", SIGN_IN, {"city": "Bern"})
    assert refused.value.code == ErrorCode.BAD_REQUEST and "'ada'" in refused.value.hint


def test_a_secret_reference_stays_one_and_a_url_takes_the_parameter() -> None:
    rows = [
        row(1, "open", {"url": "http://shop/results?q=desk%20lamp"}),
        row(2, "type", {"ref": "e2", "text": "{{secret:SHOP_PW}}"}, aimed("e2", "textbox", "Pw")),
        row(3, "type", {"ref": "e3", "text": "desk lamp"}, aimed("e3", "searchbox", "Find")),
        row(4, "navigate", {"url": "http://desk lamp.example/desk%20lamp/deskx?a=desk+lamp"}),
    ]
    flow = build("f", rows).flow
    assert flow.steps[1].params["text"] == "{{secret:SHOP_PW}}"
    assert "shop_pw" not in flow.params and list(flow.params) == ["find"]
    assert flow.steps[0].params["url"] == "http://shop/results?q={{find}}"
    # Whole path segments and query values only: never a part of the host or a segment.
    assert flow.steps[3].params["url"] == "http://desk lamp.example/{{find}}/deskx?a={{find}}"


def test_nothing_to_replay_and_refs_without_a_record_are_refused() -> None:
    with pytest.raises(SteadyhandError) as nothing:
        build("f", [row(1, "snapshot", {})])
    assert "no action to replay" in nothing.value.message
    with pytest.raises(SteadyhandError) as old:
        build("f", [row(1, "click", {"ref": "e3"}, {"action": "click"})])
    assert "older than flows" in old.value.message
    # A read that took a ref (wait --ref): what it named is not known; it is left out.
    waited = build("f", [row(1, "open", {"url": "http://x/"}), row(2, "wait", {"ref": "e3"})])
    assert [s.command for s in waited.flow.steps] == ["open"] and waited.left_out["wait"] == 1
    by_locator = build("f", [row(1, "click", {"ref": 'role=button[name="Go"]'})]).flow
    assert by_locator.steps[0].targets["ref"].locator == 'role=button[name="Go"]'


def test_fill_keeps_one_target_per_field() -> None:
    rows = [
        row(
            1,
            "fill",
            {"fields": {"e1": "Ada", "e2": "1 Main St"}},
            {
                "targets": {
                    "e1": {"role": "textbox", "name": "Full name", "context": []},
                    "e2": {"role": "textbox", "name": "Address", "context": []},
                }
            },
        )
    ]
    step = build("f", rows).flow.steps[0]
    assert step.params == {"fields": {"@field1": "{{full_name}}", "@field2": "{{address}}"}}
    assert [t.name for t in step.targets.values()] == ["Full name", "Address"]


def test_parameters_fill_in_everywhere_and_are_listed() -> None:
    value = {"fields": {"@f": "{{a}} and {{b}}"}, "list": ["{{a}}"], "secret": "{{secret:X}}"}
    assert fill_in(value, {"a": "1", "b": "2"}) == {
        "fields": {"@f": "1 and 2"},
        "list": ["1"],
        "secret": "{{secret:X}}",
    }
    assert used_params(value) == {"a", "b"}


def test_the_file_leaves_defaults_out_and_reads_back() -> None:
    flow = build("shop", SIGN_IN).flow
    shown = flow_file(flow)
    assert list(shown)[:3] == ["format", "name", "version"]
    assert "nth" not in shown["steps"][1]["targets"]["ref"]
    assert Flow.model_validate(shown) == flow


# ------------------------------------------------------------------------- finding


def page(text: str) -> Capture:
    return Capture(root=parse(text), main_doc="d1", docs={0: "d1"}, url="http://x/")


SHOP = """- main [ref=e1]:
  - table "Products" [ref=e2]:
    - row [ref=e3]:
      - cell "Desk lamp"
      - cell "Add to cart":
        - button "Add to cart" [ref=e4]
    - row [ref=e5]:
      - cell "Floor lamp"
      - cell "Add to cart":
        - button "Add to cart" [ref=e6]
  - form "Shipping" [ref=e7]:
    - textbox "Full name" [ref=e8]
    - button "Checkout" [ref=e9]
    - button "Cancel order" [ref=e10]
    - button "Delete 2" [ref=e11]"""


def want(role: str, name: str, *context: str, nth: int = 0, group: int = 1) -> FlowTarget:
    return FlowTarget(role=role, name=name, context=list(context), nth=nth, group=group)


def test_the_same_element_is_found_where_it_was() -> None:
    found = find(
        page(SHOP),
        want("button", "Add to cart", "table Products", "row Floor lamp", "cell Add to cart"),
        0.8,
    )
    assert found.node is not None and found.node.key == "e6" and found.adapted == ""


def test_a_moved_element_is_found_by_what_surrounds_it() -> None:
    moved = SHOP.replace(
        '- cell "Desk lamp"\n      - cell "Add to cart":\n        - button "Add to cart" [ref=e4]',
        '- cell "Add to cart":\n        - button "Add to cart" [ref=e4]\n      - cell "Desk lamp"',
    )
    recorded = want("button", "Add to cart", "table Products", "row Desk lamp", "cell Add to cart")
    found = find(page(moved), recorded, 0.8)
    assert found.node is not None and found.node.key == "e4"
    assert "moved from" in found.adapted


def test_a_renamed_element_within_tolerance_and_never_another_number() -> None:
    found = find(page(SHOP), want("button", "Check out", "form Shipping"), 0.8)
    assert found.node is not None and found.node.key == "e9"
    assert 'renamed "Check out" -> "Checkout"' in found.adapted
    # Numbers differ: another item, not a renamed one.
    assert find(page(SHOP), want("button", "Delete 3", "form Shipping"), 0.8).problem == "missing"
    # Gone, with a different button beside it: missing, never that one.
    gone = find(page(SHOP), want("button", "Place order", "form Shipping"), 0.8)
    assert gone.node is None and gone.problem == "missing"
    assert "Place order" in gone.why


def test_two_equally_likely_elements_are_ambiguous() -> None:
    recorded = want("button", "Add to cart", "table Products", "cell Add to cart")
    found = find(page(SHOP), recorded, 0.8)
    assert found.node is None and found.problem == "ambiguous"
    assert found.candidates is not None and len(found.candidates) == 2
    # Two where two were, but not where it was: which one is not known.
    twice = want("button", "Add to cart", "form Cart", nth=1, group=2)
    assert find(page(SHOP), twice, 0.8).problem == "ambiguous"


def test_another_row_s_element_is_never_taken_for_it() -> None:
    # The Kettle's row is gone; the only "Add to cart" left in a row is another item's.
    one_row = SHOP.split("    - row [ref=e5]:", maxsplit=1)[0] + '  - form "Shipping" [ref=e7]:'
    recorded = want("button", "Add to cart", "table Products", "row Kettle", "cell Add to cart")
    found = find(page(one_row), recorded, 0.8)
    assert found.node is None and found.problem == "missing"
    assert "none where it was (Kettle gone)" in found.why
    # An unnamed field whose container is gone is not the one unnamed field left.
    lone = page('- form "Search" [ref=e1]:\n  - textbox [ref=e2]')
    assert find(lone, want("textbox", "", "form Comment"), 0.8).problem == "missing"


def test_opposites_are_not_renames() -> None:
    for recorded, now in [
        ("Subscribe", "Unsubscribe"),
        ("Mark as read", "Mark as unread"),
        ("Approve", "Disapprove"),
        ("Active", "Inactive"),
    ]:
        shown = page(f'- button "{now}" [ref=e1]')
        assert find(shown, want("button", recorded), 0.8).problem == "missing", recorded


def test_a_sibling_role_is_accepted_and_said() -> None:
    found = find(
        page(SHOP.replace('textbox "Full name"', 'searchbox "Full name"')),
        want("textbox", "Full name", "form Shipping"),
        0.8,
    )
    assert found.node is not None and "role textbox is searchbox now" in found.adapted


# ------------------------------------------------------------------------- export


def test_exported_scripts_are_python_that_does_each_step() -> None:
    flow = build("shop", SIGN_IN).flow
    flow.version = 1
    for script in (python_script(flow), playwright_script(flow)):
        ast.parse(script)
    client = python_script(flow)
    assert "browser.type(ref=ref_ref, text=P['user_name']" in client
    assert "expect_url='http://shop/search'" in client
    plain = playwright_script(flow)
    assert (
        "page.get_by_role('form', name='Sign in', exact=True)"
        ".get_by_role('textbox', name='User name', exact=True).fill(P['user_name'])" in plain
    )
    assert "page.goto('http://shop/login')" in plain
    assert "expect(page).to_have_url(re.compile(re.escape('http://shop/search')))" in plain


def test_an_item_named_by_a_value_typed_is_that_value_s_item() -> None:
    rows = [
        row(1, "type", {"ref": "e1", "text": "Buy milk"}, aimed("e1", "textbox", "New todo")),
        row(2, "check", {"ref": "e2"}, aimed("e2", "checkbox", "Done", "listitem Buy milk")),
        row(3, "click", {"ref": "e3"}, aimed("e3", "link", "Buy milk", "list Todos")),
        row(4, "check", {"ref": "e4"}, aimed("e4", "checkbox", "Done", "listitem Buy milk now")),
        row(5, "wait", {"text": "Buy milk"}, {"part_of": "flow x v1 · step 1/2"}),
    ]
    built = build("todo", rows)
    steps = built.flow.steps
    assert steps[1].targets["ref"].context == ["listitem {{new_todo}}"]
    assert steps[2].targets["ref"].name == "{{new_todo}}"
    assert steps[3].targets["ref"].context == ["listitem Buy milk now"]  # only a whole label
    assert len(steps) == 4 and built.left_out["a flow's check"] == 1
    filled = fill_target(steps[1].targets["ref"], {"new_todo": "Tea"})
    assert filled.context == ["listitem Tea"] and steps[1].targets["ref"].context[0].endswith("}}")


def test_a_name_edited_to_hold_a_star_matches_any_count() -> None:
    cart = page('- link "Cart (3)" [ref=e1]\n- link "Cartography" [ref=e2]')
    found = find(cart, want("link", "Cart (*)"), 0.8)
    assert found.node is not None and found.node.key == "e1" and found.adapted == ""
    assert find(cart, want("link", "Cart (1)"), 0.8).problem == "missing"  # as recorded
    assert find(cart, want("link", "Basket (*)"), 0.8).problem == "missing"
