// The table in the browser: renders the server's frames and turns clicks, drags and keys
// into the legal moves the server listed. The server is the referee; nothing here decides
// what is legal, and the client never guesses state: it waits for the next frame.
//
// This is the controller: it holds the state (the frame, the selection, the open panels),
// takes the socket's messages and calls the view modules, each of which draws one region
// from the controller: seats.js (opponents, title, banner), felt.js (piles, melds, the
// waiting panel), results.js and sheet.js (hand result, game over, score sheet), prompt.js
// (what to do, the move buttons), handview.js (your hand), clock.js, input.js (clicks, keys,
// drags), chat.js and notices.js (live region, move log, toasts).

import { attention } from "../attention.js";
import { hintOf, keptSelection, legalOf } from "./actions.js";
import { describeEvent, missedLines, rebuiltLog, seatName, timeoutNotice, turnPrompt } from "./announce.js";
import { ensureSprite } from "./cards.js";
import { Chat } from "./chat.js";
import { Clock } from "./clock.js";
import { reveal, store } from "./dom.js";
import { renderFelt } from "./felt.js";
import { focusMark, keepFocus } from "./focus.js";
import { arrange } from "./hand.js";
import { initialSort, renderMe, savedSelection, saveSelection } from "./handview.js";
import { Input } from "./input.js";
import { buildLayout, checkFit } from "./layout.js";
import { Notices } from "./notices.js";
import { renderPrompt } from "./prompt.js";
import { RatingBook } from "./ratings.js";
import { endingText, gameOverTitle, newRematchOffers, rematchDeclined, renderPanel, resultAfter, resultArrives } from "./results.js";
import { displayNames, leaversNews, leftNote, renderBanner, renderConnection, renderOpponents, renderTitle } from "./seats.js";
import { TableSocket, socketUrl } from "./socket.js";

// The shortest time a hand's result stays up before the next turn closes it (ms).
const RESULT_MIN_MS = 4000;
// ... and at an untimed table, where nothing hurries anyone: a new player learning the
// scoring saw a hand's result go after 4 s, unread
const RESULT_MIN_UNTIMED_MS = 12000;

/** Whether a hand's result shown over the table goes with this frame: at this player's turn
 * in the next hand or their move; for a spectator, who has no turn, at the next hand's first
 * move (it stayed over the table, hiding whose turn it was, through the whole next hand). */
/** The card ``seat`` just took, from one of its events (the live ``drew`` or ``take_upcard``,
 * or its own history's ``draw``, which names a stock card to that seat alone), else null. */
export function drawnCard(ev, seat) {
  const d = ev && ev.data;
  if (!d || d.seat !== seat || seat === null || seat === undefined) return null;
  return ["drew", "take_upcard", "draw"].includes(ev.kind) && d.card ? d.card : null;
}

