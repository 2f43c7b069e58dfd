// The felt: the stock and the discard pile, the melds on the table, and before the deal the
// waiting panel (seats, computer players, the invite link). View functions take the table
// controller (app.js).

import { copyText } from "../clipboard.js";
import { layoffTargets } from "./actions.js";
import { plural, seatName } from "./announce.js";
import { cardLabel, cardName, createBack, createCard } from "./cards.js";
import { h, updateChildren } from "./dom.js";
import { finalHand } from "./results.js";
import { gameEndedByHand } from "./seats.js";

/** What the piles offer this seat now. */
export function pileState(view, legal, myTurn) {
  const top = view.discard_pile[view.discard_pile.length - 1] || null;
  return {
    top,
    canStock: myTurn && legal.includes("draw:stock"),
    canDiscardPile: myTurn && (legal.includes("draw:discard") || legal.includes("take_upcard")),
    discarding: myTurn && legal.some((a) => a.startsWith("discard:")),
    pileAction: legal.includes("take_upcard") ? "take_upcard" : "draw:discard",
  };
}

/** The heading over the knocker's melds while the defender lays off. */
export function showdownTitle(sd, who) {
  const kind = sd.kind === "knock" ? "knocked" : sd.kind === "gin" ? "went gin" : "went big gin";
  const dw = sd.knocker_deadwood_cards.length ? ` and ${sd.knocker_deadwood} deadwood` : "";
  return `${who} ${kind}: ${who === "You" ? "your" : "their"} melds${dw}`;
}

export function renderFelt(ctrl) {
  const f = ctrl.frame;
  const v = ctrl.view;
  const felt = ctrl.el.felt;
  if (!v) {
    updateChildren(felt, waitingPanel(ctrl));
    return;
  }
  if (gameEndedByHand(v)) {
    // the game's last hand instead of the piles (and Rummy's melds on the table under it)
    const kids = [finalHand(ctrl, v.last_hand)];
    if (v.mode === "rummy" && v.table && v.table.length) kids.push(tableMelds(ctrl));
    updateChildren(felt, kids);
    felt.dataset.phase = v.phase;
    return;
  }
  const { top, canStock, canDiscardPile, discarding, pileAction } = pileState(v, ctrl.legal, ctrl.myTurn);
  // a hint to draw (app.js onHint) lights its pile while the position lasts
  const hinted = ctrl.hint && ctrl.hint.version === f.version && ctrl.myTurn ? ctrl.hint.action : null;
  // stock
  const stock = h("button", {
    class: `pile pile-stock${canStock ? " is-live" : ""}${hinted === "draw:stock" ? " is-hinted" : ""}`,
    attrs: { type: "button", "aria-label": `Stock, ${plural(v.stock_count, "card")}${canStock ? ": draw from the stock" : ""}`, disabled: !canStock },
    data: canStock ? { drag: "stock", action: "draw:stock" } : { action: "draw:stock" },
    on: { click: () => ctrl.send("draw:stock") },
  });
  if (v.stock_count > 0) {
    for (let k = 0; k < Math.min(3, Math.ceil(v.stock_count / 10)); k++) stock.append(createBack());
  } else stock.append(h("span", { class: "pile-empty", text: "Empty" }));
  stock.append(h("span", { class: "pile-count", text: String(v.stock_count), attrs: { "aria-hidden": "true" } }));
  // discard pile: the top card and a hint of the ones below
  const discardLabel = top ? `Discard pile, ${cardName(top)} on top` : "Discard pile, empty";
  const pile = h("button", {
    class: `pile pile-discard${canDiscardPile ? " is-live" : ""}${discarding ? " is-target" : ""}${hinted === pileAction && canDiscardPile ? " is-hinted" : ""}`,
    attrs: {
      type: "button",
      "aria-label": discardLabel + (canDiscardPile ? `: take ${cardLabel(top)}` : discarding ? ": discard the selected card here" : ""),
      disabled: !(canDiscardPile || (discarding && ctrl.selected.length === 1)),
    },
    // the pile's move shows in its data: a pile drawn again equal to it keeps its listener
    data: Object.assign({ drop: "discard", action: pileAction }, canDiscardPile ? { drag: "discard" } : {}),
    on: { click: () => ctrl.input.onPileClick(pileAction) },
  });
  const under = v.discard_pile.slice(-3, -1);
  for (const c of under) pile.append(createCard(c));
  if (top) {
    const t = createCard(top);
    t.classList.add("pile-top");
    if (f.last && f.last.action && f.last.action.startsWith("discard:")) t.classList.add("just-played");
    pile.append(t);
  } else pile.append(h("span", { class: "pile-empty", text: "Empty" }));
  const piles = h("div", { class: "tbl-piles" }, h("div", { class: "pile-wrap" }, stock, h("span", { class: "pile-label", text: "Stock" })), h("div", { class: "pile-wrap" }, pile, h("span", { class: "pile-label", text: "Discard" })));
  if (v.face_down_count && v.phase === "layoff") piles.append(h("div", { class: "pile-wrap" }, createBack(), h("span", { class: "pile-label", text: "Face down" })));
  const kids = [piles];
  // rummy: the melds on the table; gin: the knocker's melds while the defender lays off,
  // before the piles then (nobody draws, and the melds are what to tap: on a phone they lay
  // below the piles, out of sight in the felt's scroll)
  if (v.table && v.table.length && v.mode !== "rummy" && v.phase === "layoff") kids.unshift(tableMelds(ctrl));
  else if (v.table && v.table.length && v.mode === "rummy") kids.push(tableMelds(ctrl));
  updateChildren(felt, kids);
  // the melds come in at the felt's top: show it (the felt kept the hand's scroll)
  if (v.phase === "layoff" && felt.dataset.phase !== "layoff") felt.scrollTop = 0;
  felt.dataset.phase = v.phase;
}

