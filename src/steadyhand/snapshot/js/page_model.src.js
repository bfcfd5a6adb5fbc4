// steadyhand's page model: one per document, installed in the page's main world.
//
// It reads the document's accessibility tree (roles and names from dom-accessibility-api,
// everything a person can act on marked with how), gives every element it shows an id that
// is never reused in this document, and keeps a list of what changed since the last read
// (MutationObserver records, input/change/focus events, form controls whose value moved
// without an event), so a later read re-serializes only the subtrees that changed.
//
// Built into page_model.js by scripts/build-page-model (esbuild, an IIFE); Python reads it
// as a string and installs it with an init script and on demand.
import { computeAccessibleName, getRole } from "dom-accessibility-api";

const KEY = "__steadyhand_model__";
const MAX_DIRTY = 1500; // more dirty roots than this: a whole read is cheaper
const MAX_TEXT = 2000; // characters of one text run or editor value shown
const MASK = "••••••";

const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title"]);
const WRAPPERS = new Set([
  "generic", "none", "presentation", "strong", "emphasis", "code", "mark", "subscript",
  "superscript", "deletion", "insertion", "time", "rowgroup",
]);
// Roles whose name comes from their content: a change inside re-reads the named element.
const FROM_CONTENT = new Set([
  "button", "link", "heading", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
  "option", "treeitem", "cell", "gridcell", "columnheader", "rowheader", "row", "checkbox",
  "radio", "switch", "tooltip", "label", "legend", "caption",
]);
// Roles that never get a name here: their text is shown as text.
const UNNAMED = new Set([
  "generic", "none", "presentation", "paragraph", "text", "list", "listitem", "rowgroup",
  "document", "blockquote", "code", "emphasis", "strong", "deletion", "insertion",
  "subscript", "superscript", "time", "mark", "term", "definition", "separator", "row",
  "caption",
]);
// Roles whose children are presentational (ARIA): their content is their name, not nodes.
const PRESENTATIONAL_CHILDREN = new Set([
  "button", "checkbox", "img", "meter", "menuitemcheckbox", "menuitemradio", "option",
  "progressbar", "radio", "scrollbar", "separator", "slider", "switch", "tab",
]);
const RANGES = new Set(["slider", "spinbutton", "progressbar", "scrollbar", "meter"]);
const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
const INPUT_TEXT = new Set([
  "", "text", "search", "email", "url", "tel", "password", "number", "date", "time",
  "datetime-local", "month", "week",
]);
const CLICKY = new Set([
  "click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick", "touchstart",
  "contextmenu", "auxclick",
]);
const KEYS = new Set(["keydown", "keyup", "keypress"]);
const DROPS = new Set(["drop", "dragover", "dragenter"]);
const ICON_PREFIX = /^(?:fa|fas|far|fal|fab|fa-solid|bi|icon|icons|glyphicon|mdi|ti|ri|la|octicon|codicon|gg|ion|ionicons?|feather|lucide|ph)-(.+)$/;
const ICON_MODIFIERS = /^(?:lg|xs|sm|fw|[0-9]x|spin|pulse|solid|regular|light|thin|duotone|brands|inverse|border|stack|flip-.*|rotate-.*|pull-.*|ul|li)$/;
const CONTROLS = "button,a[href],input,select,textarea,[role=button],[role=checkbox],[role=switch],[role=link]";
const SORTABLE_CLASS = /(?:^|[\s_-])(?:sortable|ui-sortable|draggable|dnd|drag-?list|reorder)/i;

function newRegistry() {
  const models = new WeakMap();
  const get = WeakMap.prototype.get;
  const set = WeakMap.prototype.set;
  const registry = Object.freeze({
    of: (d) => get.call(models, d),
    add: (d, api) => {
      if (!get.call(models, d)) set.call(models, d, Object.freeze(api));
    },
  });
  Object.defineProperty(window, KEY, {
    value: registry,
    enumerable: false,
    configurable: false,
    writable: false,
  });
  return registry;
}

