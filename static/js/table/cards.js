// Cards: text forms ("TD" = ten of diamonds, as the engine spells them), labels for people
// and screen readers, and crisp scalable card faces drawn as SVG (no images, no fonts).

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";
const RANK_LABELS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_NAMES = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"];
export const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

const cache = new Map();

/** Parse "TD" / "10d" / "as" into {text, rank 1..13, suit, value, index 0..51}; null if bad. */
export function parseCard(text) {
  if (typeof text !== "string") return null;
  const hit = cache.get(text);
  if (hit) return hit;
  let t = text.trim().toUpperCase();
  if (t.length < 2) return null;
  let rankText = t.slice(0, -1);
  const suit = t.slice(-1);
  if (rankText === "10") rankText = "T";
  if (rankText === "1") rankText = "A";
  const r = RANKS.indexOf(rankText);
  const s = SUITS.indexOf(suit);
  if (rankText.length !== 1 || r < 0 || s < 0) return null;
  const card = Object.freeze({
    text: RANKS[r] + suit,
    rank: r + 1,
    suit,
    suitIndex: s,
    value: Math.min(r + 1, 10),
    index: s * 13 + r,
  });
  cache.set(text, card);
  return card;
}

export function card(text) {
  const c = parseCard(text);
  if (!c) throw new Error(`bad card ${JSON.stringify(text)}`);
  return c;
}

/** "7♥", "10♠", "Q♦". */
export function cardLabel(text) {
  const c = parseCard(text);
  if (!c) return String(text);
  return RANK_LABELS[c.rank - 1] + SUIT_SYMBOLS[c.suit];
}

/** "7 of hearts", "queen of spades". */
export function cardName(text) {
  const c = parseCard(text);
  if (!c) return String(text);
  return `${RANK_NAMES[c.rank - 1]} of ${SUIT_NAMES[c.suit]}`;
}

export function rankLabel(rank) {
  return RANK_LABELS[rank - 1];
}

export function isRed(text) {
  const c = parseCard(text);
  return !!c && (c.suit === "H" || c.suit === "D");
}

export function cardsValue(cards) {
  let v = 0;
  for (const t of cards) v += card(t).value;
  return v;
}

// ------------------------------------------------------------------------------ drawing
const SVG_NS = "http://www.w3.org/2000/svg";
const SPRITE_ID = "card-suit-sprite";

// Suit shapes in a 100 x 100 box: drawn as paths so they never turn into colour emoji.
const SUIT_PATHS = {
  H: "M50 94C22 70 2 52 2 29 2 13 14 2 28 2c10 0 18 6 22 15C54 8 62 2 72 2c14 0 26 11 26 27 0 23-20 41-48 65z",
  D: "M50 2 88 50 50 98 12 50z",
  S: "M50 2C78 26 98 42 98 62c0 15-11 25-24 25-10 0-17-5-21-12 1 10 5 17 13 23H34c8-6 12-13 13-23-4 7-11 12-21 12C13 87 2 77 2 62 2 42 22 26 50 2z",
  C: "M50 4a21 21 0 0 1 18 32 21 21 0 1 1-12 38c1 9 5 16 12 22H32c7-6 11-13 12-22a21 21 0 1 1-12-38A21 21 0 0 1 50 4z",
};

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

/** Put the suit symbols in the page once; card faces reference them with <use>. */
export function ensureSprite(doc = document) {
  if (doc.getElementById(SPRITE_ID)) return;
  const svg = svgEl("svg", { id: SPRITE_ID, "aria-hidden": "true", focusable: "false" });
  svg.classList.add("card-sprite");
  const defs = svgEl("defs");
  for (const [s, d] of Object.entries(SUIT_PATHS)) {
    const sym = svgEl("symbol", { id: `suit-${s}`, viewBox: "0 0 100 100" });
    sym.appendChild(svgEl("path", { d }));
    defs.appendChild(sym);
  }
  // The ranks are drawn from here too: a card then holds no text of its own, so its visible
  // text never contradicts its accessible name ("8 of clubs", not "8 8").
  RANK_LABELS.forEach((label, i) => {
    const g = svgEl("g", { id: `rank-${label}` });
    const t = svgEl("text", { x: 4, y: 30, "text-anchor": "start" });
    t.classList.add("card-rank");
    if (label.length > 1) {
      t.setAttribute("textLength", "33");
      t.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    t.textContent = label;
    g.appendChild(t);
    defs.appendChild(g);
    if (i >= 10) {
      const court = svgEl("g", { id: `court-${label}` });
      const c = svgEl("text", { x: 50, y: 76, "text-anchor": "middle" });
      c.classList.add("card-court-letter");
      c.textContent = label;
      court.appendChild(c);
      defs.appendChild(court);
    }
  });
  svg.appendChild(defs);
  doc.body.appendChild(svg);
}

function suitUse(suit, x, y, size, extra = {}) {
  return svgEl("use", { href: `#suit-${suit}`, x, y, width: size, height: size, ...extra });
}

/** The SVG face of a card, viewBox 0 0 100 140. */
export function cardFaceSvg(text) {
  const c = card(text);
  const svg = svgEl("svg", { viewBox: "0 0 100 140", "aria-hidden": "true", focusable: "false" });
  svg.classList.add("card-face");
  const label = RANK_LABELS[c.rank - 1];
  const corner = (g) => {
    g.appendChild(svgEl("use", { href: `#rank-${label}` }));
    g.appendChild(suitUse(c.suit, 7, 34, 20));
  };
  const tl = svgEl("g");
  corner(tl);
  svg.appendChild(tl);
  const br = svgEl("g", { transform: "rotate(180 50 70)" });
  corner(br);
  svg.appendChild(br);
  if (c.rank > 10) {
    svg.appendChild(svgEl("rect", { x: 27, y: 30, width: 46, height: 80, rx: 6, class: "card-court" }));
    svg.appendChild(svgEl("use", { href: `#court-${label}` }));
    svg.appendChild(suitUse(c.suit, 38, 82, 24));
  } else {
    const size = c.rank === 1 ? 50 : 40;
    svg.appendChild(suitUse(c.suit, 50 - size / 2, 70 - size / 2 + 4, size));
  }
  return svg;
}

/**
 * A card element: <div class="card suit-H" data-card="7H"> with its face.
 * ``tag`` lets lists use <li>/<button>; the accessible name is set by the caller if needed.
 */
export function createCard(text, { tag = "div", small = false } = {}) {
  const c = card(text);
  const el = document.createElement(tag);
  el.className = `card suit-${c.suit}${small ? " card-small" : ""}`;
  el.dataset.card = c.text;
  el.appendChild(cardFaceSvg(c.text));
  return el;
}

export function createBack({ tag = "div", small = false } = {}) {
  const el = document.createElement(tag);
  el.className = `card card-back${small ? " card-small" : ""}`;
  return el;
}
