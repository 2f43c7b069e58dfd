// The table in the browser: renders the server's frames and turns clicks, drags and keys
// into the legal moves the server listed. The server is the referee; nothing here decides
// what is legal, and the client never guesses state: it waits for the next frame.

import { actionButtons, layoffTargets, meldActionFor } from "./actions.js";
import { OUTCOME_TEXT, describeEvent, describeHandResult, seatName, turnPrompt } from "./announce.js";
import { cardLabel, cardName, cardsValue, createBack, createCard, ensureSprite } from "./cards.js";
import { clear, h, prefersReducedMotion, setChildren, store } from "./dom.js";
import { DragController, insertionIndex } from "./drag.js";
import { legalOf } from "./frames.js";
import { arrange, meldMembership, moveCard } from "./hand.js";
import { bestLayoffs, bestMelds, meldKind } from "./melds.js";
import { RatingBook } from "./ratings.js";
import { TableSocket, socketUrl } from "./socket.js";

const CHAT_MAX = 300;
const SORT_LABELS = { melds: "Melds", rank: "Rank", suit: "Suit" };
const ENDING_TEXT = {
  normal: "",
  resignation: "by resignation",
  timeout: "on time (three timeouts in a row)",
  abandonment: "by abandonment",
};
const OUTCOME_SHORT = {
  knock: "Knock",
  gin: "Gin",
  big_gin: "Big gin",
  undercut: "Undercut",
  drawn: "Drawn",
  out: "Out",
  stalemate: "Stalemate",
};
const PHASE_WAIT = {
  offer: "to take or pass the upcard",
  draw: "to draw",
  discard: "to discard",
  layoff: "to lay off",
  play: "to play",
};

function initials(name) {
  const parts = String(name || "?").trim().split(/\s+/);
  return (parts[0][0] + (parts.length > 1 ? parts[parts.length - 1][0] : "")).toUpperCase();
}

function colourIndex(name) {
  let x = 0;
  for (const ch of String(name)) x = (x * 31 + ch.codePointAt(0)) % 997;
  return x % 8;
}

/** Seat names, made unique ("Computer (Easy) #3") when two seats share one. */
export function displayNames(seats) {
  const base = seats.map((s) => (s.kind === "empty" ? "Empty seat" : s.name || `Seat ${s.index + 1}`));
  return base.map((n, i) => (base.filter((x) => x === n).length > 1 ? `${n} #${i + 1}` : n));
}

// The shortest time a hand's result stays up before the next turn closes it (ms).
const RESULT_MIN_MS = 4000;

