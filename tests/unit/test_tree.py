"""parse(): Playwright's AI-mode ARIA snapshot text into a tree of nodes."""

from __future__ import annotations

from steadyhand.snapshot.tree import Node, parse


def only(text: str) -> Node:
    """The single top-level node of a one-element snapshot."""
    root = parse(text)
    assert len(root.children) == 1
    return root.children[0]


def test_root_is_a_synthetic_document_in_the_main_frame() -> None:
    root = parse('- button "OK" [ref=e1]')
    assert (root.role, root.name, root.frame, root.parent, root.key) == (
        "document",
        "",
        0,
        None,
        None,
    )
    assert parse("").children == []


def test_key_gives_role_name_state_ref_pointer_and_box() -> None:
    node = only(
        '- checkbox "Accept terms" [checked=mixed] [disabled] [ref=e7] [cursor=pointer]'
        " [box=10,20,300,40]"
    )
    assert node.role == "checkbox"
    assert node.name == "Accept terms"
    assert node.attrs == {"checked": "mixed", "disabled": ""}  # ref, cursor, box read apart
    assert node.key == "e7"
    assert node.pointer is True
    assert node.box == (10, 20, 300, 40)
    assert node.text is None
    assert node.children == []


def test_bare_key_has_no_name_ref_pointer_or_box() -> None:
    node = only("- separator")
    assert (node.role, node.name, node.attrs, node.key, node.pointer, node.box) == (
        "separator",
        "",
        {},
        None,
        False,
        None,
    )


def test_frame_refs_and_heading_level() -> None:
    node = only('- heading "Billing" [level=2] [ref=f3e12]')
    assert node.attrs == {"level": "2"}
    assert node.key == "f3e12"


def test_value_after_the_key_is_the_node_text() -> None:
    node = only('- textbox "Email" [ref=e5]: alice@example.com')
    assert node.text == "alice@example.com"
    assert node.name == "Email"


def test_children_text_nodes_and_props() -> None:
    root = parse(
        "\n".join(
            [
                "- navigation [ref=e1]:",
                '  - link "Home" [ref=e2] [cursor=pointer]:',
                "    - /url: /home?a=1",
                "  - text: plain words",
                '  - textbox "Search" [ref=e3]:',
                "    - /placeholder: Type here",
                "- paragraph [ref=e4]: after",
            ]
        )
    )
    nav, para = root.children
    link, text, box = nav.children
    assert nav.text is None, "a trailing ':' opens children; it is not an empty value"
    assert (link.role, link.name, link.props, link.children) == (
        "link",
        "Home",
        {"url": "/home?a=1"},
        [],
    )
    assert (text.role, text.text, text.name, text.key) == ("text", "plain words", "", None)
    assert box.props == {"placeholder": "Type here"}
    assert (para.role, para.text, para.parent) == ("paragraph", "after", root)
    assert link.parent is nav and text.parent is nav and nav.parent is root


def test_dedent_returns_to_the_right_ancestor() -> None:
    root = parse(
        "\n".join(
            [
                "- main [ref=e1]:",
                "  - list [ref=e2]:",
                "    - listitem [ref=e3]:",
                '      - link "Deep" [ref=e4]',
                '  - button "Sibling of list" [ref=e5]',
                '- button "Top" [ref=e6]',
            ]
        )
    )
    main, top = root.children
    assert [c.key for c in main.children] == ["e2", "e5"]
    assert top.parent is root
    deep = main.children[0].children[0].children[0]
    assert [a.role for a in deep.ancestors()] == ["listitem", "list", "main", "document"]


def test_names_are_json_strings() -> None:
    node = only(r'- button "say \"hi\" \\ caf\u00e9 [x]" [ref=e1]')
    assert node.name == 'say "hi" \\ café [x]'
    assert node.key == "e1", "a ']' or '[' inside the name is not an attribute"


