// Local statistics of offline games, per mode and computer level (pure: node-tested).

export const MODE_NAMES = {
  classic: "Classic Gin", straight: "Straight Gin", oklahoma: "Oklahoma Gin",
  hollywood: "Hollywood Gin", rummy: "Basic Rummy",
};
export const LEVEL_NAMES = { 1: "Easy", 2: "Medium", 3: "Hard", 4: "Expert" };

/** The games of this device that are ``owner``'s (the signed-in account's id, "" signed
    out): those started under that account and those played signed out (they go to the
    archive of whoever signs in). Another account's games on a shared device are neither
    shown, resumed nor uploaded: they once went to the next account signed in. */
export function mine(docs, owner) {
  return docs.filter((d) => !d.owner || d.owner === owner);
}

/** "win", "loss" or "tie" for the person (seat 0) of a finished saved game. */
export function outcome(doc) {
  const fin = doc.summary || {};
  const places = fin.places || [];
  if (places[0] !== 1) return "loss";
  return fin.winner_seat === 0 ? "win" : "tie";
}

/** Rows {mode, level, played, won, lost, tied, points, best} sorted by mode then level. */
export function offlineStats(docs) {
  const rows = new Map();
  for (const d of docs) {
    if (d.status !== "finished") continue;
    const key = `${d.mode}:${d.level}`;
    const r = rows.get(key) || { mode: d.mode, level: d.level, played: 0, won: 0, lost: 0, tied: 0, points: 0, best: null };
    r.played += 1;
    const o = outcome(d);
    if (o === "win") r.won += 1;
    else if (o === "tie") r.tied += 1;
    else r.lost += 1;
    const scores = (d.summary && d.summary.scores) || [];
    const mine = Number(scores[0] || 0);
    r.points += mine;
    if (o === "win") {
      const others = scores.slice(1).map(Number);
      const margin = mine - Math.max(0, ...others);
      r.best = r.best === null ? margin : Math.max(r.best, margin);
    }
    rows.set(key, r);
  }
  const order = Object.keys(MODE_NAMES);
  return [...rows.values()].sort((a, b) => order.indexOf(a.mode) - order.indexOf(b.mode) || a.level - b.level);
}
