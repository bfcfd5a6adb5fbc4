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
  await chrome.storage.local.set(values);
  document.getElementById("status").textContent = "Saved.";
});
