// The seats around the felt (opponents' boxes, the title chips, the connection line and the
// banner about absent players). View functions take the table controller (app.js).

import { plural } from "./announce.js";
import { cardName, createBack, createCard } from "./cards.js";
import { clockUnknown } from "./clock.js";
import { h, updateChildren } from "./dom.js";
import { confirmClaim } from "./prompt.js";

export function initials(name) {
  const parts = String(name || "?").trim().split(/\s+/);
  return (parts[0][0] + (parts.length > 1 ? parts[parts.length - 1][0] : "")).toUpperCase();
}

export function colourIndex(name) {
  let x = 0;
  for (const ch of String(name)) x = (x * 31 + ch.codePointAt(0)) % 997;
  return x % 8;
}

/** Seat names, made unique ("Computer (Easy) #3") when two seats share one. */
export function displayNames(seats) {
  const base = seats.map((s) => (s.kind === "empty" ? "Empty seat" : s.name || `Seat ${s.index + 1}`));
  return base.map((n, i) => (base.filter((x) => x === n).length > 1 ? `${n} #${i + 1}` : n));
}

/** The names and stand-in seats (``ctx``) as they were in hand ``hand``: a hand finished
 * before a person left a game that went on was theirs, not the computer's that plays their
 * seat now (its result, still open when they resigned, was relabelled "Computer (for dan)"). */
export function ctxAtHand(ctx, seats, hand) {
  const theirs = (s) => s && s.left && typeof s.left.after_hands === "number" && hand <= s.left.after_hands;
  return {
    ...ctx,
    names: (ctx.names || []).map((n, i) => (theirs(seats[i]) ? seats[i].left.name || n : n)),
    standIns: (ctx.standIns || []).filter((i) => !theirs(seats[i])),
  };
}

/** The short labels of narrow seat boxes ("Easy 2" for "Computer 2 (Easy)", from the
 * frame's ``short_name``); a seat whose short label another seat shares keeps its name. */
export function shortNames(seats, names) {
  const base = seats.map((s, i) => s.short_name || names[i]);
  return base.map((n, i) => (base.filter((x) => x === n).length > 1 ? names[i] : n));
}

/** Is the text of ``el`` wider than its box (cut with an ellipsis)? Measured on the text
    itself: scrollWidth rounds, and a name a pixel too wide was cut without showing there. */
export function cut(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  return range.getBoundingClientRect().width > el.getBoundingClientRect().width + 0.5;
}

/** The labels ``fitNames`` reads of a seat's name: its short form, or the name itself when it
 * has none (a person's): every name is measured, so a person's cut name ("alic…" beside a
 * "1500?" rating on a phone) pushes the ratings out as a computer's does. */
export function nameLabels(full, short) {
  return { full, short: short || full };
}

/** When a seat name under ``root`` is cut off, every seat that has a short label shows it
 * (the whole names again once there is room): one form at the table, not "Medium" beside
 * "Computer 2 (Medium)". The box's label keeps the whole name. */
export function fitNames(root, isCut = cut) {
  const els = [...root.querySelectorAll(".seat-name-text[data-short]")];
  const tight = root.classList;
  if (tight) tight.remove("names-tight");
  for (const el of els) if (el.textContent !== el.dataset.full) el.textContent = el.dataset.full;
  if (els.some(isCut)) {
    for (const el of els) el.textContent = el.dataset.short;
  }
  // still cut (four seats on a phone: people's names read "a.", "b."): the names before the
  // ratings, which go (they are on the players' profiles and in the game-over panel)
  if (tight && els.some(isCut)) tight.add("names-tight");
}

/** The other seats, in playing order from the one after ``me`` (all of them for a spectator). */
export function seatOrder(seats, me) {
  if (me === null) return seats.slice();
  const n = seats.length;
  const out = [];
  for (let k = 1; k < n; k++) out.push(seats[(me + k) % n]);
  return out;
}

/** A seat's score as shown: one number, or one per game (Hollywood) joined by dots. */
export function seatScore(view, i) {
  if (!view) return null;
  const cols = view.score_sheet && view.score_sheet.columns;
  // Hollywood's three games: "/" between them, so that "You: 0 / 5 / 0 · ann: 7 / 7 / 0"
  // reads as two players (the "·" between games read as six)
  if (cols && cols.length > 1) return cols.map((c) => c.points[i]).join(" / ");
  return String((view.scores || [])[i] ?? 0);
}

