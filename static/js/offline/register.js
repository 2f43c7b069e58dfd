// On every page: the service worker (/sw.js) that makes the site an installable app with
// offline play, its "update available" prompt, and the upload of finished offline games
// for a signed-in player (sync.js).

const el = document.querySelector("script[data-offline-register]");
const signedIn = el && el.dataset.signedIn === "1";
const owner = (el && el.dataset.owner) || ""; // whose offline games to upload (stats.js mine)

let updateAsked = false; // this page's "Update" was pressed

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
    updateAsked = true;
    btn.disabled = true;
    // the new version may already have taken over (another tab updated, or every page of
    // the old one closed): then this page only has to load it
    if (reg.waiting) reg.waiting.postMessage({ type: "skip-waiting" });
    else window.location.reload();
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
  // Only the page whose player pressed "Update" reloads. A new worker also takes over on
  // its own (when another tab updates, or on a navigation once no other page of the old
  // version is open), and a reload then would throw away what the page shows (a new API
  // token is shown once) or what was being written.
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading || !updateAsked) return;
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
