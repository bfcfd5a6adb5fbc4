"""The generic banner rule: a fixed banner no pattern knows, over the target, with one way out.

The watchdog's patterns (watchdog_patterns.py) know consent libraries by their markup; a
site's own banner (`<div role="dialog">` fixed at the bottom, "We use cookies [Accept]")
is unknown to them. When an act's target stayed covered for a whole try, `dismiss_cover`
looks at what covers it, once per command, and clicks its one way out:

- the covering layer is the outermost fixed or sticky element (or a `role=dialog` or
  `<dialog>`) around the element drawn at the target's centre that does not hold the
  target. Nothing is done when the target is inside a dialog or a panel that holds the
  layer too (the agent works there; a full-page fixed shell is only the page's layout),
  when the layer is modal (`aria-modal="true"`, a modal `<dialog>`, `role=alertdialog`: a
  question about something the agent did), when it covers more than half the viewport (a
  modal in all but name), when it holds a field to fill (a form, not a notice), more than
  MAX_CONTROLS controls (a toolbar, a header) or a "cancel"/"no" control (a confirmation);
- its controls (buttons, links that stay on the page: a link to another page is never
  followed) are named as a person reads them (text, or aria-label for an icon) and matched
  whole against the small lists below. Exactly one ACCEPT control is clicked; with none,
  exactly one CLOSE control; two of the chosen kind (`Accept` and `OK`) is ambiguous and
  nothing is clicked. Other controls (`Settings`, `Reject all`) do not count;
- the click is Playwright's (trusted, after its checks), and the layer is awaited until it
  is hidden, detached, or no longer over the target, within the timeout.

The setting `watchdog_generic_banners` turns the rule off (and `watchdog` with it).
"""

from __future__ import annotations

import time

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from steadyhand.act.watchdog import HELPERS_JS, click_away, dispose, left_ms

KIND = "banner"  # the `kind` of its entries in an act's `watchdog` list
MAX_CONTROLS = 8
# Names, lower-cased, punctuation at the ends dropped, whitespace collapsed: English,
# German, French, Spanish, Italian, Dutch, Portuguese.
ACCEPT = (
    *("accept", "accept all", "accept cookies", "accept all cookies", "i accept", "agree"),
    *("i agree", "allow all", "allow cookies", "allow all cookies", "ok", "okay", "got it"),
    *("understood", "i understand"),
    *("akzeptieren", "alle akzeptieren", "zustimmen", "alle zustimmen", "einverstanden"),
    *("verstanden", "accepter", "tout accepter", "j'accepte", "d'accord", "compris"),
    *("aceptar", "aceptar todo", "aceptar todas", "acepto", "entendido", "de acuerdo"),
    *("accetta", "accetta tutto", "accetto", "ho capito", "accepteren", "alles accepteren"),
    *("akkoord", "aceitar", "aceitar todos", "concordo", "entendi"),
)
CLOSE = (
    *("close", "dismiss", "\u00d7", "\u2715", "\u2716", "x", "schließen", "fermer", "cerrar"),
    *("chiudi", "sluiten", "fechar"),
)
REFUSE = ("cancel", "no", "abbrechen", "annuler", "cancelar", "annulla", "annuleren")

