// Which buttons to offer for the current phase, the legal moves and the selected cards.
// Pure: the moves themselves always come from the server's list of legal moves.

import { card, cardLabel } from "./cards.js";
import { bestLayoffs, bestMelds } from "./melds.js";

/**
 * The moves this seat may send now: the view's ``legal_actions`` (docs/protocol.md; empty
 * unless it is this seat's turn). The server always sends the list.
 */
export function legalOf(view) {
  const l = view ? view.legal_actions : null;
  return Array.isArray(l) ? l : [];
}

function sameSet(a, b) {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

/** The legal ``meld:`` move made of exactly these cards, or null. */
export function meldActionFor(legal, cards) {
  for (const a of legal) {
    if (!a.startsWith("meld:")) continue;
    if (sameSet(a.slice(5).split(","), cards)) return a;
  }
  return null;
}

/** Meld indexes onto which ``c`` may be laid off now. */
export function layoffTargets(legal, c) {
  const out = [];
  for (const a of legal) {
    const m = /^layoff:([^>]+)>(\d+)$/.exec(a);
    if (m && m[1] === c) out.push(Number(m[2]));
  }
  return out;
}

function cardsOf(legal, prefix) {
  return legal.filter((a) => a.startsWith(prefix)).map((a) => a.slice(prefix.length));
}

/** Knock with the card that leaves the least deadwood (ties: throw the highest card). */
export function bestKnockCard(hand, legal) {
  let best = null;
  for (const c of cardsOf(legal, "knock:")) {
    const dw = bestMelds(hand.filter((t) => t !== c)).deadwood;
    const v = card(c).value;
    if (!best || dw < best.dw || (dw === best.dw && v > best.v)) best = { card: c, dw, v };
  }
  return best;
}

/** Gin with the highest card that still leaves no deadwood. */
export function bestGinCard(legal) {
  const gins = cardsOf(legal, "gin:");
  gins.sort((a, b) => card(b).value - card(a).value || card(b).rank - card(a).rank);
  return gins[0] || null;
}

/**
 * Buttons: [{label, action, primary, id}] for ``view`` with ``legal`` moves and the
 * ``selected`` cards (in the order they were picked). ``action`` is always one of ``legal``.
 * ``hinted``, the move a hint just gave, is the primary button when one of them makes it
 * (the hint said "pass" while "Take" stayed the one highlighted).
 */
export function actionButtons(view, legal, selected, hand, hinted = null) {
  const out = buttonsFor(view, legal, selected, hand);
  if (hinted && out.some((b) => b.action === hinted)) {
    for (const b of out) b.primary = b.action === hinted;
  }
  return out;
}

function buttonsFor(view, legal, selected, hand) {
  const L = new Set(legal);
  const out = [];
  if (!view || !legal.length) return out;
  const add = (label, action, primary = false, id = action) => {
    if (L.has(action)) out.push({ label, action, primary, id });
  };
  const top = view.discard_pile && view.discard_pile[view.discard_pile.length - 1];
  const one = selected.length === 1 ? selected[0] : null;
  switch (view.phase) {
    case "offer":
      add(`Take ${cardLabel(top)}`, "take_upcard", true);
      add("Pass", "pass");
      break;
    case "draw":
      add("Draw from the stock", "draw:stock", true);
      if (top) add(`Take ${cardLabel(top)}`, "draw:discard");
      break;
    case "discard": {
      add("Big gin!", "big_gin", true);
      if (one) {
        add(`Gin, discarding ${cardLabel(one)}`, `gin:${one}`, true);
        add(`Knock, discarding ${cardLabel(one)}`, `knock:${one}`, !L.has(`gin:${one}`));
        add(`Discard ${cardLabel(one)}`, `discard:${one}`, !L.has(`knock:${one}`) && !L.has(`gin:${one}`));
      } else {
        const gin = bestGinCard(legal);
        if (gin) add(`Gin (discard ${cardLabel(gin)})`, `gin:${gin}`, true, "gin");
        else {
          const k = bestKnockCard(hand || [], legal);
          if (k) add(`Knock (discard ${cardLabel(k.card)}, ${k.dw} deadwood)`, `knock:${k.card}`, false, "knock");
        }
      }
      break;
    }
    case "layoff": {
      if (!legal.some((a) => a.startsWith("layoff:"))) {
        // nothing fits: one clear way on, not two buttons that do the same
        if (L.has("done")) add("Done: nothing to lay off", "done", true);
        else add("Continue: nothing to lay off", "accept_layoffs", true);
        break;
      }
      if (one) {
        for (const i of layoffTargets(legal, one)) {
          add(`Lay off ${cardLabel(one)} on meld ${i + 1}`, `layoff:${one}>${i}`, true);
        }
      }
      const tableMelds = view.table || [];
      const sug = hand ? bestLayoffs(hand, tableMelds) : null;
      const what = sug && sug.layoffs.length ? sug.layoffs.map(([c]) => cardLabel(c)).join(" ") : "";
      add(what ? `Accept suggested lay-offs: ${what}` : "Accept (nothing more to lay off)", "accept_layoffs", !one);
      add("Done laying off", "done");
      break;
    }
    case "play": {
      if (selected.length >= 3) {
        const m = meldActionFor(legal, selected);
        if (m) add(`Meld ${selected.map(cardLabel).join(" ")}`, m, true);
      }
      if (one) {
        for (const i of layoffTargets(legal, one)) {
          add(`Lay off ${cardLabel(one)} on meld ${i + 1}`, `layoff:${one}>${i}`, true);
        }
        add(`Go out with ${cardLabel(one)}`, `go_out:${one}`, true);
        add(`Discard ${cardLabel(one)}`, `discard:${one}`, !out.length);
      } else if (hand && hand.length === 1) {
        add(`Go out with ${cardLabel(hand[0])}`, `go_out:${hand[0]}`, true);
      }
      break;
    }
    default:
  }
  return out;
}

/**
 * A hint (the server's ``hint`` frame: the Hard computer's move in this player's place), said
 * in words, and the hand cards it involves (to select them, so that the matching button is
 * the one to press): ``{text, cards}``.
 */
export function hintOf(action) {
  const [kind, rest = ""] = action.split(":");
  const one = rest.split(">")[0];
  const said = {
    take_upcard: () => "take the upcard",
    pass: () => "pass on the upcard",
    draw: () => (rest === "stock" ? "draw from the stock" : "take the top of the discard pile"),
    discard: () => `discard ${cardLabel(one)}`,
    knock: () => `knock, discarding ${cardLabel(one)}`,
    gin: () => `go gin, discarding ${cardLabel(one)}`,
    big_gin: () => "go big gin",
    go_out: () => `go out with ${cardLabel(one)}`,
    layoff: () => `lay off ${cardLabel(one)} on meld ${Number(rest.split(">")[1]) + 1}`,
    meld: () => `meld ${rest.split(",").map(cardLabel).join(" ")}`,
    accept_layoffs: () => "accept the lay-offs",
    done: () => "finish laying off",
  }[kind];
  const cards = ["discard", "knock", "gin", "go_out", "layoff"].includes(kind) ? [one] : kind === "meld" ? rest.split(",") : [];
  return { text: `Hint: ${said ? said() : action}.`, cards };
}

/**
 * The cards still selected after a frame: those still in ``hand``; none once this seat's turn
 * is over or a new hand is dealt (a card picked and then left while another was played had
 * stayed selected into the next turn, even the next hand, where with a second card picked
 * Basic Rummy offered no button at all); outside Basic Rummy's play phase, the last one only.
 */
export function keptSelection(selected, { hand, view, prevView, mySeat }) {
  if (!view) return [];
  if (prevView && prevView.hand_number !== view.hand_number) return [];
  if (prevView && mySeat !== null && prevView.to_act === mySeat && view.to_act !== mySeat) return [];
  const kept = selected.filter((c) => hand.includes(c));
  return view.phase === "play" ? kept : kept.slice(-1);
}

/**
 * What the selection can do when no move button takes it (Basic Rummy's play phase): two
 * cards, or three or more that are no meld, said in words; "" otherwise.
 */
export function selectionNote(view, legal, selected) {
  if (!view || !selected.length) return "";
  // the card just taken from the pile, selected: no Discard button came, and nothing said
  // why until a tap on the pile (an audit)
  if (selected.length === 1 && selected[0] === view.taken_card && !legal.includes(`discard:${selected[0]}`)) {
    if (view.phase === "discard") return `You cannot discard ${cardLabel(selected[0])}, the card you just took from the pile: choose another.`;
    if (view.phase === "play") return `You cannot discard ${cardLabel(selected[0])}, the card you just took from the pile: meld it or lay it off, or choose another card.`;
  }
  if (view.phase !== "play") return "";
  if (selected.length === 2) {
    return "Two cards selected: pick a third to meld, or just one to lay off or discard.";
  }
  if (selected.length >= 3 && !meldActionFor(legal, selected)) {
    return `${selected.map(cardLabel).join(" ")} are no meld you can lay down now: a set is three or four of one rank, a run three or more in a row of one suit. Tap a card to drop it.`;
  }
  return "";
}