/** A score-sheet column header: the name may wrap at spaces and after _ . - (never mid-word). */
function sheetName(name) {
  const th = h("th", { class: "sheet-name", attrs: { scope: "col" } });
  String(name).split(/(?<=[_.\-])(?=.)/).forEach((part, i) => {
    if (i) th.append(document.createElement("wbr"));
    th.append(part);
  });
  return th;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export class TableApp {
  constructor(root, data) {
    this.root = root;
    this.data = data || {};
    this.frame = null;
    this.view = null;
    this.order = [];
    this.selected = [];
    this.focusCard = null;
    this.newCard = null;
    this.sortMode = store("gin.sort") || "melds";
    this.fourColour = store("gin.fourColour") === "1";
    this.chatLines = [];
    this.log = [];
    this.resultHand = null; // hand number whose result panel is open
    this.resultDismissed = null;
    this.gameOverClosed = false;
    this.clock = null;
    this.busy = false;
    this.lastTurnAnnounced = null;
    this.warnedClock = false;
    this.ratings = new RatingBook();
    ensureSprite(document);
    this.build();
    this.socket = new TableSocket(socketUrl(window.location, this.data.ws_url, this.data.invite), {
      frame: (f, info) => this.onFrame(f, info),
      chat: (m) => this.addChat(m),
      presence: (f) => this.onPresence(f),
      ratings: (f) => { this.ratings.fromRatings(f); if (this.frame) this.render(); },
      error: (f, p) => this.onError(f, p),
      ack: () => this.setBusy(false),
      settled: () => this.setBusy(false),
      status: (s, d) => this.renderConnection(s, d),
    });
    if (this.data.snapshot) this.socket.onFrame(this.data.snapshot);
    this.socket.start();
    this.tick = setInterval(() => this.renderClock(), 250);
  }

  // ------------------------------------------------------------------------------ skeleton

  build() {
    const r = this.root;
    clear(r);
    r.classList.add("tbl");
    r.classList.toggle("four-colour", this.fourColour);
    this.el = {};
    const E = this.el;
    E.live = h("div", { class: "visually-hidden", attrs: { "aria-live": "polite", "aria-atomic": "false", id: "tbl-live" } });
    E.toasts = h("div", { class: "tbl-toasts", attrs: { "aria-live": "assertive" } });
    E.title = h("div", { class: "tbl-title" });
    E.conn = h("div", { class: "tbl-conn", attrs: { role: "status" } });
    E.sheetBtn = h("button", { class: "tbl-tool", text: "Score sheet", attrs: { type: "button" }, on: { click: () => this.openSheet() } });
    E.resignBtn = h("button", { class: "tbl-tool tbl-tool-danger", text: "Resign", attrs: { type: "button", hidden: true }, on: { click: () => this.confirmResign() } });
    E.colourToggle = h("input", { attrs: { type: "checkbox", id: "tbl-four-colour" }, on: { change: (e) => this.setFourColour(e.target.checked) } });
    E.colourToggle.checked = this.fourColour;
    const colourLabel = h("label", { class: "tbl-tool tbl-check", attrs: { for: "tbl-four-colour" } }, E.colourToggle, " Four colours");
    // the same switch where narrow screens show it: in the moves and chat drawer
    E.colourToggle2 = h("input", { attrs: { type: "checkbox", id: "tbl-four-colour-2" }, on: { change: (e) => this.setFourColour(e.target.checked) } });
    E.colourToggle2.checked = this.fourColour;
    E.sideColour = h("label", { class: "tbl-tool tbl-check tbl-side-colour", attrs: { for: "tbl-four-colour-2" } }, E.colourToggle2, " Four-colour cards");
    // narrow screens: moves and chat open over the table (the stylesheet shows this button)
    E.sideBtn = h("button", { class: "tbl-tool tbl-side-toggle", text: "Moves & chat", attrs: { type: "button", "aria-expanded": "false", "aria-controls": "tbl-side" }, on: { click: () => this.toggleSide() } });
    E.bar = h("header", { class: "tbl-bar" }, E.title, E.conn, h("div", { class: "tbl-tools" }, colourLabel, E.sheetBtn, E.sideBtn, E.resignBtn));
    E.banner = h("div", { class: "tbl-banner", attrs: { hidden: true, role: "status" } });
    E.opps = h("section", { class: "tbl-opps", attrs: { "aria-label": "Opponents" } });
    E.felt = h("section", { class: "tbl-felt", attrs: { "aria-label": "Table" } });
    E.panel = h("section", { class: "tbl-panel", attrs: { hidden: true, "aria-live": "polite" } });
    E.promptText = h("p", { class: "tbl-prompt-text" });
    E.actions = h("div", { class: "tbl-actions", attrs: { id: "tbl-actions", tabindex: "-1", "aria-keyshortcuts": "A" } });
    E.prompt = h("div", { class: "tbl-prompt" }, E.promptText, E.actions);
    E.meInfo = h("div", { class: "tbl-me-info" });
    E.sort = h("div", { class: "tbl-sort", attrs: { role: "group", "aria-label": "Sort your hand" } });
    for (const [mode, label] of Object.entries(SORT_LABELS)) {
      E.sort.appendChild(
        h("button", { class: "tbl-sort-btn", text: label, data: { sort: mode }, attrs: { type: "button", "aria-pressed": "false" }, on: { click: () => this.setSort(mode) } }),
      );
    }
    E.hand = h("ul", {
      class: "hand",
      attrs: { role: "listbox", "aria-label": "Your hand", "aria-orientation": "horizontal" },
      data: { drop: "hand" },
    });
    E.hand.addEventListener("keydown", (e) => this.onHandKey(e));
    E.hand.addEventListener("click", (e) => this.onHandClick(e));
    E.me = h("section", { class: "tbl-me", attrs: { "aria-label": "You" } }, h("div", { class: "tbl-me-row" }, E.meInfo, E.sort), E.hand);
    // the prompt and its buttons come first for the keyboard and screen readers (the
    // stylesheet still draws them between the felt and the hand)
    E.main = h("div", { class: "tbl-main" }, E.banner, E.prompt, E.opps, E.felt, E.panel, E.me);
    document.addEventListener("keydown", (e) => this.onShortcut(e));
    E.logList = h("ol", { class: "tbl-log" });
    E.chatList = h("ul", { class: "tbl-chat-list", attrs: { "aria-label": "Chat messages" } });
    E.chatInput = h("input", { class: "tbl-chat-input", attrs: { type: "text", maxlength: CHAT_MAX, id: "tbl-chat-input", autocomplete: "off", "aria-describedby": "tbl-chat-count" } });
    E.chatCount = h("span", { class: "tbl-chat-count", text: `0/${CHAT_MAX}`, attrs: { id: "tbl-chat-count", "aria-live": "off" } });
    E.chatInput.addEventListener("input", () => this.renderChatCount());
    E.chatForm = h(
      "form",
      { class: "tbl-chat-form", on: { submit: (e) => this.sendChat(e) } },
      h("label", { class: "visually-hidden", text: "Message", attrs: { for: "tbl-chat-input" } }),
      E.chatInput,
      h("button", { class: "button button-small", text: "Send", attrs: { type: "submit" } }),
      E.chatCount,
    );
    E.chatNote = h("p", { class: "tbl-chat-note muted", attrs: { hidden: true } });
    E.side = h(
      "aside",
      { class: "tbl-side", attrs: { id: "tbl-side", "aria-label": "Moves and chat" } },
      E.sideColour,
      h("details", { class: "tbl-box", attrs: { open: true } }, h("summary", { text: "Moves" }), E.logList),
      h("details", { class: "tbl-box tbl-chat", attrs: { open: true } }, h("summary", { text: "Chat" }), E.chatList, E.chatForm, E.chatNote),
    );
    E.sheetDialog = h("dialog", { class: "tbl-dialog", attrs: { "aria-labelledby": "tbl-sheet-title" } });
    E.confirmDialog = h("dialog", { class: "tbl-dialog tbl-dialog-small", attrs: { "aria-labelledby": "tbl-confirm-title" } });
    r.append(E.bar, h("div", { class: "tbl-layout" }, E.main, E.side), E.toasts, E.live, E.sheetDialog, E.confirmDialog);
    this.drag = new DragController(r, {
      canDrag: (el) => this.canDrag(el),
      canDrop: (src, drop) => this.canDrop(src, drop),
      over: (src, drop, x, y) => this.dragOver(src, drop, x, y),
      drop: (src, drop, x, y) => this.onDrop(src, drop, x, y),
    });
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => this.layoutHand()).observe(E.me);
    }
    window.addEventListener("resize", () => this.layoutHand());
  }

  // ------------------------------------------------------------------------------ frames

  get mySeat() {
    const you = this.frame && this.frame.you;
    return you && Number.isInteger(you.seat) ? you.seat : null;
  }

  get legal() {
    return legalOf(this.view);
  }

  get myTurn() {
    return this.mySeat !== null && this.view && this.view.to_act === this.mySeat && this.legal.length > 0;
  }

  ctx(frame = this.frame) {
    return { mySeat: this.mySeat, names: displayNames(frame && frame.seats ? frame.seats : []) };
  }

  nameOf(i) {
    return this.ctx().names[i] || `Seat ${i + 1}`;
  }

  onFrame(frame, { gap }) {
    const prev = this.frame;
    const prevView = this.view;
    if (prev && frame.chat === undefined) frame.chat = null;
    this.frame = frame;
    this.view = frame.view || null;
    // waiting for another seat's move: the socket checks sooner for a frame lost on the way
    this.socket.waiting = Boolean(
      this.view && this.view.to_act !== null && this.view.to_act !== undefined &&
      this.view.to_act !== this.mySeat && frame.table && frame.table.status === "playing"
    );
    this.ratings.fromFrame(frame);
    if (Array.isArray(frame.chat)) this.setChat(frame.chat);
    if (frame.clock) {
      this.clock = { seat: frame.clock.seat, end: performance.now() + (frame.clock.remaining_ms || 0), total: (frame.clock.seconds_per_turn || 30) * 1000 };
      this.warnedClock = false;
    } else {
      this.clock = null;
    }
    this.setBusy(false);
    if (prev && prev.you && prev.you.seat === null && this.mySeat !== null) {
      // just sat down on this socket: tell the server at once that we are here
      this.socket.send({ type: "ping", t: Date.now() });
    }
    const hasEvents = frame.type === "state" && Array.isArray(frame.events) && frame.events.length > 0;
    if (!prevView && this.view && Array.isArray(this.view.history) && !(prev && hasEvents)) {
      // a fresh page: the moves of this hand so far go in the log (not read out); the game
      // has just started under our eyes: the deal is read out too
      for (const ev of this.view.history.slice(-30)) {
        const text = describeEvent(ev, this.ctx(frame));
        if (text && prev) this.announce(text);
        else if (text) this.logLine(text);
      }
    }
    if (frame.type === "state" && frame.last && frame.last.source === "timeout") {
      const who = seatName(frame.last.seat, this.ctx(frame));
      this.announce(who === "You" ? "Your time ran out: a safe move was played for you." : `${who}'s time ran out: a safe move was played for them.`);
    }
    // events: announce them (not after a gap: we may have missed some)
    if (frame.type === "state" && frame.last && frame.last.seat === this.mySeat) this.newCard = null;
    if (frame.type === "state" && !gap && Array.isArray(frame.events)) {
      for (const ev of frame.events) {
        if (ev.kind === "drew" && ev.data && ev.data.seat === this.mySeat) this.newCard = ev.data.card;
        if (ev.kind === "draw" && ev.data && ev.data.seat === this.mySeat && ev.data.card) this.newCard = ev.data.card;
        if (ev.kind === "take_upcard" && ev.data && ev.data.seat === this.mySeat) this.newCard = ev.data.card;
        const text = describeEvent(ev, this.ctx(frame));
        if (text) this.announce(text);
      }
    }
    // the hand result panel: when a hand has just ended
    const lh = this.view && this.view.last_hand;
    if (lh) {
      const prevNo = prevView && prevView.last_hand ? prevView.last_hand.hand_number : null;
      // A reload shows a result only if this player has not seen it yet and the next hand
      // has barely begun (not yet their turn in it).
      const fresh = prevView
        ? prevNo !== lh.hand_number
        : !this.resultSeen(lh.hand_number) && !this.myTurn && (this.view.history || []).length <= 2;
      if (fresh && this.resultDismissed !== lh.hand_number) {
        this.resultHand = lh.hand_number;
        this.resultOpened = { version: frame.version, at: Date.now() };
      } else if (this.resultHand === lh.hand_number && this.resultOpened && this.resultOpened.version !== frame.version) {
        this.closeResultOnTurn(prevView, frame);
      }
    }
    // keep only selected cards still in the hand
    const hand = (this.view && this.view.hand) || [];
    this.selected = this.selected.filter((c) => hand.includes(c));
    if (!this.view || this.view.phase !== "play") this.selected = this.selected.slice(-1);
    this.render();
    if (this.myTurn && this.lastTurnAnnounced !== frame.version) {
      this.lastTurnAnnounced = frame.version;
      const was = prevView && prevView.to_act === this.mySeat && legalOf(prevView).length;
      if (!was) this.announce(`Your turn. ${turnPrompt(this.view, this.legal)}`);
    }
    const rm = frame.table && frame.table.rematch;
    if (rm && rm.url && this.mySeat !== null && (!prev || !prev.table.rematch || !prev.table.rematch.url)) {
      this.toast("The rematch is ready: taking you to the new table…", "info");
      setTimeout(() => window.location.assign(rm.url), 900);
    }
  }

  onPresence(f) {
    if (!this.frame) return;
    this.frame = { ...this.frame, seats: f.seats, you: f.you || this.frame.you };
    this.renderOpponents();
    this.renderMe();
    this.renderBanner();
  }

  onError(f, pending) {
    this.setBusy(false);
    if (f.code === "stale_version" || f.code === "duplicate") {
      this.toast("The table moved on: showing the latest position.", "info");
      return;
    }
    if (f.code === "rate_limited" || f.code === "chat_too_long" || f.code === "chat_empty") {
      if (this.lastChat && !this.el.chatInput.value) {
        this.el.chatInput.value = this.lastChat;
        this.renderChatCount();
      }
    }
    this.toast(f.message || "That was refused.", "error");
    if (pending) this.render();
  }

  setBusy(b) {
    this.busy = b;
    this.root.classList.toggle("is-busy", b);
  }

  send(action) {
    if (this.busy) return;
    if (!this.legal.includes(action)) {
      this.toast("That move is not possible now.", "error");
      return;
    }
    const id = this.socket.act(action);
    if (!id) {
      this.toast("Not connected: reconnecting…", "error");
      return;
    }
    this.setBusy(true);
    this.renderPrompt();
  }

  // ------------------------------------------------------------------------------ render

  render() {
    const f = this.frame;
    if (!f) return;
    const v = this.view;
    const role = this.mySeat === null ? "spectator" : "player";
    this.root.dataset.role = role;
    // the header was rendered before this visitor sat down (or stood up)
    for (const el of document.querySelectorAll("[data-watching]")) el.hidden = role !== "spectator";
    this.root.dataset.phase = v ? v.phase : f.table.status;
    this.root.dataset.status = f.table.status;
    this.root.dataset.version = String(f.version);
    this.root.classList.toggle("is-my-turn", this.myTurn);
    // the tab title tells a player whose phone was elsewhere that the table waits for them
    if (this.baseTitle === undefined) this.baseTitle = document.title;
    document.title = this.myTurn && f.table.status === "playing" ? `\u25B6 Your turn \u00B7 ${this.baseTitle}` : this.baseTitle;
    this.renderTitle();
    this.renderBanner();
    this.renderOpponents();
    this.renderFelt();
    this.renderPanel();
    this.renderPrompt();
    this.renderMe();
    this.renderClock();
    const seated = this.mySeat !== null && f.table.status === "playing";
    this.el.resignBtn.hidden = !seated;
    this.el.sheetBtn.hidden = !v;
    const canChat = !!(f.you && f.you.can_chat);
    this.el.chatForm.hidden = !canChat;
    this.el.chatNote.hidden = canChat;
    this.el.chatNote.textContent = canChat ? "" : "Log in to chat at this table.";
  }

  renderTitle() {
    const t = this.frame.table;
    const v = this.view;
    const bits = [];
    if (v) bits.push(h("strong", { text: `Hand ${v.hand_number}` }));
    else bits.push(h("strong", { text: t.status === "open" ? "Waiting for players" : t.mode_name || t.mode }));
    if (v && v.mode === "oklahoma" && v.knock_limit !== null) {
      bits.push(h("span", { class: "chip", text: v.knock_limit === 0 ? "Gin only" : `Knock ≤ ${v.knock_limit}` }));
      if (v.multiplier > 1) bits.push(h("span", { class: "chip chip-hot", text: `Spades ×${v.multiplier}` }));
    } else if (v && v.mode === "straight") {
      bits.push(h("span", { class: "chip", text: "Gin only" }));
    }
    if (this.mySeat === null) bits.push(h("span", { class: "chip chip-watch", text: "Watching" }));
    setChildren(this.el.title, bits);
  }

  renderConnection(state, detail) {
    const c = this.el.conn;
    c.dataset.state = state;
    const text = {
      connecting: "Connecting…",
      open: "Live",
      reconnecting: "Reconnecting…",
      offline: `Connection lost: retrying in ${Math.max(1, Math.round((detail || 0) / 1000))} s`,
      refused: detail || "Refused",
    }[state] || state;
    const kids = [h("span", { class: "dot", attrs: { "aria-hidden": "true" } }), h("span", { text })];
    if (state === "offline") {
      kids.push(h("button", { class: "link-button", text: "Retry now", attrs: { type: "button" }, on: { click: () => this.socket.reconnectNow() } }));
    }
    setChildren(c, kids);
  }

  renderBanner() {
    const f = this.frame;
    const b = this.el.banner;
    const kids = [];
    if (f.you && f.you.can_claim) {
      const gone = f.seats.filter((s) => s.gone && s.index !== this.mySeat).map((s) => s.name).join(", ");
      kids.push(h("span", { text: `${gone || "Your opponent"} left the table more than a minute ago.` }));
      kids.push(h("button", { class: "button button-small", text: "Claim the win", attrs: { type: "button" }, on: { click: () => this.socket.send({ type: "claim" }) } }));
    } else if (f.table.status === "playing") {
      const away = f.seats.filter((s) => s.kind === "user" && !s.connected && s.index !== this.mySeat);
      if (away.length) kids.push(h("span", { text: `${away.map((s) => s.name).join(", ")} ${away.length > 1 ? "are" : "is"} disconnected. Waiting for them to come back…` }));
    }
    b.hidden = !kids.length;
    setChildren(b, kids);
  }

  seatOrder() {
    const seats = this.frame.seats || [];
    const me = this.mySeat;
    if (me === null) return seats.slice();
    const n = seats.length;
    const out = [];
    for (let k = 1; k < n; k++) out.push(seats[(me + k) % n]);
    return out;
  }

  seatScore(i) {
    const v = this.view;
    if (!v) return null;
    const cols = v.score_sheet && v.score_sheet.columns;
    if (cols && cols.length > 1) return cols.map((c) => c.points[i]).join(" · ");
    return String((v.scores || [])[i] ?? 0);
  }

  seatBox(s) {
    const v = this.view;
    const i = s.index;
    const isTurn = v && v.to_act === i && !v.is_over;
    const box = h("article", { class: `seat-box${isTurn ? " is-turn" : ""}${s.kind === "empty" ? " is-empty" : ""}`, data: { seat: i } });
    const avatar = h("span", { class: `tbl-avatar tbl-avatar-c${colourIndex(s.name || i)}`, text: s.kind === "bot" ? "CPU" : s.kind === "empty" ? "?" : initials(s.name), attrs: { "aria-hidden": "true" } });
    const status = s.kind === "user" ? (s.gone ? "left" : s.connected ? "online" : "offline") : s.kind === "bot" ? "computer" : "empty";
    const name = h("div", { class: "seat-name" }, h("span", { class: "seat-name-text", text: this.nameOf(i) }), h("span", { class: "seat-rating", text: this.ratings.labelOf(s) }), h("span", { class: `seat-presence seat-presence-${status}`, attrs: { title: status }, text: status === "online" || status === "computer" ? "" : status }));
    const meta = h("div", { class: "seat-meta" });
    if (v) {
      meta.append(h("span", { text: `Score ${this.seatScore(i)}` }));
      if (v.dealer === i) meta.append(h("span", { class: "chip chip-dealer", text: "Dealer", attrs: { title: "Dealer" } }));
      meta.append(h("span", { text: plural((v.card_counts || [])[i] || 0, "card") }));
    }
    const head = h("div", { class: "seat-head" }, avatar, h("div", { class: "seat-who" }, name, meta));
    box.append(head);
    if (v) {
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
    const timer = h("div", { class: "seat-timer", data: { timerSeat: i }, attrs: { hidden: true } }, h("span", { class: "seat-timer-bar" }), h("span", { class: "seat-timer-text" }));
    box.append(timer);
    const turnText = isTurn ? "to play" : "";
    box.setAttribute("aria-label", [this.nameOf(i), status, turnText].filter(Boolean).join(", "));
    return box;
  }

  renderOpponents() {
    const seats = this.view ? this.seatOrder() : [];
    this.el.opps.hidden = !seats.length;
    this.el.opps.dataset.count = String(seats.length);
    setChildren(this.el.opps, seats.map((s) => this.seatBox(s)));
    this.renderClock(); // a timer born hidden would shift the layout until the next tick
  }

  renderFelt() {
    const f = this.frame;
    const v = this.view;
    const felt = this.el.felt;
    if (!v) {
      setChildren(felt, this.waitingPanel());
      return;
    }
    const legal = this.legal;
    const canStock = this.myTurn && legal.includes("draw:stock");
    const top = v.discard_pile[v.discard_pile.length - 1] || null;
    const canDiscardPile = this.myTurn && (legal.includes("draw:discard") || legal.includes("take_upcard"));
    const discarding = this.myTurn && legal.some((a) => a.startsWith("discard:"));
    // stock
    const stock = h("button", {
      class: `pile pile-stock${canStock ? " is-live" : ""}`,
      attrs: { type: "button", "aria-label": `Stock, ${plural(v.stock_count, "card")}${canStock ? ": draw from the stock" : ""}`, disabled: !canStock },
      data: canStock ? { drag: "stock", action: "draw:stock" } : { action: "draw:stock" },
      on: { click: () => this.send("draw:stock") },
    });
    if (v.stock_count > 0) {
      for (let k = 0; k < Math.min(3, Math.ceil(v.stock_count / 10)); k++) stock.append(createBack());
    } else stock.append(h("span", { class: "pile-empty", text: "Empty" }));
    stock.append(h("span", { class: "pile-count", text: String(v.stock_count), attrs: { "aria-hidden": "true" } }));
    // discard pile: the top card and a hint of the ones below
    const pileAction = legal.includes("take_upcard") ? "take_upcard" : "draw:discard";
    const discardLabel = top ? `Discard pile, ${cardName(top)} on top` : "Discard pile, empty";
    const pile = h("button", {
      class: `pile pile-discard${canDiscardPile ? " is-live" : ""}${discarding ? " is-target" : ""}`,
      attrs: {
        type: "button",
        "aria-label": discardLabel + (canDiscardPile ? `: take ${cardLabel(top)}` : discarding ? ": discard the selected card here" : ""),
        disabled: !(canDiscardPile || (discarding && this.selected.length === 1)),
      },
      data: Object.assign({ drop: "discard" }, canDiscardPile ? { drag: "discard" } : {}),
      on: { click: () => this.onPileClick(pileAction) },
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
    // rummy: the melds on the table; gin: the knocker's melds while the defender lays off
    if (v.table && v.table.length && (v.mode === "rummy" || v.phase === "layoff")) kids.push(this.tableMelds());
    setChildren(felt, kids);
  }

  tableMelds() {
    const v = this.view;
    const sd = v.showdown;
    const wrap = h("div", { class: "tbl-melds" });
    if (sd) {
      const who = seatName(sd.knocker, this.ctx());
      const kind = sd.kind === "knock" ? "knocked" : sd.kind === "gin" ? "went gin" : "went big gin";
      wrap.append(h("p", { class: "tbl-melds-title", text: `${who} ${kind}: ${who === "You" ? "your" : "their"} melds${sd.knocker_deadwood_cards.length ? ` and ${sd.knocker_deadwood} deadwood` : ""}` }));
    } else {
      wrap.append(h("p", { class: "tbl-melds-title", text: "Melds on the table" }));
    }
    const one = this.selected.length === 1 ? this.selected[0] : null;
    const targets = one && this.myTurn ? layoffTargets(this.legal, one) : [];
    const laid = new Set(((sd && sd.layoffs) || []).map(([c]) => c));
    const row = h("div", { class: "meld-row" });
    v.table.forEach((meld, i) => {
      const live = targets.includes(i);
      const m = h("button", {
        class: `meld${live ? " is-target" : ""}`,
        attrs: { type: "button", "aria-label": `Meld ${i + 1}: ${meld.map(cardLabel).join(" ")}${live ? `. Lay off ${cardLabel(one)} here` : ""}`, disabled: !live },
        data: { drop: "meld", meld: i },
        on: { click: () => live && this.send(`layoff:${one}>${i}`) },
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

  waitingPanel() {
    const f = this.frame;
    const t = f.table;
    const box = h("div", { class: "tbl-waiting" });
    if (t.status === "open") {
      const free = f.seats.filter((s) => s.kind === "empty").length;
      box.append(h("h2", { text: "Waiting for players" }));
      box.append(h("p", { text: `${plural(free, "seat")} free. The game starts as soon as every seat is taken.` }));
      const names = this.ctx().names;
      box.append(h("ol", { class: "tbl-seat-list" }, f.seats.map((s, i) => h("li", { class: `tbl-seat-item${s.kind === "empty" ? " is-empty" : ""}`, text: `${names[i]}${i === this.mySeat ? " (you)" : ""}` }))));
      const actions = h("div", { class: "tbl-actions" });
      if (f.you && f.you.can_sit) {
        actions.append(h("button", { class: "button", text: "Take a seat", attrs: { type: "button" }, on: { click: () => this.socket.send({ type: "sit" }) } }));
      }
      if (this.mySeat !== null) {
        if (free && !t.rated) {
          const level = h("select", { attrs: { "aria-label": "Computer level" } });
          (this.data.bot_levels || []).forEach(([val, label]) => level.append(h("option", { text: label, attrs: { value: String(val) } })));
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
                  if (seat) this.socket.send({ type: "add_bot", seat: seat.index, level: Number(level.value) });
                },
              },
            }),
          );
        }
        actions.append(h("button", { class: "button button-secondary", text: "Leave", attrs: { type: "button" }, on: { click: () => this.socket.send({ type: "leave" }) } }));
      }
      box.append(actions);
      if (this.data.invite_link && this.mySeat !== null) {
        const input = h("input", { class: "tbl-invite-input", attrs: { type: "text", readonly: true, id: "tbl-invite", value: this.data.invite_link } });
        const copy = h("button", {
          class: "button button-small button-secondary",
          text: "Copy",
          attrs: { type: "button" },
          on: {
            click: () => {
              input.select();
              const done = () => this.toast("Invite link copied.", "info");
              if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, () => {});
              else if (document.execCommand && document.execCommand("copy")) done();
            },
          },
        });
        box.append(h("div", { class: "tbl-invite" }, h("label", { text: "Invite link: send it to the people you want to play", attrs: { for: "tbl-invite" } }), h("div", { class: "tbl-invite-row" }, input, copy)));
      }
    } else if (t.finish) {
      box.append(h("h2", { text: "This game is over" }));
      box.append(h("a", { text: "See the score sheet", attrs: { href: t.finish.url } }));
    } else {
      box.append(h("p", { text: "The cards are being dealt…" }));
    }
    return box;
  }

  // the hand result / game over panel
  renderPanel() {
    const p = this.el.panel;
    const f = this.frame;
    const v = this.view;
    const over = f.table.status === "finished" || f.table.status === "abandoned" || (v && v.is_over);
    const shown = p.hidden ? null : p.dataset.shown;
    let key = null;
    if (over && !this.gameOverClosed) {
      key = "game-over";
      p.dataset.kind = "game-over";
      setChildren(p, this.gameOverContent());
    } else if (v && v.last_hand && this.resultHand === v.last_hand.hand_number) {
      key = `hand-${v.last_hand.hand_number}`;
      p.dataset.kind = "hand";
      setChildren(p, this.handResultContent(v.last_hand, true));
    }
    p.hidden = key === null;
    if (key === null) {
      clear(p);
      delete p.dataset.shown;
      return;
    }
    p.dataset.shown = key;
    if (p.dataset.kind === "hand") store(`gin.result.${this.data.table_id}`, String(v.last_hand.hand_number));
    // a phone shows only part of the table: a result that just appeared is brought into view
    if (shown !== key) this.reveal(p);
  }

  /** Scroll ``el`` into view when it is not (most of it) on the screen already. */
  reveal(el, block = "start") {
    if (typeof el.scrollIntoView !== "function") return;
    const r = el.getBoundingClientRect();
    const vh = window.innerHeight || document.documentElement.clientHeight;
    if (r.top >= 0 && r.top < vh * 0.6) return;
    el.scrollIntoView({ block, behavior: prefersReducedMotion() ? "auto" : "smooth" });
  }

  cardRow(cards, cls = "") {
    const row = h("div", { class: `card-row ${cls}` });
    for (const c of cards) row.append(createCard(c, { small: true }));
    row.setAttribute("aria-label", cards.map(cardLabel).join(" "));
    row.setAttribute("role", "img");
    return row;
  }

  meldsBlock(melds, deadwood, laidOff = []) {
    const wrap = h("div", { class: "show-melds" });
    melds.forEach((m, i) => {
      const row = this.cardRow(m, "is-meld");
      for (const [c, idx] of laidOff) {
        if (idx === i) {
          const el = createCard(c, { small: true });
          el.classList.add("is-laid");
          row.append(el);
          row.setAttribute("aria-label", `${row.getAttribute("aria-label")} plus laid off ${cardLabel(c)}`);
        }
      }
      wrap.append(row);
    });
    if (deadwood.length) wrap.append(this.cardRow(deadwood, "is-deadwood"));
    return wrap;
  }

  handResultContent(hr, closable) {
    const ctx = this.ctx();
    const kids = [];
    const title = describeHandResult(hr, ctx);
    kids.push(h("h2", { class: "panel-title", text: `Hand ${hr.hand_number}: ${title}` }));
    if (hr.knocker !== null && hr.knocker !== undefined) {
      const kname = seatName(hr.knocker, ctx);
      const dname = seatName(hr.defender, ctx);
      const kcards = hr.knocker_deadwood_cards || [];
      kids.push(
        h("div", { class: "show-side" }, h("h3", { text: `${kname} ${hr.outcome === "big_gin" ? "(big gin)" : hr.outcome === "gin" ? "(gin)" : "(knocked)"}` }), this.meldsBlock(hr.knocker_melds || [], kcards, hr.layoffs || []), h("p", { class: "show-dw", text: `Deadwood ${hr.knocker_deadwood}` })),
      );
      const laid = (hr.layoffs || []).map(([c]) => cardLabel(c));
      kids.push(
        h(
          "div",
          { class: "show-side" },
          h("h3", { text: dname }),
          this.meldsBlock(hr.defender_melds || [], hr.defender_deadwood_cards || []),
          h("p", { class: "show-dw", text: `Deadwood ${hr.defender_deadwood}${laid.length ? ` after laying off ${laid.join(" ")}` : ""}` }),
        ),
      );
      let score = `${seatName(hr.winner, ctx)} score${seatName(hr.winner, ctx) === "You" ? "" : "s"} ${hr.points}`;
      if (hr.outcome === "undercut") score += " (25 undercut bonus + the difference)";
      else if (hr.outcome === "gin") score += " (25 gin bonus + deadwood)";
      else if (hr.outcome === "big_gin") score += " (31 big gin bonus + deadwood)";
      if (hr.multiplier > 1) score += `, doubled: the upcard was a spade`;
      if (hr.columns && hr.columns.length && (this.view.score_sheet.columns || []).length > 1) score += `. Scored in game${hr.columns.length > 1 ? "s" : ""} ${hr.columns.map((c) => c + 1).join(", ")}`;
      kids.push(h("p", { class: "show-score", text: `${score}.` }));
    } else if (hr.remaining && hr.remaining.length) {
      const list = h("div", { class: "show-grid" });
      hr.remaining.forEach((cards, i) => {
        list.append(h("div", { class: "show-side" }, h("h3", { text: `${seatName(i, ctx)}${i === hr.winner ? " (out)" : ""}` }), cards.length ? this.cardRow(cards) : h("p", { class: "muted", text: "No cards left" }), h("p", { class: "show-dw", text: cards.length ? `${cardsValue(cards)} points in hand` : "" })));
      });
      kids.push(list);
      if (hr.winner !== null && hr.winner !== undefined) {
        kids.push(h("p", { class: "show-score", text: `${seatName(hr.winner, ctx)} score${seatName(hr.winner, ctx) === "You" ? "" : "s"} ${hr.points}${hr.going_rummy ? ": going rummy doubles it" : ""}.` }));
      }
    }
    if (hr.reason) kids.push(h("p", { class: "muted", text: `(${hr.reason})` }));
    kids.push(this.scoreLine());
    if (closable) {
      kids.push(
        h("div", { class: "tbl-actions" }, h("button", { class: "button", text: "Continue", data: { act: "continue" }, attrs: { type: "button" }, on: { click: () => { this.resultDismissed = hr.hand_number; this.resultHand = null; this.renderPanel(); this.focusHand(); this.reveal(this.el.prompt, "center"); } } }), h("button", { class: "button button-secondary", text: "Score sheet", attrs: { type: "button" }, on: { click: () => this.openSheet() } })),
      );
    }
    return kids;
  }

  scoreLine() {
    const seats = this.frame.seats || [];
    const line = h("p", { class: "score-line" });
    seats.forEach((s, i) => {
      if (i) line.append(" · ");
      line.append(h("span", { text: `${seatName(i, this.ctx())}: ${this.seatScore(i)}` }));
    });
    return line;
  }

  gameOverContent() {
    const f = this.frame;
    const v = this.view;
    const fin = f.table.finish || {};
    const ctx = this.ctx();
    const res = v && v.result;
    const winner = res ? res.winner : fin.winner_seat;
    const kids = [];
    let title = "Game over";
    if (winner !== null && winner !== undefined) title = seatName(winner, ctx) === "You" ? "You win the game!" : `${seatName(winner, ctx)} wins the game`;
    else if (res) title = "The game is a tie";
    kids.push(h("h2", { class: "panel-title", text: title }));
    const how = ENDING_TEXT[fin.ending] || "";
    if (how) {
      const loser = fin.loser_seat !== null && fin.loser_seat !== undefined ? seatName(fin.loser_seat, ctx) : "";
      kids.push(h("p", { class: "muted", text: `Ended ${how}${loser ? `: ${loser === "You" ? "you" : loser}` : ""}.` }));
    }
    if (v && v.last_hand && (!how || fin.ending === "normal")) {
      const d = h("details", { class: "tbl-last-hand" }, h("summary", { text: `Last hand: ${describeHandResult(v.last_hand, ctx)}` }));
      d.append(...this.handResultContent(v.last_hand, false));
      kids.push(d);
    }
    const seats = f.seats || [];
    if (res && res.columns && res.columns.length) {
      res.columns.forEach((col) => {
        const tbl = h("table", { class: "sheet sheet-final" });
        const cap = res.columns.length > 1 ? `Game ${col.column + 1}` : "Final score";
        tbl.append(h("caption", { text: cap + (col.shutout ? " (shutout!)" : "") }));
        tbl.append(h("thead", {}, h("tr", {}, h("td", { class: "sheet-corner" }), seats.map((s, i) => sheetName(seatName(i, ctx))))));
        const body = h("tbody");
        const cell = (x) => (x instanceof Node ? h("td", {}, x) : h("td", { text: String(x) }));
        const row = (label, vals, cls = "") => body.append(h("tr", { class: cls }, h("th", { text: label, attrs: { scope: "row" } }), vals.map(cell)));
        row("Hand points", col.hand_points);
        if (col.shutout) row("Shutout: doubled", col.scored_points);
        row("Game bonus", col.game_bonus);
        // the number of hands on a line of its own, so two columns fit a 360 px phone
        row("Line bonus", col.line_bonus.map((x, i) => h("span", {}, String(x), h("span", { class: "sheet-note", text: plural(col.hands_won[i], "hand") }))));
        row("Total", col.totals, "sheet-total");
        tbl.append(body);
        kids.push(h("div", { class: "sheet-wrap" }, tbl));
      });
    }
    const totals = res ? res.totals : fin.scores;
    if (totals) {
      const grand = h("p", { class: "score-line score-grand" });
      totals.forEach((t, i) => {
        if (i) grand.append(" · ");
        grand.append(h("strong", { text: `${seatName(i, ctx)} ${t}` }));
      });
      kids.push(grand);
      if (res && res.margin) kids.push(h("p", { class: "muted", text: `Margin ${res.margin} · ${plural(res.hands_played, "hand")} played` }));
    }
    const rc = this.ratings.changeList();
    if (rc.length) kids.push(h("p", { class: "rating-changes", text: `Rating: ${rc.map(([i, c]) => `${seatName(i, ctx)} ${c}`).join(" · ")}` }));
    const actions = h("div", { class: "tbl-actions" });
    const rm = f.table.rematch || { offers: [] };
    if (this.mySeat !== null) {
      const me = f.you && f.you.username;
      const mine = (rm.offers || []).some((o) => o === me || o === this.mySeat);
      const others = (rm.offers || []).filter((o) => o !== me && o !== this.mySeat);
      if (others.length) kids.push(h("p", { class: "rematch-note", text: `${others.map((o) => (Number.isInteger(o) ? seatName(o, ctx) : (seats.find((s) => s.username === o) || { name: o }).name)).join(", ")} would like a rematch.` }));
      if (mine) {
        actions.append(h("button", { class: "button button-secondary", text: "Withdraw rematch offer", attrs: { type: "button" }, on: { click: () => this.socket.send({ type: "rematch", accept: false }) } }));
        kids.push(h("p", { class: "muted", text: "Rematch offered: waiting for the other players…" }));
      } else {
        actions.append(h("button", { class: "button", text: others.length ? "Accept the rematch" : "Offer a rematch", attrs: { type: "button" }, on: { click: () => this.socket.send({ type: "rematch", accept: true }) } }));
      }
    }
    if (rm.url) actions.append(h("a", { class: "button", text: "Go to the rematch", attrs: { href: rm.url } }));
    if (fin.url) actions.append(h("a", { class: "button button-secondary", text: "Game record", attrs: { href: fin.url } }));
    actions.append(h("a", { class: "button button-secondary", text: "Back to the room", attrs: { href: this.data.room_url || `/play/${f.table.room.slug}/` } }));
    if (v) actions.append(h("button", { class: "button button-secondary", text: "Look at the table", attrs: { type: "button" }, on: { click: () => { this.gameOverClosed = true; this.renderPanel(); } } }));
    kids.push(actions);
    return kids;
  }

  renderPrompt() {
    const v = this.view;
    const f = this.frame;
    const text = this.el.promptText;
    const acts = this.el.actions;
    clear(acts);
    this.el.prompt.classList.remove("has-choice");
    if (!v) {
      text.textContent = "";
      this.el.prompt.hidden = true;
      return;
    }
    this.el.prompt.hidden = false;
    if (v.is_over || f.table.status !== "playing") {
      text.textContent = f.table.status === "playing" ? "" : "The game is over.";
      if (this.gameOverClosed) acts.append(h("button", { class: "button button-small", text: "Show the result", attrs: { type: "button" }, on: { click: () => { this.gameOverClosed = false; this.renderPanel(); } } }));
      return;
    }
    if (this.myTurn) {
      text.textContent = this.busy ? "Sending…" : turnPrompt(v, this.legal);
      const hand = this.handCards();
      for (const b of actionButtons(v, this.legal, this.selected, hand)) {
        acts.append(h("button", { class: `button${b.primary ? "" : " button-secondary"}`, text: b.label, data: { act: b.id }, attrs: { type: "button", disabled: this.busy }, on: { click: () => this.send(b.action) } }));
      }
      // the buttons say what can be done: on a short screen they take the instructions' place
      // instead of squeezing the piles out of the felt
      this.el.prompt.classList.toggle("has-choice", acts.children.length > 0);
    } else {
      const who = v.to_act !== null ? seatName(v.to_act, this.ctx()) : "";
      if (this.mySeat === null) text.textContent = who ? `${who} ${PHASE_WAIT[v.phase] || "to play"}.` : "";
      else text.textContent = who ? `Waiting for ${who} ${PHASE_WAIT[v.phase] || "to play"}…` : "";
      if (v.phase === "layoff" && this.mySeat !== null && v.showdown && v.showdown.knocker === this.mySeat) {
        text.textContent = `You knocked. ${who} is laying off onto your melds…`;
      }
    }
  }

  handCards() {
    return (this.view && this.view.hand) || [];
  }

  renderMe() {
    const v = this.view;
    const me = this.mySeat;
    this.el.me.hidden = me === null || !v;
    if (me === null || !v) return;
    const hand = this.handCards();
    if (!this.order.length && this.sortMode === "custom") this.order = this.savedOrder();
    this.order = arrange(this.order, hand, this.sortMode);
    if (this.sortMode === "custom") this.saveOrder();
    const res = bestMelds(hand);
    const member = meldMembership(res.melds);
    const legal = this.legal;
    const layoffPhase = v.phase === "layoff" && this.myTurn;
    const suggested = layoffPhase ? new Set(bestLayoffs(hand, v.table || []).layoffs.map(([c]) => c)) : new Set();
    // info line
    const s = this.frame.seats[me];
    const info = [h("span", { class: `tbl-avatar tbl-avatar-c${colourIndex(s.name || me)}`, text: initials(s.name), attrs: { "aria-hidden": "true" } }), h("strong", { text: s.name || "You" }), h("span", { class: "seat-rating", text: this.ratings.labelOf(s) }), h("span", { text: `Score ${this.seatScore(me)}` })];
    if (v.dealer === me) info.push(h("span", { class: "chip chip-dealer", text: "Dealer" }));
    let dwText;
    const playing = this.frame.table.status === "playing" && !v.is_over;
    if (playing && this.myTurn && v.mode !== "rummy" && hand.length === 11 && v.phase === "discard") {
      const one = this.selected.length === 1 ? this.selected[0] : null;
      if (one) dwText = `Discarding ${cardLabel(one)} leaves ${bestMelds(hand.filter((c) => c !== one)).deadwood} deadwood`;
      else {
        let best = Infinity;
        for (const c of hand) best = Math.min(best, bestMelds(hand.filter((x) => x !== c)).deadwood);
        dwText = `Best discard leaves ${best} deadwood`;
      }
    } else dwText = `Deadwood ${res.deadwood}`;
    // no cards left (the hand went onto the table at the end): no empty hand, no count
    this.el.hand.hidden = !hand.length;
    this.el.sort.hidden = !hand.length;
    if (hand.length) info.push(h("span", { class: `deadwood-pill${res.deadwood === 0 ? " is-zero" : ""}`, text: dwText, attrs: { "aria-live": "off" } }));
    info.push(h("div", { class: "seat-timer seat-timer-me", data: { timerSeat: me }, attrs: { hidden: true } }, h("span", { class: "seat-timer-bar" }), h("span", { class: "seat-timer-text" })));
    setChildren(this.el.meInfo, info);
    // show the new timer at once: born hidden, it took its row away until the clock's next
    // tick and moved the prompt and the hand under a finger about to tap them
    this.renderClock();
    for (const b of this.el.sort.querySelectorAll("[data-sort]")) b.setAttribute("aria-pressed", String(b.dataset.sort === this.sortMode));
    // cards
    const ul = this.el.hand;
    const hadFocus = ul.contains(document.activeElement) && document.activeElement.classList.contains("hand-card") ? document.activeElement.dataset.card : null;
    const multi = v.phase === "play";
    ul.setAttribute("aria-multiselectable", String(multi));
    clear(ul);
    const focusTarget = hadFocus || this.focusCard || this.order[0];
    this.order.forEach((c) => {
      const m = member.get(c);
      const sel = this.selected.includes(c);
      const canDiscard = legal.includes(`discard:${c}`) || legal.includes(`go_out:${c}`);
      const classes = ["hand-card"];
      if (m !== undefined) classes.push("in-meld", `meld-${m % 4}`);
      if (sel) classes.push("is-selected");
      if (c === this.newCard) classes.push("is-new");
      if (v.taken_card === c && this.myTurn) classes.push("is-taken");
      if (suggested.has(c)) classes.push("is-suggested");
      if (this.myTurn && canDiscard) classes.push("can-discard");
      const bits = [cardName(c)];
      if (m !== undefined) bits.push(`in meld ${meldKind(res.melds[m])}`);
      else bits.push("deadwood");
      if (c === this.newCard) bits.push("just drawn");
      if (v.taken_card === c && this.myTurn) bits.push("taken from the discard pile, cannot be discarded this turn");
      if (suggested.has(c)) bits.push("suggested lay-off");
      const li = h("li", {
        class: classes.join(" "),
        attrs: { role: "option", "aria-selected": String(sel), tabindex: c === focusTarget ? "0" : "-1", "aria-label": bits.join(", ") },
        data: { card: c, drag: "hand" },
      });
      li.append(createCard(c));
      ul.append(li);
    });
    if (!ul.querySelector('[tabindex="0"]') && ul.firstChild) ul.firstChild.setAttribute("tabindex", "0");
    if (hadFocus) {
      const el = ul.querySelector(`.hand-card[data-card="${hadFocus}"]`) || ul.firstChild;
      if (el) el.focus({ preventScroll: true });
    }
    this.layoutHand();
  }

  /** Fit the hand: one row (overlapping if needed) on wide screens, two rows on phones. */
  layoutHand() {
    const ul = this.el.hand;
    const n = ul.children.length;
    if (!n) return;
    const W = ul.clientWidth;
    if (!W) return;
    // the stylesheet caps the card size and the overlap by the screen's height (--hand-max,
    // --hand-min-step) so that the whole table fits without scrolling
    const css = getComputedStyle(ul);
    const cap = parseFloat(css.getPropertyValue("--hand-max")) || 86;
    const minStep = parseFloat(css.getPropertyValue("--hand-min-step")) || 40;
    const want = Math.min(cap, W >= 700 ? 86 : W >= 480 ? 72 : 64);
    const gap = 6;
    let w = want;
    let step = w + gap;
    let rows = 1;
    if (n * (w + gap) - gap > W) {
      step = (W - w) / (n - 1);
      if (step < minStep) {
        rows = 2;
        const perRow = Math.ceil(n / 2);
        w = Math.min(want, Math.floor((W - (perRow - 1) * gap) / perRow));
        step = w + gap;
      }
    }
    ul.classList.toggle("is-rows", rows > 1);
    ul.style.setProperty("--card-w", `${w}px`);
    ul.style.setProperty("--overlap", rows > 1 || step >= w + gap ? `${gap}px` : `${step - w}px`);
  }

  // ------------------------------------------------------------------------------ clock

  renderClock() {
    const els = this.root.querySelectorAll("[data-timer-seat]");
    const c = this.clock;
    for (const el of els) {
      const seat = Number(el.dataset.timerSeat);
      if (!c || c.seat !== seat || !this.view || this.view.is_over) {
        el.hidden = true;
        continue;
      }
      const left = Math.max(0, c.end - performance.now());
      el.hidden = false;
      const pct = Math.max(0, Math.min(100, (left / c.total) * 100));
      el.querySelector(".seat-timer-bar").style.width = `${pct}%`;
      el.querySelector(".seat-timer-text").textContent = `${Math.ceil(left / 1000)} s`;
      el.classList.toggle("is-low", left < 10000);
      el.setAttribute("aria-label", `${Math.ceil(left / 1000)} seconds left`);
      if (seat === this.mySeat && left < 10000 && left > 0 && !this.warnedClock && this.myTurn) {
        this.warnedClock = true;
        this.announce("Ten seconds left.");
      }
    }
  }

  // ------------------------------------------------------------------------------ input

  onPileClick(action) {
    if (!this.myTurn || this.busy) return;
    const legal = this.legal;
    if (this.selected.length === 1 && legal.includes(`discard:${this.selected[0]}`)) {
      this.send(`discard:${this.selected[0]}`);
      return;
    }
    if (legal.includes(action)) this.send(action);
  }

  toggleSelect(c) {
    const v = this.view;
    if (!v) return;
    const multi = v.phase === "play";
    if (this.selected.includes(c)) this.selected = this.selected.filter((x) => x !== c);
    else this.selected = multi ? this.selected.concat([c]) : [c];
    this.focusCard = c;
    this.renderMe();
    this.renderPrompt();
    if (v.table && v.table.length) this.renderFelt();
    else this.refreshPileTarget();
  }

  /** Whether this player has already been shown hand ``n``'s result at this table. */
  resultSeen(n) {
    return Number(store(`gin.result.${this.data.table_id}`) || 0) >= n;
  }

  /**
   * The result panel of the last hand closes by itself once this player's first turn of the
   * next hand begins (or they move), after being up for at least RESULT_MIN_MS: a computer
   * that moves first would otherwise take it away before it could be read.
   */
  closeResultOnTurn(prevView, frame) {
    const turnBegins = this.myTurn && !(prevView && prevView.to_act === this.mySeat);
    const moved = frame.last && frame.last.seat === this.mySeat;
    if (!turnBegins && !moved) return;
    const hand = this.resultHand;
    const close = () => {
      if (this.resultHand !== hand) return;
      this.resultDismissed = hand;
      this.resultHand = null;
      this.renderPanel();
    };
    const wait = this.resultOpened.at + RESULT_MIN_MS - Date.now();
    if (wait > 0 && !moved) setTimeout(close, wait);
    else close();
  }

  refreshPileTarget() {
    this.renderFelt();
  }

  onHandClick(e) {
    const li = e.target.closest(".hand-card");
    if (!li || !this.el.hand.contains(li)) return;
    // A tap only ever selects or deselects: discarding, going out and laying off are
    // explicit acts (their buttons, the discard pile, a drag), never a second tap.
    this.toggleSelect(li.dataset.card);
  }

  onHandKey(e) {
    const li = e.target.closest(".hand-card");
    if (!li) return;
    const items = [...this.el.hand.querySelectorAll(".hand-card")];
    const i = items.indexOf(li);
    const c = li.dataset.card;
    const focusAt = (k) => {
      const el = items[Math.max(0, Math.min(items.length - 1, k))];
      if (!el) return;
      items.forEach((x) => x.setAttribute("tabindex", "-1"));
      el.setAttribute("tabindex", "0");
      el.focus();
      this.focusCard = el.dataset.card;
    };
    const key = e.key;
    if ((key === "ArrowLeft" || key === "ArrowRight") && e.shiftKey) {
      e.preventDefault();
      const to = i + (key === "ArrowLeft" ? -1 : 1);
      if (to < 0 || to >= items.length) return;
      this.order = moveCard(this.order, i, to);
      this.setSort("custom", false);
      this.focusCard = c;
      this.renderMe();
      const el = this.el.hand.querySelector(`.hand-card[data-card="${c}"]`);
      if (el) el.focus();
      this.announce(`${cardLabel(c)} moved to position ${to + 1}.`);
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowUp") {
      e.preventDefault();
      focusAt(i - 1);
    } else if (key === "ArrowRight" || key === "ArrowDown") {
      e.preventDefault();
      focusAt(i + 1);
    } else if (key === "Home") {
      e.preventDefault();
      focusAt(0);
    } else if (key === "End") {
      e.preventDefault();
      focusAt(items.length - 1);
    } else if (key === " " || key === "Spacebar") {
      e.preventDefault();
      this.toggleSelect(c);
    } else if (key === "Enter") {
      e.preventDefault();
      const legal = this.legal;
      if (this.myTurn && legal.includes(`discard:${c}`)) this.send(`discard:${c}`);
      else if (this.myTurn && legal.includes(`go_out:${c}`)) this.send(`go_out:${c}`);
      else if (this.myTurn && layoffTargets(legal, c).length === 1) this.send(`layoff:${c}>${layoffTargets(legal, c)[0]}`);
      else this.toggleSelect(c);
    }
  }

  /** A jumps to the move buttons, H to the hand (not while typing, nor with modifiers). */
  onShortcut(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    const key = e.key.toLowerCase();
    if (key === "a") {
      const b = this.el.actions.querySelector("button:not([disabled])");
      e.preventDefault();
      (b || this.el.actions).focus();
    } else if (key === "h" && this.el.hand.children.length) {
      e.preventDefault();
      this.focusHand();
    }
  }

  focusHand() {
    const el = this.el.hand.querySelector('[tabindex="0"]');
    if (el) el.focus({ preventScroll: true });
  }

  savedOrder() {
    try {
      const raw = window.sessionStorage.getItem(`gin.order.${this.data.table_id}`);
      const list = raw ? JSON.parse(raw) : [];
      return Array.isArray(list) ? list.filter((x) => typeof x === "string") : [];
    } catch (err) {
      return [];
    }
  }

  saveOrder() {
    try {
      window.sessionStorage.setItem(`gin.order.${this.data.table_id}`, JSON.stringify(this.order));
    } catch (err) {
      /* storage full or disabled: the order lasts for this page */
    }
  }

  setSort(mode, rerender = true) {
    this.sortMode = mode;
    store("gin.sort", mode);
    if (rerender) {
      this.order = arrange(this.order, this.handCards(), mode);
      this.renderMe();
    }
  }

  setFourColour(on) {
    this.fourColour = on;
    store("gin.fourColour", on ? "1" : "0");
    this.root.classList.toggle("four-colour", on);
    this.el.colourToggle.checked = on;
    this.el.colourToggle2.checked = on;
  }

  // drag and drop
  canDrag(el) {
    if (el.dataset.drag === "hand") return this.mySeat !== null;
    return this.myTurn && !this.busy;
  }

  canDrop(src, drop) {
    const kind = src.dataset.drag;
    const target = drop.dataset.drop;
    const legal = this.legal;
    if (kind === "hand") {
      const c = src.dataset.card;
      if (target === "hand") return true;
      if (!this.myTurn || this.busy) return false;
      if (target === "discard") return legal.includes(`discard:${c}`) || legal.includes(`go_out:${c}`);
      if (target === "meld") return legal.includes(`layoff:${c}>${drop.dataset.meld}`);
      return false;
    }
    if (target !== "hand") return false;
    if (kind === "stock") return legal.includes("draw:stock");
    if (kind === "discard") return legal.includes("draw:discard") || legal.includes("take_upcard");
    return false;
  }

  dragOver(src, drop, x, y) {
    if (src.dataset.drag !== "hand" || drop.dataset.drop !== "hand") return;
    const items = [...this.el.hand.querySelectorAll(".hand-card")].filter((el) => el !== src);
    const idx = insertionIndex(items.map((el) => el.getBoundingClientRect()), x, y);
    const ref = items[idx] || null;
    if (src.nextSibling !== ref) this.el.hand.insertBefore(src, ref);
  }

  onDrop(src, drop, x, y) {
    const kind = src.dataset.drag;
    const target = drop.dataset.drop;
    if (kind === "hand") {
      const c = src.dataset.card;
      if (target === "hand") {
        this.order = [...this.el.hand.querySelectorAll(".hand-card")].map((el) => el.dataset.card);
        this.setSort("custom", false);
        this.focusCard = c;
        this.renderMe();
        return;
      }
      if (target === "discard") {
        if (this.legal.includes(`discard:${c}`)) this.send(`discard:${c}`);
        else if (this.legal.includes(`go_out:${c}`)) this.send(`go_out:${c}`);
        return;
      }
      if (target === "meld") this.send(`layoff:${c}>${drop.dataset.meld}`);
      return;
    }
    if (kind === "stock") this.send("draw:stock");
    else if (kind === "discard") this.send(this.legal.includes("take_upcard") ? "take_upcard" : "draw:discard");
    void x;
    void y;
  }

  // ------------------------------------------------------------------------------ dialogs

  openDialog(dlg) {
    if (typeof dlg.showModal === "function") {
      if (!dlg.open) dlg.showModal();
    } else dlg.setAttribute("open", "");
  }

  openSheet() {
    const v = this.view;
    if (!v) return;
    const d = this.el.sheetDialog;
    const ctx = this.ctx();
    const seats = this.frame.seats || [];
    const sheet = v.score_sheet || { columns: [], hands: [] };
    const cols = sheet.columns || [];
    const hands = sheet.hands || [];
    // one small table per game (Hollywood: three), so a phone can read it without scrolling
    const tables = cols.map((col, ci) => {
      const tbl = h("table", { class: "sheet" });
      if (cols.length > 1) tbl.append(h("caption", { text: `Game ${ci + 1}${col.over ? " (over)" : ""}` }));
      tbl.append(h("thead", {}, h("tr", {}, h("th", { text: "Hand", attrs: { scope: "col" } }), h("th", { text: "Result", attrs: { scope: "col" } }), seats.map((s, i) => sheetName(seatName(i, ctx))))));
      const body = h("tbody");
      const running = seats.map(() => 0);
      const rows = hands.filter((r) => (r.columns || []).includes(ci) || r.winner === null || r.winner === undefined);
      for (const row of rows) {
        const tr = h("tr", {}, h("th", { text: String(row.hand), attrs: { scope: "row" } }), h("td", { class: "sheet-outcome", text: OUTCOME_SHORT[row.outcome] || row.outcome }));
        seats.forEach((s, i) => {
          const scored = row.winner === i && (row.columns || []).includes(ci);
          if (scored) running[i] += row.points;
          tr.append(h("td", { class: scored ? "sheet-scored" : "", text: scored ? `${running[i]}` : "", attrs: scored ? { title: `+${row.points}` } : {} }));
        });
        body.append(tr);
      }
      if (!rows.length) body.append(h("tr", {}, h("td", { class: "sheet-empty", text: "No hands scored yet.", attrs: { colspan: 2 + seats.length } })));
      tbl.append(body);
      tbl.append(h("tfoot", {}, h("tr", { class: "sheet-total" }, h("th", { text: "Total", attrs: { scope: "row", colspan: 2 } }), seats.map((s, i) => h("td", { text: String(col.points[i]) })))));
      return h("div", { class: "sheet-wrap" }, tbl);
    });
    const wins = h("p", { class: "muted", text: `Hands won: ${seats.map((s, i) => `${seatName(i, ctx)} ${(v.hands_won || [])[i] || 0}`).join(" · ")}. Target ${v.target}${v.mode !== "rummy" ? "; at the end: game bonus 100, line bonus 25 per hand won" : ""}.` });
    setChildren(
      d,
      h("h2", { text: "Score sheet", attrs: { id: "tbl-sheet-title" } }),
      h("div", { class: `sheet-cols sheet-cols-${tables.length}` }, tables),
      wins,
      h("form", { attrs: { method: "dialog" }, class: "tbl-actions" }, h("button", { class: "button", text: "Close", attrs: { type: "submit" } })),
    );
    this.openDialog(d);
  }

  confirmResign() {
    const d = this.el.confirmDialog;
    setChildren(
      d,
      h("h2", { text: "Resign this game?", attrs: { id: "tbl-confirm-title" } }),
      h("p", { text: "Resigning ends the game at once and counts as a loss." }),
      h(
        "div",
        { class: "tbl-actions" },
        h("button", { class: "button button-danger", text: "Resign", attrs: { type: "button" }, on: { click: () => { this.socket.send({ type: "resign" }); d.close(); } } }),
        h("button", { class: "button button-secondary", text: "Keep playing", attrs: { type: "button", autofocus: true }, on: { click: () => d.close() } }),
      ),
    );
    this.openDialog(d);
  }

  // ------------------------------------------------------------------------------ chat, log

  setChat(lines) {
    this.chatLines = [];
    clear(this.el.chatList);
    for (const m of lines) this.addChat(m, false);
  }

  addChat(m, scroll = true) {
    if (!m || this.chatLines.some((x) => x.id === m.id)) return;
    this.chatLines.push(m);
    const li = h("li", { class: "chat-line" }, h("span", { class: `chat-name${m.seat === null || m.seat === undefined ? " is-spectator" : ""}`, text: m.name || m.username }), h("span", { class: "chat-text", text: m.text }));
    this.el.chatList.append(li);
    while (this.el.chatList.children.length > 100) this.el.chatList.firstChild.remove();
    if (scroll) this.el.chatList.scrollTop = this.el.chatList.scrollHeight;
    if (scroll && !this.root.classList.contains("is-side-open")) this.el.sideBtn.classList.add("has-news");
    if (scroll && this.frame && m.username !== (this.frame.you && this.frame.you.username)) this.announce(`${m.name || m.username} says: ${m.text}`);
  }

  toggleSide(open = !this.root.classList.contains("is-side-open")) {
    this.root.classList.toggle("is-side-open", open);
    this.el.sideBtn.setAttribute("aria-expanded", String(open));
    if (open) {
      this.el.sideBtn.classList.remove("has-news");
      this.el.logList.scrollTop = this.el.logList.scrollHeight;
      this.el.chatList.scrollTop = this.el.chatList.scrollHeight;
    }
  }

  renderChatCount() {
    const n = this.el.chatInput.value.length;
    this.el.chatCount.textContent = `${n}/${CHAT_MAX}`;
    this.el.chatCount.classList.toggle("is-full", n >= CHAT_MAX);
  }

  sendChat(e) {
    e.preventDefault();
    const text = this.el.chatInput.value.trim();
    if (!text) return;
    if (text.length > CHAT_MAX) {
      this.toast(`Chat messages are at most ${CHAT_MAX} characters.`, "error");
      return;
    }
    if (this.socket.send({ type: "chat", text })) {
      this.lastChat = text;
      this.el.chatInput.value = "";
      this.renderChatCount();
    } else this.toast("Not connected: your message was not sent.", "error");
  }

  announce(text) {
    const p = h("p", { text });
    this.el.live.append(p);
    while (this.el.live.children.length > 5) this.el.live.firstChild.remove();
    this.logLine(text);
  }

  logLine(text) {
    this.log.push(text);
    const li = h("li", { text });
    this.el.logList.append(li);
    while (this.el.logList.children.length > 40) this.el.logList.firstChild.remove();
    this.el.logList.scrollTop = this.el.logList.scrollHeight;
  }

  toast(text, kind = "info") {
    const t = h("div", { class: `toast toast-${kind}`, attrs: { role: kind === "error" ? "alert" : "status" } }, h("span", { text }), h("button", { class: "toast-close", text: "×", attrs: { type: "button", "aria-label": "Dismiss" }, on: { click: () => t.remove() } }));
    this.el.toasts.append(t);
    while (this.el.toasts.children.length > 3) this.el.toasts.firstChild.remove();
    setTimeout(() => t.remove(), prefersReducedMotion() ? 7000 : 5000);
  }
}