FIND_JS = (
    "(target, [words, maxControls]) => {"
    + HELPERS_JS
    + """
  const layer = el => {
    const role = el.getAttribute('role');
    const pos = getComputedStyle(el).position;
    return pos === 'fixed' || pos === 'sticky' || role === 'dialog' || role === 'alertdialog'
      || el.tagName === 'DIALOG';
  };
  const modal = el => {
    if (el.getAttribute('aria-modal') === 'true' || el.getAttribute('role') === 'alertdialog')
      return true;
    try { return el.matches(':modal'); } catch { return false; }
  };
  const dialog = el => ['dialog', 'alertdialog'].includes(el.getAttribute('role'))
    || el.tagName === 'DIALOG' || el.getAttribute('aria-modal') === 'true';
  if (!target.isConnected) return 'gone';
  const view = target.ownerDocument.defaultView;
  const large = el => {
    const q = el.getBoundingClientRect();
    return q.width * q.height > 0.5 * view.innerWidth * view.innerHeight;
  };
  const r = target.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const root = target.getRootNode();
  let hit = (root.elementFromPoint ? root : target.ownerDocument).elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const deeper = hit.shadowRoot.elementFromPoint(x, y);
    if (!deeper || deeper === hit) break;
    hit = deeper;
  }
  if (!hit || inside(hit, target)) return 'not covered';
  let box = null;
  for (let n = hit; n; n = up(n)) {
    if (n.nodeType !== 1) continue;
    if (inside(target, n)) break;
    if (!layer(n)) continue;
    if (modal(n)) return 'modal';
    box = n;
  }
  if (!box) return 'no fixed layer';
  // A dialog or a panel holding both: the agent works in it (a full-page fixed shell is
  // only the page's layout).
  for (let n = up(box); n; n = up(n)) {
    if (n.nodeType !== 1 || !layer(n) || !inside(target, n)) continue;
    if (dialog(n) || !large(n)) return 'inside the target\\'s layer';
  }
  if (large(box)) return 'too large';
  const all = sel => [box, ...(box.shadowRoot ? [box.shadowRoot] : [])]
    .flatMap(rt => [...rt.querySelectorAll(sel)]).filter(el => shown(el));
  const fields = 'textarea, select, [contenteditable=""], [contenteditable="true"], '
    + 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=button])'
    + ':not([type=submit]):not([type=reset]):not([type=image])';
  if (all(fields).length) return 'holds a field';
  const controls = all('button, [role=button], a[href], [role=link], input[type=button], '
    + 'input[type=submit], input[type=image]')
    .filter(c => !c.disabled && c.getAttribute('aria-disabled') !== 'true');
  if (controls.length > maxControls) return 'too many controls';
  const said = s => norm(s).toLowerCase().replace(/[\\u2018\\u2019]/g, "'")
    .replace(/^[.!?:\\s]+|[.!?:\\s]+$/g, '');
  const names = c => [c.innerText || c.value, c.getAttribute('aria-label'), c.title]
    .map(said).filter(Boolean);
  const kind = c => {
    const n = names(c);
    for (const k of ['refuse', 'accept', 'close']) if (n.some(s => words[k].includes(s))) return k;
    return null;
  };
  const stays = c => {
    const a = c.closest('a[href]');
    const href = a ? a.getAttribute('href').trim().toLowerCase() : '';
    return !a || href === '' || href.startsWith('#') || href.startsWith('javascript:');
  };
  const kinds = controls.map(kind);
  if (kinds.includes('refuse')) return 'asks a question';
  const of = k => controls.filter((c, i) => kinds[i] === k && stays(c));
  const picked = of('accept').length ? of('accept') : of('close');
  if (picked.length !== 1) return picked.length ? 'ambiguous' : 'no way out';
  const label = norm(box.getAttribute('aria-label') || '').slice(0, 40);
  const role = box.getAttribute('role') || (box.tagName === 'DIALOG' ? 'dialog' : 'overlay');
  return [box, picked[0], labelOf(picked[0]), label ? `${role} "${label}"` : role];
}"""
)

GONE_JS = (
    "([box, target]) => {"
    + HELPERS_JS
    + """
  if (!box.isConnected || !shown(box) || faded(box) || !target.isConnected) return true;
  const r = target.getBoundingClientRect();
  const root = target.getRootNode();
  const hit = (root.elementFromPoint ? root : target.ownerDocument)
    .elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !hit || !inside(hit, box);
}"""
)

WORDS = {"accept": ACCEPT, "close": CLOSE, "refuse": REFUSE}


async def dismiss_cover(target: ElementHandle, timeout_ms: float) -> dict[str, str] | None:
    """Click the one way out of the banner covering `target`; what was done, or None.

    The entry is as the watchdog reports its own: {"kind": "banner", "name": the layer's
    role and label, "action": "clicked" | "failed", "label": the control's name}. None when
    the rule does not apply (see the module's docstring) or the page went away.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    try:
        found = await target.evaluate_handle(FIND_JS, [WORDS, MAX_CONTROLS])
    except PlaywrightError:
        return None
    try:
        props = await found.get_properties()
    except PlaywrightError:
        await dispose(found)
        return None
    try:
        box = props["0"].as_element() if "0" in props else None
        button = props["1"].as_element() if "1" in props else None
        if box is None or button is None:
            return None
        try:
            name, label = str(await props["3"].json_value()), str(await props["2"].json_value())
        except PlaywrightError:
            return None

        async def gone() -> None:
            frame = await target.owner_frame()
            if frame is not None:
                await frame.wait_for_function(GONE_JS, arg=[box, target], timeout=left_ms(deadline))

        action = await click_away(button, gone, deadline)
        return {"kind": KIND, "name": name, "action": action, "label": label}
    finally:
        for handle in (found, *props.values()):
            await dispose(handle)
