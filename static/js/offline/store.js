// Offline games in IndexedDB: one record per game, keyed by its UUID, holding the engine's
// own serialised state (games/local/table.py's saved game) and whether it was uploaded.

import { mine } from "./stats.js";

const DB = "gin-offline";
const STORE = "games";

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: "id" });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const out = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(out && "result" in out ? out.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export const saveGame = (doc) => run("readwrite", (s) => s.put(doc));
export const getGame = (id) => run("readonly", (s) => s.get(id));
export const allGames = () => run("readonly", (s) => s.getAll());
export const deleteGame = (id) => run("readwrite", (s) => s.delete(id));

/** The game in progress most recently played, or null. */
export async function currentGame(owner) {
  const games = mine(await allGames(), owner).filter((g) => g.status === "playing");
  games.sort((a, b) => (b.updated_at || 0) - (a.updated_at || 0));
  return games[0] || null;
}
