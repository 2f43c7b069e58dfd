// Finished offline games go to the signed-in player's archive when the site is reachable:
// each is uploaded once (POST /play/offline/upload/, CSRF-protected), replayed by the
// server's engine and stored as "offline, against the computer" (docs/offline.md). A game
// against the Expert is answered 202 while the server checks its moves: it stays on the
// device, marked ``checking``, and is posted again on a later page until it is stored.

import { mine } from "./stats.js";
import { allGames, saveGame } from "./store.js";

export const UPLOAD_URL = "/play/offline/upload/";

function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

let running = null;

/** Upload every finished game of ``owner`` (stats.js ``mine``) not yet stored; returns
    {sent, refused, pending, checking, signedOut}. */
export function syncPending(owner) {
  if (!running) running = doSync(owner).finally(() => { running = null; });
  return running;
}

async function doSync(owner) {
  const out = { sent: 0, refused: 0, pending: 0, checking: 0, signedOut: false };
  if (!("indexedDB" in window)) return out;
  let games;
  try {
    games = mine(await allGames(), owner)
      .filter((g) => g.status === "finished" && g.record && !g.synced && !g.refused);
  } catch (err) {
    return out;
  }
  for (const g of games) {
    if (!navigator.onLine) { out.pending += 1; continue; }
    let resp;
    try {
      resp = await fetch(UPLOAD_URL, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(g.record),
      });
    } catch (err) {
      out.pending += 1; // the server is unreachable: next time
      continue;
    }
    let body = {};
    try { body = await resp.json(); } catch (err) { body = {}; }
    if (resp.status === 202 && body.ok) {
      // being checked by the server (the Expert's moves): kept, and posted again later
      if (!g.checking) await saveGame({ ...g, checking: true });
      out.checking += 1;
    } else if (resp.ok && body.ok) {
      // the archive has it now: keep only what the local statistics read
      const { state, record, timestamps, checking, ...kept } = g;
      await saveGame({ ...kept, synced: true, game_url: body.game && body.game.url });
      out.sent += 1;
    } else if (resp.status === 401 || resp.status === 403) {
      out.signedOut = true;
      out.pending += 1;
      break;
    } else if (resp.status >= 400 && resp.status < 500 && resp.status !== 429) {
      // refused for good (the reason is kept and shown on the offline page)
      await saveGame({ ...g, refused: (body.error && body.error.message) || `HTTP ${resp.status}` });
      out.refused += 1;
    } else {
      out.pending += 1;
    }
  }
  return out;
}
