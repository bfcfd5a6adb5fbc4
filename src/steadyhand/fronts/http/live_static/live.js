// The live view's page: sessions, a session's live screen, its timeline, approvals,
// take over and hand back. Plain JS, no build step; it talks only to /live/api/*.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  csrf: null, canDecide: true, session: null, screen: null, meta: null,
  frames: 0, taken: false, boxesShown: false, sending: Promise.resolve(), lastFeed: 0,
};

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: {"content-type": "application/json", "x-steadyhand-csrf": state.csrf || ""},
    body: JSON.stringify(body),
  };
  const response = await fetch("/live/api/" + path, init);
  if (response.status === 401) { location.href = "/login"; throw new Error("logged out"); }
  const reply = await response.json();
  if (!reply.ok) {
    const error = new Error(reply.error.message + (reply.error.hint ? " — " + reply.error.hint : ""));
    error.code = reply.error.code;
    throw error;
  }
  return reply.result;
}

function say(text, bad) {
  const status = $("status");
  status.textContent = text;
  status.className = bad ? "bad" : "";
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === "") continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function age(ts) {
  if (!ts) return "";
  const s = Math.max(0, Date.now() / 1000 - ts);
  if (s < 60) return Math.round(s) + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  return Math.round(s / 3600) + " h ago";
}

function clock(ts) {
  return new Date(ts * 1000).toLocaleTimeString([], {hour12: false});
}

// ---------------------------------------------------------------- sessions

async function refreshSessions() {
  let listing;
  try { listing = await api("sessions"); } catch (error) { say(error.message, true); return; }
  const list = $("sessions");
  list.replaceChildren();
  for (const s of listing.sessions) list.append(sessionItem(s));
  list.append(el("li", {class: "desktop"},
    el("button", {type: "button", onclick: () => select("desktop")}, "desktop"),
    el("span", {class: "facts"}, "the X screen and its events")));
  const current = listing.sessions.find((s) => s.name === state.session);
  if (current) showState(current);
}

function sessionItem(s) {
  const facts = [s.status, s.tabs.length + (s.tabs.length === 1 ? " tab" : " tabs")];
  if (s.last_action) {
    const a = s.last_action;
    facts.push("last: " + a.command + (a.ok ? "" : " ✗ " + (a.error_code || "")) + " " + age(a.at));
  }
  if (s.health && s.health.state) facts.push("health " + s.health.state);
  if (s.checkpoint_at) facts.push("checkpoint " + age(s.checkpoint_at));
  if (s.owner) facts.push("on " + s.owner);
  const item = el("li", {class: s.name === state.session ? "selected" : ""},
    el("button", {type: "button", onclick: () => select(s.name)}, s.name),
    s.taken_over ? el("span", {class: "badge"}, "taken over") : null,
    el("span", {class: "facts"}, facts.join(" · ")));
  return item;
}

function showTaken(taken) {
  state.taken = taken;
  $("takeover").hidden = taken;
  $("handback").hidden = !taken;
  $("takeover-help").hidden = !taken;
  $("screen-wrap").classList.toggle("driving", taken);
}

function showState(s) {
  state.taken = Boolean(s.taken_over);
  $("session-state").textContent = s.status + (s.tabs.length ? " · " + s.tabs.length + " tab(s)" : "");
  $("takeover").hidden = state.taken;
  $("handback").hidden = !state.taken;
  $("takeover-help").hidden = !state.taken;
  $("screen-wrap").classList.toggle("driving", state.taken);
}

async function select(name) {
  state.session = name;
  state.frames = 0;
  state.meta = null;
  $("session").hidden = false;
  $("session-name").textContent = name;
  $("screen").removeAttribute("src");
  $("screen").dataset.frames = "0";
  $("overlay").replaceChildren();
  $("boxes").checked = false;
  state.boxesShown = false;
  const desktop = name === "desktop";
  showTaken(false);
  $("boxes").parentElement.hidden = desktop;
  for (const li of $("sessions").children) {
    li.classList.toggle("selected", li.querySelector("button").textContent === name);
  }
  watchScreen(name);
  await loadTimeline(name);
  if (!desktop) await refreshSessions();
  openFeed();
}

