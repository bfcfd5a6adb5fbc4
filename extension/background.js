// steadyhand relay: for the tabs the user attaches (toolbar button), forward the DevTools
// protocol between chrome.debugger and the steadyhand daemon's relay on 127.0.0.1.
//
// Messages with the relay (JSON, one per WebSocket frame):
//   to the relay:   hello {nonce, userAgent} | auth {proof} | attached {tabId, targetInfo}
//                   | detached {tabId, reason} | event {tabId, sessionId?, method, params}
//                   | result {id, result | error} | ping (keeps the service worker alive)
//   from the relay: challenge {nonce, proof} | welcome
//                   | command {id, tabId, sessionId?, method, params} | detach {tabId}
// Pairing: each side proves it holds the token (HMAC-SHA256 of the other's nonce); the
// token itself never travels. The relay must be on this machine (loopback).
//                   | ready {tabId} (the tab is in the daemon's session) | refused {tabId, reason}

const PROTOCOL_VERSION = "1.3";
const attached = new Map(); // tabId -> targetId
let relay = null; // the open, authenticated WebSocket
let connecting = null; // the promise of one being opened
const waiting = new Map(); // tabId -> {resolve, reject} until the relay says ready or refused
const KEEPALIVE_MS = 20000; // WebSocket traffic keeps the service worker alive

function send(message) {
  if (relay && relay.readyState === WebSocket.OPEN) {
    relay.send(JSON.stringify(message));
  }
}

function onThisMachine(url) {
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === "ws:" && ["127.0.0.1", "localhost", "[::1]"].includes(hostname);
  } catch {
    return false;
  }
}

