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
// The built-ins the model relies on, taken before the page's scripts run: a page may shim
// them (an ES5 shim's getOwnPropertyDescriptor throws on DOM prototypes).
const getOwn = Object.getOwnPropertyDescriptor;
const define = Object.defineProperty;
const toJSON = JSON.stringify;
const computedStyle = window.getComputedStyle;
const MAX_DIRTY = 1500; // more dirty roots than this: a whole read is cheaper
const HOVER_LEVELS = 3; // an element the pointer enters, and this many boxes around it, re-read
const HOVER_MAX_CHILDREN = 12; // ... up to a box with more children than this
const HOVER_MAX_NODES = 300; // and only where what is read again holds at most this many elements
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
const LONG_NAME = 100; // characters of a name made of content, past which it is not repeated
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
// What a person can act on inside an element: a control, a field, or anything focusable.
const INNER_CONTROLS = CONTROLS + ",[tabindex],[contenteditable],[onclick]";
// Roles an agent acts on (refs.py's ACTIONABLE): a node with one of them is a control.
const CONTROL_ROLES = new Set([
  "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
  "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
  "spinbutton", "treeitem",
]);
// Fields an unlabelled one of which is named by the text right before it; checkable
// controls by the text right after.
const FIELD_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "listbox"]);
const TEXT_AFTER_ROLES = new Set(["checkbox", "radio", "switch"]);
// Roles an unnamed element of which gets a name derived from what a person sees on it.
const DERIVE_ROLES = new Set(["button", "link", "menuitem", "tab"]);
const FILE_NOISE = new Set(["icon", "icons", "img", "image", "images", "btn", "button", "sprite", "small", "large", "white", "black", "dark", "light", "default", "active", "hover"]);
const DERIVED = new Set(["icon", "class", "image", "ancestor"]);
// Words that name what an icon control does, as icon sets and sites name them in class
// and file names (`<span class="trash">`, `like-btn`, `icons/delete.png`): a word of an
// unnamed control's classes or picture file that is one of these names it. Other class
// words (layout, state, a library's prefix, a generated hash) never do.
const ACTION_WORDS = new Set([
  "add", "plus", "minus", "remove", "delete", "trash", "bin", "erase", "edit", "pencil",
  "compose", "write", "reply", "retweet", "repost", "like", "unlike", "heart", "love",
  "favorite", "favourite", "fav", "star", "bookmark", "save", "share", "send", "forward",
  "more", "ellipsis", "kebab", "options", "settings", "gear", "cog", "preferences", "close",
  "cancel", "dismiss", "clear", "search", "find", "zoom", "filter", "sort", "refresh",
  "reload", "sync", "undo", "redo", "copy", "clone", "duplicate", "paste", "cut", "print",
  "download", "upload", "export", "import", "attach", "attachment", "paperclip", "unlink",
  "play", "pause", "stop", "record", "mute", "unmute", "volume", "next", "prev", "previous",
  "back", "expand", "collapse", "maximize", "minimize", "fullscreen", "menu", "hamburger",
  "home", "user", "profile", "account", "login", "logout", "signin", "signout", "cart",
  "basket", "checkout", "bell", "notifications", "notification", "mail", "email", "inbox",
  "message", "messages", "chat", "comment", "comments", "info", "help", "question", "warning",
  "check", "tick", "done", "approve", "reject", "ban", "block", "flag", "report", "pin",
  "unpin", "lock", "unlock", "eye", "view", "preview", "hide", "calendar", "clock", "location",
  "map", "camera", "photo", "video", "music", "microphone", "mic", "phone", "call", "archive",
  "folder", "tag", "resize", "rotate", "crop", "bold", "italic", "underline", "strikethrough",
  "indent", "outdent", "quote", "emoji", "upvote", "downvote", "vote", "follow", "unfollow",
  "subscribe", "unsubscribe", "mention", "retry", "rewind", "shuffle", "repeat", "skip",
  "translate", "logout", "new", "create", "open", "launch", "run", "submit", "go", "help",
]);
// A handle (thumb, knob) of a slider drawn without ARIA: jQuery UI's `.ui-slider-handle`,
// `range-thumb` in a `range-track`, ...
const HANDLE_CLASS = /(?:^|[\s_-])(?:handle|thumb|knob)(?:$|[\s_-])/i;
const SLIDER_CLASS = /slider|range/i;
const GRAB = new Set(["grab", "grabbing", "move", "-webkit-grab", "-webkit-grabbing"]);
// Class words of a container whose items are dragged to reorder them (whole words: a
// `ui-sortable-handle` is an item, a `slick-header-sortable` column sorts on a click).
const SORTABLE_WORDS = new Set([
  "sortable", "ui-sortable", "sortable-list", "dnd-list", "draglist", "drag-list", "reorder",
  "reorderable", "draggable-list", "dragula-container",
]);

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
  define(window, KEY, {
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
  // Elements the pointer or the focus entered or left: read again where that stays local
  // (never a whole read for a hover: a box right under <body> is left as it was).
  let hovered = new Set();
  let whole = true; // the next read must be whole (nothing read yet, or too much changed)
  let lastActive = null;
  let mutations = 0; // all mutations ever seen: a cheap "did the DOM change" counter

  function seen(records) {
    mutations += records.length;
    if (whole) return;
    for (const r of records) {
      const target = r.type === "characterData" ? r.target.parentNode : r.target;
      if (target) dirty.add(target.nodeType === 11 ? target.host : target);
    }
    if (dirty.size > MAX_DIRTY) whole = true;
  }
  const observer = new MutationObserver(seen);
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
  // What the pointer enters or leaves, and focus moving in or out, may show or hide things
  // by CSS alone (`li:hover .destroy`, `:focus-within`), which changes no DOM: the element
  // and a few boxes around it are read again (a read widens each to the nearest element
  // it shows), up to a box of many children (a long list is not read again for a hover).
  const around = (event) => {
    let e = event.composedPath()[0];
    for (let up = 0; e instanceof Element && up < HOVER_LEVELS; up++, e = parentOf(e)) {
      if (up > 0 && e.childElementCount > HOVER_MAX_CHILDREN) break;
      if (!whole) hovered.add(e);
    }
  };
  for (const type of ["mouseover", "mouseout", "focusin", "focusout"]) window.addEventListener(type, around, true);
  // The mutation count when each element last got the focus, the changes made before it
  // (a blur handler of the field left) counted first: what a field's page did while text
  // went into it is what came after.
  const focusedAt = new WeakMap();
  window.addEventListener("focusin", (event) => {
    seen(observer.takeRecords());
    focusedAt.set(event.composedPath()[0], mutations);
  }, true);

  // ------------------------------------------------------------ reading one element
  let styles = new Map(); // per read: element -> computed style
  let controlsIn = new Map(); // per read: node -> how many controls its subtree holds
  // Items a box's click handler serves (likeItems), kept across reads: a later read of one
  // item alone still knows it.
  const delegatedTo = new WeakSet();
  function style(el) {
    let s = styles.get(el);
    if (s === undefined) {
      s = computedStyle.call(window, el);
      styles.set(el, s);
    }
    return s;
  }
  const nameOptions = {
    getComputedStyle: (el, pseudo) => (pseudo ? computedStyle.call(window, el, pseudo) : style(el)),
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
    const role = baseRole(el, tag, s);
    return role === "generic" && sliderHandle(el) ? "slider" : role;
  }

  function baseRole(el, tag, s) {
    if (tag === "a" && !el.hasAttribute("href") && !el.hasAttribute("role")) {
      // Chromium exposes a script-driven anchor as a link.
      if (handles(el, "click") || el.onclick || s.cursor === "pointer") return "link";
    }
    if (tag === "caption") return "caption";
    if (el.isContentEditable) {
      const parent = el.parentElement;
      if (!(parent && parent.isContentEditable)) return "textbox";
      // A block straight inside an editor of several: one of its paragraphs.
      if ((tag === "div" || tag === "p") && !(parent.parentElement && parent.parentElement.isContentEditable) && !s.display.startsWith("inline") && blocksIn(parent) >= 2) {
        return "paragraph";
      }
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

  // Whether the model gives `el` a role Chromium's tree does not: a slider's handle drawn
  // without ARIA, a block of an editor shown as its paragraph (Chromium's tree shows an
  // editor's content as its text).
  function shownAs(el, role) {
    return (role === "slider" && !el.hasAttribute("role") && el.localName !== "input") || (role === "paragraph" && el.isContentEditable);
  }

  function classOf(el) {
    const c = el.className;
    return typeof c === "string" ? c : (c && c.baseVal) || "";
  }

  // A slider's handle drawn without ARIA: a handle/thumb/knob class, in (or itself of) a
  // slider or range, that a person can focus or drag, and that holds no text of its own
  // beyond its value.
  function sliderHandle(el) {
    const own = classOf(el);
    if (!HANDLE_CLASS.test(own) || el.querySelector(INNER_CONTROLS)) return false;
    if (!SLIDER_CLASS.test(own)) {
      const track = parentOf(el);
      if (!track || !SLIDER_CLASS.test(classOf(track))) return false;
    }
    return el.hasAttribute("tabindex") || handles(el, "key") || handles(el, "click");
  }

  // What a slider drawn without ARIA shows: its widget's value and range where the
  // library keeps them readable (jQuery UI), else where the handle sits on its track.
  function sliderState(el, a) {
    const track = parentOf(el);
    const $ = window.jQuery;
    const widget = track && $ && $.data ? safe(() => $.data(track, "ui-slider")) : null;
    if (widget && widget.options) {
      const o = widget.options;
      const handlesOf = [...track.children].filter((c) => c.classList.contains("ui-slider-handle"));
      const at = handlesOf.indexOf(el);
      const value = o.values && o.values.length ? safe(() => widget.values(at)) : safe(() => widget.value());
      if (value !== null && value !== undefined) a.value = String(value);
      if (o.min !== undefined) a.min = String(o.min);
      if (o.max !== undefined) a.max = String(o.max);
      return;
    }
    const shown = text(el.textContent).trim();
    if (shown) {
      a.valuetext = shown;
      return;
    }
    if (!track) return;
    const t = track.getBoundingClientRect();
    const h = el.getBoundingClientRect();
    let share = null;
    if (t.width >= t.height && t.width > 0) share = (h.x + h.width / 2 - t.x) / t.width;
    else if (t.height > 0) share = (t.bottom - (h.y + h.height / 2)) / t.height;
    if (share !== null) a.valuetext = `${Math.round(Math.min(1, Math.max(0, share)) * 100)}%`;
  }

  function safe(f) {
    try {
      return f();
    } catch (e) {
      return null;
    }
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
    const parts = [el, ...el.querySelectorAll("*")].slice(0, 8);
    // The file name of the picture drawn on it: an <img> without alt text, or a CSS
    // background (`icons/delete.png` -> "delete").
    for (const node of parts) {
      const src = node.localName === "img" ? node.getAttribute("src") : null;
      // Not a sprite sheet (a background shifted to show one of many pictures).
      const bg = /-\d/.test(style(node).backgroundPosition) ? "none" : style(node).backgroundImage;
      const url = src || (bg && bg !== "none" ? (/url\(["']?([^"')]+)["']?\)/.exec(bg) || [])[1] : null);
      const word = url && fileWord(url);
      if (word) return [word, "image"];
    }
    // A word of its classes that says what it does (`trash`, `reply`, `like-btn` -> "like"),
    // never a layout word or a generated class (`css-1x9zq2`, `_3Kp0w`).
    for (const node of parts) {
      const word = classWord(classOf(node));
      if (word) return [word, "class"];
    }
    return null;
  }

  function words(raw) {
    return raw
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .split(/[\s_\-.@]+/)
      .map((w) => w.toLowerCase());
  }

  function actionWord(w) {
    return ACTION_WORDS.has(w) ? w : null;
  }

  function classWord(cls) {
    for (const token of cls.split(/\s+/)) {
      // Not a generated class (`css-1x9zq2`); a CSS module's hash tail (`Button_trash__3xK2a`) is cut.
      if (/^(?:css|sc|jsx|svelte|emotion|styled)-/i.test(token)) continue;
      for (const w of words(token.split(/_{2,}|-{2,}/)[0] || "")) if (actionWord(w)) return w;
    }
    return null;
  }

  function fileWord(url) {
    if (url.startsWith("data:")) return null;
    const file = url.split(/[?#]/)[0].split("/").pop() || "";
    const stem = file.replace(/\.[a-z0-9]+$/i, "");
    // A picture's file name is chosen by a person: any word of it (not "icon", "img", a hash).
    const found = words(stem).filter((w) => /^[a-z]{3,16}$/.test(w) && /[aeiouy]/.test(w) && !FILE_NOISE.has(w));
    return found.length ? found.join(" ") : null;
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
    for (const word of classOf(el).toLowerCase().split(/\s+/)) if (SORTABLE_WORDS.has(word)) return true;
    for (const key of Object.keys(el)) if (key.startsWith("Sortable")) return true;
    return false;
  }

  // How a person acts on an element whose role does not already say it.
  function how(el, tag, role, s, parentCursor) {
    const out = [];
    if ((s.cursor === "pointer" && parentCursor !== "pointer") || delegatedTo.has(el)) out.push("clickable");
    // A click handler on a box of controls is most often delegation for those controls:
    // they carry the refs, the box does not.
    if ((handles(el, "click") || el.onclick || el.hasAttribute("onclick")) && !out.length && !el.querySelector(CONTROLS) && !strip(el)) {
      out.push("clickable");
    }
    // `draggable`, an item of a sortable list, or a grab/move cursor set on it (dragula,
    // a kanban's cards): a person drags it.
    const grab = GRAB.has(s.cursor) && !GRAB.has(parentCursor);
    if (el.getAttribute("draggable") === "true" || sortableContainer(parentOf(el)) || grab) out.push("draggable");
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
    return s.replace(/[\u200B-\u200D\u2060\uFEFF]/g, "").replace(/\s+/g, " ");
  }

  // A strip thinner than a fingertip with nothing written on it: a grip a drag starts on
  // (a column's resize handle), not something to click.
  function strip(el) {
    const r = el.getBoundingClientRect();
    return (r.width < 8 || r.height < 8) && !el.textContent.trim();
  }

  // The node for `el` and everything under it, or the children to put in its place when
  // it is not shown itself (a wrapper without a name, state or way to act on it).
  function read(el, parentCursor, out) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (el.getAttribute("aria-hidden") === "true") return;
    const s = style(el);
    if (s.display === "none") return;
    const invisible = s.visibility !== "visible";
    if (el.shadowRoot) observe(el.shadowRoot);
    const role = invisible ? "generic" : roleOf(el, tag, s);
    const node = { i: idOf(el), r: role };
    if (!invisible && shownAs(el, role)) node.g = 1; // a role Chromium does not give it
    if (!invisible) describe(el, tag, role, s, node, parentCursor);
    // ARIA makes a button's or a tab's children presentational, but a control inside one
    // is still there for a person to click: then the children are read.
    const presentational = !invisible && PRESENTATIONAL_CHILDREN.has(role) && node.n && !el.querySelector(INNER_CONTROLS);
    let inside = 0; // controls in the subtree, this one excluded
    // A box whose own click handler serves a row of like items with text (jQuery UI's
    // selectable list): the items are what a person clicks, so they carry the refs.
    if (node.h && node.h.includes("clickable") && !CONTROL_ROLES.has(role) && ownHandler(el)) {
      const items = likeItems(el);
      if (items) {
        for (const item of items) {
          delegatedTo.add(item);
          // An item made of like parts with text (a grid's row of cells): the parts too.
          for (const part of likeParts(item)) delegatedTo.add(part);
        }
        node.h = node.h.filter((w) => w !== "clickable");
        if (!node.h.length) delete node.h;
      }
    }
    if (node.leaf || presentational) {
      delete node.leaf;
    } else if (tag === "iframe" || tag === "frame") {
      node.r = "iframe";
      node.f = 1;
    } else {
      const kids = [];
      const block = !invisible && !s.display.startsWith("inline") && s.display !== "contents";
      if (block) kids.push("\n");
      // A label's own words are already its control's name: shown once, on the control,
      // which carries the ref (acting on it clicks what a person clicks, the label too).
      const names = tag === "label" && namesItsControl(el);
      if (names && node.h) {
        node.h = node.h.filter((w) => w !== "clickable");
        if (!node.h.length) delete node.h;
      }
      children(el, s.cursor, kids, !invisible && !names);
      if (block) kids.push("\n");
      for (const k of kids) if (typeof k === "object") inside += controlsIn.get(k) || 0;
      // A box whose click handler (or pointer) serves the controls inside it (delegation,
      // a whole page's wrapper): they carry the refs, it does not.
      if (inside && (inside >= 2 || !hasText(kids)) && node.h && !CONTROL_ROLES.has(role) && node.h.includes("clickable")) {
        node.h = node.h.filter((w) => w !== "clickable");
        if (!node.h.length) delete node.h;
        if (node.a && DERIVED.has(node.a["named-by"])) {
          delete node.n; // named only as something to click
          delete node.a["named-by"];
          if (!Object.keys(node.a).length) delete node.a;
        }
      }
      let keep = !invisible && (!WRAPPERS.has(role) || node.h || node.n);
      // One of several like boxes side by side, each holding a control and the text that
      // goes with it (a card, a feed's post, a form's row): kept as a group, so which
      // text belongs to which control is not lost.
      // (Or, without text of its own, two or more controls: which list holds which items.)
      const texted = hasText(kids);
      const grouped = !keep && !invisible && inside > 0 && repeated(el) && (texted || inside >= 2);
      if (grouped) {
        node.r = "group";
        node.g = 1; // the model's own group (Chromium folds the wrapper)
        keep = true;
      }
      if (!keep) {
        for (const k of kids) out.push(k);
        return;
      }
      tidy(kids, node);
      if (role === "paragraph" && node.t === undefined && !node.c && !node.h) return; // empty
      if (grouped && texted && node.t === undefined && !(node.c || []).some((k) => typeof k === "string")) {
        for (const k of node.c || []) out.push(k); // its text went into a field's name
        return;
      }
    }
    // A control counts once, whatever it holds (a select's options, a tab's button).
    controlsIn.set(node, isControl(node) ? 1 : inside);
    emitted.set(el, node.r);
    out.push(node);
  }

  function ownHandler(el) {
    return handles(el, "click") || Boolean(el.onclick) || el.hasAttribute("onclick");
  }

  // Two or more children of one tag, each with text and no control inside: items.
  function likeItems(el) {
    const kids = [...el.children].filter((c) => !SKIP.has(c.localName));
    if (kids.length < 2 || kids.some((c) => c.localName !== kids[0].localName)) return null;
    for (const c of kids) {
      if (!c.textContent.trim() || c.matches(INNER_CONTROLS) || c.querySelector(INNER_CONTROLS)) return null;
    }
    return kids;
  }

  function likeParts(el) {
    const kids = [...el.children].filter((c) => !SKIP.has(c.localName));
    if (kids.length < 2 || kids.some((c) => c.localName !== kids[0].localName)) return [];
    const texted = kids.filter((c) => c.textContent.trim());
    return texted.length >= 2 ? texted : [];
  }

  function isControl(node) {
    return CONTROL_ROLES.has(node.r) || Boolean(node.h && node.h.some((w) => w !== "scrollable"));
  }

  // Whether an element stands beside a sibling of its own kind (same tag and classes).
  function repeated(el) {
    const kind = (e) => `${e.localName}.${classOf(e).trim().split(/\s+/)[0]}`; // `row even`, `row odd`
    const mine = kind(el);
    const same = (o) => o !== null && kind(o) === mine;
    return same(el.previousElementSibling) || same(el.nextElementSibling);
  }

  // Whether read children hold text of their own (not only controls).
  function hasText(kids) {
    return kids.some((k) =>
      typeof k === "string" ? k.trim() !== "" : !controlsIn.get(k) && (k.t !== undefined || k.c !== undefined || k.n !== undefined),
    );
  }

  function namesItsControl(label) {
    const control = label.control;
    return Boolean(control) && !control.hasAttribute("aria-label") && !control.hasAttribute("aria-labelledby");
  }

  // `shown`: the element's own text is visible (a hidden element's visible children are
  // still read, its text is not).
  function children(el, cursor, kids, shown = true) {
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
      else if (child.nodeType === 1) read(child, cursor, kids);
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
    // A group's legend (a fieldset's) is its name: shown once, on the group.
    if (node.n) {
      for (let i = out.length - 1; i >= 0; i--) {
        const k = out[i];
        if (typeof k === "object" && k.r === "legend" && k.n === node.n && !k.c) out.splice(i, 1);
      }
    }
    // Text that names the field beside it (`Last name:` then the field) is shown once,
    // as the field's name, as a <label>'s is.
    for (let i = out.length - 1; i >= 0; i--) {
      const k = out[i];
      if (typeof k !== "object" || !k.a || k.a["named-by"] !== "text") continue;
      const at = TEXT_AFTER_ROLES.has(k.r) ? i + 1 : i - 1;
      if (typeof out[at] === "string" && out[at].replace(/\s*[:*]+$/, "").trim() === k.n) {
        out.splice(at, 1);
        if (at < i) i--;
      }
    }
    if (out.length === 1 && typeof out[0] === "string") {
      if (out[0] !== node.n && node.v === undefined) node.t = out[0];
      return;
    }
    if (out.length) {
      if (node.n && FROM_CONTENT.has(node.r) && out.every((k) => typeof k === "string") && out.join(" ") === node.n) return;
      // A long name made of content that holds more structure is that content, printed
      // below (a layout table's cell holding a whole grid): not written twice.
      if (node.n && FROM_CONTENT.has(node.r) && !node.a && out.some((k) => typeof k === "object") && node.n.length > LONG_NAME) {
        delete node.n;
      }
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
  // `ways`: how a person acts on it (how()); an unnamed one they can click is named from
  // what they see on it.
  function nameOf(el, role, ways) {
    const clickable = ways.includes("clickable");
    if (UNNAMED.has(role)) {
      // A name the author wrote is never dropped, whatever the role (Chromium exposes it).
      const authored = authorName(el);
      if (authored) return [authored, ""];
      if (clickable || ways.includes("focusable")) {
        const title = text(el.getAttribute("title") || "").trim();
        if (title) return [title, "title"];
      }
      if (clickable && !text(el.textContent).trim()) return derivedName(el) || ["", ""];
      return ["", ""];
    }
    let name = "";
    try {
      name = computeAccessibleName(el, nameOptions);
    } catch (e) {
      name = el.getAttribute("aria-label") || el.getAttribute("title") || "";
    }
    // Icon-font glyphs (private use characters) name nothing a person can read.
    name = text(name).replace(/[\uE000-\uF8FF]/g, "").trim();
    if (!name && el.labels && el.labels.length) {
      // A <label> hidden by CSS still names its control (Chromium reads it too).
      name = text([...el.labels].map((l) => l.textContent).join(" ")).trim();
      if (name) return [name, ""];
    }
    if (!name && el.getAttribute("title")) {
      name = text(el.getAttribute("title")).trim();
      if (name) return [name, "title"];
    }
    if (!name && FIELD_ROLES.has(role)) {
      // A field's placeholder names it when nothing else does (Chromium's name too).
      name = text(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder") || "").trim();
      if (name) return [name, ""];
    }
    if (!name && (DERIVE_ROLES.has(role) || (clickable && WRAPPERS.has(role)))) {
      const derived = derivedName(el);
      if (derived) return derived;
    }
    if (!name && FIELD_ROLES.has(role)) {
      const before = textBeside(el, "previous");
      if (before) return [before, "text"];
    }
    if (!name && TEXT_AFTER_ROLES.has(role)) {
      const after = textBeside(el, "next");
      if (after) return [after, "text"];
    }
    return [name, ""];
  }

  // `el`'s name is read from `source`: a change in `source` re-reads `el`.
  function depends(source, el) {
    const list = labelledBy.get(source) || [];
    if (!list.includes(el)) list.push(el);
    labelledBy.set(source, list);
  }

  // aria-labelledby's text, else aria-label: the name an author gave an element.
  function authorName(el) {
    const ids = el.getAttribute("aria-labelledby");
    if (ids) {
      const root = el.getRootNode();
      const parts = [];
      for (const id of ids.split(/\s+/)) {
        const target = id && root.getElementById ? root.getElementById(id) : null;
        if (target && target !== el) parts.push(target.getAttribute("aria-label") || target.textContent || "");
      }
      const joined = text(parts.join(" ")).trim();
      if (joined) return joined;
    }
    return text(el.getAttribute("aria-label") || "").trim();
  }

  // The text a person reads right before (or after) an unlabelled field in its box:
  // "Last name:" then the field. Only text, never across another control; up through
  // wrappers that hold nothing else. A trailing colon or asterisk is dropped.
  function textBeside(el, side) {
    const sibling = side === "previous" ? "previousSibling" : "nextSibling";
    let e = el;
    for (let depth = 0; depth < 3 && e; depth++) {
      for (let n = e[sibling]; n; n = n[sibling]) {
        let found = "";
        if (n.nodeType === 3) found = n.data;
        else if (n.nodeType === 1) {
          if (SKIP.has(n.localName) || style(n).display === "none") continue;
          if (n.matches(INNER_CONTROLS) || n.querySelector(INNER_CONTROLS)) return "";
          found = n.textContent;
        } else continue;
        found = text(found).trim().replace(/\s*[:*]+$/, "").trim();
        if (found && found.length <= 50) {
          // A change of that text re-reads the field, as a change of its label would.
          const source = n.nodeType === 1 ? n : n.parentElement;
          if (source) depends(source, el);
          return found;
        }
        if (found) return "";
      }
      const p = parentOf(e);
      if (!p || p === document.body || p.querySelectorAll(INNER_CONTROLS).length > 1) return "";
      e = p;
    }
    return "";
  }

  function describe(el, tag, role, s, node, parentCursor) {
    const a = {};
    const ways = how(el, tag, role, s, parentCursor);
    if (ways.length) node.h = ways;
    const [name, namedBy] = nameOf(el, role, ways);
    if (namedBy) a["named-by"] = namedBy;
    if (name) node.n = name;
    const refs = el.getAttribute("aria-labelledby");
    if (refs) {
      for (const id of refs.split(/\s+/)) {
        const target = id && el.getRootNode().getElementById && el.getRootNode().getElementById(id);
        if (target) depends(target, el);
      }
    }
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
        if (role !== "spinbutton") a.value = String(el.value); // a spin field shows it as its text
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
      if (role === "slider" && a.value === undefined && a.valuetext === undefined && !el.hasAttribute("role") && tag !== "input") {
        sliderState(el, a);
      }
      if (tag === "input" || a.value !== undefined || a.valuetext !== undefined) node.leaf = true;
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
      a.multiline = "";
      // An editor of several blocks shows them, each one a paragraph a person can click
      // into or select; one of a single block shows its text as its value.
      if (blocksIn(el) < 2) {
        const t = el.innerText;
        node.v = t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "…" : t.replace(/\n$/, "");
        node.leaf = true;
      }
    } else if (aria("aria-multiline") === "true") {
      a.multiline = "";
    }
    function aria(n) {
      return el.getAttribute(n);
    }
  }

  // A field whose value must never leave the page: a password, or one the page marks as
  // a secret (autocomplete, masked text).
  function blocksIn(el) {
    let n = 0;
    for (const c of el.children) if (!SKIP.has(c.localName) && !style(c).display.startsWith("inline") && style(c).display !== "none") n++;
    return n;
  }

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
      if (s.display !== "none") children(root, s.cursor, kids);
    }
    const node = { i: 0, r: "document" };
    tidy(kids, node);
    if (node.t !== undefined) {
      node.c = [node.t];
      delete node.t;
    }
    return node;
  }

  // An element's name as a read would show it now.
  function nameNow(el) {
    const tag = el.localName;
    const s = style(el);
    const parent = parentOf(el);
    const role = roleOf(el, tag, s);
    return nameOf(el, role, how(el, tag, role, s, parent ? style(parent).cursor : ""))[0];
  }

  function readOne(el) {
    const parent = parentOf(el);
    const out = [];
    read(el, parent ? style(parent).cursor : "", out);
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
    controlsIn = new Map();
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
    const saved = LABELABLE_PROTOS.map((p) => getOwn(p, "labels"));
    try {
      for (const p of LABELABLE_PROTOS) define(p, "labels", indexed);
      return work();
    } finally {
      LABELABLE_PROTOS.forEach((p, i) => {
        if (saved[i]) define(p, "labels", saved[i]);
        else delete p.labels;
      });
    }
  }

  function whole_() {
    whole = false;
    dirty = new Set();
    hovered = new Set();
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
    if (!dirty.size && !hovered.size) return { doc: docId, whole: false, patches: [], mutations, title: document.title };
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
    for (const h of hovered) {
      const r = h.isConnected ? patchRoot(h) : null;
      if (r && r !== document.documentElement && r !== document.body && r.getElementsByTagName("*").length <= HOVER_MAX_NODES) {
        roots.add(r);
      }
    }
    dirty = new Set();
    hovered = new Set();
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

  // Work the page queued for its next frame or the next few ms, which a settle waits for:
  // animation-frame callbacks, timers due within SOON_MS, and whether a ResizeObserver or
  // IntersectionObserver watches anything (they report in frames). The model's own waits
  // use the originals, so they are not counted.
  const SOON_MS = 16;
  const rafs = new Set();
  const soon = new Set();
  let observing = false;
  const raf_ = window.requestAnimationFrame;
  const caf_ = window.cancelAnimationFrame;
  const setTimeout_ = window.setTimeout;
  const clearTimeout_ = window.clearTimeout;
  const clearInterval_ = window.clearInterval;
  window.requestAnimationFrame = function (cb) {
    if (typeof cb !== "function") return raf_.call(window, cb);
    const id = raf_.call(window, (t) => {
      rafs.delete(id);
      return cb(t);
    });
    rafs.add(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) {
    rafs.delete(id);
    return caf_.call(window, id);
  };
  window.setTimeout = function (cb, ms, ...args) {
    if (typeof cb !== "function" || !((+ms || 0) <= SOON_MS)) return setTimeout_.call(window, cb, ms, ...args);
    const id = setTimeout_.call(window, function (...a) {
      soon.delete(id);
      return cb.apply(this, a);
    }, ms, ...args);
    soon.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    soon.delete(id);
    return clearTimeout_.call(window, id);
  };
  window.clearInterval = function (id) {
    soon.delete(id); // the two share their ids
    return clearInterval_.call(window, id);
  };
  // Messages a page posts to itself to run work in a task of its own (React's scheduler
  // through a MessageChannel, setImmediate polyfills through window.postMessage): each
  // is pending until its port or window gets it.
  let messages = 0;
  const received = () => {
    messages = Math.max(0, messages - 1);
  };
  // (A subclass, so `new` is required, instanceof holds and a page's own subclass of it
  // works. A message posted to a port that never listens keeps the count up: that page
  // settles on frames, as before.)
  const MessageChannel_ = window.MessageChannel;
  if (MessageChannel_) {
    const Channel = class MessageChannel extends MessageChannel_ {
      constructor() {
        super();
        for (const [port, other] of [[this.port1, this.port2], [this.port2, this.port1]]) {
          const post = port.postMessage;
          port.postMessage = function (...args) {
            const sent = post.apply(this, args);
            messages++;
            return sent;
          };
          other.addEventListener("message", received);
        }
      }
    };
    window.MessageChannel = Channel;
  }
  const postMessage_ = window.postMessage;
  window.postMessage = function (...args) {
    const sent = postMessage_.apply(this, args);
    if (this === window || this === undefined) messages++; // to itself: it comes back
    return sent;
  };
  window.addEventListener("message", (event) => {
    if (event.source === window) received();
  }, true);
  for (const Observer of [window.ResizeObserver, window.IntersectionObserver]) {
    if (!Observer) continue;
    const observe_ = Observer.prototype.observe;
    Observer.prototype.observe = function (...args) {
      observing = true;
      return observe_.apply(this, args);
    };
  }
  // A navigation to another document the page started (a link, a form's submission, a
  // script setting location): the document is on its way out, so it is not quiet until it
  // goes (a settle waits for that, at most its time) unless the page cancelled it.
  let leaving = null;
  // A navigation the page takes over (intercept(): a single-page app's route) ends with
  // navigatesuccess or navigateerror; a download does not leave.
  if (window.navigation) {
    window.navigation.addEventListener("navigate", (event) => {
      if (!event.destination.sameDocument && !event.downloadRequest) leaving = event;
    });
    for (const type of ["navigatesuccess", "navigateerror"]) {
      window.navigation.addEventListener(type, () => (leaving = null));
    }
  }
  // A form's submission navigates in a task of its own, after its submit event: that
  // event says the document is on its way out (unless the page cancels it, or the form
  // goes to another window or is a dialog's). Attributes, not properties: a field named
  // "method" or "target" hides the form's own.
  window.addEventListener("submit", (event) => {
    try {
      const form = event.target;
      const by = event.submitter;
      const attr = (name, own) =>
        ((by && by.getAttribute(own)) || form.getAttribute(name) || "").toLowerCase();
      if (attr("method", "formmethod") !== "dialog" && ["", "_self"].includes(attr("target", "formtarget")))
        leaving = event;
    } catch (err) {
      // not a form this model can read: settle as for any page
    }
  }, true);
  const goingAway = () => leaving !== null && !leaving.defaultPrevented;
  const queued = () =>
    rafs.size > 0 || soon.size > 0 || messages > 0 || inflight > 0 || observing || goingAway();

  // Resolves once the page is quiet, or at `maxMs`: the time it waited, in ms. Quiet: a
  // frame went by with no mutation and no request in flight. When the page has queued
  // nothing (above) and `frame` is not asked for, it is quiet now: what the action did is
  // done, and a frame would only paint it. `frame`: wait for one anyway (scroll events
  // fire in frames).
  function settle(maxMs, frame) {
    const start = performance.now();
    // A frame, or 50 ms where frames do not come (a hidden tab), then a task.
    const nextFrame = (f) => {
      let gone = false;
      const go = () => {
        if (!gone) {
          gone = true;
          setTimeout_.call(window, f, 0);
        }
      };
      raf_.call(window, go);
      setTimeout_.call(window, go, 50);
    };
    return new Promise((resolve) => {
      let seen = mutations;
      const tick = () => {
        const now = performance.now();
        const quiet = mutations === seen && inflight <= 0 && !goingAway();
        if (quiet || now - start >= maxMs) {
          leaving = null; // a navigation that did not go by now (a download, a 204) is not
          resolve(Math.round(now - start));
          return;
        }
        seen = mutations;
        nextFrame(tick);
      };
      if (!frame && !queued()) {
        resolve(0); // this call is a task after the action's: its handlers have run
        return;
      }
      // A frame first: handlers the action queued, and what they render, run in it.
      nextFrame(tick);
    });
  }

  const api = {
    doc: docId,
    read: (force) => {
      const found = withLabelIndex(() => readChanges(force));
      return found && toJSON(found);
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
        const now = withLabelIndex(() => nameNow(el));
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
      return out.length === 1 && typeof out[0] === "object" ? toJSON(out[0]) : null;
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
    // The mutation count when `el` last got the focus (null: not since the model began).
    focusedAt: (el) => (focusedAt.has(el) ? focusedAt.get(el) : null),
    settle,
  };
  registry.add(document, api);
  return api;
}

install();
