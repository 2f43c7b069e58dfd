// Exact meld arithmetic for the browser (the server's engine stays the referee):
// the lowest-deadwood arrangement of a hand, lay-off targets and the best lay-offs.
// Hands here are small (at most 11 cards), so an exhaustive search is instant.

import { card } from "./cards.js";

function byRank(a, b) {
  return a.rank - b.rank || a.suitIndex - b.suitIndex;
}

/** "set", "run" or null for a list of card texts. */
export function meldKind(texts) {
  if (!texts || texts.length < 3) return null;
  const cs = texts.map(card);
  if (new Set(cs.map((c) => c.text)).size !== cs.length) return null;
  if (cs.length <= 4 && cs.every((c) => c.rank === cs[0].rank)) return "set";
  if (cs.every((c) => c.suit === cs[0].suit)) {
    const rs = cs.map((c) => c.rank).sort((a, b) => a - b);
    for (let i = 1; i < rs.length; i++) if (rs[i] !== rs[i - 1] + 1) return null;
    return "run";
  }
  return null;
}

/** Order a meld's cards for display: runs by rank, sets by suit. */
export function sortMeld(texts) {
  const cs = texts.map(card);
  if (meldKind(texts) === "set") cs.sort((a, b) => a.suitIndex - b.suitIndex);
  else cs.sort(byRank);
  return cs.map((c) => c.text);
}

/** Can ``text`` be added to the meld ``meldTexts`` (extend a run at either end, or a set of 3)? */
export function canAttach(meldTexts, text) {
  const c = card(text);
  const kind = meldKind(meldTexts);
  const cs = meldTexts.map(card);
  if (cs.some((m) => m.text === c.text)) return false;
  if (kind === "set") return cs.length === 3 && c.rank === cs[0].rank;
  if (kind === "run") {
    if (c.suit !== cs[0].suit) return false;
    const rs = cs.map((m) => m.rank);
    return c.rank === Math.min(...rs) - 1 || c.rank === Math.max(...rs) + 1;
  }
  return false;
}

/** Every meld (as arrays of positions into ``cs``) that can be made from the cards. */
function candidateMelds(cs) {
  const out = [];
  const byRankMap = new Map();
  cs.forEach((c, i) => {
    if (!byRankMap.has(c.rank)) byRankMap.set(c.rank, []);
    byRankMap.get(c.rank).push(i);
  });
  for (const idx of byRankMap.values()) {
    if (idx.length >= 3) {
      if (idx.length === 4) {
        out.push(idx.slice());
        for (let skip = 0; skip < 4; skip++) out.push(idx.filter((_, k) => k !== skip));
      } else {
        out.push(idx.slice());
      }
    }
  }
  for (const suit of "CDHS") {
    const pos = new Map();
    cs.forEach((c, i) => {
      if (c.suit === suit) pos.set(c.rank, i);
    });
    for (let lo = 1; lo <= 11; lo++) {
      if (!pos.has(lo)) continue;
      const run = [pos.get(lo)];
      for (let r = lo + 1; r <= 13 && pos.has(r); r++) {
        run.push(pos.get(r));
        if (run.length >= 3) out.push(run.slice());
      }
    }
  }
  return out.map((idx) => {
    let mask = 0;
    for (const i of idx) mask |= 1 << i;
    return { idx, mask };
  });
}

/**
 * The arrangement with the lowest deadwood count.
 * Returns {melds: [[texts]], deadwoodCards: [texts], deadwood}. Ties prefer fewer deadwood cards.
 */
export function bestMelds(texts) {
  const cs = texts.map(card);
  const n = cs.length;
  if (n > 20) throw new Error("too many cards for the exhaustive meld search");
  const cands = candidateMelds(cs);
  const byCard = Array.from({ length: n }, () => []);
  // each meld is filed under its lowest position, so the search decides cards left to right
  for (const m of cands) byCard[Math.min(...m.idx)].push(m);
  let best = { dw: Infinity, dwCount: Infinity, melds: [] };
  const chosen = [];
  function rec(used, i, dw, dwCount) {
    if (dw > best.dw) return;
    while (i < n && used & (1 << i)) i++;
    if (i >= n) {
      if (dw < best.dw || (dw === best.dw && dwCount < best.dwCount)) {
        best = { dw, dwCount, melds: chosen.slice() };
      }
      return;
    }
    for (const m of byCard[i]) {
      if (m.mask & used) continue;
      chosen.push(m);
      rec(used | m.mask, i + 1, dw, dwCount);
      chosen.pop();
    }
    rec(used | (1 << i), i + 1, dw + cs[i].value, dwCount + 1);
  }
  rec(0, 0, 0, 0);
  let melded = 0;
  const melds = best.melds.map((m) => {
    melded |= m.mask;
    return sortMeld(m.idx.map((i) => cs[i].text));
  });
  melds.sort((a, b) => card(a[0]).rank - card(b[0]).rank || card(a[0]).suitIndex - card(b[0]).suitIndex);
  const deadwoodCards = cs
    .map((c, i) => ({ c, i }))
    .filter(({ i }) => !(melded & (1 << i)))
    .map(({ c }) => c)
    .sort(byRank)
    .map((c) => c.text);
  const deadwood = deadwoodCards.reduce((s, t) => s + card(t).value, 0);
  return { melds, deadwoodCards, deadwood: n ? deadwood : 0 };
}

export function deadwoodOf(texts) {
  return bestMelds(texts).deadwood;
}

/**
 * Lay ``cards`` (in this order, each may make room for the next) onto ``tableMelds``.
 * Returns [[card, meldIndex], ...] or null when some card finds no place.
 */
export function placeLayoffs(cards, tableMelds) {
  const melds = tableMelds.map((m) => m.slice());
  const left = cards.slice();
  const placed = [];
  let progress = true;
  while (left.length && progress) {
    progress = false;
    for (let k = 0; k < left.length; k++) {
      const t = left[k];
      const i = melds.findIndex((m) => canAttach(m, t));
      if (i >= 0) {
        melds[i].push(t);
        placed.push([t, i]);
        left.splice(k, 1);
        progress = true;
        break;
      }
    }
  }
  return left.length ? null : placed;
}

/**
 * The defender's best lay-offs onto the knocker's melds: the subset of cards to lay off and
 * the arrangement of the rest that give the lowest deadwood (ties: fewer cards laid off).
 * Returns {layoffs: [[card, meldIndex]], melds, deadwoodCards, deadwood}.
 */
export function bestLayoffs(hand, tableMelds) {
  // cards that could ever be laid off (directly or after other lay-offs)
  const reach = [];
  const grown = tableMelds.map((m) => m.slice());
  let more = true;
  while (more) {
    more = false;
    for (const t of hand) {
      if (reach.includes(t)) continue;
      const i = grown.findIndex((m) => canAttach(m, t));
      if (i >= 0) {
        grown[i].push(t);
        reach.push(t);
        more = true;
      }
    }
  }
  let best = null;
  const total = 1 << reach.length;
  for (let mask = 0; mask < total; mask++) {
    const chosen = reach.filter((_, k) => mask & (1 << k));
    const placed = placeLayoffs(chosen, tableMelds);
    if (!placed) continue;
    const rest = hand.filter((t) => !chosen.includes(t));
    const res = bestMelds(rest);
    if (
      !best ||
      res.deadwood < best.deadwood ||
      (res.deadwood === best.deadwood && placed.length < best.layoffs.length)
    ) {
      best = { layoffs: placed, ...res };
    }
  }
  return best;
}