function tableMelds(ctrl) {
  const v = ctrl.view;
  const sd = v.showdown;
  const wrap = h("div", { class: "tbl-melds" });
  const title = sd ? showdownTitle(sd, seatName(sd.knocker, ctrl.ctx())) : "Melds on the table";
  wrap.append(h("p", { class: "tbl-melds-title", text: title }));
  const one = ctrl.selected.length === 1 ? ctrl.selected[0] : null;
  const targets = one && ctrl.myTurn ? layoffTargets(ctrl.legal, one) : [];
  const laid = new Set(((sd && sd.layoffs) || []).map(([c]) => c));
  const row = h("div", { class: "meld-row" });
  v.table.forEach((meld, i) => {
    const live = targets.includes(i);
    const m = h("button", {
      class: `meld${live ? " is-target" : ""}`,
      attrs: { type: "button", "aria-label": `Meld ${i + 1}: ${meld.map(cardLabel).join(" ")}${live ? `. Lay off ${cardLabel(one)} here` : ""}`, disabled: !live },
      data: { drop: "meld", meld: i },
      on: { click: () => live && ctrl.send(`layoff:${one}>${i}`) },
    });
    m.append(h("span", { class: "meld-no", text: String(i + 1), attrs: { "aria-hidden": "true" } }));
    for (const c of meld) {
      const el = createCard(c, { small: true });
      if (laid.has(c)) el.classList.add("is-laid");
      m.append(el);
    }
    row.append(m);
  });
  wrap.append(row);
  if (sd && sd.knocker_deadwood_cards.length) {
    const dw = h("div", { class: "meld-deadwood" }, h("span", { class: "muted", text: "Deadwood:" }));
    for (const c of sd.knocker_deadwood_cards) dw.append(createCard(c, { small: true }));
    wrap.append(dw);
  }
  return wrap;
}

export const CLOSED_TEXT = "Its game never began: its players left, or were away from the site too long for it to wait. Find another table in the room, or open one.";