// ---------------------------------------------------------------- live screen

function watchScreen(name) {
  if (state.screen) state.screen.close();
  const source = new EventSource("/live/api/screen?session=" + encodeURIComponent(name));
  state.screen = source;
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.kind === "frame") {
      state.meta = event;
      state.frames += 1;
      const img = $("screen");
      img.src = "data:" + event.mime + ";base64," + event.data;
      img.dataset.frames = String(state.frames);
      $("screen-info").textContent = (event.tab || "") + " · " + state.frames + " frames";
    } else if (event.kind === "tab") {
      $("screen-info").textContent = event.tab + " · " + event.url;
      if (state.boxesShown) drawBoxes();
    } else if (event.kind === "end" || event.kind === "error") {
      $("screen-info").textContent = event.why || event.message || "the screen ended";
      source.close();
    }
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) $("screen-info").textContent = "no screen";
  };
}

function toCss(clientX, clientY) {
  const img = $("screen");
  const rect = img.getBoundingClientRect();
  const meta = state.meta;
  if (!meta || !rect.width || !rect.height) return null;
  const x = ((clientX - rect.left) * meta.css_width) / rect.width;
  const y = ((clientY - rect.top) * meta.css_height) / rect.height - (meta.offset_top || 0);
  return {x: Math.max(0, Math.round(x)), y: Math.max(0, Math.round(y))};
}

function send(events) {
  // In order, one request at a time: a click lands before the text typed after it.
  const session = state.session;
  const body = session === "desktop" ? {desktop: true, events} : {session, events};
  state.sending = state.sending.then(() => api("input", body)).catch((error) => say(error.message, true));
  return state.sending;
}

// Mouse buttons go as they happen (down, moves while held, up), with the click count:
// a double click or a drag on the screen is one on the page.
let lastMove = 0;
function onScreenMouse(event) {
  if (!state.taken) return;
  event.preventDefault();
  $("screen-wrap").focus();
  const point = toCss(event.clientX, event.clientY);
  if (!point) return;
  const button = ["left", "middle", "right"][event.button] || "left";
  if (event.type === "mousemove") {
    if (!event.buttons || Date.now() - lastMove < 50) return;
    lastMove = Date.now();
    send([{type: "move", x: point.x, y: point.y}]);
  } else {
    const type = event.type === "mousedown" ? "down" : "up";
    send([{type, x: point.x, y: point.y, button, count: Math.min(3, Math.max(1, event.detail))}]);
  }
}

function onScreenPaste(event) {
  if (!state.taken) return;
  event.preventDefault();
  const text = event.clipboardData.getData("text");
  if (text) send([{type: "text", text}]);
}

function onScreenKey(event) {
  if (!state.taken) return;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "v") return;  // a paste
  event.preventDefault();
  const mods = [];
  if (event.altKey) mods.push("Alt");
  if (event.ctrlKey) mods.push("Control");
  if (event.metaKey) mods.push("Meta");
  if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
    send([{type: "text", text: event.key}]);
  } else if (!["Shift", "Control", "Alt", "Meta"].includes(event.key)) {
    if (event.shiftKey && event.key.length > 1) mods.push("Shift");
    send([{type: "key", key: event.key, modifiers: mods}]);
  }
}

function onScreenWheel(event) {
  if (!state.taken) return;
  event.preventDefault();
  const point = toCss(event.clientX, event.clientY);
  if (point) send([{type: "wheel", x: point.x, y: point.y, dx: event.deltaX, dy: event.deltaY}]);
}

