// The player's own corner: the name line (score, deadwood, timer), the sort buttons and the
// hand, fitted to the screen. View functions take the table controller (app.js).

import { cardLabel, cardName, cardsValue, createCard } from "./cards.js";
import { h, placeInOrder, setChildren } from "./dom.js";
import { SORT_MODES, arrange, meldMembership } from "./hand.js";
import { bestLayoffs, bestMelds, meldKind } from "./melds.js";
import { avatar, gameEndedByHand, seatScoreSpan, seatTimer } from "./seats.js";

/**
 * The deadwood pill: while discarding in a gin mode, what the selected card (or the best
 * discard) leaves; otherwise the hand's deadwood (in Rummy, the points of every card held). Two parts: the ``lead`` may be shortened
 * where the seat's line is narrow (a phone on its side), the ``count`` is always shown.
 */
export function deadwoodParts({ hand, selected, discarding, deadwood, rummy = false, taken = null }) {
  // Rummy has no deadwood: whoever goes out scores every card left in the other hands,
  // melds held back included
  if (rummy) {
    const points = cardsValue(hand);
    return { lead: "In hand", count: `${points} point${points === 1 ? "" : "s"}` };
  }
  if (!discarding) return { lead: "Deadwood", count: `${deadwood}` };
  // (the card just taken cannot go back: "Discarding the 7 of clubs leaves 64" stood by the note
  // saying so, an audit; the best discard is told instead)
  const one = selected.length === 1 && selected[0] !== taken ? selected[0] : null;
  if (one) return { lead: `Discarding ${cardLabel(one)} leaves`, count: `${bestMelds(hand.filter((c) => c !== one)).deadwood} deadwood` };
  let best = Infinity;
  for (const c of hand) if (c !== taken) best = Math.min(best, bestMelds(hand.filter((x) => x !== c)).deadwood);
  return { lead: "Best discard leaves", count: `${best} deadwood` };
}

/** The deadwood pill's whole text, from its ``deadwoodParts``. */
export function deadwoodLine({ lead, count }) {
  return `${lead} ${count}`;
}

/**
 * How ``n`` cards fit a hand ``width`` px wide: one row (overlapping if needed) on wide
 * screens, two rows on phones. ``cap`` and ``minStep`` come from the stylesheet (by the
 * screen's height). Returns {rows, w, overlap} in px.
 */
export function handLayout(n, width, cap, minStep) {
  const want = Math.min(cap, width >= 700 ? 86 : width >= 480 ? 72 : 64);
  const gap = 6;
  let w = want;
  let step = w + gap;
  let rows = 1;
  if (n * (w + gap) - gap > width) {
    step = (width - w) / (n - 1);
    if (step < minStep) {
      rows = 2;
      const perRow = Math.ceil(n / 2);
      w = Math.min(want, Math.floor((width - (perRow - 1) * gap) / perRow));
      step = w + gap;
    }
  }
  return { rows, w, overlap: rows > 1 || step >= w + gap ? gap : step - w };
}

/** The hand's own order at this table (kept for the browser tab's session). */
function savedOrder(tableId) {
  try {
    const raw = window.sessionStorage.getItem(`gin.order.${tableId}`);
    const list = raw ? JSON.parse(raw) : [];
    return Array.isArray(list) ? list.filter((x) => typeof x === "string") : [];
  } catch (err) {
    return [];
  }
}

/** The sort a table opens with: the player's own order of this table's hand if they made
 * one (dragged cards), else the last sort they chose ("custom" is a table's own: a game after
 * a drag came up in the deal's order with no sort button pressed). */
export function initialSort(tableId, stored) {
  if (savedOrder(tableId).length) return "custom";
  return SORT_MODES.includes(stored) && stored !== "custom" ? stored : "melds";
}

function saveOrder(tableId, order) {
  try {
    window.sessionStorage.setItem(`gin.order.${tableId}`, JSON.stringify(order));
  } catch (err) {
    /* storage full or disabled: the order lasts for this page */
  }
}

