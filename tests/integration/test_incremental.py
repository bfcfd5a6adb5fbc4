"""The page model kept current by changes reads the same as a whole read of the page.

Each case loads a page in real Chromium, reads it whole, changes it (by the page's own
controls or by script: programmatic state, late shadow roots, text under a shadow root,
frames, elements shown again), reads the changes, and compares the tree rendered from the
patched model with a fresh whole read of the same page.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, async_playwright

from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.page_model import PageModel, install
from steadyhand.snapshot.render import View, render

pytestmark = pytest.mark.integration

LATE_WIDGET = """() => {
  customElements.define('late-widget', class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({mode: 'open'});
      root.innerHTML = '<button>Buy now</button>';
    }
  });
  document.body.append(document.createElement('late-widget'));
}"""
SHADOW_TEXT = """() => {
  const host = document.createElement('div');
  document.body.append(host);
  const root = host.attachShadow({mode: 'open'});
  root.append('Count: 0');
  window.bump = () => { root.firstChild.data = 'Count: 1'; };
}"""
# (page, [(kind, argument)]): "js" runs in the page, "click" clicks the text's element.
CASES = {
    "script-checked-state": (
        "widgets/listeners.html",
        [("js", "() => document.querySelectorAll('input[type=checkbox]')"
                ".forEach(c => { c.indeterminate = false; c.checked = true; })")],
    ),
    "range-value-by-script": (
        "widgets/sliders.html",
        [("js", "() => { document.querySelector('input[type=range]').value = 37; }")],
    ),
    "late-shadow-root": ("people.html", [("js", LATE_WIDGET)]),
    "text-under-a-shadow-root": ("people.html", [("js", SHADOW_TEXT), ("js", "() => bump()")]),
    "rows-added-and-redrawn": (
        "people.html",
        [("click", "Add person"), ("click", "Redraw rows"), ("click", "Add person")],
    ),
    "shadow-form-and-frames": (
        "frames.html",
        [
            ("js", "() => { const r = document.querySelector('shadow-form').shadowRoot;"
                   " r.querySelector('input').value = 'deep';"
                   " r.querySelector('button').click(); }"),
            ("js", "() => { document.getElementById('same').contentDocument"
                   ".querySelector('p').textContent = 'inner: changed'; }"),
        ],
    ),
    "hidden-then-shown": (
        "people.html",
        [
            ("js", "() => { document.querySelector('table').style.display = 'none'; }"),
            ("js", "() => { document.querySelector('table').style.display = ''; }"),
        ],
    ),
    "changed-while-hidden": (
        "people.html",
        [
            ("js", "() => { document.querySelector('main, body').style.display = 'none'; }"),
            ("js", "() => { document.querySelector('li').textContent = 'changed unseen'; }"),
            ("js", "() => { document.querySelector('main, body').style.display = ''; }"),
            ("js", "() => { document.querySelector('ul').hidden = true; }"),
            ("js", "() => { document.querySelector('li').textContent = 'again'; }"),
            ("js", "() => { document.querySelector('ul').hidden = false; }"),
        ],
    ),
    "focus-moves": (
        "form.html",
        [("js", "() => document.querySelector('input').focus()"),
         ("js", "() => document.activeElement.blur()")],
    ),
}  # fmt: skip


def shown(model_root: object) -> str:
    assert model_root is not None
    return render([model_root], View())  # type: ignore[list-item]


async def check(site: str, case: str) -> None:
    path, steps = CASES[case]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(find_chromium()), args=[*BASE_ARGS, "--no-sandbox"]
        )
        try:
            context = await browser.new_context()
            await install(context)
            page = await context.new_page()
            await page.goto(f"{site}/{path}")
            model = PageModel()
            await model.read(page)
            for kind, argument in steps:
                await act(page, kind, argument)
                patched, _ = await model.read(page)
                whole, _ = await PageModel().read(page)
                assert shown(patched) == shown(whole), f"{case}: after {kind} {argument[:60]!r}"
        finally:
            await browser.close()


async def act(page: Page, kind: str, argument: str) -> None:
    if kind == "js":
        await page.evaluate(argument)
    else:
        await page.get_by_text(argument, exact=True).click()
    await page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(null)))")


@pytest.mark.parametrize("case", list(CASES))
def test_changes_read_as_a_whole_read_does(site: str, case: str) -> None:
    asyncio.run(check(site, case))