async function drawBoxes() {
  const overlay = $("overlay");
  overlay.replaceChildren();
  if (!state.boxesShown || state.session === "desktop") return;
  let found;
  try { found = await api("boxes?session=" + encodeURIComponent(state.session)); }
  catch (error) { say(error.message, true); return; }
  const meta = state.meta || {css_width: 1280, css_height: 720};
  for (const b of found.boxes) {
    const [x, y, w, h] = b.box;
    overlay.append(el("div", {
      class: "box", title: b.role + " " + JSON.stringify(b.name),
      style: `left:${(100 * x) / meta.css_width}%;top:${(100 * y) / meta.css_height}%;` +
        `width:${(100 * w) / meta.css_width}%;height:${(100 * h) / meta.css_height}%`,
    }, el("span", {}, b.ref)));
  }
}

// ---------------------------------------------------------------- timeline

async function loadTimeline(name) {
  const list = $("timeline");
  list.replaceChildren();
  try {
    const found = await api("actions?limit=100&session=" + encodeURIComponent(name));
    for (const row of found.actions) list.prepend(actionItem(row));
    if (name === "desktop" && state.session === "desktop") showTaken(Boolean(found.taken_over));
  } catch (error) { say(error.message, true); }
}

function actionItem(row) {
  const item = el("li", {class: row.ok ? "ok" : "failed", "data-id": row.id},
    el("span", {class: "when"}, clock(row.ts)),
    " ", el("strong", {}, row.command),
    row.tab ? el("span", {class: "tab"}, " " + row.tab) : null,
    " ", el("span", {class: "outcome"}, row.ok ? "ok" : row.error_code),
    " ", el("span", {class: "ms"}, Math.round(row.duration_ms) + " ms"),
    row.retries ? " · " + row.retries + " retries" : null);
  if (row.part_of) item.append(el("p", {class: "part-of"}, row.part_of));
  const params = Object.keys(row.params || {}).length ? JSON.stringify(row.params) : "";
  if (params) item.append(el("code", {class: "params"}, params));
  if (!row.ok && row.error_message) item.append(el("p", {class: "error"}, row.error_message));
  if (!row.ok && row.hint) item.append(el("p", {class: "hint"}, row.hint));
  for (const path of row.artifacts || []) {
    if (!/\.(png|jpe?g)$/i.test(path)) continue;
    const src = "/live/api/artifact?path=" + encodeURIComponent(path);
    item.append(el("a", {href: src, target: "_blank", class: "shot"},
      el("img", {src, alt: "screenshot " + path.split("/").pop(), loading: "lazy"})));
  }
  return item;
}

function desktopItem(event) {
  const what = [event.app, event.role, event.name, event.detail].filter(Boolean).join(" · ");
  return el("li", {class: "event"}, el("span", {class: "when"}, clock(event.ts)),
    " ", el("strong", {}, event.event), " ", what);
}

function belongs(event) {
  if (state.session === "desktop") return (event.command || "").startsWith("desktop.");
  return event.session === state.session;
}

// ---------------------------------------------------------------- feed and approvals

function openFeed() {
  const desktop = state.session === "desktop";
  if (state.feed && state.feedDesktop === desktop) return;
  if (state.feed) state.feed.close();
  state.feedDesktop = desktop;
  const feed = new EventSource("/live/api/feed" + (desktop ? "?desktop=1" : ""));
  state.feed = feed;
  feed.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.kind === "action") {
      if (belongs(event)) $("timeline").prepend(actionItem(event));
      soon(refreshSessions);
    } else if (event.kind === "desktop") {
      if (state.session === "desktop") $("timeline").prepend(desktopItem(event));
    } else if (event.kind === "approval") {
      refreshApprovals();
      if (event.status === "pending") notify(event);
    } else if (event.kind === "takeover" || event.kind === "handback") {
      refreshSessions();
    } else if (event.kind === "gap" && state.session) {
      loadTimeline(state.session);
    } else if (event.kind === "error") {
      say(event.message, true);
    }
  };
}

let pendingRefresh = null;
function soon(task) {
  if (pendingRefresh) return;
  pendingRefresh = setTimeout(() => { pendingRefresh = null; task(); }, 300);
}