/** The cards selected at this table, kept for the tab's session: a reload (or a phone's
 * browser dropping the tab) resumed the game exactly but with nothing selected. */
export function savedSelection(tableId) {
  try {
    const list = JSON.parse(window.sessionStorage.getItem(`gin.selected.${tableId}`) || "[]");
    return Array.isArray(list) ? list.filter((x) => typeof x === "string") : [];
  } catch (err) {
    return [];
  }
}

export function saveSelection(tableId, cards) {
  try {
    if (cards.length) window.sessionStorage.setItem(`gin.selected.${tableId}`, JSON.stringify(cards));
    else window.sessionStorage.removeItem(`gin.selected.${tableId}`);
  } catch (err) {
    /* storage full or disabled: the selection lasts for this page */
  }
}

/**
 * The order the hand shows: ``order`` (the player's arrangement of the hand), except while
 * the player drags one of its cards, when the cards keep the places the drag gave them
 * (``shown``, the order on the screen) and only new cards join, in ``order``'s order.
 */
export function shownOrder(order, shown, dragging) {
  if (!dragging) return order;
  const kept = shown.filter((c) => order.includes(c));
  return kept.concat(order.filter((c) => !kept.includes(c)));
}

export function renderMe(ctrl) {
  const v = ctrl.view;
  const me = ctrl.mySeat;
  ctrl.el.me.hidden = me === null || !v;
  if (me === null || !v) return;
  const hand = ctrl.handCards();
  const tableId = ctrl.data.table_id;
  if (!ctrl.order.length && ctrl.sortMode === "custom") ctrl.order = savedOrder(tableId);
  ctrl.order = arrange(ctrl.order, hand, ctrl.sortMode);
  if (ctrl.sortMode === "custom") saveOrder(tableId, ctrl.order);
  const res = bestMelds(hand);
  const member = meldMembership(res.melds);
  const legal = ctrl.legal;
  const myTurn = ctrl.myTurn;
  const suggested = v.phase === "layoff" && myTurn ? new Set(bestLayoffs(hand, v.table || []).layoffs.map(([c]) => c)) : new Set();
  // info line
  const s = ctrl.frame.seats[me];
  const info = [avatar(s, me), h("strong", { text: s.name || "You" }), h("span", { class: "seat-rating", text: ctrl.ratings.labelOf(s) }), seatScoreSpan(v, me)];
  if (v.dealer === me) info.push(h("span", { class: "chip chip-dealer", text: "Dealer" }));
  const playing = ctrl.frame.table.status === "playing" && !v.is_over;
  const discarding = playing && myTurn && v.mode !== "rummy" && hand.length === 11 && v.phase === "discard";
  const dw = deadwoodParts({ hand, selected: ctrl.selected, discarding, deadwood: res.deadwood, rummy: v.mode === "rummy", taken: v.taken_card });
  // no cards left (the hand went onto the table at the end): no empty hand, no count; nor
  // what was left of it when the game ended with its last hand (the felt shows that hand)
  const shown = hand.length > 0 && !gameEndedByHand(v);
  ctrl.el.hand.hidden = !shown;
  ctrl.el.sort.hidden = !shown;
  // casual games against the computer: Hint stays for the whole game (the sort buttons
  // beside it never jump) and works on your turn
  const you = ctrl.frame.you;
  ctrl.el.hintBtn.hidden = !(playing && hand.length && you && you.can_hint);
  ctrl.el.hintBtn.disabled = ctrl.busy || !myTurn;
  if (shown) {
    info.push(h("span", { class: `deadwood-pill${res.deadwood === 0 && v.mode !== "rummy" ? " is-zero" : ""}`, attrs: { "aria-live": "off", title: deadwoodLine(dw) } },
      h("span", { class: "deadwood-lead", text: dw.lead }), " ", h("span", { class: "deadwood-count", text: dw.count })));
  }
  info.push(seatTimer(me, "seat-timer seat-timer-me"));
  setChildren(ctrl.el.meInfo, info);
  // show the new timer at once: born hidden, it blinked out until the clock's next tick
  ctrl.clock.render();
  for (const b of ctrl.el.sort.querySelectorAll("[data-sort]")) b.setAttribute("aria-pressed", String(b.dataset.sort === ctrl.sortMode));
  // cards: each card keeps its element from one render to the next (a press, a tap or a
  // drag that spans a frame in flight stays on the element it began on; a rebuilt hand lost
  // the click, and a drag moved a stale copy into the new hand)
  const ul = ctrl.el.hand;
  const hadFocus = ul.contains(document.activeElement) && document.activeElement.classList.contains("hand-card") ? document.activeElement.dataset.card : null;
  // where it stood: a card that left the hand (discarded) hands the focus to its neighbour
  const hadAt = hadFocus ? [...ul.children].findIndex((li) => li.dataset.card === hadFocus) : -1;
  ul.setAttribute("aria-multiselectable", String(v.phase === "play"));
  const focusTarget = hadFocus || ctrl.focusCard || ctrl.order[0];
  const taken = (c) => v.taken_card === c && myTurn;
  const old = new Map([...ul.children].map((li) => [li.dataset.card, li]));
  const items = shownOrder(ctrl.order, [...old.keys()], ctrl.input && ctrl.input.draggingHand()).map((c) => {
    const m = member.get(c);
    const sel = ctrl.selected.includes(c);
    const canDiscard = legal.includes(`discard:${c}`) || legal.includes(`go_out:${c}`);
    const li = old.get(c) || h("li", { data: { card: c, drag: "hand" } }, createCard(c));
    const classes = ["hand-card"];
    if (m !== undefined) classes.push("in-meld", `meld-${m % 4}`);
    if (sel) classes.push("is-selected");
    if (c === ctrl.newCard) classes.push("is-new");
    if (taken(c)) classes.push("is-taken");
    if (suggested.has(c)) classes.push("is-suggested");
    if (myTurn && canDiscard) classes.push("can-discard");
    if (li.classList.contains("drag-source")) classes.push("drag-source");
    const bits = [cardName(c)];
    if (m !== undefined) bits.push(`in meld ${meldKind(res.melds[m])}`);
    else bits.push("deadwood");
    if (c === ctrl.newCard) bits.push("just drawn");
    if (taken(c)) bits.push("taken from the discard pile, cannot be discarded this turn");
    if (suggested.has(c)) bits.push("suggested lay-off");
    li.className = classes.join(" ");
    li.setAttribute("role", "option");
    li.setAttribute("aria-selected", String(sel));
    li.setAttribute("tabindex", c === focusTarget ? "0" : "-1");
    li.setAttribute("aria-label", bits.join(", "));
    return li;
  });
  placeInOrder(ul, items);
  if (!ul.querySelector('[tabindex="0"]') && ul.firstChild) ul.firstChild.setAttribute("tabindex", "0");
  if (hadFocus) {
    const el = ul.querySelector(`.hand-card[data-card="${hadFocus}"]`) || ul.children[Math.min(Math.max(hadAt, 0), ul.children.length - 1)];
    if (el) el.focus({ preventScroll: true });
  }
  layoutHand(ctrl.el.hand);
}

/** Fit the hand ``ul`` to its width (see handLayout). */
export function layoutHand(ul) {
  const n = ul.children.length;
  if (!n) return;
  const W = ul.clientWidth;
  if (!W) return;
  // the stylesheet caps the card size and the overlap by the screen's height (--hand-max,
  // --hand-min-step) so that the whole table fits without scrolling
  const css = getComputedStyle(ul);
  const cap = parseFloat(css.getPropertyValue("--hand-max")) || 86;
  const minStep = parseFloat(css.getPropertyValue("--hand-min-step")) || 40;
  const { rows, w, overlap } = handLayout(n, W, cap, minStep);
  ul.classList.toggle("is-rows", rows > 1);
  ul.style.setProperty("--card-w", `${w}px`);
  ul.style.setProperty("--overlap", `${overlap}px`);
}