/** A seat's "Score …" with, for Hollywood, what the three numbers are (its title). */
export function seatScoreSpan(view, i) {
  const cols = view && view.score_sheet && view.score_sheet.columns;
  const title = cols && cols.length > 1
    ? `Score in games ${cols.map((_c, n) => n + 1).join(" / ")}: ${seatScore(view, i)}`
    : null;
  return h("span", { class: "seat-score", text: `Score ${seatScore(view, i)}`, attrs: title ? { title, "aria-label": title } : {} });
}

/** A seat's presence: "left" only while the game is in play (``playing``); at a finished
 * table a winner who had gone home read "left", as if they had abandoned it. */
export function seatStatus(s, playing = true) {
  if (s.kind === "user") return s.gone && playing ? "left" : s.connected ? "online" : "offline";
  return s.kind === "bot" ? "computer" : "empty";
}

/** The banner's line on the people not at the table: "dave is not at the table: waiting for
 * them…". It said "disconnected… come back" of a player who had never come (a tournament's
 * match the site seated them at). */
export function awayNote(seats, mySeat, toAct = null) {
  const away = (seats || []).filter((s) => s.kind === "user" && !s.connected && s.index !== mySeat);
  if (!away.length) return "";
  const who = `${away.map((s) => s.name).join(", ")} ${away.length > 1 ? "are" : "is"} not at the table`;
  // (waiting only for the one whose turn it is: on your own turn nobody waits for them)
  return away.some((s) => s.index === toAct) ? `${who}: waiting for them…` : `${who}.`;
}

/** The title's chips after "Hand n": the knock limit and the spade multiplier. */
export function titleChips(view) {
  if (view && view.mode === "oklahoma" && view.knock_limit !== null) {
    const chips = [{ text: view.knock_limit === 0 ? "Gin only" : `Knock ≤ ${view.knock_limit}` }];
    if (view.multiplier > 1) chips.push({ text: `Spades ×${view.multiplier}`, hot: true });
    return chips;
  }
  if (view && view.mode === "straight") return [{ text: "Gin only" }];
  return [];
}

export function connectionText(state, detail) {
  return {
    connecting: "Connecting…",
    open: "Live",
    local: "On this device",
    reconnecting: "Reconnecting…",
    offline: detail === null ? "No network: reconnecting when it is back"
      : `Connection lost: retrying in ${Math.max(1, Math.round((detail || 0) / 1000))} s`,
    refused: detail || "Refused",
  }[state] || state;
}

/** "2 watching" (on a phone "👁 2", the word kept for screen readers): the spectators'
 * sockets at the table (games.watchers). */
export function watchersChip(n) {
  return h("span", { class: "chip chip-watchers", attrs: { title: `${n} watching this game` } },
    h("span", { class: "watchers-n", text: String(n) }), " ",
    h("span", { class: "watchers-word", text: "watching" }));
}

export function renderTitle(ctrl) {
  const t = ctrl.frame.table;
  const v = ctrl.view;
  const bits = [];
  if (v) bits.push(h("strong", { text: `Hand ${v.hand_number}` }));
  else bits.push(h("strong", { text: t.status === "open" ? "Waiting for players" : t.mode_name || t.mode }));
  for (const c of titleChips(v)) bits.push(h("span", { class: c.hot ? "chip chip-hot" : "chip", text: c.text }));
  if (ctrl.mySeat === null) bits.push(h("span", { class: "chip chip-watch", text: "Watching" }));
  const n = ctrl.frame.watchers || 0;
  if (n > 0) bits.push(watchersChip(n));
  updateChildren(ctrl.el.title, bits);
}

export function renderConnection(ctrl, state, detail) {
  const c = ctrl.el.conn;
  c.dataset.state = state;
  const kids = [h("span", { class: "dot", attrs: { "aria-hidden": "true" } }), h("span", { class: "conn-text", text: connectionText(state, detail) })];
  if (state === "offline") {
    // a phone's bar has room for one word beside "Retry now" (table.css)
    kids.push(h("span", { class: "conn-short", text: "Offline" }));
    kids.push(h("button", { class: "link-button", text: "Retry now", attrs: { type: "button" }, on: { click: () => ctrl.reconnect() } }));
  }
  updateChildren(c, kids);
}

/** What a seated player at a timed game in play is told while their socket is down: the
 * page cannot tell the site's outage (no clock runs, the time comes back) from their own
 * connection's (their clock runs), and its timer went on down to "0 s" with nothing said. */
