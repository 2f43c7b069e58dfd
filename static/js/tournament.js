// The tournament page's live part (#tournament-live): polls GET <live-url>?v=<version>
// every few seconds while the page is visible, and at once when the notification socket
// says something about this tournament (notify.js re-dispatches its frames as
// `notify:tournament` events). An answer with `html` replaces the live part (server-rendered,
// escaped by the template); one without it means nothing changed. See docs/tournaments.md.

const root = document.getElementById("tournament-live");
const POLL_MS = 5000;
const IDLE_MS = 30000; // finished and cancelled tournaments change rarely
let timer = null;
let busy = false;

function liveUrl() {
  const url = new URL(root.dataset.liveUrl, window.location.href);
  url.searchParams.set("v", root.dataset.version || "0");
  return url;
}

async function refresh() {
  if (busy || document.visibilityState !== "visible") return;
  busy = true;
  try {
    // with no network a request can only fail (an error in the console each time): the
    // next poll, or the browser's "online", tries again
    if (navigator.onLine === false) return;
    const response = await fetch(liveUrl(), {
      headers: { Accept: "application/json" }, credentials: "same-origin",
    });
    if (!response.ok) return;
    const data = await response.json();
    if (typeof data.html === "string" && String(data.version) !== root.dataset.version) {
      const focused = document.activeElement && root.contains(document.activeElement);
      const scroller = root.querySelector(".bracket");
      const scrollLeft = scroller ? scroller.scrollLeft : 0;
      root.innerHTML = data.html;
      toMyMatch();
      const again = root.querySelector(".bracket");
      if (again) again.scrollLeft = scrollLeft;
      window.ginScrollCues?.(root);
      if (focused) root.focus?.();
    }
    root.dataset.version = String(data.version);
    root.dataset.status = data.status;
    // the organiser's "Cancel this tournament" (outside the live part) goes with its end:
    // it stayed on a page left open until the tournament finished (an audit)
    if (data.status === "finished" || data.status === "cancelled") {
      document.querySelector(".tournament-cancel")?.remove();
    }
  } catch {
    // offline for a moment: the next poll tries again
  } finally {
    busy = false;
    schedule();
  }
}

// A match of yours whose table you have not opened yet: go there (the live part marks its
// button; a player back on this page from a finished game would miss it and lose as absent).
function toMyMatch() {
  const open = root.querySelector("a[data-match-unopened]");
  if (open) window.location.assign(open.href);
}

function schedule() {
  clearTimeout(timer);
  const done = root.dataset.status === "finished" || root.dataset.status === "cancelled";
  timer = setTimeout(refresh, done ? IDLE_MS : POLL_MS);
}

if (root) {
  document.addEventListener("notify:tournament", (event) => {
    const frame = event.detail || {};
    if (frame.tournament && String(frame.tournament.id) === root.dataset.tournament) refresh();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  window.addEventListener("online", () => refresh());
  toMyMatch();
  schedule();
}