export function resultEnds(prevView, frame, mySeat, myTurn) {
  if (mySeat === null) return frame.type === "state";
  const turnBegins = myTurn && !(prevView && prevView.to_act === mySeat);
  return Boolean(turnBegins || (frame.last && frame.last.seat === mySeat));
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
    this.sortMode = initialSort(this.data.table_id, store("gin.sort"));
    this.fourColour = store("gin.fourColour") === "1";
    this.resultHand = null; // hand number whose result panel is open
    this.resultHeld = null; // an earlier hand's result kept up over the newest (resultArrives)
    this.resultDismissed = null;
    this.gameOverClosed = false;
    this.busy = false;
    this.lastTurnAnnounced = null;
    this.ratings = new RatingBook();
    this.chat = new Chat(this);
    this.clock = new Clock(this);
    this.attention = attention(); // your turn: the tab title, a buzz, a sound, a notification
    ensureSprite(document);
    this.el = buildLayout(this);
    this.notices = new Notices(this.el);
    this.input = new Input(this);
    // One table UI, two transports: the server's socket, or (offline play, data.transport)
    // the local engine (static/js/offline/local.js), which speaks the same frames.
    const handlers = {
      frame: (f, info) => this.onFrame(f, info),
      chat: (m) => this.chat.add(m),
      presence: (f) => this.onPresence(f),
      hint: (f) => this.onHint(f),
      error: (f, p) => this.onError(f, p),
      ack: () => this.setBusy(false),
      settled: () => this.setBusy(false),
      status: (s, d) => {
        this.connState = s;
        renderConnection(this, s, d);
        if (this.frame) renderBanner(this); // (what a lost connection means for the clock)
      },
    };
    this.socket = this.data.transport
      ? this.data.transport(handlers)
      : new TableSocket(socketUrl(window.location, this.data.ws_url, this.data.invite), handlers);
    if (this.data.snapshot) this.socket.onFrame(this.data.snapshot);
    this.socket.start();
    this.tick = setInterval(() => this.clock.render(), 250);
  }

  // ------------------------------------------------------------------------------ state

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
    const seats = frame && frame.seats ? frame.seats : [];
    // standIns: the seats the computer plays on for a person who left (they win nothing)
    return { mySeat: this.mySeat, names: displayNames(seats), standIns: seats.filter((s) => s.left).map((s) => s.index), maxTimeouts: this.data.max_timeouts };
  }

  nameOf(i) {
    return this.ctx().names[i] || `Seat ${i + 1}`;
  }

  handCards() {
    return (this.view && this.view.hand) || [];
  }

  // ------------------------------------------------------------------------------ socket

  onFrame(frame, { gap }) {
    const prev = this.frame;
    const prevView = this.view;
    if (prev && frame.chat === undefined) frame.chat = null;
    // how many watch: in snapshots and presence frames only (kept from one to the next)
    if (frame.watchers === undefined) frame.watchers = prev ? prev.watchers || 0 : 0;
    this.frame = frame;
    this.view = frame.view || null;
    // waiting for another seat's move: the socket checks sooner for a frame lost on the way
    this.socket.waiting = Boolean(
      this.view && this.view.to_act !== null && this.view.to_act !== undefined &&
      this.view.to_act !== this.mySeat && frame.table && frame.table.status === "playing"
    );
    this.ratings.fromFrame(frame);
    if (Array.isArray(frame.chat)) this.chat.set(frame.chat);
    this.clock.set(frame.clock);
    this.setBusy(false);
    if (prev && prev.you && prev.you.seat === null && this.mySeat !== null) {
      // just sat down on this socket: tell the server at once that we are here
      this.socket.send({ type: "ping", t: Date.now() });
    }
    this.announceFrame(frame, prev, gap);
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
        const next = resultArrives({ hand: this.resultHand, held: this.resultHeld }, prevView && prevView.last_hand, lh);
        this.resultHand = next.hand;
        this.resultHeld = next.held;
        if (next.opened) this.resultOpened = { version: frame.version, at: Date.now() };
      } else if (this.resultHand !== null && this.resultOpened && this.resultOpened.version !== frame.version) {
        this.closeResultOnTurn(prevView, frame);
      }
    }
    // a hint is for its position: its toast goes when the table moves on
    if (this.hint && this.hint.version !== frame.version) {
      this.hint = null;
      this.notices.dropToast("hint");
    }
    // keep only selected cards still in the hand, and none past this seat's turn or hand (a
    // page opened again takes up the tab's)
    if (!prev && !this.selected.length) this.selected = savedSelection(this.data.table_id);
    this.selected = keptSelection(this.selected, { hand: this.handCards(), view: this.view, prevView, mySeat: this.mySeat });
    saveSelection(this.data.table_id, this.selected);
    this.render();
    if (this.myTurn && this.lastTurnAnnounced !== frame.version) {
      this.lastTurnAnnounced = frame.version;
      const was = prevView && prevView.to_act === this.mySeat && legalOf(prevView).length;
      if (!was) {
        this.notices.announce(`Your turn. ${turnPrompt(this.view, this.legal)}`);
        // on a phone the moves and chat open over the hand: they close for your turn
        if (this.root.classList.contains("is-side-open") && this.el.sideBtn.offsetParent !== null) this.toggleSide(false);
        if (frame.table && frame.table.status === "playing") {
          this.attention.alert("turn", {
            title: "Your turn", body: turnPrompt(this.view, this.legal),
            url: window.location.pathname + window.location.search, tag: `turn-${this.data.table_id}`,
          });
        }
      }
    }
    const rm = frame.table && frame.table.rematch;
    // the rematch made while this page is open: go to it (a page opened on a table whose
    // rematch was made before, even long ago, stays: the panel has "Go to the rematch")
    if (rm && rm.url && this.mySeat !== null && prev && !(prev.table.rematch && prev.table.rematch.url)) {
      this.notices.toast("The rematch is ready: taking you to the new table…", "info");
      setTimeout(() => window.location.assign(rm.url), 900);
    }
    const declined = rematchDeclined(prev, frame, this.mySeat);
    if (declined && !this.withdrew) this.notices.toast(declined, "info", "rematch");
    if (!(rm && (rm.offers || []).length)) this.withdrew = false;
  }

  /** The frame's news for the live region and the log; notes the card this seat drew. */
  announceFrame(frame, prev, gap) {
    const hasEvents = frame.type === "state" && Array.isArray(frame.events) && frame.events.length > 0;
    if (!prev?.view && this.view && Array.isArray(this.view.history) && !(prev && hasEvents)) {
      // a fresh page: each earlier hand's result, then the moves of this hand so far go in
      // the log (not read out: a reload had kept this hand alone); the game has just started
      // under our eyes: the deal is read out too
      const log = rebuiltLog(this.view, this.ctx(frame), frame.timed_out);
      for (const line of log.earlier) this.notices.logLine(line);
      for (const line of log.moves) {
        if (prev) this.notices.announce(line);
        else this.notices.logLine(line);
      }
      // the card you had just drawn, when nothing has happened since, is marked again
      const drawn = drawnCard(this.view.history[this.view.history.length - 1], this.mySeat);
      if (drawn) this.newCard = drawn;
    } else if (prev?.view && this.view && (frame.type === "snapshot" || gap)) {
      // back after a gap: the moves made meanwhile, said (they came in no frame's events)
      for (const line of missedLines(prev.view, this.view, this.ctx(frame))) this.notices.announce(line);
    }
    const timedOut = frame.type === "state" && frame.last && frame.last.source === "timeout";
    const mine = this.mySeat !== null && this.mySeat !== undefined;
    const count = (f) => (((f && f.seats) || [])[this.mySeat] || {}).timeouts || 0;
    // the count of your timeouts in a row you were told of: a page opened again (a phone's
    // browser drops a tab in the background) or back after a gap learns only of new ones
    const toldKey = `gin.timeouts.${this.data.table_id}`;
    if (timedOut) {
      const timed = (frame.seats || [])[frame.last.seat] || {};
      const notice = timeoutNotice(seatName(frame.last.seat, this.ctx(frame)), timed.timeouts || 0, this.ctx(frame).maxTimeouts || 0);
      this.notices.announce(notice);
      // also a toast for the players: the log is folded away on a phone (an opponent's
      // timeouts count towards their losing the game: worth seeing too)
      if (frame.last.seat === this.mySeat) this.notices.toast(notice, "error", "timeout");
      else if (mine) this.notices.toast(notice, "info", "timeout");
    } else if (mine && frame.table?.status === "playing") {
      // back after a gap (a snapshot), or a page opened again: your turns that ran out
      // meanwhile came in no frame (a game lost on time says so in its result)
      const told = prev ? count(prev) : Number(store(toldKey) || 0);
      if (count(frame) > told) {
        const notice = timeoutNotice(seatName(this.mySeat, this.ctx(frame)), count(frame), this.ctx(frame).maxTimeouts || 0);
        this.notices.announce(notice);
        this.notices.toast(notice, "error", "timeout");
      }
    }
    // (written when it changes, not at every frame)
    if (mine && frame.seats && (!prev || count(prev) !== count(frame))) store(toldKey, String(count(frame)));
    // a game ended by no move (a resignation, a claim, time, leaving) has no game_over event
    // to read out: its panel alone said so, and a screen reader skipped it (hidden till then)
    const over = prev && prev.table && prev.table.status === "playing" && frame.table && frame.table.status === "finished";
    if (over && !(frame.events || []).some((ev) => ev.kind === "game_over")) {
      const fin = frame.table.finish || {};
      const title = gameOverTitle(fin.winner_seat, false, this.ctx(frame), fin.places);
      this.notices.announce(`${/[.!]$/.test(title) ? title : `${title}.`} ${endingText(fin, this.ctx(frame))}`.trim());
    }
    // a person who left a game of three or four that goes on: the others are told, and so is
    // the leaver (their banner says it too)
    for (const line of leaversNews(prev, frame)) {
      this.notices.announce(line);
      this.notices.toast(line, "info", "left");
    }
    if (prev && frame.you && frame.you.left && !(prev.you && prev.you.left)) {
      this.notices.announce(leftNote(frame.you.left, frame.table && frame.table.seat_count));
    }
    // a rematch offered by another player (the panel shows it; read out here)
    for (const o of newRematchOffers(prev, frame, this.mySeat)) this.notices.announce(`${seatName(o, this.ctx(frame))} would like a rematch.`);
    // events: announce them (not after a gap: we may have missed some)
    if (frame.type === "state" && frame.last && frame.last.seat === this.mySeat) this.newCard = null;
    if (frame.type === "state" && !gap && Array.isArray(frame.events)) {
      // your own draw from the stock comes twice, public and with its card: one line
      const mine = (ev) => ev.data && ev.data.seat === this.mySeat;
      const drewMine = frame.events.some((ev) => ev.kind === "drew" && mine(ev));
      for (const ev of frame.events) {
        const d = ev.data;
        if (drewMine && ev.kind === "draw" && mine(ev) && d.source !== "discard") continue;
        const drawn = drawnCard(ev, this.mySeat);
        if (drawn) this.newCard = drawn;
        const text = describeEvent(ev, this.ctx(frame));
        if (text) this.notices.announce(text);
      }
    }
  }

  onPresence(f) {
    if (!this.frame) return;
    this.frame = { ...this.frame, seats: f.seats, you: f.you || this.frame.you, watchers: f.watchers ?? this.frame.watchers };
    const mark = this.focusMark();
    renderTitle(this);
    renderOpponents(this);
    renderMe(this);
    renderBanner(this);
    // after the game: a rematch offer lapses with its player's leaving (results.js)
    if (this.frame.table && this.frame.table.status !== "playing") renderPanel(this);
    this.keepFocus(mark);
  }

  onError(f, pending) {
    this.setBusy(false);
    if (f.code === "stale_version" || f.code === "duplicate") {
      this.notices.toast("The table moved on: showing the latest position.", "info");
      return;
    }
    const chat = f.code === "rate_limited" || f.code === "chat_too_long" || f.code === "chat_empty";
    if (chat) this.chat.restore();
    // (one toast for the chat's refusals: a flood stacked one per line refused)
    this.notices.toast(f.message || "That was refused.", "error", chat ? "chat" : null);
    if (pending) this.render();
  }

  setBusy(b) {
    this.busy = b;
    this.root.classList.toggle("is-busy", b);
  }

  /** Sends one of the server's legal moves (anything else is refused here). */
  send(action) {
    if (this.busy) return;
    if (!this.legal.includes(action)) {
      this.notices.toast("That move is not possible now.", "error");
      return;
    }
    const id = this.socket.act(action);
    if (!id) {
      this.notConnected("Not connected: reconnecting…");
      return;
    }
    const mark = this.focusMark();
    this.setBusy(true);
    renderPrompt(this);
    this.keepFocus(mark);
  }

  /** What had the focus in the table before a render, and putting it back after (focus.js). */
  focusMark() {
    return this.el ? focusMark(this.root, this.el.prompt) : null;
  }

  keepFocus(mark) {
    keepFocus(this.root, mark, { actions: this.el.actions, park: this.el.prompt, hand: () => this.focusHand() });
  }

  // ------------------------------------------------------------------------------ requests other than moves

  // Every button of the view modules goes through these, never to the transport directly:
  // the server's socket and the offline game's local transport (offline/local.js) both take
  // them (docs/protocol.md "Client → server").

  /** Sends ``msg``; true when it left, else tells the player (``failure``) and returns false. */
  request(msg, failure = null) {
    if (this.socket.send(msg)) return true;
    if (failure) this.notices.toast(failure, "error");
    else this.notConnected("Not connected: reconnecting…");
    return false;
  }

  /** A move or a request could not leave. Where the table's bar already says so
   * (reconnecting, or offline with "Retry now"), the bar is flashed and the line read out:
   * a toast would lie over the opponents' names on a phone for seconds, saying again what
   * the bar says. Elsewhere a toast. */
  notConnected(text) {
    const bar = this.el && this.el.conn;
    if (!bar || !["offline", "reconnecting"].includes(bar.dataset.state)) {
      this.notices.toast(text, "error");
      return;
    }
    bar.classList.remove("is-nudged");
    void bar.offsetWidth; // (the flash starts again at a second tap)
    bar.classList.add("is-nudged");
    clearTimeout(this.nudgeTimer);
    this.nudgeTimer = setTimeout(() => bar.classList.remove("is-nudged"), 2500);
    this.notices.announce(text);
  }

  sit() {
    return this.request({ type: "sit" });
  }

  leave() {
    return this.request({ type: "leave" });
  }

  addBot(seat, level) {
    return this.request({ type: "add_bot", seat, level });
  }

  resign() {
    return this.request({ type: "resign" });
  }

  /** Offers or accepts a rematch (``accept``), or withdraws this player's offer. */
  rematch(accept) {
    // (the offers cleared by our own withdrawal are not a refusal to tell us of)
    if (!accept) this.withdrew = true;
    return this.request({ type: "rematch", accept: Boolean(accept) });
  }

  claim() {
    return this.request({ type: "claim" });
  }

  /** Asks for a hint (casual games against the computer: ``you.can_hint``). */
  askHint() {
    return this.request({ type: "hint" });
  }

  /** The hint for the position on the table: said, and its cards selected (so the button
   * that makes the move is the one offered); a hint for an earlier position is dropped. */
  onHint(f) {
    if (!this.myTurn || f.version !== this.socket.version || !this.legal.includes(f.action)) return;
    this.hint = { version: f.version, action: f.action };
    const { text, cards } = hintOf(f.action);
    if (cards.length) {
      this.selected = cards.filter((c) => this.handCards().includes(c));
      saveSelection(this.data.table_id, this.selected);
      this.focusCard = this.selected[0] || this.focusCard;
      renderMe(this);
    }
    renderPrompt(this); // the hinted move's button is the one highlighted
    renderFelt(this); // the selected card's targets, or the pile a draw is hinted from
    this.notices.toast(text, "info", "hint"); // (a status: read out once; the last hint only)
    this.notices.logLine(text);
  }

  sendChat(text) {
    return this.request({ type: "chat", text }, "Not connected: your message was not sent.");
  }

  /** "Retry now": connect again without waiting for the next attempt. */
  reconnect() {
    this.socket.reconnectNow();
  }

  // ------------------------------------------------------------------------------ render

  render() {
    const f = this.frame;
    if (!f) return;
    const mark = this.focusMark();
    const v = this.view;
    const role = this.mySeat === null ? "spectator" : "player";
    this.root.dataset.role = role;
    // the header was rendered before this visitor sat down (or stood up)
    for (const el of document.querySelectorAll("[data-watching]")) el.hidden = role !== "spectator";
    this.root.dataset.phase = v ? v.phase : f.table.status;
    this.root.dataset.status = f.table.status;
    // a note of why the game has not started ("Nobody was waiting…") goes once it has
    if (f.table.status !== "open") for (const el of document.querySelectorAll("[data-until-start]")) el.remove();
    this.root.dataset.version = String(f.version);
    this.root.classList.toggle("is-my-turn", this.myTurn);
    // the tab title tells a player whose phone was elsewhere that the table waits for them
    this.attention.turn(this.myTurn && f.table.status === "playing");
    renderTitle(this);
    renderBanner(this);
    renderOpponents(this);
    renderFelt(this);
    renderPanel(this);
    renderPrompt(this);
    renderMe(this);
    this.clock.render();
    this.el.resignBtn.hidden = !(this.mySeat !== null && f.table.status === "playing");
    this.el.sheetBtn.hidden = !v;
    this.chat.renderAccess(!!(f.you && f.you.can_chat));
    checkFit(this.root, this.el.main);
    this.keepFocus(mark);
  }

  // ------------------------------------------------------------------------------ actions of the player

  toggleSelect(c) {
    const v = this.view;
    if (!v) return;
    if (this.selected.includes(c)) this.selected = this.selected.filter((x) => x !== c);
    else this.selected = v.phase === "play" ? this.selected.concat([c]) : [c];
    saveSelection(this.data.table_id, this.selected);
    this.focusCard = c;
    renderMe(this);
    renderPrompt(this);
    renderFelt(this);
  }

  /** The player's own order of the hand (a drag or Shift+arrow), with ``card`` focused. */
  reorder(order, card) {
    this.order = order;
    this.setSort("custom", false);
    this.focusCard = card;
    renderMe(this);
  }

  setSort(mode, rerender = true) {
    this.sortMode = mode;
    if (mode !== "custom") store("gin.sort", mode); // (a dragged order is the table's own)
    if (rerender) {
      this.order = arrange(this.order, this.handCards(), mode);
      renderMe(this);
    }
  }

  setFourColour(on) {
    this.fourColour = on;
    store("gin.fourColour", on ? "1" : "0");
    this.root.classList.toggle("four-colour", on);
    this.el.colourToggle.checked = on;
    this.el.colourToggle2.checked = on;
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

  focusHand() {
    const el = this.el.hand.querySelector('[tabindex="0"]');
    if (el) el.focus({ preventScroll: true });
    return Boolean(el);
  }

  // ------------------------------------------------------------------------------ result panels

  /** The player closes hand ``n``'s result: back to the hand and the prompt. */
  dismissResult(n) {
    this.resultDismissed = n;
    if (this.openNextResult(n)) {
      renderPanel(this);
      return;
    }
    this.resultHand = null;
    renderPanel(this);
    this.focusHand();
    reveal(this.el.prompt, "center");
  }

  /** Hand ``n``'s result has closed: opens the newest one if ``n``'s was held over it
   * (``resultAfter``); whether it did. */
  openNextResult(n) {
    const next = resultAfter(n, this.resultHeld, this.view && this.view.last_hand, this.resultDismissed);
    this.resultHeld = null;
    if (next === null) return false;
    this.resultHand = next;
    this.resultOpened = { version: this.frame.version, at: Date.now() };
    return true;
  }

  /** Shows (or hides, to look at the table) the game-over panel. */
  showGameOver(show) {
    this.gameOverClosed = !show;
    renderPanel(this);
  }

  /** Whether this player has already been shown hand ``n``'s result at this table. */
  resultSeen(n) {
    return Number(store(`gin.result.${this.data.table_id}`) || 0) >= n;
  }

  /**
   * The result panel of the last hand closes by itself once this player's first turn of the
   * next hand begins (or they move), after being up for at least RESULT_MIN_MS (at an
   * untimed table RESULT_MIN_UNTIMED_MS): a computer that moves first would otherwise take
   * it away before it could be read.
   */
  closeResultOnTurn(prevView, frame) {
    const moved = frame.last && frame.last.seat === this.mySeat;
    if (!resultEnds(prevView, frame, this.mySeat, this.myTurn)) return;
    const hand = this.resultHand;
    const close = () => {
      if (this.resultHand !== hand) return;
      this.resultDismissed = hand;
      if (this.openNextResult(hand)) {
        renderPanel(this);
        // (this player's turn has begun: the next result goes the same way, after its time)
        this.closeResultOnTurn(null, this.frame);
        return;
      }
      this.resultHand = null;
      renderPanel(this);
    };
    const timed = Boolean(frame.table && frame.table.seconds_per_turn);
    const wait = this.resultOpened.at + (timed ? RESULT_MIN_MS : RESULT_MIN_UNTIMED_MS) - Date.now();
    if (wait > 0 && !moved) setTimeout(close, wait);
    else close();
  }
}
