// The replay viewer of a finished game (or an uploaded record): every position, all hands
// face up, each hand's showdown and the running score sheet. Data: #replay-data (JSON, from
// games/replay.py). Keys: arrows step, Home/End jump to the ends, Page Up/Down jump a hand;
// ?ply=N deep link. Card labels and names are the table's (static/js/table/cards.js).

import { cardLabel, cardName, isRed } from "../table/cards.js";
import { AnalysisPanel } from "./analysis.js";
import { el } from "./dom.js";

// The time between two moves while the replay plays (ms).
const PLAY_MS = 700;

export function splitCards(s) {
  const out = [];
  for (let i = 0; i + 1 < (s || "").length; i += 2) out.push(s.slice(i, i + 2));
  return out;
}

export function clampPly(value, last) {
  // a move number, as the viewer's buttons give it or in digits only in ?ply= ("1e3" and
  // "7x" were read as moves 1 and 7: an audit)
  const n = typeof value === "string" && /^[0-9]+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) return 0;
  return Math.min(n, last);
}

/** Where each hand starts (its first frame): a frame after a showdown deals the next hand. */
export function handStarts(frames) {
  const starts = [0];
  frames.forEach((f, i) => { if (i > 0 && frames[i - 1].showdown) starts.push(i); });
  return starts;
}

// ---------------------------------------------------------------------------------- elements

function cardChip(code, extra = "") {
  const name = cardName(code);
  return el("span", {
    class: `rcard ${isRed(code) ? "rcard-red" : "rcard-black"} ${extra}`.trim(),
    title: name, "aria-label": name, role: "img", "data-card": code,
  }, cardLabel(code));
}

function cardRow(codes, label, extra = "") {
  const row = el("span", { class: "rcards", role: "list", "aria-label": label });
  for (const c of codes) {
    const item = cardChip(c, extra);
    item.setAttribute("role", "listitem");
    row.append(item);
  }
  // an empty list still holds a list item (axe: a list must contain its items)
  if (!codes.length) row.append(el("span", { class: "muted", role: "listitem", text: "none" }));
  return row;
}

function muted(text) {
  return el("span", { class: "muted", text });
}

// ---------------------------------------------------------------------------------- showdown

function showdownTitle(sd) {
  return sd.winner_name
    ? `Hand ${sd.hand}: ${sd.outcome_name}, ${sd.winner_name} scores ${sd.points}`
    : `Hand ${sd.hand}: ${sd.outcome_name}, nobody scores`;
}

function deadwoodLine(cards) {
  return el("div", {}, muted("Deadwood "), cardRow(cards, "Deadwood", "rcard-dead"));
}

/** "ann knocked: deadwood 7", "Computer (Easy) went gin: deadwood 0" (it read "Computer
 * (Easy) (gin)": a name may hold brackets of its own). */
export function knockerHeading(sd, names) {
  const how = sd.outcome === "big_gin" ? "went big gin" : sd.outcome === "gin" ? "went gin" : "knocked";
  return `${names[sd.knocker]} ${how}: deadwood ${sd.knocker_deadwood}`;
}

/** The sheet's head: a column per seat, under "Game 1", "Game 2"… when the sheet has more
 * than one game (Hollywood). */
export function sheetHead(names, games) {
  const seatCells = () => names.map((n) => el("th", { scope: "col", text: n }));
  if (games <= 1) {
    return el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Hand" }),
      el("th", { scope: "col", text: "Result" }), ...seatCells()));
  }
  const top = el("tr", {}, el("th", { scope: "col", rowspan: "2", text: "Hand" }),
    el("th", { scope: "col", rowspan: "2", text: "Result" }),
    ...Array.from({ length: games }, (_, g) => el("th", { scope: "colgroup", colspan: String(names.length), class: "sheet-game", text: `Game ${g + 1}` })));
  const seats = el("tr", {}, ...Array.from({ length: games }, seatCells).flat());
  return el("thead", {}, top, seats);
}

/** The knocker's side: melds (with the defender's lay-offs on them) and deadwood. */
function knockerSide(sd, names) {
  const laid = {};
  for (const [c, m] of sd.layoffs || []) (laid[m] = laid[m] || []).push(c);
  const side = el("div", { class: "showdown-side" }, el("h4", { text: knockerHeading(sd, names) }));
  sd.knocker_melds.forEach((m, i) => {
    const line = el("div", { class: "showdown-meld" }, cardRow(m, `Meld ${i + 1}`));
    if (laid[i]) line.append(muted(" + laid off "), cardRow(laid[i], "Laid off", "rcard-layoff"));
    side.append(line);
  });
  if (sd.knocker_deadwood_cards.length) side.append(deadwoodLine(sd.knocker_deadwood_cards));
  return side;
}