function waitingPanel(ctrl) {
  const f = ctrl.frame;
  const t = f.table;
  const box = h("div", { class: "tbl-waiting" });
  if (t.status === "open") {
    const free = f.seats.filter((s) => s.kind === "empty").length;
    box.append(h("h2", { text: "Waiting for players" }));
    box.append(h("p", { text: `${plural(free, "seat")} free. The game starts as soon as every seat is taken.` }));
    const names = ctrl.ctx().names;
    box.append(h("ol", { class: "tbl-seat-list" }, f.seats.map((s, i) => h("li", { class: `tbl-seat-item${s.kind === "empty" ? " is-empty" : ""}`, text: `${names[i]}${s.kind === "user" && s.is_bot ? " (BOT)" : ""}${i === ctrl.mySeat ? " (you)" : ""}` }))));
    const actions = h("div", { class: "tbl-actions" });
    if (f.you && f.you.can_sit) {
      // said at once: the last seat starts the game, which can take a few seconds to come
      // back (the button did nothing visible meanwhile); the next frame redraws the panel
      const sit = h("button", { class: "button", text: "Take a seat", attrs: { type: "button" }, on: { click: () => {
        if (!ctrl.sit()) return;
        sit.disabled = true;
        sit.textContent = "Sitting down…";
        setTimeout(() => { sit.disabled = false; sit.textContent = "Take a seat"; }, 8000);
      } } });
      actions.append(sit);
    }
    if (free && ctrl.data.sign_in) { // the server sends sign_in to visitors at an open table
      // a visitor (from an invite link, say): an account first, then back here to sit
      actions.append(h("a", { class: "button", text: "Sign up to play", attrs: { href: ctrl.data.sign_in.signup } }));
      actions.append(h("a", { class: "button button-secondary", text: "Log in", attrs: { href: ctrl.data.sign_in.login } }));
    }
    if (ctrl.mySeat !== null) {
      if (free && !t.rated) {
        const level = h("select", { attrs: { "aria-label": "Computer level" } });
        // the levels as the server names them (the page's data)
        (ctrl.data.bot_levels || []).forEach(([val, label]) => level.append(h("option", { text: label, attrs: { value: String(val) } })));
        level.value = "2";
        actions.append(level);
        actions.append(
          h("button", {
            class: "button button-secondary",
            text: "Add a computer player",
            attrs: { type: "button" },
            on: {
              click: () => {
                const seat = f.seats.find((s) => s.kind === "empty");
                if (seat) ctrl.addBot(seat.index, Number(level.value));
              },
            },
          }),
        );
      }
      actions.append(h("button", { class: "button button-secondary", text: "Leave", attrs: { type: "button" }, on: { click: () => ctrl.leave() } }));
    }
    box.append(actions);
    if (ctrl.data.invite_link && ctrl.mySeat !== null) box.append(inviteBox(ctrl));
    if (ctrl.data.invite_contacts && ctrl.mySeat !== null && free) {
      box.append(h("p", { class: "tbl-invite-contacts" }, h("a", { text: "Invite a contact to this table", attrs: { href: ctrl.data.invite_contacts } })));
    }
  } else if (t.finish) {
    box.append(h("h2", { text: "This game is over" }));
    box.append(h("a", { text: "See the score sheet", attrs: { href: t.finish.url } }));
  } else if (t.status === "abandoned") {
    // closed before its game began (its players left it, or the sweep closed it): an old
    // invite link, or a waiting player coming back, lands here
    box.append(h("h2", { text: "This table is closed" }));
    box.append(h("p", { text: CLOSED_TEXT }));
    box.append(h("div", { class: "tbl-actions" }, h("a", { class: "button", text: "Back to the room", attrs: { href: ctrl.data.room_url } })));
  } else {
    box.append(h("p", { text: "The cards are being dealt…" }));
  }
  return box;
}

function inviteBox(ctrl) {
  const input = h("input", { class: "tbl-invite-input", attrs: { type: "text", readonly: true, id: "tbl-invite", value: ctrl.data.invite_link } });
  const copy = h("button", {
    class: "button button-small button-secondary",
    text: "Copy",
    attrs: { type: "button" },
    on: {
      click: async () => {
        input.select();
        if (await copyText(input.value, input)) ctrl.notices.toast("Invite link copied.", "info");
      },
    },
  });
  return h("div", { class: "tbl-invite" }, h("label", { text: "Invite link: send it to the people you want to play", attrs: { for: "tbl-invite" } }), h("div", { class: "tbl-invite-row" }, input, copy));
}