export function outageNote(connState, frame, mySeat) {
  const t = (frame && frame.table) || {};
  if (!clockUnknown(connState)) return "";
  if (mySeat === null || t.status !== "playing" || !t.seconds_per_turn || t.offline) return "";
  return "Not connected: if the site is down, no clock runs and you get the time back; if only your connection dropped, your clock keeps running.";
}

const LEFT_HOW = {
  resignation: ["You resigned", "resigned"],
  timeout: ["Your time ran out too many turns in a row", "ran out of time too often"],
  abandonment: ["You were away too long and the game was claimed", "was away too long"],
};

function ordinal(n) {
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n] || "th"}`;
}

/** What a person who left a game that goes on (``you.left``) is told: they lost, their
 * place, and that a computer plays their seat on; "" for anyone else. */
export function leftNote(left, seatCount) {
  if (!left) return "";
  const how = (LEFT_HOW[left.reason] || ["You left the game"])[0];
  const place = left.place ? `, placed ${ordinal(left.place)}${seatCount ? ` of ${seatCount}` : ""}` : "";
  return `${how}: you lose this game${place}. A computer plays your seat and the game goes on without you.`;
}

/** The people who left since the last frame, as the others are told: "alice resigned: a
 * computer plays their seat and the game goes on." (one line each). */
export function leaversNews(prev, frame) {
  if (!prev || !Array.isArray(prev.seats) || !Array.isArray(frame.seats)) return [];
  const before = new Set(prev.seats.filter((s) => s.left).map((s) => s.index));
  const mine = frame.you && frame.you.left;
  return frame.seats
    .filter((s) => s.left && !before.has(s.index) && !(mine && s.left.username === mine.username))
    .map((s) => `${s.left.name || s.left.username} ${(LEFT_HOW[s.left.reason] || ["", "left the game"])[1]}: a computer plays their seat and the game goes on.`);
}

/** The claim offered when players have been gone over a minute (``you.can_claim``): at a
 * table of three or four where another seat still plays for a place, the claim hands the gone
 * players' seats to the computer and the game goes on (as a resignation there does); else it
 * wins the game. The server says which (``you.claim_goes_on``). */
export function claimText(frame, mySeat) {
  const seats = (frame && frame.seats) || [];
  const gone = seats.filter((s) => s.gone && !s.left && s.index !== mySeat);
  const names = gone.map((s) => s.name).join(", ");
  if (frame && frame.you && frame.you.claim_goes_on) {
    return { note: `${names || "A player"} left the table more than a minute ago: a computer can play ${gone.length > 1 ? "their seats" : "the seat"} and the game goes on.`, button: "Let the computer play on" };
  }
  return { note: `${names || "Your opponent"} left the table more than a minute ago.`, button: "Claim the win" };
}

export function renderBanner(ctrl) {
  const f = ctrl.frame;
  const b = ctrl.el.banner;
  const kids = [];
  const outage = outageNote(ctrl.connState, f, ctrl.mySeat);
  if (outage) kids.push(h("span", { class: "banner-outage", text: outage }));
  const left = f.you && f.you.left;
  if (left && f.table.status === "playing") {
    kids.push(h("span", { class: "banner-left", text: leftNote(left, f.table.seat_count) }));
    if (ctrl.data.room_url) kids.push(h("a", { class: "button button-small", text: "Back to the room", attrs: { href: ctrl.data.room_url } }));
  } else if (f.you && f.you.can_claim) {
    const claim = claimText(f, ctrl.mySeat);
    kids.push(h("span", { text: claim.note }));
    kids.push(h("button", { class: "button button-small", text: claim.button, attrs: { type: "button" }, on: { click: () => confirmClaim(ctrl) } }));
  } else if (f.table.status === "playing") {
    const note = awayNote(f.seats, ctrl.mySeat, ctrl.view ? ctrl.view.to_act : null);
    if (note) kids.push(h("span", { text: note }));
  }
  b.hidden = !kids.length;
  updateChildren(b, kids);
}

/** The BOT badge of a seat held by a bot account (a program playing through the API), or
 * null: the site's own computer levels are "Computer (...)" and carry none. */
export function botBadge(s) {
  if (!s || s.kind !== "user" || !s.is_bot) return null;
  return h("span", { class: "badge badge-bot", text: "BOT", attrs: { title: "A bot account: a program playing through the API" } });
}

/** The avatar of a seat: initials (CPU for a computer, ? for an empty seat). */
export function avatar(s, fallback) {
  const text = s.kind === "bot" ? "CPU" : s.kind === "empty" ? "?" : initials(s.name);
  return h("span", { class: `tbl-avatar tbl-avatar-c${colourIndex(s.name || fallback)}`, text, attrs: { "aria-hidden": "true" } });
}

/** A seat's timer (the clock module fills it in). */
export function seatTimer(seat, cls = "seat-timer") {
  return h("div", { class: cls, data: { timerSeat: seat }, attrs: { hidden: true } }, h("span", { class: "seat-timer-bar" }), h("span", { class: "seat-timer-text" }));
}

function seatBox(ctrl, s) {
  const v = ctrl.view;
  const i = s.index;
  const isTurn = v && v.to_act === i && !v.is_over;
  const box = h("article", { class: `seat-box${isTurn ? " is-turn" : ""}${s.kind === "empty" ? " is-empty" : ""}`, data: { seat: i } });
  const status = seatStatus(s, ctrl.frame.table.status === "playing");
  const full = ctrl.nameOf(i);
  const short = shortNames(ctrl.frame.seats || [], ctrl.ctx().names)[i];
  const nameText = h("span", { class: "seat-name-text", text: full, attrs: { title: full } });
  Object.assign(nameText.dataset, nameLabels(full, short));
  const name = h("div", { class: "seat-name" }, nameText, ...[botBadge(s)].filter(Boolean), h("span", { class: "seat-rating", text: ctrl.ratings.labelOf(s) }), h("span", { class: `seat-presence seat-presence-${status}`, attrs: { title: status, "aria-label": status, role: "img" } }));
  const meta = h("div", { class: "seat-meta" });
  // the word under the name, where the line wraps: beside it, "offline" left "a." of "alice"
  if (status === "offline" || status === "left") meta.append(h("span", { class: `seat-presence-word seat-presence-${status}`, text: status }));
  if (v) {
    meta.append(seatScoreSpan(v, i));
    if (v.dealer === i) meta.append(h("span", { class: "chip chip-dealer", text: "Dealer", attrs: { title: "Dealer" } }));
    if (!gameEndedByHand(v)) meta.append(h("span", { text: plural((v.card_counts || [])[i] || 0, "card") }));
  }
  const head = h("div", { class: "seat-head" }, avatar(s, i), h("div", { class: "seat-who" }, name, meta));
  box.append(head);
  if (v && !gameEndedByHand(v)) {
    const count = (v.card_counts || [])[i] || 0;
    const sd = v.phase === "layoff" ? v.showdown : null;
    // a knocker's melds are on the table and the rest is shown: no face-down cards left
    const known = sd && sd.knocker === i ? sd.knocker_deadwood_cards || [] : (v.known_cards || [])[i] || [];
    const fan = h("div", { class: "seat-fan", attrs: { "aria-hidden": "true" } });
    for (let k = 0; k < Math.min(count - known.length, 11); k++) fan.append(createBack({ small: true }));
    for (const c of known) fan.append(createCard(c, { small: true }));
    box.append(fan);
    if (known.length) box.append(h("p", { class: "visually-hidden", text: `Known cards: ${known.map(cardName).join(", ")}` }));
  }
  box.append(seatTimer(i));
  const turnText = isTurn ? "to play" : "";
  box.setAttribute("aria-label", [ctrl.nameOf(i), s.is_bot && s.kind === "user" ? "bot account" : "", status, turnText].filter(Boolean).join(", "));
  return box;
}

/** A game that ended with its last hand's result (not by a resignation, time or leaving):
 * the felt shows that hand as it was scored (felt.js), so the seats and your hand show no
 * leftover cards and no panel of that hand comes over it. */
export function gameEndedByHand(v) {
  return Boolean(v && v.is_over && v.last_hand);
}

export function renderOpponents(ctrl) {
  const seats = ctrl.view ? seatOrder(ctrl.frame.seats || [], ctrl.mySeat) : [];
  ctrl.el.opps.hidden = !seats.length;
  ctrl.el.opps.dataset.count = String(seats.length);
  updateChildren(ctrl.el.opps, seats.map((s) => seatBox(ctrl, s)));
  fitNames(ctrl.el.opps);
  ctrl.clock.render(); // the timers are born hidden: show them at once, not a tick later
}