def test_values_are_yaml_double_quoted_strings() -> None:
    root = parse(
        "\n".join(
            [
                r'- paragraph [ref=e1]: "tab\there \"q\" \\ \x7f\x0b end"',
                '- paragraph [ref=e2]: "- starts with a dash"',
                '- paragraph [ref=e3]: "12"',
                '- textbox "Empty" [ref=e4]: ""',
                '- text: "a: b"',
            ]
        )
    )
    assert [n.text for n in root.children] == [
        'tab\there "q" \\ \x7f\x0b end',
        "- starts with a dash",
        "12",
        "",
        "a: b",
    ]


def test_single_quoted_keys() -> None:
    root = parse(
        "\n".join(
            [
                """- 'button "Note: hi" [ref=e3]'""",
                """- 'link "Bob''s: page" [ref=e4] [cursor=pointer]':""",
                "  - /url: /bob",
                """- 'textbox "Item #3" [ref=e5]': "x: y\"""",
                """- 'heading "{a}: b" [level=2] [ref=e6]':""",
                "  - text: inside",
            ]
        )
    )
    button, link, box, heading = root.children
    assert (button.role, button.name, button.key, button.text) == (
        "button",
        "Note: hi",
        "e3",
        None,
    )
    assert (link.name, link.key, link.pointer, link.props) == (
        "Bob's: page",
        "e4",
        True,
        {"url": "/bob"},
    )
    assert (box.name, box.text) == ("Item #3", "x: y")
    assert (heading.name, heading.attrs, [c.text for c in heading.children]) == (
        "{a}: b",
        {"level": "2"},
        ["inside"],
    )


def test_iframes_start_new_frames_in_document_order() -> None:
    root = parse(
        "\n".join(
            [
                '- button "Top" [ref=e1]',
                "- iframe [ref=e2]:",
                '  - button "In first" [ref=f1e1]',
                "  - iframe [ref=f1e2]:",
                '    - button "In nested" [ref=f2e1]',
                "    - text: nested words",
                '  - button "Back in first" [ref=f1e3]',
                "- iframe [ref=e3]:",
                "  - generic [ref=f3e1]:",
                '    - button "In second" [ref=f3e2]',
                '- button "Bottom" [ref=e4]',
            ]
        )
    )
    frames = {n.name or n.text or n.key: n.frame for n in root.walk() if n is not root}
    assert frames == {
        "Top": 0,
        "e2": 0,  # an iframe element lives in its parent's document
        "In first": 1,
        "f1e2": 1,
        "In nested": 2,
        "nested words": 2,
        "Back in first": 1,
        "e3": 0,
        "f3e1": 3,
        "In second": 3,
        "Bottom": 0,
    }


def test_walk_is_document_order() -> None:
    root = parse(
        "\n".join(
            [
                "- main [ref=e1]:",
                "  - list [ref=e2]:",
                "    - listitem [ref=e3]: one",
                "    - listitem [ref=e4]: two",
                '  - button "After" [ref=e5]',
                '- button "Last" [ref=e6]',
            ]
        )
    )
    assert [n.key for n in root.walk()] == [None, "e1", "e2", "e3", "e4", "e5", "e6"]
    list_node = root.children[0].children[0]
    assert [n.key for n in list_node.walk()] == ["e2", "e3", "e4"]


def test_all_text_joins_names_values_and_descendant_text() -> None:
    root = parse(
        "\n".join(
            [
                "- listitem [ref=e1]:",
                "  - text: Alice",
                '  - link "Alice" [ref=e2]',
                '  - textbox "Note" [ref=e3]: hello',
                '  - button "Delete" [ref=e4]',
            ]
        )
    )
    item = root.children[0]
    # "Alice" twice in a row (text, then the link's name) is said once.
    assert item.all_text() == "Alice Note hello Delete"
    assert item.all_text(limit=8) == "Alice No"
    assert root.all_text() == "Alice Note hello Delete"


def test_escaped_backslash_before_x_is_kept() -> None:
    # The page text `dir: C:\x64` needs quotes (": "); Playwright escapes the backslash.
    node = only(r'- paragraph [ref=e1]: "dir: C:\\x64"')
    assert node.text == "dir: C:\\x64"