async function proof(token, text) {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw", encoder.encode(token), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  const signed = await crypto.subtle.sign("HMAC", key, encoder.encode(text));
  return [...new Uint8Array(signed)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function connect() {
  if (relay && relay.readyState === WebSocket.OPEN) return relay;
  if (connecting) return connecting;
  const { relayUrl, token } = await chrome.storage.local.get(["relayUrl", "token"]);
  if (!relayUrl || !token) {
    throw new Error("not paired: open the extension's options and enter the relay URL and token");
  }
  if (!onThisMachine(relayUrl)) {
    throw new Error(`the relay URL ${relayUrl} is not ws:// on this machine (127.0.0.1)`);
  }
  const nonce = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  connecting = new Promise((resolve, reject) => {
    const socket = new WebSocket(relayUrl);
    let opened = false;
    let refusal = "";
    socket.onopen = () => {
      opened = true;
      socket.send(JSON.stringify({ type: "hello", nonce, userAgent: navigator.userAgent }));
    };
    socket.onmessage = async (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "challenge") {
        if (message.proof !== (await proof(token, "relay:" + nonce))) {
          refusal = "wrong pairing token: the relay does not prove the token entered here";
          socket.close(4001, "wrong pairing token");
          return;
        }
        socket.send(JSON.stringify({ type: "auth", proof: await proof(token, "extension:" + message.nonce) }));
      } else if (message.type === "welcome") {
        relay = socket;
        const keepalive = setInterval(() => send({ type: "ping" }), KEEPALIVE_MS);
        socket.addEventListener("close", () => clearInterval(keepalive));
        resolve(socket);
      } else {
        onRelayMessage(message);
      }
    };
    socket.onclose = (event) => {
      if (relay === socket) {
        relay = null;
        detachAll("relay closed");
      }
      reject(
        new Error(
          opened
            ? refusal || `relay refused the connection: ${event.reason || event.code}`
            : `no relay at ${relayUrl}: is the daemon running? (steadyhand extension pair)`,
        ),
      );
    };
  }).finally(() => {
    connecting = null;
  });
  return connecting;
}

function onRelayMessage(message) {
  if (message.type === "command") {
    const target = { tabId: message.tabId };
    if (message.sessionId) target.sessionId = message.sessionId;
    chrome.debugger
      .sendCommand(target, message.method, message.params || {})
      .then((result) => send({ type: "result", id: message.id, result: result || {} }))
      .catch((error) =>
        send({ type: "result", id: message.id, error: { message: String(error.message || error) } }),
      );
  } else if (message.type === "detach") {
    detach(message.tabId, "detached by steadyhand");
  } else if (message.type === "ready" || message.type === "refused") {
    const waiter = waiting.get(message.tabId);
    waiting.delete(message.tabId);
    if (waiter && message.type === "ready") waiter.resolve();
    if (waiter && message.type === "refused") waiter.reject(new Error(message.reason));
  }
}

async function showBadge(tabId, on) {
  try {
    await chrome.action.setBadgeText({ tabId, text: on ? "ON" : "" });
    await chrome.action.setTitle({
      tabId,
      title: on ? "steadyhand: attached (click to detach)" : "steadyhand: attach this tab",
    });
  } catch (_closed) {
    // the tab is gone: nothing to show
  }
}

async function attach(tabId, openerTabId) {
  if (attached.has(tabId)) return attached.get(tabId);
  await connect();
  await chrome.debugger.attach({ tabId }, PROTOCOL_VERSION);
  const targets = await chrome.debugger.getTargets();
  const target = targets.find((t) => t.tabId === tabId);
  const tab = await chrome.tabs.get(tabId);
  const targetInfo = {
    targetId: target ? target.id : `tab-${tabId}`,
    type: "page",
    title: tab.title || "",
    url: tab.url || tab.pendingUrl || "",
    attached: true,
    canAccessOpener: false,
  };
  // A tab the page of an attached tab opened: the agent sees it as that page's popup.
  if (openerTabId !== undefined && attached.has(openerTabId)) {
    targetInfo.openerId = attached.get(openerTabId);
  }
  attached.set(tabId, targetInfo.targetId);
  const ready = new Promise((resolve, reject) => waiting.set(tabId, { resolve, reject }));
  send({ type: "attached", tabId, targetInfo });
  try {
    await ready;
  } catch (error) {
    await detach(tabId, "refused by steadyhand");
    throw error;
  }
  await showBadge(tabId, true);
  return targetInfo.targetId;
}

async function detach(tabId, reason) {
  if (!attached.has(tabId)) return;
  attached.delete(tabId);
  const waiter = waiting.get(tabId);
  waiting.delete(tabId);
  if (waiter) waiter.reject(new Error(reason));
  try {
    await chrome.debugger.detach({ tabId });
  } catch (_already) {
    // closed by the user or the tab: already detached
  }
  send({ type: "detached", tabId, reason });
  await showBadge(tabId, false);
}

function detachAll(reason) {
  for (const tabId of [...attached.keys()]) detach(tabId, reason);
}

// The toolbar button: attach the tab, or detach it when it is attached.
async function toggle(tabId) {
  if (attached.has(tabId)) {
    await detach(tabId, "detached by the user");
    return false;
  }
  await attach(tabId);
  return true;
}

chrome.action.onClicked.addListener((tab) => {
  toggle(tab.id).catch(async (error) => {
    await chrome.action.setBadgeText({ tabId: tab.id, text: "ERR" });
    await chrome.action.setTitle({ tabId: tab.id, title: `steadyhand: ${error.message}` });
  });
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (!attached.has(source.tabId)) return;
  send({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params });
});

// The user closed the "is debugging this browser" bar, or the tab went away.
chrome.debugger.onDetach.addListener((source, reason) => {
  if (!attached.has(source.tabId)) return;
  attached.delete(source.tabId);
  const waiter = waiting.get(source.tabId);
  waiting.delete(source.tabId);
  if (waiter) waiter.reject(new Error(reason));
  send({ type: "detached", tabId: source.tabId, reason });
  showBadge(source.tabId, false);
});

// Tabs opened from an attached tab (links with target=_blank, window.open) are attached
// too, so that what the agent's click opened is in its session.
chrome.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId === undefined || !attached.has(tab.openerTabId)) return;
  attach(tab.id, tab.openerTabId).catch(() => showBadge(tab.id, false));
});

// A navigation may reset the tab's badge: show it again while attached.
chrome.tabs.onUpdated.addListener((tabId, change) => {
  if (change.status && attached.has(tabId)) showBadge(tabId, true);
});

// New pairing details: the next attach connects with them (the tabs attached are let go).
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !(changes.relayUrl || changes.token)) return;
  if (relay) relay.close(1000, "pairing changed");
});

// For the options page and tests: the same functions the toolbar button calls.
globalThis.steadyhand = { attach, detach, toggle, attachedTabs: () => [...attached.keys()] };
