"""The evaluate command: run JavaScript in the page and return its value as JSON."""

from __future__ import annotations

import json
from contextlib import suppress
from typing import ClassVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import JSHandle
from pydantic import Field, JsonValue

from steadyhand.act.resolve import element
from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import TabParams, command, positional
from steadyhand.engine import playwright_errors
from steadyhand.engine.session import Tab
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.state import state_of
from steadyhand.vault import mask_text

# Turns any value into JSON: what JSON cannot hold (nodes, functions, cycles, NaN, bigint,
# dates, ...) becomes a string describing it, so a result is never silently empty.
TO_JSON_JS = """value => {
  const seen = new WeakSet();
  const node = n => {
    if (n instanceof Element) {
      const id = n.id ? `#${n.id}` : '';
      const cls = typeof n.className === 'string' && n.className.trim()
        ? '.' + n.className.trim().split(/\\s+/).join('.') : '';
      const raw = n instanceof HTMLElement ? n.innerText : n.textContent;
      const text = (raw || '').replace(/\\s+/g, ' ').trim().slice(0, 80);
      return `<${n.localName}${id}${cls}>` + (text ? ` ${text}` : '');
    }
    if (n instanceof Document) return `#document ${n.URL}`;
    return `${n.nodeName} ${(n.textContent || '').slice(0, 80)}`.trim();
  };
  const convert = (v, depth) => {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (v === undefined) return null;
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol' || typeof v === 'function') return String(v);
    if (v === window) return '[Window]';
    if (v instanceof Node) return node(v);
    if (v instanceof Date) return Number.isNaN(+v) ? 'Invalid Date' : v.toISOString();
    if (v instanceof RegExp || v instanceof Error) return String(v);
    if (seen.has(v)) return '[Circular]';
    if (depth >= 32) return '[nested too deep]';
    seen.add(v);
    let out;
    const iterable = Array.isArray(v) || ArrayBuffer.isView(v) || v instanceof Set
      || v instanceof NodeList || v instanceof HTMLCollection;
    if (iterable) {
      out = Array.from(v, x => convert(x, depth + 1));
    } else if (v instanceof Map) {
      out = Object.fromEntries(Array.from(v, ([k, x]) => [String(k), convert(x, depth + 1)]));
    } else {
      out = {};
      for (const k of Object.keys(v)) {
        try { out[k] = convert(v[k], depth + 1); } catch (e) { out[k] = `[threw ${e}]`; }
      }
    }
    seen.delete(v);  // only cycles are cut; a value seen twice side by side is written twice
    return out;
  };
  let type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (value instanceof Node) type = 'node';
  return {value: convert(value, 0), type};
}"""


class EvaluateParams(TabParams):
    expression: str = positional(
        "JavaScript: an expression (document.title) or a function (() => ...); "
        "with --ref a function of the element (el => el.value); promises are awaited"
    )
    ref: str | None = Field(None, description="call the function with this element")


class EvaluateResult(PageResult):
    REPLY: ClassVar[str] = "evaluated"
    value: JsonValue = Field(description="the result as JSON; what JSON cannot hold as a string")
    type: str = Field(description="its JavaScript type: string, number, object, array, node, ...")
    truncated: bool = Field(False, description="value was too long: it is cut JSON text")


def _script_error(exc: PlaywrightError) -> SteadyhandError:
    first = playwright_errors.first_line_of(str(exc))
    if first.startswith("SyntaxError"):
        return SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the expression is not valid JavaScript: {first}",
            "give an expression (document.title) or a function (() => ..., with --ref el => ...)",
        )
    return SteadyhandError(
        ErrorCode.ACTION_FAILED,
        f"the script threw: {first}",
        "fix the script; whatever it did before throwing stays done",
    )


async def _run(call: Call, tab: Tab, params: EvaluateParams) -> JSHandle:
    try:
        if params.ref is None:
            return await tab.page.evaluate_handle(params.expression)
        async with element(tab, params.ref, call.remaining_ms()) as target:
            return await target.handle.evaluate_handle(params.expression)
    except PlaywrightError as exc:
        if playwright_errors.script_interrupted(str(exc)):
            raise  # the page navigated or closed under the script: not the script's fault
        raise _script_error(exc) from exc


@command("evaluate", destructive=True, changes_page=True)
async def evaluate(call: Call, params: EvaluateParams) -> EvaluateResult:
    """Run JavaScript in the page (or on an element) and return its value as JSON."""
    if not call.runtime.settings.allow_evaluate:
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            "evaluate is turned off on this daemon",
            "the allow_evaluate setting is false; set allow_evaluate = true in config.toml "
            "(or STEADYHAND_ALLOW_EVALUATE=1) and restart the daemon",
        )
    tab = await call.tab(params.tab)
    if tab.secret_documents and await tab.document_id() in tab.secret_documents:
        raise SteadyhandError(
            ErrorCode.POLICY_DENIED,
            f"a named secret was typed into the page in tab {tab.id}: evaluate is refused on "
            "it (a script could read the value back in a form the masking does not know)",
            "read the page with snapshot, find or extract (they show the secret by name), or "
            "evaluate again once the tab has navigated to another page",
        )
    try:
        handle = await _run(call, tab, params)
    finally:
        state_of(tab).acted_since_baseline = True  # the script may have changed the page
    try:
        found = await handle.evaluate(TO_JSON_JS)
    finally:
        with suppress(PlaywrightError):
            await handle.dispose()
    value: JsonValue = found["value"]
    text = mask_text(json.dumps(value, ensure_ascii=False))  # before a cut: see vault.py
    limit = call.runtime.settings.snapshot_max_chars
    truncated = len(text) > limit
    if truncated:
        value = text[:limit] + f"… [cut: {len(text) - limit:,} more characters of JSON]"
    return EvaluateResult(
        **await page_result(tab), value=value, type=found["type"], truncated=truncated
    )
