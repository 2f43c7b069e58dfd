// On every page: the service worker (/sw.js) that makes the site an installable app with
// offline play, its "update available" prompt, and the upload of finished offline games
// for a signed-in player (sync.js).

const el = document.querySelector("script[data-offline-register]");
const signedIn = el && el.dataset.signedIn === "1";
const owner = (el && el.dataset.owner) || ""; // whose offline games to upload (stats.js mine)

function showUpdate(reg) {
  if (document.getElementById("sw-update")) return;
  const bar = document.createElement("div");
  bar.id = "sw-update";
  bar.className = "sw-update";
  bar.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = "A new version of the site is available.";
  const btn = document.createElement("button");
  btn.type = "button";
  btn.className = "button button-small";
  btn.textContent = "Update";
  btn.addEventListener("click", () => {
    if (reg.waiting) reg.waiting.postMessage({ type: "skip-waiting" });
    btn.disabled = true;
  });
  const later = document.createElement("button");
  later.type = "button";
  later.className = "button button-small button-secondary";
  later.textContent = "Later";
  later.addEventListener("click", () => bar.remove());
  bar.append(text, " ", btn, " ", later);
  document.body.append(bar);
}

async function register() {
  if (!("serviceWorker" in navigator)) return;
  let reg;
  try {
    reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch (err) {
    return;
  }
  // a new version waits while a page of the old one is open: offer to switch
  if (reg.waiting && navigator.serviceWorker.controller) showUpdate(reg);
  reg.addEventListener("updatefound", () => {
    const w = reg.installing;
    if (!w) return;
    w.addEventListener("statechange", () => {
      if (w.state === "installed" && navigator.serviceWorker.controller) showUpdate(reg);
    });
  });
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading || !document.getElementById("sw-update")) return;
    reloading = true;
    window.location.reload();
  });
}

register();
if (signedIn) {
  import("./sync.js").then((m) => {
    m.syncPending(owner);
    window.addEventListener("online", () => m.syncPending(owner));
  });
}