function install() {
  // A window can outlive its document (Chromium reuses the initial about:blank window for
  // a same-origin page): a model is only ever the model of the document it started in.
  // One model per document, found through a registry the page can neither replace nor
  // fill first (this script runs before the page's own). A window can outlive its
  // document (Chromium reuses the initial about:blank window): each document gets its own.
  const registry = window[KEY] || newRegistry();
  if (registry.of(document)) return registry.of(document);
  const ownDocument = document;

  // ------------------------------------------------------------ listeners, from the start
  // Elements given pointer or key handlers by the page: a person can act on them even
  // when nothing else (role, cursor, tabindex) says so. Only handlers added after this
  // script ran are seen (it runs first when installed as an init script).
  const handled = new WeakMap(); // element -> Set of "click" | "key" | "drop"
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (this instanceof Element && listener) {
      const kind = CLICKY.has(type) ? "click" : KEYS.has(type) ? "key" : DROPS.has(type) ? "drop" : "";
      if (kind) {
        const had = handled.get(this);
        if (had) had.add(kind);
        else handled.set(this, new Set([kind]));
      }
    }
    return original.call(this, type, listener, options);
  };
  const handles = (el, kind) => {
    const had = handled.get(el);
    return had !== undefined && had.has(kind);
  };

  // ------------------------------------------------------------ ids
  const ids = new WeakMap(); // element -> id
  const byId = new Map(); // id -> WeakRef(element)
  let nextId = 1;
  const docId = String(performance.timeOrigin);
  function idOf(el) {
    let id = ids.get(el);
    if (id === undefined) {
      id = nextId++;
      ids.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return id;
  }
  function elementOf(id) {
    const ref = byId.get(id);
    const el = ref && ref.deref();
    if (!el) {
      byId.delete(id);
      return null;
    }
    return el.isConnected ? el : null;
  }

  // ------------------------------------------------------------ what changed
  const emitted = new WeakMap(); // element -> role it was shown with (in the last reads)
  const labelledBy = new WeakMap(); // element referenced by aria-labelledby -> dependents
  const observed = new WeakSet();
  let controls = new Map(); // shown form control -> its state when last read
  let dirty = new Set();
  let whole = true; // the next read must be whole (nothing read yet, or too much changed)
  let lastActive = null;
  let mutations = 0; // all mutations ever seen: a cheap "did the DOM change" counter

  const observer = new MutationObserver((records) => {
    mutations += records.length;
    if (whole) return;
    for (const r of records) {
      const target = r.type === "characterData" ? r.target.parentNode : r.target;
      if (target) dirty.add(target.nodeType === 11 ? target.host : target);
    }
    if (dirty.size > MAX_DIRTY) whole = true;
  });
  const observeOptions = { subtree: true, childList: true, attributes: true, characterData: true };
  function observe(root) {
    if (root && !observed.has(root)) {
      observed.add(root);
      observer.observe(root, observeOptions);
    }
  }
  observe(document);
  // A shadow root attached after a read makes no mutation: watch it, re-read its host.
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (init && init.mode === "open") {
      observe(root);
      dirty.add(this);
    }
    return root;
  };
  const touched = (event) => {
    const target = event.composedPath()[0];
    if (target instanceof Element) dirty.add(target);
  };
  for (const type of ["input", "change"]) window.addEventListener(type, touched, true);

  // ------------------------------------------------------------ reading one element
  let styles = new Map(); // per read: element -> computed style
  function style(el) {
    let s = styles.get(el);
    if (s === undefined) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  }
  const nameOptions = {
    getComputedStyle: (el, pseudo) => (pseudo ? getComputedStyle(el, pseudo) : style(el)),
    computedStyleSupportsPseudoElements: true,
  };

  function parentOf(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const p = el.parentNode;
    if (!p) return null;
    if (p.nodeType === 11) return p.host || null; // a shadow root: its host
    return p.nodeType === 1 ? p : null;
  }

  function deepActive() {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  }

  function roleOf(el, tag, s) {
    if (tag === "a" && !el.hasAttribute("href") && !el.hasAttribute("role")) {
      // Chromium exposes a script-driven anchor as a link.
      if (handles(el, "click") || el.onclick || s.cursor === "pointer") return "link";
    }
    if (tag === "caption") return "caption";
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) {
      return "textbox";
    }
    let role = getRole(el);
    if ((role === null || role === undefined) && tag === "input") {
      // Inputs html-aria gives no role that Chromium still exposes as one.
      const type = el.type;
      if (type === "file" || type === "color") return "button";
      if (type === "hidden") return "none";
      return "textbox"; // password, date, time, month, week, datetime-local
    }
    if (role === null || role === undefined) {
      if (tag === "p") return "paragraph";
      if (tag === "blockquote") return "blockquote";
      if (tag === "code") return "code";
      if (tag === "strong" || tag === "b") return "strong";
      if (tag === "em" || tag === "i") return "emphasis";
      if (tag === "svg") return el.querySelector(":scope > title") ? "img" : "generic";
      if (tag === "label") return "generic";
      if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
      return "generic";
    }
    role = role.split(" ")[0];
    if (role === "region" && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby")) {
      return "generic";
    }
    if ((tag === "header" || tag === "footer") && el.closest("article,aside,main,nav,section")) {
      return "generic";
    }
    return role;
  }

  function derivedName(el) {
    // An unnamed control: what a person sees on it, marked as derived.
    for (const node of [el, ...el.querySelectorAll("i,span,svg,use,em")].slice(0, 8)) {
      if (node.classList) {
        if (node.classList.contains("material-icons") || [...node.classList].some((c) => c.startsWith("material-symbols"))) {
          const text = node.textContent.trim();
          if (text) return [text.replace(/_/g, " "), "icon"];
        }
        for (const c of node.classList) {
          const m = ICON_PREFIX.exec(c);
          if (m && !ICON_MODIFIERS.test(m[1])) return [m[1].replace(/[-_]/g, " "), "icon"];
        }
      }
      const href = node.getAttribute && (node.getAttribute("href") || node.getAttribute("xlink:href"));
      if (node.localName === "use" && href && href.includes("#")) {
        const m = /#(?:icon-|i-)?(.+)$/.exec(href);
        if (m) return [m[1].replace(/[-_]/g, " "), "icon"];
      }
      const data = node.getAttribute && node.getAttribute("data-icon");
      if (data) return [data.replace(/[-_]/g, " "), "icon"];
    }
    // The only control inside a labelled group: the group's label names it.
    for (let p = parentOf(el), depth = 0; p && depth < 4; p = parentOf(p), depth++) {
      const label = p.getAttribute("aria-label");
      if (label) {
        const controls = p.querySelectorAll("button,a[href],input,select,textarea,[role=button],[tabindex]");
        if (controls.length === 1) return [label.trim(), "ancestor"];
        break;
      }
    }
    return null;
  }

  function visuallyHidden(el) {
    const s = style(el);
    if (s.opacity === "0") return true;
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) return true;
    return s.clipPath === "inset(50%)" || s.clip === "rect(0px, 0px, 0px, 0px)" || s.clip === "rect(1px, 1px, 1px, 1px)";
  }

  // Where a person would click to act on `el`: itself, or, for a visually hidden native
  // input, its label or the nearest visible element around it.
  // Only for a checkbox or radio drawn by something else: its label, or the nearest
  // visible element around it that holds no other control (never a neighbour's box).
  function actTarget(el) {
    if (!(el instanceof HTMLInputElement) || (el.type !== "checkbox" && el.type !== "radio")) return el;
    if (!visuallyHidden(el)) return el;
    for (const label of el.labels || []) {
      const r = label.getBoundingClientRect();
      if (r.width >= 4 && r.height >= 4) return label;
    }
    for (let p = parentOf(el); p && p !== document.body; p = parentOf(p)) {
      const inside = (p.shadowRoot || p).querySelectorAll(CONTROLS);
      if (inside.length > 1 || (inside.length === 1 && inside[0] !== el)) break;
      const r = p.getBoundingClientRect();
      if (r.width >= 4 && r.height >= 4 && style(p).visibility === "visible") return p;
    }
    return el;
  }

  function sortableContainer(el) {
    if (!el) return false;
    if (SORTABLE_CLASS.test(el.className && typeof el.className === "string" ? el.className : "")) return true;
    for (const key of Object.keys(el)) if (key.startsWith("Sortable")) return true;
    return false;
  }

  // How a person acts on an element whose role does not already say it.
  function how(el, tag, role, s, parentPointer) {
    const out = [];
    if (s.cursor === "pointer" && !parentPointer) out.push("clickable");
    // A click handler on a box of controls is most often delegation for those controls:
    // they carry the refs, the box does not.
    if ((handles(el, "click") || el.onclick || el.hasAttribute("onclick")) && !out.length && !el.querySelector(CONTROLS)) {
      out.push("clickable");
    }
    if (el.getAttribute("draggable") === "true" || sortableContainer(parentOf(el))) out.push("draggable");
    if (handles(el, "drop") || el.ondrop) out.push("drop-target");
    const tabindex = el.getAttribute("tabindex");
    if (WRAPPERS.has(role) && ((tabindex !== null && Number(tabindex) >= 0) || handles(el, "key"))) {
      out.push("focusable");
    }
    // A box with its own scroll bar: `scroll REF` scrolls it.
    if ((s.overflowY === "auto" || s.overflowY === "scroll") && el.scrollHeight > el.clientHeight + 1 && tag !== "textarea" && tag !== "body" && tag !== "html") {
      out.push("scrollable");
    } else if ((s.overflowX === "auto" || s.overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1 && tag !== "textarea" && tag !== "body" && tag !== "html") {
      out.push("scrollable");
    }
    return out;
  }

  function text(s) {
    return s.replace(/\s+/g, " ");
  }

  // The node for `el` and everything under it, or the children to put in its place when
  // it is not shown itself (a wrapper without a name, state or way to act on it).
  function read(el, parentPointer, out) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (el.getAttribute("aria-hidden") === "true") return;
    const s = style(el);
    if (s.display === "none") return;
    const invisible = s.visibility !== "visible";
    if (el.shadowRoot) observe(el.shadowRoot);
    const role = invisible ? "generic" : roleOf(el, tag, s);
    const node = { i: idOf(el), r: role };
    if (!invisible) describe(el, tag, role, s, node, parentPointer);
    const keep = !invisible && (!WRAPPERS.has(role) || node.h || node.n);
    const pointer = s.cursor === "pointer";
    if (node.leaf || (!invisible && PRESENTATIONAL_CHILDREN.has(role) && node.n)) {
      delete node.leaf;
    } else if (tag === "iframe" || tag === "frame") {
      node.r = "iframe";
      node.f = 1;
    } else {
      const kids = [];
      const block = !keep && !invisible && !s.display.startsWith("inline") && s.display !== "contents";
      if (block) kids.push("\n");
      // A label's own words are already its control's name: shown once, on the control.
      const names = tag === "label" && namesItsControl(el);
      children(el, pointer, kids, !invisible && !names);
      if (block) kids.push("\n");
      if (!keep) {
        for (const k of kids) out.push(k);
        return;
      }
      tidy(kids, node);
      if (role === "paragraph" && node.t === undefined && !node.c && !node.h) return; // empty
    }
    emitted.set(el, role);
    out.push(node);
  }

  function namesItsControl(label) {
    const control = label.control;
    return Boolean(control) && !control.hasAttribute("aria-label") && !control.hasAttribute("aria-labelledby");
  }

  // `shown`: the element's own text is visible (a hidden element's visible children are
  // still read, its text is not).
  function children(el, pointer, kids, shown = true) {
    let list;
    if (el.shadowRoot) list = el.shadowRoot.childNodes;
    else if (el.localName === "slot") {
      list = el.assignedNodes({ flatten: true });
      if (!list.length) list = el.childNodes;
    } else list = el.childNodes;
    for (const child of list) {
      if (child.nodeType === 3) {
        if (shown) kids.push(child.data);
      }
      else if (child.nodeType === 1) read(child, pointer, kids);
    }
  }

  // Join runs of text ("\n" marks a block's edge), drop children that only repeat the name.
  function tidy(kids, node) {
    const out = [];
    let run = "";
    const flush = () => {
      const t = text(run).trim();
      if (t) out.push(t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "…" : t);
      run = "";
    };
    for (const k of kids) {
      if (typeof k === "string") {
        if (k === "\n") flush();
        else run += k;
      } else {
        flush();
        out.push(k);
      }
    }
    flush();
    if (out.length === 1 && typeof out[0] === "string") {
      if (out[0] !== node.n && node.v === undefined) node.t = out[0];
      return;
    }
    if (out.length) {
      if (node.n && FROM_CONTENT.has(node.r) && out.every((k) => typeof k === "string") && out.join(" ") === node.n) return;
      node.c = out;
    }
  }

  // Controls named by a <label>, per read and tree scope. Chromium's `labels` walks the
  // whole scope on each element's first call (3 000 buttons: 1.7 s of a 2.4 s read); the
  // accname library asks it of every labelable element, so during a read `labels` answers
  // from this index instead (see withLabelIndex).
  let labelIndex = new Map(); // control -> its labels
  let indexedScopes = new Set();
  function labelsOf(el) {
    const scope = el.getRootNode();
    if (!indexedScopes.has(scope)) {
      indexedScopes.add(scope);
      for (const label of scope.querySelectorAll ? scope.querySelectorAll("label") : []) {
        const control = label.control;
        if (!control) continue;
        const list = labelIndex.get(control);
        if (list) list.push(label);
        else labelIndex.set(control, [label]);
      }
    }
    return labelIndex.get(el) || [];
  }

  // An element's name as the model shows it, and where it came from when it is derived.
  function nameOf(el, role) {
    if (UNNAMED.has(role)) return ["", ""];
    let name = "";
    try {
      name = computeAccessibleName(el, nameOptions);
    } catch (e) {
      name = el.getAttribute("aria-label") || el.getAttribute("title") || "";
    }
    // Icon-font glyphs (private use characters) name nothing a person can read.
    name = text(name).replace(/[\uE000-\uF8FF]/g, "").trim();
    if (!name && el.getAttribute("title")) {
      name = text(el.getAttribute("title")).trim();
      if (name) return [name, "title"];
    }
    if (!name && (role === "button" || role === "link" || role === "menuitem" || role === "tab")) {
      const derived = derivedName(el);
      if (derived) return derived;
    }
    return [name, ""];
  }

  function describe(el, tag, role, s, node, parentPointer) {
    const a = {};
    if (!UNNAMED.has(role)) {
      const [name, namedBy] = nameOf(el, role);
      if (namedBy) a["named-by"] = namedBy;
      if (name) node.n = name;
      const refs = el.getAttribute("aria-labelledby");
      if (refs) {
        for (const id of refs.split(/\s+/)) {
          const target = id && el.getRootNode().getElementById && el.getRootNode().getElementById(id);
          if (target) {
            const list = labelledBy.get(target) || [];
            if (!list.includes(el)) list.push(el);
            labelledBy.set(target, list);
          }
        }
      }
    }
    const ways = how(el, tag, role, s, parentPointer);
    if (ways.length) node.h = ways;
    // State.
    const aria = (n) => el.getAttribute(n);
    if (CHECKABLE.has(role)) {
      let checked = aria("aria-checked");
      if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
        checked = el.indeterminate ? "mixed" : String(el.checked);
        controls.set(el, controlState(el));
        const target = actTarget(el);
        if (target !== el) node.x = idOf(target);
      }
      if (checked === "true") a.checked = "";
      else if (checked === "mixed") a.checked = "mixed";
    }
    if (el.disabled || aria("aria-disabled") === "true") a.disabled = "";
    const expanded = aria("aria-expanded");
    if (expanded !== null) a.expanded = expanded === "true" ? "" : "false";
    else if (tag === "details") a.expanded = el.open ? "" : "false";
    const pressed = aria("aria-pressed");
    if (pressed === "true") a.pressed = "";
    else if (pressed === "mixed") a.pressed = "mixed";
    else if (pressed === "false") a.pressed = "false";
    if (aria("aria-selected") === "true" || (tag === "option" && el.selected)) a.selected = "";
    if (el.required || aria("aria-required") === "true") a.required = "";
    if (aria("aria-invalid") && aria("aria-invalid") !== "false") a.invalid = "";
    else if (el.willValidate && el.matches(":user-invalid")) a.invalid = "";
    if (role === "heading") {
      const level = aria("aria-level") || (/^h([1-6])$/.exec(tag) || [])[1];
      if (level) a.level = level;
    }
    if (el === deepActive() && el !== document.body) a.active = "";
    if (RANGES.has(role)) {
      if (tag === "input" || tag === "progress" || tag === "meter") {
        a.value = String(el.value);
        if (tag === "input") controls.set(el, controlState(el));
        if (el.min !== undefined && el.min !== "") a.min = String(el.min);
        if (el.max !== undefined && el.max !== "") a.max = String(el.max);
      }
      const now = aria("aria-valuenow");
      if (now !== null) a.value = now;
      const min = aria("aria-valuemin");
      if (min !== null) a.min = min;
      const max = aria("aria-valuemax");
      if (max !== null) a.max = max;
      const vt = aria("aria-valuetext");
      if (vt) a.valuetext = vt;
      if (tag === "input" || a.value !== undefined) node.leaf = true;
    }
    if (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton") {
      value(el, tag, role, node, a);
    }
    if (tag === "a" && el.hasAttribute("href")) {
      node.p = { url: el.getAttribute("href") };
      if (el.hasAttribute("download")) a.download = "";
    }
    const placeholder = aria("placeholder") || aria("aria-placeholder");
    if (placeholder && (role === "textbox" || role === "searchbox" || role === "combobox")) {
      node.p = Object.assign(node.p || {}, { placeholder });
    }
    for (const _ in a) {
      node.a = a;
      break;
    }
  }

  function value(el, tag, role, node, a) {
    if (tag === "input" || tag === "textarea") {
      if (mayBeSecret(el)) {
        if (el.value) node.v = MASK;
      } else if (INPUT_TEXT.has(el.type) || tag === "textarea") {
        node.v = el.value.length > MAX_TEXT ? el.value.slice(0, MAX_TEXT) + "…" : el.value;
      }
      if (tag === "textarea") a.multiline = "";
      controls.set(el, controlState(el));
      node.leaf = true;
    } else if (tag === "select") {
      const chosen = el.selectedOptions;
      node.v = chosen.length ? text(chosen[0].label || chosen[0].text).trim() : "";
      controls.set(el, controlState(el));
    } else if (el.isContentEditable) {
      const t = el.innerText;
      node.v = t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "…" : t.replace(/\n$/, "");
      a.multiline = "";
      node.leaf = true;
    } else if (aria("aria-multiline") === "true") {
      a.multiline = "";
    }
    function aria(n) {
      return el.getAttribute(n);
    }
  }

  // A field whose value must never leave the page: a password, or one the page marks as
  // a secret (autocomplete, masked text).
  function mayBeSecret(el) {
    if (el.type === "password") return true;
    const auto = (el.getAttribute("autocomplete") || "").toLowerCase();
    if (/(?:current-password|new-password|one-time-code)/.test(auto)) return true;
    const masked = style(el).webkitTextSecurity;
    return Boolean(masked) && masked !== "none";
  }

  function controlState(el) {
    return el.localName === "select" ? el.selectedIndex : el.type === "checkbox" || el.type === "radio" ? `${el.checked}${el.indeterminate}` : el.value;
  }

  // ------------------------------------------------------------ reads
  function readRoot() {
    const kids = [];
    const root = document.documentElement;
    if (root) {
      const s = style(root);
      if (s.display !== "none") children(root, s.cursor === "pointer", kids);
    }
    const node = { i: 0, r: "document" };
    tidy(kids, node);
    if (node.t !== undefined) {
      node.c = [node.t];
      delete node.t;
    }
    return node;
  }

  function readOne(el) {
    const parent = parentOf(el);
    const out = [];
    read(el, parent ? style(parent).cursor === "pointer" : false, out);
    return out.filter((k) => k !== "\n");
  }

  // The element whose node must be read again when `el` changed: the nearest one shown,
  // widened to an element whose name is made of its content.
  function patchRoot(el) {
    let e = el;
    while (e && !emitted.has(e)) e = parentOf(e);
    if (!e) return null;
    for (let p = parentOf(e); p; p = parentOf(p)) {
      if (emitted.has(p) && FROM_CONTENT.has(emitted.get(p))) e = p;
      else if (emitted.has(p)) break;
    }
    return e;
  }

  // Ids of the shown elements above `el`, nearest first: where Python can re-read from
  // when it does not have `el` itself.
  function shownAbove(el) {
    const out = [];
    for (let p = parentOf(el); p && out.length < 64; p = parentOf(p)) {
      if (emitted.has(p)) out.push(ids.get(p));
    }
    return out;
  }

  function containsDeep(outer, inner) {
    for (let e = inner; e; e = parentOf(e)) if (e === outer) return true;
    return false;
  }

  function begin() {
    styles = new Map();
    labelIndex = new Map();
    indexedScopes = new Set();
  }

  // Runs `work` (synchronous: no page script runs meanwhile) with `labels` of every
  // labelable element answered from the index, and puts the browser's getters back.
  const LABELABLE_PROTOS = [
    HTMLInputElement, HTMLButtonElement, HTMLSelectElement, HTMLTextAreaElement,
    HTMLMeterElement, HTMLOutputElement, HTMLProgressElement,
  ].map((c) => c.prototype);
  const indexed = { get() { return labelsOf(this); }, configurable: true };
  function withLabelIndex(work) {
    const saved = LABELABLE_PROTOS.map((p) => Object.getOwnPropertyDescriptor(p, "labels"));
    try {
      for (const p of LABELABLE_PROTOS) Object.defineProperty(p, "labels", indexed);
      return work();
    } finally {
      LABELABLE_PROTOS.forEach((p, i) => {
        if (saved[i]) Object.defineProperty(p, "labels", saved[i]);
        else delete p.labels;
      });
    }
  }

  function whole_() {
    whole = false;
    dirty = new Set();
    controls = new Map();
    lastActive = deepActive();
    const tree = readRoot();
    return { doc: docId, whole: true, tree, mutations, title: document.title };
  }

  function readChanges(force) {
    if (document !== ownDocument) return null;
    begin();
    if (force || whole || !document.documentElement) return whole_();
    // Form controls whose state moved without an event, and the focus.
    for (const [el, was] of controls) {
      if (!el.isConnected) {
        controls.delete(el);
        continue;
      }
      const now = controlState(el);
      if (now !== was) {
        dirty.add(el);
        controls.set(el, now);
      }
    }
    const active = deepActive();
    if (active !== lastActive) {
      for (const e of [lastActive, active]) {
        if (e && e !== document.body && e !== document.documentElement) dirty.add(e);
      }
      lastActive = active;
    }
    if (!dirty.size) return { doc: docId, whole: false, patches: [], mutations, title: document.title };
    const extra = [];
    for (const d of dirty) {
      for (let e = d; e; e = parentOf(e)) {
        const deps = labelledBy.get(e);
        if (deps) extra.push(...deps);
        if (e.localName === "label" && e.control) extra.push(e.control);
      }
    }
    const roots = new Set();
    for (const d of [...dirty, ...extra]) {
      if (!d.isConnected && d !== document) continue;
      const r = patchRoot(d === document ? document.documentElement : d);
      if (!r || r === document.documentElement || r === document.body) return whole_();
      roots.add(r);
    }
    dirty = new Set();
    const list = [...roots].filter((r) => ![...roots].some((o) => o !== r && containsDeep(o, r)));
    if (list.length > MAX_DIRTY) return whole_();
    const patches = [];
    for (let r of list) {
      // A root that is no longer one node (it became a plain wrapper): its parent's.
      let out = readOne(r);
      while (out.length > 1 || (out.length === 1 && typeof out[0] === "string")) {
        r = patchRoot(parentOf(r));
        if (!r || r === document.documentElement || r === document.body) return whole_();
        out = readOne(r);
      }
      if (!out.length) emitted.delete(r); // not shown now: a later change re-reads its parent
      patches.push({ i: ids.get(r), node: out.length ? out[0] : null, up: shownAbove(r) });
    }
    return { doc: docId, whole: false, patches, mutations, title: document.title };
  }

  // ------------------------------------------------------------ settling
  // Requests the page started and has not had an answer to (fetch and XMLHttpRequest).
  let inflight = 0;
  const fetch_ = window.fetch;
  if (fetch_) {
    window.fetch = function (...args) {
      inflight++;
      const done = () => inflight--;
      const p = fetch_.apply(this, args);
      p.then(done, done);
      return p;
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    inflight++;
    this.addEventListener("loadend", () => inflight--, { once: true });
    return send.apply(this, args);
  };

  // Resolves once a frame went by with no mutation and no request in flight, or at
  // `maxMs`: the time it waited, in ms. No fixed floor: a page that is already quiet costs
  // one frame.
  function settle(maxMs) {
    const start = performance.now();
    // A frame, or 50 ms where frames do not come (a hidden tab), then a task.
    const frame = (f) => {
      let gone = false;
      const go = () => {
        if (!gone) {
          gone = true;
          setTimeout(f, 0);
        }
      };
      requestAnimationFrame(go);
      setTimeout(go, 50);
    };
    return new Promise((resolve) => {
      let seen = mutations;
      const tick = () => {
        const now = performance.now();
        const quiet = mutations === seen && inflight <= 0;
        if (quiet || now - start >= maxMs) {
          resolve(Math.round(now - start));
          return;
        }
        seen = mutations;
        frame(tick);
      };
      // A frame first: handlers the action queued, and what they render, run in it.
      frame(tick);
    });
  }

  const api = {
    doc: docId,
    read: (force) => {
      const found = withLabelIndex(() => readChanges(force));
      return found && JSON.stringify(found);
    },
    // The page handles key events on this element itself (a terminal line, a key-driven
    // widget): typing must send keys, not set the value.
    listensForKeys: (el) => handles(el, "key"),
    element: elementOf,
    // What a person acts on for element `id`; {renamed: name} when `name` is given and
    // the element's name is no longer that.
    target: (id, name) => {
      const el = elementOf(id);
      if (!el) return null;
      begin();
      if (typeof name === "string") {
        const now = withLabelIndex(() => nameOf(el, roleOf(el, el.localName, style(el)))[0]);
        if (now !== name) return { renamed: now };
      }
      return actTarget(el);
    },
    idOf,
    // Element `id` read again, whole (null when it is not one shown node now).
    node: (id) => {
      const el = elementOf(id);
      if (!el) return null;
      begin();
      const out = withLabelIndex(() => readOne(el));
      return out.length === 1 && typeof out[0] === "object" ? JSON.stringify(out[0]) : null;
    },
    // Ids of `el` and every element under it that a read has shown.
    within: (el) => {
      const out = [];
      const walk = (e) => {
        if (emitted.has(e)) out.push(ids.get(e));
        for (const c of e.shadowRoot ? e.shadowRoot.children : e.children) walk(c);
      };
      walk(el);
      return out;
    },
    // Each element's box in this frame's viewport (null when it is gone).
    boxes: (list) =>
      list.map((id) => {
        const el = elementOf(id);
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
      }),
    mutations: () => mutations,
    settle,
  };
  registry.add(document, api);
  return api;
}

install();