function defenderSide(sd, names) {
  const side = el("div", { class: "showdown-side" },
    el("h4", { text: `${names[sd.defender]}: deadwood ${sd.defender_deadwood}` }));
  sd.defender_melds.forEach((m, i) => side.append(el("div", { class: "showdown-meld" }, cardRow(m, `Meld ${i + 1}`))));
  if (sd.defender_deadwood_cards.length) side.append(deadwoodLine(sd.defender_deadwood_cards));
  return side;
}

/** Rummy: the cards each seat still held. */
function remainingSides(sd, names) {
  return sd.remaining.map((cards, seat) => el("div", { class: "showdown-side" },
    el("h4", { text: `${names[seat]}: ${cards.length ? "cards left" : "out"}` }),
    cards.length ? cardRow(cards, "Cards left", "rcard-dead") : null));
}

function showdownBox(sd, names) {
  const box = el("div", { class: "showdown" }, el("h3", { text: showdownTitle(sd) }));
  if (sd.multiplier > 1) box.append(el("p", { class: "muted", text: `Scores count ×${sd.multiplier} this hand.` }));
  if (sd.knocker != null) {
    box.append(knockerSide(sd, names), defenderSide(sd, names));
  } else if (sd.remaining) {
    box.append(...remainingSides(sd, names));
    if (sd.going_rummy) box.append(el("p", { text: "Going rummy: the score counts double." }));
  }
  if (sd.reason) box.append(el("p", { class: "muted", text: sd.reason }));
  return box;
}

// ---------------------------------------------------------------------------------- board

/** The hand's knock limit in the table's words ("Gin only" where no knock is allowed), and
 * Oklahoma's spade multiplier. */
export function knockText(f) {
  const limit = f.knock_limit === 0 ? "Gin only" : `Knock limit ${f.knock_limit}`;
  return f.multiplier > 1 ? `${limit} · scores ×${f.multiplier}` : limit;
}

/** Stock, discard pile, knock limit and (rummy) the melds on the table. */
function middleBox(f, family) {
  const middle = el("div", { class: "replay-middle" },
    el("div", { class: "replay-pile" }, muted("Stock "), el("strong", { text: String(f.stock) })),
    el("div", { class: "replay-pile" }, muted(`Discard pile (${f.discard_count}) `),
      cardRow(splitCards(f.discard), "Discard pile, top card last")));
  if (f.knock_limit != null && family === "gin") {
    middle.append(el("div", { class: "muted", text: knockText(f) }));
  }
  if (f.table && f.table.length) {
    const melds = el("div", { class: "replay-table" }, muted("Melds on the table"));
    f.table.forEach((m, i) => melds.append(cardRow(splitCards(m), `Meld ${i + 1}`)));
    middle.append(melds);
  }
  return middle;
}

/** A seat's points at this move: Hollywood's per game ("118 / 103 / 138 points", as the
 * table shows them), else the one total. */
export function seatPoints(f, seat) {
  const games = f.game_scores && f.game_scores[seat];
  return `${games ? games.join(" / ") : f.scores[seat]} points`;
}

function seatBox(f, name, seat) {
  const tags = [];
  if (seat === f.dealer) tags.push("dealer");
  if (seat === f.to_act) tags.push("to play");
  const moved = f.move ? f.move[0] : null;
  const cls = `replay-seat${seat === f.to_act ? " replay-seat-active" : ""}${seat === moved ? " replay-seat-moved" : ""}`;
  return el("div", { class: cls, "data-seat": String(seat) },
    el("div", { class: "replay-seat-head" }, el("strong", { text: name }),
      muted(` ${seatPoints(f, seat)}${tags.length ? " · " + tags.join(", ") : ""}`)),
    cardRow(splitCards(f.hands[seat]), `${name}'s hand`));
}

/** The seats' names after ``ply`` moves: a person who had left a game of three or four by
 * then is the computer that played their seat on (``stand_ins``: ``{seat, from_ply, name}``,
 * games/replay.py). */
