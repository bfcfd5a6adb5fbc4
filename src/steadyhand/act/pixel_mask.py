"""Secrets out of pixels: a field a secret was typed into is covered wherever the page is
drawn (screenshots, PDFs, recordings, the live view, a headed window).

Text masking (vault.py) cannot see pixels, and a secret typed into an ordinary text field
shows in clear in any picture of the page. So the field is painted over in the page itself
the moment before the secret goes in: a black box (background and text black, caret and
shadow gone, kept in print), marked `data-steadyhand-masked`. Every picture Chromium makes
then shows the box: the screencast behind recordings and the live view, PDFs, screenshots.
A PDF also draws the field's text as discs (a PDF keeps its text, black on black or not).
Screenshots cover password fields and the marked fields with Playwright's own mask too (a
second layer, should the page restyle the field).

`--unmasked` (screenshot, pdf) needs a person's approval; the boxes are lifted for that one
picture and put back.

Limits: a page that replaces the field (a new element) or strips its style shows what the
new element holds; a secret the page copies elsewhere (echoed into a paragraph) is not
covered there; a desktop application's fields are not covered.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from playwright.async_api import ElementHandle, Locator, Page
from playwright.async_api import Error as PlaywrightError

from steadyhand.errors import ErrorCode, SteadyhandError

MASKED = "data-steadyhand-masked"
SELECTOR = f"[{MASKED}]"  # Playwright's engine: open shadow roots too, in each frame
# What screenshots cover with Playwright's mask: password fields and the fields marked.
COVERED = f"input[type=password], {SELECTOR}"
MASK_COLOR = "#000000"
PAINT = {
    "background": "#000",
    "background-image": "none",
    "color": "#000",
    "-webkit-text-fill-color": "#000",
    "caret-color": "#000",
    "text-shadow": "none",
    "print-color-adjust": "exact",
    "-webkit-print-color-adjust": "exact",
}
# The box, twice: the element's own style (saved, for a lift) and a rule of a sheet adopted
# by its document or shadow root (a page that sets the field's style, say to mark it
# invalid, replaces an inline declaration, not an !important rule).
MASK_JS = """(el, [attribute, paint]) => {
  const box = Symbol.for('steadyhand.mask');
  if (!el[box]) {
    const saved = {};
    for (const name of Object.keys(paint)) {
      saved[name] = [el.style.getPropertyValue(name), el.style.getPropertyPriority(name)];
    }
    el[box] = {saved};
  }
  for (const [name, value] of Object.entries(paint)) el.style.setProperty(name, value, 'important');
  const root = el.getRootNode(), sheetKey = Symbol.for('steadyhand.mask-sheet');
  if (!root[sheetKey] && 'adoptedStyleSheets' in root) {
    const sheet = new CSSStyleSheet();
    const rules = Object.entries(paint).map(([n, v]) => n + ': ' + v + ' !important').join('; ');
    sheet.replaceSync('[' + attribute + '] { ' + rules + ' }');
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    root[sheetKey] = sheet;
  }
  el.setAttribute(attribute, '');
}"""
# For a PDF, the boxed fields' text is drawn as discs too: a PDF keeps its text (selectable,
# copied out), black on black or not. (Not while the page is on screen: the accessibility
# tree would read discs where the agent reads `{{secret:NAME}}`.) The count.
DISCS_JS = """(els, on) => {
  for (const el of els) {
    if (on) el.style.setProperty('-webkit-text-security', 'disc', 'important');
    else el.style.removeProperty('-webkit-text-security');
  }
  return els.length;
}"""
# The boxes off (`on` false: for one approved picture) or on again: the count.
BOXES_JS = """(els, [on, paint]) => {
  const box = Symbol.for('steadyhand.mask'), sheetKey = Symbol.for('steadyhand.mask-sheet');
  for (const el of els) {
    const sheet = el.getRootNode()[sheetKey];
    if (sheet) sheet.disabled = !on;
    if (!el[box]) continue;
    for (const [name, value] of Object.entries(paint)) {
      const [was, priority] = el[box].saved[name] || ['', ''];
      if (on) el.style.setProperty(name, value, 'important');
      else if (was) el.style.setProperty(name, was, priority);
      else el.style.removeProperty(name);
    }
  }
  return els.length;
}"""


async def mask_field(handle: ElementHandle) -> None:
    """Cover the field before a secret is typed into it (for every picture after)."""
    await handle.evaluate(MASK_JS, [MASKED, PAINT])


def covered(page: Page) -> list[Locator]:
    """What a screenshot covers, as Playwright's `mask` takes it."""
    return [page.locator(COVERED)]


async def _each_frame(page: Page, script: str, arg: object) -> int:
    """Run `script` on the marked fields of every frame of the page; how many there were.
    A frame that went meanwhile is skipped; any other failure is raised."""
    count = 0
    for frame in page.frames:
        try:
            count += int(await frame.locator(SELECTOR).evaluate_all(script, arg))
        except PlaywrightError:
            if not frame.is_detached():
                raise
    return count


@contextlib.asynccontextmanager
async def as_discs(page: Page) -> AsyncIterator[int]:
    """The boxed fields' text drawn as discs for one PDF: how many fields. A page where
    that fails is not printed (`action_failed`): its PDF would hold the secret's text."""
    try:
        count = await _each_frame(page, DISCS_JS, True)
    except PlaywrightError as exc:
        with contextlib.suppress(PlaywrightError):
            await _each_frame(page, DISCS_JS, False)
        raise SteadyhandError(
            ErrorCode.ACTION_FAILED,
            f"the fields a secret was typed into could not be covered for print: {exc}",
            "take the PDF again once the page is still; a screenshot covers them too",
        ) from None
    try:
        yield count
    finally:
        if count:
            with contextlib.suppress(PlaywrightError):
                await _each_frame(page, DISCS_JS, False)


@contextlib.asynccontextmanager
async def lifted(page: Page) -> AsyncIterator[int]:
    """The boxes off for one picture (an approved `--unmasked`), on again after: how many."""
    count = 0
    try:
        count = await _each_frame(page, BOXES_JS, [False, PAINT])
        yield count
    finally:
        with contextlib.suppress(PlaywrightError):
            await _each_frame(page, BOXES_JS, [True, PAINT])


def unmasking(page: Page, unmasked: bool) -> contextlib.AbstractAsyncContextManager[int]:
    """`lifted` when the picture is to be taken unmasked, else nothing."""
    return lifted(page) if unmasked else contextlib.nullcontext(0)