async function refreshApprovals() {
  let listing;
  try { listing = await api("approvals"); } catch (error) { say(error.message, true); return; }
  const list = $("approvals");
  list.replaceChildren();
  const pending = listing.approvals.filter((a) => a.status === "pending");
  $("pending-count").textContent = pending.length ? "(" + pending.length + " waiting)" : "";
  document.title = (pending.length ? "(" + pending.length + ") " : "") + "steadyhand live";
  for (const a of pending) {
    const decide = (verb) => async () => {
      try { await api(verb, {id: a.id}); say(verb === "approve" ? "approved " + a.id : "denied " + a.id); }
      catch (error) { say(error.message, true); }
      refreshApprovals();
    };
    list.append(el("li", {class: "approval", "data-id": a.id},
      el("strong", {}, a.command), " ", el("span", {class: "target"}, a.target),
      el("p", {}, a.reason + (a.session ? " · session " + a.session : "")),
      state.canDecide ? el("button", {type: "button", class: "approve", "aria-label": "Approve " + a.id, onclick: decide("approve")}, "Approve") : null,
      state.canDecide ? el("button", {type: "button", class: "deny", "aria-label": "Deny " + a.id, onclick: decide("deny")}, "Deny") : null,
      state.canDecide ? null : el("p", {class: "hint"}, "log in with the approver token to decide")));
  }
}

function notify(approval) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const note = new Notification("steadyhand: approval " + approval.id, {
    body: approval.command + " " + approval.target + " — " + approval.reason, tag: approval.id,
  });
  note.onclick = () => window.focus();
}

// ---------------------------------------------------------------- start

async function takeOver() {
  const desktop = state.session === "desktop";
  const reason = "a person took over in the live view";
  try {
    if (desktop) await api("desktop.takeover", {reason});
    else await api("takeover", {session: state.session, reason});
    say("you are driving " + state.session);
    if (desktop) showTaken(true);
  } catch (error) { say(error.message, true); }
  if (!desktop) await refreshSessions();
  $("screen-wrap").focus();
}

async function handBack() {
  try {
    await state.sending;
    const desktop = state.session === "desktop";
    const note = "handed back in the live view";
    const done = desktop ? await api("desktop.handback", {note}) : await api("handback", {session: state.session, note});
    say("handed back after " + done.held_s + " s (" + done.clicks + " clicks, " + done.keys + " keys)");
    if (desktop) showTaken(false);
  } catch (error) { say(error.message, true); }
  if (state.session !== "desktop") await refreshSessions();
}

async function logOut() {
  await fetch("/logout", {method: "POST", headers: {"x-steadyhand-csrf": state.csrf || ""}});
  location.href = "/login";
}

async function start() {
  const me = await api("me");
  state.csrf = me.csrf;
  state.canDecide = me.can_decide;
  $("logout").addEventListener("click", logOut);
  $("takeover").addEventListener("click", takeOver);
  $("handback").addEventListener("click", handBack);
  $("boxes").addEventListener("change", (e) => { state.boxesShown = e.target.checked; drawBoxes(); });
  const wrap = $("screen-wrap");
  for (const kind of ["mousedown", "mouseup", "mousemove"]) wrap.addEventListener(kind, onScreenMouse);
  wrap.addEventListener("contextmenu", (event) => { if (state.taken) event.preventDefault(); });
  wrap.addEventListener("paste", onScreenPaste);
  wrap.addEventListener("keydown", onScreenKey);
  wrap.addEventListener("wheel", onScreenWheel, {passive: false});
  if ("Notification" in window && Notification.permission === "default") {
    $("notify").hidden = false;
    $("notify").addEventListener("click", async () => {
      await Notification.requestPermission();
      $("notify").hidden = true;
    });
  }
  openFeed();
  await Promise.all([refreshSessions(), refreshApprovals()]);
  setInterval(refreshSessions, 5000);
  const wanted = new URLSearchParams(location.search).get("session");
  if (wanted) await select(wanted);
  document.body.dataset.ready = "1";
}

start().catch((error) => say(error.message, true));