export function namesAt(players, standIns, ply) {
  const out = players.slice();
  for (const s of standIns || []) if (ply >= s.from_ply && s.seat >= 0 && s.seat < out.length) out[s.seat] = s.name;
  return out;
}

// ---------------------------------------------------------------------------------- the viewer

export class ReplayViewer {
  constructor(root, data) {
    this.root = root;
    this.data = data;
    this.frames = data.frames;
    this.names = data.players;
    this.last = this.frames.length - 1;
    this.starts = handStarts(this.frames);
    this.timer = null;
    const q = (name) => root.querySelector(`[data-replay-${name}]`);
    this.dom = {
      controls: q("controls"), slider: q("slider"), counter: q("counter"), text: q("text"),
      board: q("board"), showdown: q("showdown"), boardTitle: q("board-title"), sheet: q("sheet"),
      play: q("play"), nojs: q("nojs"), moves: q("moves"), movesBox: q("moves-box"),
    };
    this.listeners = []; // called with the ply after every render (the analysis panel)
    this.ply = clampPly(new URLSearchParams(location.search).get("ply"), this.last);
  }

  start() {
    this.dom.nojs.hidden = true;
    this.dom.controls.hidden = false;
    this.dom.slider.max = String(this.last);
    this.bindControls();
    this.bindKeys();
    this.renderMoves();
    this.render();
  }

  onRender(fn) {
    this.listeners.push(fn);
  }

  /** The move list: one button per move (a marker is added by the analysis), the current
   *  one marked with aria-current. */
  renderMoves() {
    const { moves, movesBox } = this.dom;
    if (!moves) return;
    moves.replaceChildren();
    this.frames.forEach((f, ply) => {
      if (ply === 0) return;
      const b = el("button", { type: "button", class: "move-button", "data-replay-to": String(ply) },
        el("span", { class: "move-no", text: `${ply}.` }), ` ${f.text}`);
      moves.append(el("li", { "data-ply": String(ply) }, b));
    });
    if (movesBox) movesBox.hidden = false;
    moves.addEventListener("click", (e) => {
      const b = e.target.closest("[data-replay-to]");
      if (!b) return;
      this.stop();
      this.go(b.dataset.replayTo);
    });
  }

