// The pairing page: the relay URL and the token `steadyhand extension pair` printed,
// kept in chrome.storage.local (never synced).
const fields = ["relayUrl", "token"];

chrome.storage.local.get(fields).then((stored) => {
  for (const name of fields) {
    document.getElementById(name).value = stored[name] || "";
  }
});

document.getElementById("save").addEventListener("click", async () => {
  const values = {};
  for (const name of fields) {
    values[name] = document.getElementById(name).value.trim();
  }
  const { protocol, hostname } = URL.canParse(values.relayUrl) ? new URL(values.relayUrl) : {};
  if (protocol !== "ws:" || !["127.0.0.1", "localhost", "[::1]"].includes(hostname)) {
    document.getElementById("status").textContent =
      "Not saved: the relay is ws:// on this machine (127.0.0.1), as `steadyhand extension pair` prints it.";
    return;
  }
  await chrome.storage.local.set(values);
  document.getElementById("status").textContent = "Saved.";
});
