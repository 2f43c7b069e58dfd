// Plain-language sentences for moves, for the screen-reader live region and the move line.

import { cardLabel } from "./cards.js";

function list(cards) {
  return (cards || []).map(cardLabel).join(" ");
}

/** ctx: {mySeat (int|null), names: [seat names]} */
export function seatName(seat, ctx) {
  if (seat === null || seat === undefined) return "Someone";
  if (ctx.mySeat === seat) return "You";
  return (ctx.names && ctx.names[seat]) || `Seat ${seat + 1}`;
}

export const OUTCOME_TEXT = {
  knock: "knocked and won",
  gin: "went gin",
  big_gin: "went big gin",
  undercut: "undercut the knocker",
  out: "went out",
};

/** One engine event as a sentence, or null when it is not worth announcing. */
export function describeEvent(ev, ctx) {
  if (!ev || typeof ev !== "object") return null;
  const d = ev.data || {};
  const who = seatName(d.seat, ctx);
  const you = ctx.mySeat !== null && ctx.mySeat !== undefined && d.seat === ctx.mySeat;
  switch (ev.kind) {
    case "deal":
      return `Hand ${d.hand}: ${seatName(d.dealer, ctx) === "You" ? "you deal" : `${seatName(d.dealer, ctx)} deals`}. The upcard is ${cardLabel(d.upcard)}.`;
    case "take_upcard":
      return `${who} took the upcard ${cardLabel(d.card)}.`;
    case "pass":
      return `${who} passed on the upcard.`;
    case "draw":
      if (d.source === "discard") return `${who} took ${cardLabel(d.card)} from the discard pile.`;
      // a seat's own history names the card it drew (the live frame sends it as "drew")
      if (you && d.card) return `You drew ${cardLabel(d.card)} from the stock.`;
      return `${who} drew from the stock.`;
    case "drew":
      return you ? `You drew ${cardLabel(d.card)} from the stock.` : null;
    case "discard":
      return `${who} discarded ${cardLabel(d.card)}.`;
    case "knock":
      return `${who} knocked with ${d.deadwood} deadwood.`;
    case "gin":
      return `${who} went gin!`;
    case "big_gin":
      return `${who} went big gin!`;
    case "layoff":
      return `${who} laid off ${cardLabel(d.card)}.`;
    case "meld":
      return `${who} melded ${list(d.cards)}.`;
    case "reshuffle":
      return "The discard pile was shuffled into a new stock.";
    case "hand_over":
      return describeHandResult(d, ctx);
    case "game_over":
      if (d.winner === null || d.winner === undefined) return "The game is over: a tie.";
      // (the computer playing on for a person who left: that seat wins nothing, the people
      // who stayed share out the first place; the game-over panel says who has it)
      if ((ctx.standIns || []).includes(d.winner)) return `The game is over. ${seatName(d.winner, ctx)} finished ahead, but a seat played for someone who left wins nothing: the first place goes to those who stayed.`;
      return `The game is over. ${seatName(d.winner, ctx) === "You" ? "You win" : `${seatName(d.winner, ctx)} wins`}.`;
    default:
      return null;
  }
}

/** The score sheet's rows of the hands before this one (each ``{hand, outcome, winner,
 * points}``): what a page opened mid-game logs of them, since the view's history is this
 * hand's alone. */
export function earlierHands(view) {
  const rows = (view && view.score_sheet && view.score_sheet.hands) || [];
  return rows.filter((row) => row && row.hand < view.hand_number);
}

/** What a page opened mid-game writes in its log, rebuilt from the ``view``: ``earlier``,
 * each earlier hand's result; ``moves``, this hand's last ``limit`` events as sentences, with
 * a line before each stretch of them the server played on a timeout (the snapshot's
 * ``timedOut``, ``[start, end]`` slices of ``view.history``), as the live log has it. */