  markCurrentMove() {
    const { moves } = this.dom;
    if (!moves) return;
    moves.querySelector("[aria-current]")?.removeAttribute("aria-current");
    const item = moves.querySelector(`[data-ply="${this.ply}"] button`);
    if (!item) return;
    item.setAttribute("aria-current", "step");
    // keep the current move in view inside the list (not the page)
    const box = moves.parentElement;
    if (box && box.scrollHeight > box.clientHeight) {
      const top = item.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - item.offsetHeight) {
        box.scrollTop = Math.max(0, top - box.clientHeight / 2);
      }
    }
  }

  // ------------------------------------------------------------------------------ render

  render() {
    const f = this.frames[this.ply];
    const { ply, last, dom } = this;
    dom.slider.value = String(ply);
    dom.slider.setAttribute("aria-valuetext", `Move ${ply} of ${last}`);
    // the hand the move was made in (a hand-ending move's frame already holds the next deal)
    const handNo = f.showdown ? f.showdown[0].hand : f.hand;
    dom.counter.textContent = `Move ${ply} of ${last} · hand ${handNo}:`;
    dom.text.textContent = f.text;
    this.renderBoard(f);
    this.renderShowdown(f);
    // on the move that ends a hand the board already holds the next deal (or nothing more
    // to see at the end of the game): say so, or leave the showdown alone
    dom.boardTitle.hidden = !f.showdown || ply === last;
    dom.board.hidden = Boolean(f.showdown) && ply === last;
    this.renderSheet();
    this.markCurrentMove();
    for (const fn of this.listeners) fn(ply);
    const url = new URL(location.href);
    if (ply === 0) url.searchParams.delete("ply"); else url.searchParams.set("ply", String(ply));
    history.replaceState(null, "", url);
  }

  /** Every seat's hand face up, the piles between the first seat and the others. */
  renderBoard(f) {
    const board = this.dom.board;
    board.replaceChildren();
    namesAt(this.names, this.data.stand_ins, f.ply).forEach((name, seat) => {
      board.append(seatBox(f, name, seat));
      if (seat === 0) board.append(middleBox(f, this.data.family));
    });
  }

  renderShowdown(f) {
    const box = this.dom.showdown;
    box.replaceChildren();
    box.hidden = !f.showdown;
    // (named as at the move that ended the hand)
    for (const sd of f.showdown || []) box.append(showdownBox(sd, namesAt(this.names, this.data.stand_ins, f.ply - 1)));
  }

  /** The score sheet: hands up to this move filled in, the later ones still to come. */
  renderSheet() {
    const { sheet } = this.dom;
    const names = this.names;
    sheet.replaceChildren();
    // (its scrolling box is a focusable region: hidden with it when there is no sheet)
    const box = sheet.closest(".table-scroll");
    if (!this.data.sheet.length) { sheet.hidden = true; if (box) box.hidden = true; return; }
    sheet.hidden = false;
    if (box) box.hidden = false;
    sheet.append(el("caption", { text: "Score sheet (hand points)" }), sheetHead(names, this.data.sheet[0].running.length));
    const body = el("tbody");
    for (const row of this.data.sheet) {
      const done = row.ply <= this.ply;
      const who = row.winner == null ? "" : `: ${row.winner_name || names[row.winner]} +${row.points}${row.doubled ? " (doubled: the upcard was a spade)" : ""}`;
      const tr = el("tr", { class: done ? "" : "sheet-future" },
        el("th", { scope: "row", text: String(row.hand) }),
        el("td", { class: "sheet-result", text: done ? row.outcome + who : "…" }),
        // each game's own totals (Hollywood's three side by side: they were added together)
        ...row.running.flat().map((v) => el("td", { text: done ? String(v) : "" })));
      if (row.ply === this.ply) tr.classList.add("sheet-current");
      body.append(tr);
    }
    sheet.append(body);
  }

  // ------------------------------------------------------------------------------ moving

  go(target) {
    const next = clampPly(target, this.last);
    if (next !== this.ply) { this.ply = next; this.render(); }
    if (this.ply === this.last) this.stop();
  }

  handJump(dir) {
    if (dir > 0) return this.go(this.starts.find((s) => s > this.ply) ?? this.last);
    const before = this.starts.filter((s) => s < this.ply);
    return this.go(before.length ? before[before.length - 1] : 0);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.dom.play.textContent = "Play";
    this.dom.play.setAttribute("aria-pressed", "false");
  }

  play() {
    if (this.ply === this.last) this.go(0);
    this.timer = setInterval(() => this.go(this.ply + 1), PLAY_MS);
    this.dom.play.textContent = "Pause";
    this.dom.play.setAttribute("aria-pressed", "true");
  }

  // ------------------------------------------------------------------------------ input

  bindControls() {
    const jumps = {
      first: () => this.go(0), last: () => this.go(this.last),
      prev: () => this.go(this.ply - 1), next: () => this.go(this.ply + 1),
      "prev-hand": () => this.handJump(-1), "next-hand": () => this.handJump(1),
    };
    this.root.addEventListener("click", (e) => {
      const b = e.target.closest("[data-replay-go]");
      if (!b) return;
      this.stop();
      const fn = jumps[b.dataset.replayGo];
      if (fn) fn();
    });
    this.dom.play.addEventListener("click", () => (this.timer ? this.stop() : this.play()));
    this.dom.slider.addEventListener("input", () => { this.stop(); this.go(this.dom.slider.value); });
  }

  bindKeys() {
    const keys = {
      ArrowRight: () => this.go(this.ply + 1), ArrowLeft: () => this.go(this.ply - 1),
      Home: () => this.go(0), End: () => this.go(this.last),
      PageDown: () => this.handJump(1), PageUp: () => this.handJump(-1),
    };
    document.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const t = e.target;
      if (t instanceof HTMLElement && t.matches("input:not([type=range]), textarea, select, [contenteditable]")) return;
      const fn = keys[e.key];
      if (!fn) return;
      e.preventDefault(); // the slider would move a second time by itself
      this.stop();
      fn();
    });
  }
}

function init() {
  const root = document.querySelector("[data-replay]");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;
  const data = JSON.parse(source.textContent);
  if (!data || !data.frames || !data.frames.length) return;
  const viewer = new ReplayViewer(root, data);
  const panelRoot = root.querySelector("[data-analysis]");
  const state = document.getElementById("analysis-data");
  let panel = null;
  if (panelRoot && state) {
    panel = new AnalysisPanel(panelRoot, viewer, JSON.parse(state.textContent));
    viewer.onRender((ply) => panel.show(ply));
  }
  viewer.start();
  if (panel) panel.start();
}

if (typeof document !== "undefined") init();
