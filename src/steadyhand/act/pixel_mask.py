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

MASKED = "data-steadyhand-masked"
# What screenshots cover with Playwright's mask: password fields and the fields marked.
COVERED = f"input[type=password], [{MASKED}]"
MASK_COLOR = "#000000"
MASK_JS = """(el, attribute) => {
  const box = Symbol.for('steadyhand.mask');
  if (!el[box]) {
    const style = el.style, saved = {};
    const paint = {
      'background': '#000', 'background-image': 'none', 'color': '#000',
      '-webkit-text-fill-color': '#000', 'caret-color': '#000', 'text-shadow': 'none',
      'print-color-adjust': 'exact', '-webkit-print-color-adjust': 'exact',
    };
    for (const name of Object.keys(paint)) {
      saved[name] = [style.getPropertyValue(name), style.getPropertyPriority(name)];
    }
    el[box] = {paint, saved};
  }
  for (const [name, value] of Object.entries(el[box].paint)) {
    el.style.setProperty(name, value, 'important');
  }
  el.setAttribute(attribute, '');
}"""
# For a PDF, the boxed fields' text is drawn as discs too: a PDF keeps its text (selectable,
# copied out), black on black or not. (Not while the page is on screen: the accessibility
# tree would read discs where the agent reads `{{secret:NAME}}`.) The count.
DISCS_JS = """([attribute, on]) => {
  let count = 0;
  const visit = (root) => {
    for (const el of root.querySelectorAll('[' + attribute + ']')) {
      if (on) el.style.setProperty('-webkit-text-security', 'disc', 'important');
      else el.style.removeProperty('-webkit-text-security');
      count++;
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(document);
  return count;
}"""
# Lifts every box of the document (and its open shadow roots) for one picture: the count.
LIFT_JS = """(attribute) => {
  const box = Symbol.for('steadyhand.mask');
  const lifted = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('[' + attribute + ']')) {
      if (!el[box]) continue;
      for (const [name, [value, priority]] of Object.entries(el[box].saved)) {
        if (value) el.style.setProperty(name, value, priority); else el.style.removeProperty(name);
      }
      lifted.push(el);
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(document);
  window[Symbol.for('steadyhand.lifted')] = lifted;
  return lifted.length;
}"""
RESTORE_JS = """() => {
  const box = Symbol.for('steadyhand.mask');
  const lifted = window[Symbol.for('steadyhand.lifted')] || [];
  for (const el of lifted) {
    for (const [name, value] of Object.entries(el[box].paint)) {
      el.style.setProperty(name, value, 'important');
    }
  }
  delete window[Symbol.for('steadyhand.lifted')];
  return lifted.length;
}"""


async def mask_field(handle: ElementHandle) -> None:
    """Cover the field before a secret is typed into it (for every picture after)."""
    await handle.evaluate(MASK_JS, MASKED)


def covered(page: Page) -> list[Locator]:
    """What a screenshot covers, as Playwright's `mask` takes it."""
    return [page.locator(COVERED)]


@contextlib.asynccontextmanager
async def as_discs(page: Page) -> AsyncIterator[int]:
    """The boxed fields' text drawn as discs for one PDF: how many fields."""
    count = 0
    with contextlib.suppress(PlaywrightError):
        count = int(await page.evaluate(DISCS_JS, [MASKED, True]))
    try:
        yield count
    finally:
        if count:
            with contextlib.suppress(PlaywrightError):
                await page.evaluate(DISCS_JS, [MASKED, False])


@contextlib.asynccontextmanager
async def lifted(page: Page) -> AsyncIterator[int]:
    """The boxes off for one picture (an approved `--unmasked`), on again after: how many."""
    count = 0
    with contextlib.suppress(PlaywrightError):
        count = int(await page.evaluate(LIFT_JS, MASKED))
    try:
        yield count
    finally:
        with contextlib.suppress(PlaywrightError):
            await page.evaluate(RESTORE_JS)
