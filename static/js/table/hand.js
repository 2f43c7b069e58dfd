// Ordering the cards of your hand: by rank, by suit, arranged into melds, or your own order.

import { card } from "./cards.js";
import { bestMelds } from "./melds.js";

// Suits alternate colours left to right (black, red, black, red).
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

export const SORT_MODES = ["rank", "suit", "melds", "custom"];

function rankCmp(a, b) {
  const x = card(a);
  const y = card(b);
  return x.rank - y.rank || SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit];
}

function suitCmp(a, b) {
  const x = card(a);
  const y = card(b);
  return SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit] || x.rank - y.rank;
}

/**
 * Sort card texts. "rank" and "suit" are plain sorts; "melds" puts each meld together
 * (runs first by suit, then sets) followed by the deadwood by rank.
 */
export function sortCards(cards, mode) {
  const list = cards.slice();
  if (mode === "rank") return list.sort(rankCmp);
  if (mode === "suit") return list.sort(suitCmp);
  if (mode === "melds") {
    const res = bestMelds(list);
    const melds = res.melds.slice().sort((a, b) => {
      const ka = card(a[0]);
      const kb = card(b[0]);
      const sa = a.every((t) => card(t).rank === ka.rank) ? 1 : 0;
      const sb = b.every((t) => card(t).rank === kb.rank) ? 1 : 0;
      return sa - sb || (sa ? ka.rank - kb.rank : suitCmp(a[0], b[0]));
    });
    return melds.flat().concat(res.deadwoodCards.slice().sort(rankCmp));
  }
  return list;
}

/**
 * Keep the player's own order across updates: cards still held keep their places, cards
 * that left disappear, new cards go to the right end (in rank order among themselves).
 */
export function mergeOrder(previous, hand) {
  const held = new Set(hand);
  const kept = previous.filter((t) => held.has(t));
  const seen = new Set(kept);
  const added = hand.filter((t) => !seen.has(t)).sort(rankCmp);
  return kept.concat(added);
}

/** The hand in display order for a sort mode (``previous`` is the order shown so far). */
export function arrange(previous, hand, mode) {
  if (mode === "custom") return mergeOrder(previous, hand);
  return sortCards(hand, mode);
}

/** Move the card at ``from`` to position ``to`` (a new array). */
export function moveCard(order, from, to) {
  const out = order.slice();
  if (from < 0 || from >= out.length) return out;
  const clamped = Math.max(0, Math.min(out.length - 1, to));
  const [c] = out.splice(from, 1);
  out.splice(clamped, 0, c);
  return out;
}

/** Which meld (index into ``melds``) each card belongs to, or -1 for deadwood. */
export function meldMembership(melds) {
  const m = new Map();
  melds.forEach((meld, i) => meld.forEach((t) => m.set(t, i)));
  return m;
}
