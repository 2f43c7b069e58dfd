// The replay viewer of a finished game (or an uploaded record): every position, all hands
// face up, each hand's showdown and the running score sheet. Data: #replay-data (JSON).
// Keys: arrows step, Home/End jump to the ends, Page Up/Down jump a hand; ?ply=N deep link.

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function splitCards(s) {
  const out = [];
  for (let i = 0; i + 1 < (s || "").length; i += 2) out.push(s.slice(i, i + 2));
  return out;
}

export function cardLabel(code) {
  return (code[0] === "T" ? "10" : code[0]) + SUITS[code[1]];
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function card(code, extra = "") {
  const red = code[1] === "D" || code[1] === "H";
  const name = `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
  return el("span", {
    class: `rcard ${red ? "rcard-red" : "rcard-black"} ${extra}`.trim(),
    title: name, "aria-label": name, role: "img", "data-card": code,
  }, cardLabel(code));
}

function cardRow(codes, label, extra = "") {
  const row = el("span", { class: "rcards", role: "list", "aria-label": label });
  for (const c of codes) {
    const item = card(c, extra);
    item.setAttribute("role", "listitem");
    row.append(item);
  }
  if (!codes.length) row.append(el("span", { class: "muted", text: "none" }));
  return row;
}

export function clampPly(value, last) {
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(n, last);
}

function init() {
  const root = document.querySelector("[data-replay]");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;
  const data = JSON.parse(source.textContent);
  if (!data || !data.frames || !data.frames.length) return;
  const frames = data.frames;
  const last = frames.length - 1;
  const names = data.players;
  const controls = root.querySelector("[data-replay-controls]");
  const slider = root.querySelector("[data-replay-slider]");
  const counter = root.querySelector("[data-replay-counter]");
  const text = root.querySelector("[data-replay-text]");
  const board = root.querySelector("[data-replay-board]");
  const showdownBox = root.querySelector("[data-replay-showdown]");
  const boardTitle = root.querySelector("[data-replay-board-title]");
  const sheet = root.querySelector("[data-replay-sheet]");
  const playButton = root.querySelector("[data-replay-play]");
  root.querySelector("[data-replay-nojs]").hidden = true;
  controls.hidden = false;
  slider.max = String(last);
  // where each hand starts (its first frame) for the hand jumps
  const handStarts = [0];
  frames.forEach((f, i) => { if (i > 0 && frames[i - 1].showdown) handStarts.push(i); });

  let ply = clampPly(new URLSearchParams(location.search).get("ply"), last);
  let timer = null;

  function renderSheet() {
    sheet.replaceChildren();
    if (!data.sheet.length) { sheet.hidden = true; return; }
    sheet.hidden = false;
    const head = el("tr", {}, el("th", { scope: "col", text: "Hand" }),
      el("th", { scope: "col", text: "Result" }),
      ...names.map((n) => el("th", { scope: "col", text: n })));
    sheet.append(el("caption", { text: "Score sheet (hand points)" }), el("thead", {}, head));
    const body = el("tbody");
    for (const row of data.sheet) {
      const done = row.ply <= ply;
      const who = row.winner == null ? "" : `: ${names[row.winner]} +${row.points}`;
      const tr = el("tr", { class: done ? "" : "sheet-future" },
        el("th", { scope: "row", text: String(row.hand) }),
        el("td", { class: "sheet-result", text: done ? row.outcome + who : "…" }),
        ...row.running.map((v) => el("td", { text: done ? String(v) : "" })));
      if (row.ply === ply) tr.classList.add("sheet-current");
      body.append(tr);
    }
    sheet.append(body);
  }

  function renderShowdown(frame) {
    showdownBox.replaceChildren();
    if (!frame.showdown) { showdownBox.hidden = true; return; }
    showdownBox.hidden = false;
    for (const sd of frame.showdown) {
      const title = sd.winner_name
        ? `Hand ${sd.hand}: ${sd.outcome_name}, ${sd.winner_name} scores ${sd.points}`
        : `Hand ${sd.hand}: ${sd.outcome_name}, nobody scores`;
      const box = el("div", { class: "showdown" }, el("h3", { text: title }));
      if (sd.multiplier > 1) box.append(el("p", { class: "muted", text: `Scores count ×${sd.multiplier} this hand.` }));
      if (sd.knocker != null) {
        const laid = {};
        for (const [c, m] of sd.layoffs || []) (laid[m] = laid[m] || []).push(c);
        const kmelds = el("div", { class: "showdown-side" },
          el("h4", { text: `${names[sd.knocker]} (${sd.outcome === "gin" || sd.outcome === "big_gin" ? "gin" : "knocker"}): deadwood ${sd.knocker_deadwood}` }));
        sd.knocker_melds.forEach((m, i) => {
          const line = el("div", { class: "showdown-meld" }, cardRow(m, `Meld ${i + 1}`));
          if (laid[i]) line.append(el("span", { class: "muted", text: " + laid off " }), cardRow(laid[i], "Laid off", "rcard-layoff"));
          kmelds.append(line);
        });
        if (sd.knocker_deadwood_cards.length) kmelds.append(el("div", {}, el("span", { class: "muted", text: "Deadwood " }), cardRow(sd.knocker_deadwood_cards, "Deadwood", "rcard-dead")));
        const dside = el("div", { class: "showdown-side" },
          el("h4", { text: `${names[sd.defender]}: deadwood ${sd.defender_deadwood}` }));
        sd.defender_melds.forEach((m, i) => dside.append(el("div", { class: "showdown-meld" }, cardRow(m, `Meld ${i + 1}`))));
        if (sd.defender_deadwood_cards.length) dside.append(el("div", {}, el("span", { class: "muted", text: "Deadwood " }), cardRow(sd.defender_deadwood_cards, "Deadwood", "rcard-dead")));
        box.append(kmelds, dside);
      } else if (sd.remaining) {
        sd.remaining.forEach((cards, seat) => box.append(el("div", { class: "showdown-side" },
          el("h4", { text: `${names[seat]}: ${cards.length ? "cards left" : "out"}` }),
          cards.length ? cardRow(cards, "Cards left", "rcard-dead") : null)));
        if (sd.going_rummy) box.append(el("p", { text: "Going rummy: the score counts double." }));
      }
      if (sd.reason) box.append(el("p", { class: "muted", text: sd.reason }));
      showdownBox.append(box);
    }
  }

  function render() {
    const f = frames[ply];
    slider.value = String(ply);
    slider.setAttribute("aria-valuetext", `Move ${ply} of ${last}`);
    // the hand the move was made in (a hand-ending move's frame already holds the next deal)
    const handNo = f.showdown ? f.showdown[0].hand : f.hand;
    counter.textContent = `Move ${ply} of ${last} · hand ${handNo}:`;
    text.textContent = f.text;
    board.replaceChildren();
    const middle = el("div", { class: "replay-middle" },
      el("div", { class: "replay-pile" }, el("span", { class: "muted", text: "Stock " }), el("strong", { text: String(f.stock) })),
      el("div", { class: "replay-pile" }, el("span", { class: "muted", text: `Discard pile (${f.discard_count}) ` }),
        cardRow(splitCards(f.discard), "Discard pile, top card last")));
    if (f.knock_limit != null && data.family === "gin") middle.append(el("div", { class: "muted", text: `Knock limit ${f.knock_limit}${f.multiplier > 1 ? ` · scores ×${f.multiplier}` : ""}` }));
    if (f.table && f.table.length) {
      const melds = el("div", { class: "replay-table" }, el("span", { class: "muted", text: "Melds on the table" }));
      f.table.forEach((m, i) => melds.append(cardRow(splitCards(m), `Meld ${i + 1}`)));
      middle.append(melds);
    }
    const moved = f.move ? f.move[0] : null;
    names.forEach((name, seat) => {
      const tags = [];
      if (seat === f.dealer) tags.push("dealer");
      if (seat === f.to_act) tags.push("to play");
      const seatBox = el("div", { class: `replay-seat${seat === f.to_act ? " replay-seat-active" : ""}${seat === moved ? " replay-seat-moved" : ""}`, "data-seat": String(seat) },
        el("div", { class: "replay-seat-head" }, el("strong", { text: name }),
          el("span", { class: "muted", text: ` ${f.scores[seat]} points${tags.length ? " · " + tags.join(", ") : ""}` })),
        cardRow(splitCards(f.hands[seat]), `${name}'s hand`));
      board.append(seatBox);
      if (seat === 0) board.append(middle);
    });
    renderShowdown(f);
    // on the move that ends a hand the board already holds the next deal (or nothing more
    // to see at the end of the game): say so, or leave the showdown alone
    boardTitle.hidden = !f.showdown || ply === last;
    board.hidden = Boolean(f.showdown) && ply === last;
    renderSheet();
    const url = new URL(location.href);
    if (ply === 0) url.searchParams.delete("ply"); else url.searchParams.set("ply", String(ply));
    history.replaceState(null, "", url);
  }

  function go(target) {
    const next = clampPly(target, last);
    if (next !== ply) { ply = next; render(); }
    if (ply === last) stop();
  }
  function handJump(dir) {
    if (dir > 0) return go(handStarts.find((s) => s > ply) ?? last);
    const before = handStarts.filter((s) => s < ply);
    go(before.length ? before[before.length - 1] : 0);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    playButton.textContent = "Play";
    playButton.setAttribute("aria-pressed", "false");
  }
  function play() {
    if (ply === last) go(0);
    timer = setInterval(() => go(ply + 1), 700);
    playButton.textContent = "Pause";
    playButton.setAttribute("aria-pressed", "true");
  }

  root.addEventListener("click", (e) => {
    const b = e.target.closest("[data-replay-go]");
    if (!b) return;
    stop();
    const to = b.dataset.replayGo;
    if (to === "first") go(0);
    else if (to === "last") go(last);
    else if (to === "prev") go(ply - 1);
    else if (to === "next") go(ply + 1);
    else if (to === "prev-hand") handJump(-1);
    else if (to === "next-hand") handJump(1);
  });
  playButton.addEventListener("click", () => (timer ? stop() : play()));
  slider.addEventListener("input", () => { stop(); go(slider.value); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t instanceof HTMLElement && t.matches("input:not([type=range]), textarea, select, [contenteditable]")) return;
    const moves = { ArrowRight: () => go(ply + 1), ArrowLeft: () => go(ply - 1), Home: () => go(0),
      End: () => go(last), PageDown: () => handJump(1), PageUp: () => handJump(-1) };
    const fn = moves[e.key];
    if (!fn) return;
    e.preventDefault();  // the slider would move a second time by itself
    stop();
    fn();
  });
  render();
}

init();
