"""A flow as a standalone script: on steadyhand's Python client (each act verified, each
target found by role, name and containers), or on plain Playwright (role locators).

Both take the flow's parameters as NAME=VALUE arguments; secrets come from the
environment (`SECRET_NAME`) in the Playwright script, from the daemon's vault in the other.
"""

from __future__ import annotations

import re
from typing import Any

from steadyhand.flows.model import PARAM, Flow, FlowStep, FlowTarget
from steadyhand.vault import REFERENCE

_ROW_LIKE = ("row", "listitem", "group")


def _literal(value: Any) -> str:
    """A Python literal of JSON-like data."""
    return repr(value)


def _value(value: Any) -> str:
    """Python source for a param value: `{{name}}` parts filled from P at run time."""
    if isinstance(value, str) and PARAM.search(value):
        parts = PARAM.split(value)  # text, name, text, name, ...
        pieces = [
            _literal(p) if i % 2 == 0 else f"P[{_literal(p)}]" for i, p in enumerate(parts) if p
        ]
        return " + ".join(pieces) or '""'
    if isinstance(value, dict):
        inner = ", ".join(f"{_value(k)}: {_value(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return _literal(value)


def _header(flow: Flow, runs_on: str) -> tuple[list[str], dict[str, str | None]]:
    defaults = {k: p.default for k, p in flow.params.items()}
    return [
        "#!/usr/bin/env python3",
        f'"""Flow {flow.name} v{flow.version}, exported from steadyhand: {runs_on}.',
        "",
        "Parameters as NAME=VALUE arguments; defaults are the recorded values.",
        '"""',
        "",
    ], defaults


def python_script(flow: Flow) -> str:
    """A script on steadyhand.SyncClient: the same steps, found and verified as `flow run`
    does (without its adaptations: a target found by role, name and containers)."""
    head, defaults = _header(flow, "steadyhand's Python client")
    lines = [
        *head,
        "import re",
        "import sys",
        "",
        "from steadyhand import SyncClient",
        "",
        f"SESSION = {_literal('flow-' + flow.name)}",
        f"P = {_literal(defaults)}",
        'P.update(arg.split("=", 1) for arg in sys.argv[1:] if "=" in arg)',
        "",
        "",
        "def target(browser, role, name, context, nth, group):",
        '    """The ref of the element with this role and name among its containers (a `*`',
        '    in the name stands for any text)."""',
        '    fits = re.compile(".*".join(map(re.escape, name.split("*"))), re.S).fullmatch',
        '    named = {"name": name, "exact": True} if "*" not in name else {}',
        "    found = browser.find(role=role, limit=500, session=SESSION, **named)",
        "    same = [m for m in found.matches if m.role == role and fits(m.name)]",
        "    for label in context:",
        '        bare = label.split(" ", 1)[-1]',
        "        near = [m for m in same if bare in m.context or bare in m.near]",
        "        same = near or same",
        "    if len(same) == 1:",
        "        return same[0].ref",
        "    if len(same) == group:",
        "        return same[nth].ref",
        '    raise SystemExit(f"{role} {name!r}: {len(same)} on the page, not one")',
        "",
        "",
        "def main():",
        "    with SyncClient() as browser:",
    ]
    for n, step in enumerate(flow.steps, 1):
        lines.append(f"        # step {n}: {step.label()}")
        lines.extend("        " + line for line in _client_step(step))
    lines += ["", "", 'if __name__ == "__main__":', "    main()", ""]
    return "\n".join(lines)


def _client_step(step: FlowStep) -> list[str]:
    out: list[str] = []
    params = dict(step.params)
    for key, want in step.targets.items():
        var = f"ref_{key}"
        if want.role is None:
            out.append(f"{var} = {_literal(want.locator)}")
        else:
            out.append(
                f"{var} = target(browser, {_literal(want.role)}, {_value(want.name or '')}, "
                f"{_value(want.context)}, {want.nth}, {want.group})"
            )
    args = [f"{k}={_ref_or_value(v, step)}" for k, v in params.items()]
    for kind, given in (("url", "expect_url"), ("text", "expect_text")):
        if kind in step.expect and step.command in _EXPECTS:
            args.append(f"{given}={_value(step.expect[kind])}")
    args.append("session=SESSION")
    method = step.command.replace(".", "_").replace("-", "_")
    out.append(f"browser.{method}({', '.join(args)})")
    return out


_EXPECTS = frozenset(
    {"click", "type", "fill", "press", "select", "check", "uncheck", "hover", "drag"}
)


def _ref_or_value(value: Any, step: FlowStep) -> str:
    if isinstance(value, str) and value.startswith("@") and value[1:] in step.targets:
        return f"ref_{value[1:]}"
    if isinstance(value, dict):
        inner = ", ".join(f"{_ref_or_value(k, step)}: {_value(v)}" for k, v in value.items())
        return "{" + inner + "}"
    return _value(value)


# ------------------------------------------------------------------------- Playwright


def playwright_script(flow: Flow) -> str:
    """A plain Playwright script (sync API) doing the same steps with role locators."""
    head, defaults = _header(flow, "plain Playwright (sync API)")
    lines = [
        *head,
        "import os",
        "import re",
        "import sys",
        "",
        "from playwright.sync_api import expect, sync_playwright",
        "",
        f"P = {_literal(defaults)}",
        'P.update(arg.split("=", 1) for arg in sys.argv[1:] if "=" in arg)',
        'CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")',
        "",
        "",
        "def main():",
        "    with sync_playwright() as p:",
        "        browser = p.chromium.launch(executable_path=CHROMIUM)",
        "        page = browser.new_page()",
    ]
    for n, step in enumerate(flow.steps, 1):
        lines.append(f"        # step {n}: {step.label()}")
        lines.extend("        " + line for line in _playwright_step(step))
    lines += ["        browser.close()", "", "", 'if __name__ == "__main__":', "    main()", ""]
    return "\n".join(lines)


def _locator(want: FlowTarget) -> str:
    if want.role is None:
        forms = [_by_locator(part.strip()) for part in (want.locator or "").split(" || ")]
        return ".or_(".join(forms) + ")" * (len(forms) - 1)
    chain = "page"
    for label in want.context:
        role, _, text = label.partition(" ")
        if role in _ROW_LIKE:
            chain += f".get_by_role({_literal(role)}).filter(has_text={_value(text)})"
        elif role != "iframe" and text:
            chain += f".get_by_role({_literal(role)}, name={_value(text)}, exact=True)"
    name = f", name={_value(want.name)}, exact=True" if want.name else ""
    if want.name and "*" in want.name:  # edited to match any text there
        pattern = ".*".join(map(re.escape, want.name.split("*")))
        name = f", name=re.compile({_literal('^' + pattern + '$')})"
    chain += f".get_by_role({_literal(want.role)}{name})"
    return chain + (f".nth({want.nth})" if want.group > 1 else "")


_GET_BY = {"label": "get_by_label", "placeholder": "get_by_placeholder", "text": "get_by_text"}


def _by_locator(locator: str) -> str:
    """steadyhand's locator forms in Playwright's API: role=, css= and xpath= are its own
    selector engines; label=, placeholder=, text= and testid= its get_by_* (quoted: exact)."""
    kind, eq, value = locator.partition("=")
    exact = len(value) > 1 and value[0] == value[-1] == '"'
    text = value[1:-1] if exact else value
    if eq and kind in _GET_BY:
        return f"page.{_GET_BY[kind]}({_literal(text)}{', exact=True' if exact else ''})"
    if eq and kind == "testid":
        return f"page.get_by_test_id({_literal(text)})"
    return f"page.locator({_literal(locator)})"


def _text(value: Any) -> str:
    """A typed value; a secret from the environment (SECRET_NAME)."""
    if isinstance(value, str) and REFERENCE.fullmatch(value):
        name = REFERENCE.fullmatch(value)
        assert name is not None
        return f'os.environ["SECRET_{name.group(1)}"]'
    return _value(value)


def _playwright_step(step: FlowStep) -> list[str]:
    p = step.params
    loc = {k: _locator(t) for k, t in step.targets.items()}
    el = loc.get("ref", "page")
    command = step.command
    out: list[str]
    if command in ("open", "navigate", "tab.new"):
        out = [f"page.goto({_value(p.get('url', 'about:blank'))})"]
    elif command in ("back", "forward", "reload"):
        out = [f"page.{ {'back': 'go_back', 'forward': 'go_forward'}.get(command, command) }()"]
    elif command == "click":
        twice = p.get("double") or p.get("count") == 2
        out = [f"{el}.{'dblclick' if twice else 'click'}()"]
    elif command == "type":
        out = [f"{el}.fill({_text(p.get('text', ''))})"]
        if p.get("submit"):
            out.append(f'{el}.press("Enter")')
    elif command == "fill":
        fields = p.get("fields") or {}
        out = [f"{loc[k[1:]]}.fill({_text(v)})" for k, v in fields.items() if k[1:] in loc]
    elif command == "press":
        where = el if "ref" in loc else "page.keyboard"
        out = [f"{where}.press({_value(p.get('key', ''))})"]
    elif command == "select":
        out = [f"{el}.select_option({_value(p.get('values', []))})"]
    elif command in ("check", "uncheck", "hover"):
        out = [f"{el}.{command}()"]
    elif command == "drag" and {"source", "target"} <= set(loc):
        out = [f"{loc['source']}.drag_to({loc['target']})"]
    elif command == "wait":
        out = _playwright_wait(p)
    else:
        out = [f"# {command} has no Playwright form here: do it by hand"]
    if "url" in step.expect:
        out.append(f"expect(page).to_have_url(re.compile(re.escape({_value(step.expect['url'])})))")
    if "text" in step.expect:
        out.append(f"expect(page.get_by_text({_value(step.expect['text'])}).first).to_be_visible()")
    return out


def _playwright_wait(p: dict[str, Any]) -> list[str]:
    out = []
    if p.get("text"):
        out.append(f"page.get_by_text({_value(p['text'])}).first.wait_for()")
    if p.get("url"):
        out.append(f"page.wait_for_url(re.compile(re.escape({_value(p['url'])})))")
    if isinstance(p.get("ms"), int):
        out.append(f"page.wait_for_timeout({p['ms']})")
    return out or ["page.wait_for_load_state()"]