export function rebuiltLog(view, ctx, timedOut = [], limit = 30) {
  const earlier = earlierHands(view).map((row) => `Hand ${row.hand}: ${describeHandResult(row, ctx)}`);
  const history = (view && Array.isArray(view.history)) ? view.history : [];
  const from = Math.max(0, history.length - limit);
  const before = new Map();
  for (const mark of Array.isArray(timedOut) ? timedOut : []) {
    const [start, end] = Array.isArray(mark) ? mark : [];
    const ev = history[start];
    if (!Number.isInteger(end) || end - 1 < from || end > history.length || !ev) continue;
    before.set(Math.max(start, from), timeoutNotice(seatName((ev.data || {}).seat, ctx)));
  }
  const moves = [];
  history.forEach((ev, i) => {
    if (i < from) return;
    if (before.has(i)) moves.push(before.get(i));
    const text = describeEvent(ev, ctx);
    if (text) moves.push(text);
  });
  return { earlier, moves };
}

/** What happened while this page was away (a lost connection, a phone asleep): the
 * sentences of ``view``'s moves after those of ``prevView`` it showed, the results of the
 * hands finished meanwhile first when the hand changed; at most ``limit`` lines, the last
 * ones. A reconnect's snapshot carries no events: the page went from "You passed" straight
 * to "Your turn", the opponent's draw and discard never said. */
export function missedLines(prevView, view, ctx, limit = 30) {
  const history = (view && Array.isArray(view.history)) ? view.history : [];
  if (!prevView || !view) return [];
  const lines = [];
  let from = 0;
  if (prevView.hand_number === view.hand_number) {
    const seen = Array.isArray(prevView.history) ? prevView.history.length : 0;
    if (seen > history.length) return []; // (not this view's past: nothing to add)
    from = seen;
  } else {
    for (const row of earlierHands(view)) {
      if (row.hand >= (prevView.hand_number || 0)) lines.push(`Hand ${row.hand}: ${describeHandResult(row, ctx)}`);
    }
  }
  for (const ev of history.slice(from)) {
    const text = describeEvent(ev, ctx);
    if (text) lines.push(text);
  }
  return lines.slice(-limit);
}

/** "Anna went gin: 37 points." */
export function describeHandResult(h, ctx) {
  if (!h) return "";
  if (h.outcome === "drawn") return "The hand is a draw: nobody scores.";
  if (h.outcome === "stalemate") return "Stalemate: nobody scores this hand.";
  const who = seatName(h.winner, ctx);
  let what = OUTCOME_TEXT[h.outcome] || h.outcome;
  if (h.outcome === "out" && h.going_rummy) what = "went rummy";
  const pts = `${h.points} point${h.points === 1 ? "" : "s"}`;
  return `${who} ${what}: ${pts}.`;
}

/** The prompt line for the player whose turn it is. */
export function turnPrompt(view, legal) {
  if (!view || !legal.length) return "";
  const has = (p) => legal.some((a) => a === p || a.startsWith(p));
  switch (view.phase) {
    case "offer":
      return `Take the upcard ${cardLabel(view.discard_pile[view.discard_pile.length - 1])} or pass.`;
    case "draw":
      if (!has("draw:discard")) return "Draw from the stock.";
      return "Draw from the stock or the discard pile.";
    case "discard":
      if (has("big_gin")) return "Big gin! All eleven cards are melded.";
      if (has("gin:")) return "You can go gin: pick the card to discard face down.";
      if (has("knock:")) return "Discard a card, or knock.";
      return "Discard a card: select it, then press Discard or choose the discard pile.";
    case "layoff":
      if (!has("layoff:")) return "None of your cards fits on the knocker's melds.";
      return "Lay off your deadwood onto the knocker's melds (choose a card, then a meld), or accept the suggestion.";
    case "play":
      if (has("go_out:")) return "Go out with your last card.";
      return "Meld, lay off, then discard.";
    default:
      return "";
  }
}

/** "1 card", "3 cards". */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The line that says a seat's clock ran out and a safe move was played for it; with the
 * seat's ``count`` of timeouts in a row and the ``max`` that loses the game, how many that
 * is, and a warning before the last (the forfeit came without one). */
export function timeoutNotice(who, count = 0, max = 0) {
  const you = who === "You";
  let line = you ? "Your time ran out" : `${who}'s time ran out`;
  if (count > 0 && max > 0 && count < max) line += ` (${count} of ${max} in a row)`;
  line += `: a safe move was played for ${you ? "you" : "them"}.`;
  if (count > 0 && max > 0 && count === max - 1) {
    line += you ? " One more and you lose the game: make a move to reset the count." : ` One more and ${who} loses the game.`;
  }
  return line;
}
