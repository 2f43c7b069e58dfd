// The analysis in the replay viewer (docs/analysis.md): each player's summary (accuracy,
// counts per class), a graph of each player's cumulative loss move by move, the judgement of
// the move shown ("best was 7♠ (−4.2 points)"), markers on the move list, and jumps to the
// previous / next marked move (buttons, and the keys P and N). Also the "Analyse this game"
// request with its progress (the notification socket's `analysis` frames, reaching the page
// as `notify:analysis` events from notify.js, with a poll of analysis.json as the fallback).
// The pure parts are exported for the Node tests (static/js/replay/tests/).

import { cardLabel } from "../table/cards.js";
import { el } from "./dom.js";

/** The classes marked on the move list and visited by the jumps, mildest first. */
export const MARKED = ["inaccuracy", "mistake", "blunder"];
export const CLASS_NAMES = {
  best: "best", good: "good", inaccuracy: "inaccuracy", mistake: "mistake",
  blunder: "blunder", forced: "only move", timeout: "played on a timeout",
  played_on: "played by the computer after the player left",
};
// Chess's marks, read out by their names (the mark itself is aria-hidden).
export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
// The poll of analysis.json while no socket frame arrives (ms).
const POLL_MS = 2500;
const SERIES = 2; // colours in replay.css: .loss-series-0, .loss-series-1 (then repeated)

/** Points with one decimal and a real minus sign: 4.2 → "−4.2". */
export function minus(points) {
  const v = Math.abs(Number(points) || 0).toFixed(1);
  return v === "0.0" ? "0.0" : `−${v}`;
}

/** A short label of an engine action, for "best was …". */
export function actionLabel(action) {
  const [kind, arg = ""] = String(action).split(/:(.*)/s);
  switch (kind) {
    case "discard": return cardLabel(arg);
    case "draw": return arg === "stock" ? "drawing from the stock" : "taking the discard";
    case "take_upcard": return "taking the upcard";
    case "pass": return "passing the upcard";
    case "knock": return `knocking with ${cardLabel(arg.split("|")[0])}`;
    case "gin": return `gin with ${cardLabel(arg)}`;
    case "big_gin": return "big gin";
    case "layoff": {
      const [c, m] = arg.split(">");
      return `laying off ${cardLabel(c)} on meld ${Number(m) + 1}`;
    }
    case "accept_layoffs": return "the best lay-offs";
    case "done": return "stopping the lay-offs";
    case "meld": return `melding ${arg.split(",").map(cardLabel).join(" ")}`;
    case "go_out": return `going out with ${cardLabel(arg)}`;
    default: return String(action);
  }
}

/** The decision of each ply: move i (decision.index) is shown at ply i + 1. */
export function byPly(decisions) {
  const map = new Map();
  for (const d of decisions || []) map.set(d.index + 1, d);
  return map;
}

/** One sentence on the move shown at a ply (its decision `d`, or none). */
export function judgementText(d, names) {
  if (!d) return "";
  const who = names[d.seat] ?? `Seat ${d.seat + 1}`;
  if (d.judgement === "forced") return `${who} had only this move.`;
  if (d.judgement === "timeout") return `${who}: time ran out, the site played this move (not judged).`;
  if (d.judgement === "played_on") return `${who} had left the game: the computer played this move (not judged).`;
  if (d.played === d.best || d.loss <= 0) return `${who}: best move.`;
  // judged best though another move scored a little more: within the analysis's margin
  // (it read "best; best was taking the discard (−0.4 points)")
  if (d.judgement === "best") return `${who}: best move, within ${Math.abs(Number(d.loss) || 0).toFixed(1)} points of ${actionLabel(d.best)}.`;
  return `${who}: ${CLASS_NAMES[d.judgement] || d.judgement}; best was ${actionLabel(d.best)} (${minus(d.loss)} points).`;
}

/** Each seat's cumulative loss at every ply 0..last. */
export function cumulativeLoss(decisions, seats, last) {
  const series = Array.from({ length: seats }, () => new Array(last + 1).fill(0));
  const at = Array.from({ length: seats }, () => new Array(last + 1).fill(0));
  for (const d of decisions || []) {
    const p = d.index + 1;
    if (d.seat < seats && p <= last) at[d.seat][p] += Math.max(0, Number(d.loss) || 0);
  }
  for (let s = 0; s < seats; s += 1) {
    let total = 0;
    for (let p = 0; p <= last; p += 1) { total += at[s][p]; series[s][p] = total; }
  }
  return series;
}

/** The plies of the marked decisions (of one seat, or everyone's with seat null), in order. */
export function markedPlies(decisions, seat = null) {
  return (decisions || [])
    .filter((d) => MARKED.includes(d.judgement) && (seat == null || d.seat === seat))
    .map((d) => d.index + 1)
    .sort((a, b) => a - b);
}

/** The next marked ply after `ply` (dir 1) or the one before it (dir -1); null if none. */
export function nextMarked(plies, ply, dir) {
  if (dir > 0) return plies.find((p) => p > ply) ?? null;
  for (let i = plies.length - 1; i >= 0; i -= 1) if (plies[i] < ply) return plies[i];
  return null;
}

/** SVG polyline points of each series in a width × height box (y grows downwards). */
export function graphPoints(series, width, height, pad = 4) {
  const last = Math.max(1, (series[0] || []).length - 1);
  const top = Math.max(1, ...series.map((s) => s[s.length - 1] || 0));
  const x = (p) => pad + (p * (width - 2 * pad)) / last;
  const y = (v) => height - pad - (v * (height - 2 * pad)) / top;
  return {
    top,
    x,
    lines: series.map((s) => s.map((v, p) => `${x(p).toFixed(1)},${y(v).toFixed(1)}`).join(" ")),
  };
}

/** "9 inaccuracies · 6 mistakes · 5 blunders · 12 best · 3 good · 31.4 points lost". */
export function summaryCounts(s) {
  const c = s.counts || {};
  const n = (k, one, many) => `${c[k] || 0} ${(c[k] || 0) === 1 ? one : many}`;
  return [
    n("inaccuracy", "inaccuracy", "inaccuracies"), n("mistake", "mistake", "mistakes"),
    n("blunder", "blunder", "blunders"), `${c.best || 0} best`, `${c.good || 0} good`,
    `${Number(s.total_loss || 0).toFixed(1)} points lost`,
  ].join(" · ");
}

/** "Queued", "Judging decision 12 of 80", … for the progress line. */
export function progressText(state) {
  switch (state.status) {
    case "queued": return "Queued: the analysis starts in a moment…";
    case "running": return state.total
      ? `Judging decision ${state.done} of ${state.total}…`
      : "Starting the analysis…";
    case "done": return "Analysis done.";
    case "failed": return state.error || "The analysis failed.";
    default: return "";
  }
}

/** Whether a frame is about the analysis this page shows: a game's (by its id), or an
 * imported record's (its `game` is null and its `record` the record's id). */
export function sameSubject(frame, state) {
  return (frame.record ?? null) === (state.record ?? null) && frame.game === state.game;
}

// ---------------------------------------------------------------------------------- DOM

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function csrfToken(form) {
  const input = form && form.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

/** The analysis part of the replay viewer. `viewer` is the ReplayViewer (go, ply, names). */
export class AnalysisPanel {
  constructor(root, viewer, state) {
    this.root = root;
    this.viewer = viewer;
    this.state = state;
    this.data = null;
    this.pollTimer = null;
    this.lastFrame = 0;
    // (the judgement of the move shown and the jumps stand under the replay's controls,
    // outside ``root``: looked up in the whole replay)
    const q = (name) => (root.querySelector(`[data-analysis-${name}]`)
      || viewer.root.querySelector(`[data-analysis-${name}]`));
    this.dom = {
      form: q("form"), button: q("button"), reason: q("reason"), progress: q("progress"),
      bar: q("bar"), result: q("result"), summary: q("summary"), graph: q("graph"),
      ply: q("ply"), whose: q("whose"), prev: q("prev"), next: q("next"), nav: q("nav"),
      intro: q("intro"), keys: q("keys"),
      moves: viewer.root.querySelector("[data-replay-moves]"), count: q("count"),
    };
  }

  start() {
    this.bindRequest();
    this.bindJumps();
    this.showState(this.state);
    if (this.state.analysis) this.setAnalysis(this.state.analysis);
    if (this.state.status === "queued" || this.state.status === "running") this.follow();
  }

  // ------------------------------------------------------------------------ the request

  bindRequest() {
    const { form } = this.dom;
    if (!form) return;
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      this.dom.button.disabled = true;
      let body = null;
      try {
        const r = await fetch(form.action, {
          method: "POST", credentials: "same-origin",
          headers: { Accept: "application/json", "X-CSRFToken": csrfToken(form) },
        });
        body = await r.json();
      } catch {
        body = { ok: false, error: { message: "The site could not be reached; try again." } };
      }
      if (!body.ok) {
        this.dom.button.disabled = false;
        this.say(body.error.message, true);
        return;
      }
      this.showState({ ...this.state, ...body.analysis, can_request: false });
      if (body.analysis.status === "done") this.refresh();
      else this.follow();
    });
    document.addEventListener("notify:analysis", (e) => {
      const f = e.detail;
      if (!f || !sameSubject(f, this.state)) return;
      this.lastFrame = Date.now();
      this.showState({ ...this.state, ...f });
      // done: read the result; failed: read whether it may be asked for again
      if (f.status === "done" || f.status === "failed") this.refresh();
    });
  }

  /** Follow a queued or running analysis: socket frames, and a poll when they are quiet. */
  follow() {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => {
      if (Date.now() - this.lastFrame < 2 * POLL_MS) return; // the socket is talking
      this.refresh();
    }, POLL_MS);
  }

  stopFollowing() {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  async refresh() {
    let state;
    try {
      const r = await fetch(this.state.json_url || `/games/${this.state.game}/analysis.json`, {
        credentials: "same-origin", headers: { Accept: "application/json" },
      });
      if (!r.ok) return;
      state = await r.json();
    } catch {
      return; // the next poll tries again
    }
    this.showState(state);
    if (state.status === "done" || state.status === "failed" || state.status === "none") this.stopFollowing();
    if (state.analysis && state.status === "done" && !this.data) this.setAnalysis(state.analysis);
  }

  say(text, error = false) {
    const { reason } = this.dom;
    if (!reason) return;
    reason.textContent = text;
    reason.classList.toggle("form-error", error);
    reason.hidden = !text;
  }

  showState(state) {
    this.state = { ...this.state, ...state };
    const s = this.state;
    const { form, button, progress, bar } = this.dom;
    const working = s.status === "queued" || s.status === "running";
    if (form) form.hidden = !s.can_request || working || (s.status === "done" && !s.outdated);
    if (button) button.disabled = false;
    if (s.reason && !s.can_request && !working && s.status !== "done") this.say(s.reason);
    else if (s.status === "failed") this.say(progressText(s), true);
    else this.say("");
    if (progress) {
      progress.hidden = !working;
      progress.querySelector("[data-analysis-progress-text]").textContent = progressText(s);
    }
    if (bar) {
      bar.max = Math.max(1, s.total || 1);
      bar.value = s.status === "running" ? s.done : 0;
      bar.setAttribute("aria-valuetext", progressText(s));
    }
  }

  // ------------------------------------------------------------------------ the result

  setAnalysis(data) {
    this.data = data;
    const names = this.viewer.names;
    this.decisions = data.decisions || [];
    this.plies = byPly(this.decisions);
    this.series = cumulativeLoss(this.decisions, names.length, this.viewer.last);
    this.dom.result.hidden = false;
    for (const part of [this.dom.nav, this.dom.keys]) if (part) part.hidden = false;
    if (this.dom.intro) this.dom.intro.hidden = true;
    this.renderSummary(data.summaries || []);
    this.renderWhose();
    this.renderGraph();
    this.markMoves();
    this.show(this.viewer.ply);
  }

  /** One line per player: accuracy, then the count of each class and the points lost. */
  renderSummary(summaries) {
    const { summary } = this.dom;
    const names = this.viewer.names;
    summary.replaceChildren();
    for (const s of summaries) {
      summary.append(el("li", { "data-analysis-seat": String(s.seat) },
        el("span", { class: `loss-key loss-series-${s.seat % SERIES}`, "aria-hidden": "true" }),
        el("strong", { text: names[s.seat] ?? s.player }), " ",
        el("span", { class: "analysis-accuracy", text: s.decisions ? `${s.accuracy.toFixed(1)}%` : "–" }),
        " accuracy",
        el("br"),
        el("span", { class: "muted", text: summaryCounts(s) })));
    }
  }

  renderWhose() {
    const { whose } = this.dom;
    whose.replaceChildren(el("option", { value: "", text: "Everyone" }),
      ...this.viewer.names.map((n, seat) => el("option", { value: String(seat), text: n })));
    const mine = this.state.viewer_seat;
    whose.value = mine == null ? "" : String(mine);
    this.updateJumps();
  }

  whoseSeat() {
    const v = this.dom.whose.value;
    return v === "" ? null : Number(v);
  }

  renderGraph() {
    const { graph } = this.dom;
    const W = 320, H = 120;
    const { top, x, lines } = graphPoints(this.series, W, H);
    this.graphX = x;
    const names = this.viewer.names;
    const totals = this.series.map((s, seat) => `${names[seat]} ${s[s.length - 1].toFixed(1)}`).join(", ");
    const box = svg("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "loss-graph", role: "img",
      "aria-label": `Points lost move by move, cumulative: ${totals} by the end.`,
    });
    box.append(svg("line", { x1: 4, y1: H - 4, x2: W - 4, y2: H - 4, class: "loss-axis" }));
    lines.forEach((pts, seat) => box.append(svg("polyline", { points: pts, class: `loss-line loss-series-${seat % SERIES}` })));
    for (const d of this.decisions) {
      if (!MARKED.includes(d.judgement)) continue;
      const p = d.index + 1;
      const v = this.series[d.seat][p];
      const y = H - 4 - (v * (H - 8)) / top;
      const dot = svg("circle", { cx: x(p).toFixed(1), cy: y.toFixed(1), r: d.judgement === "blunder" ? 3.5 : 2.5,
        class: `loss-dot loss-${d.judgement}` });
      const t = svg("title");
      t.textContent = `Move ${p}: ${judgementText(d, names)}`;
      dot.append(t);
      box.append(dot);
    }
    this.cursor = svg("line", { x1: 0, y1: 4, x2: 0, y2: H - 4, class: "loss-cursor" });
    box.append(this.cursor);
    // a click on the graph goes to that move (the buttons and keys do the same by keyboard)
    box.addEventListener("click", (e) => {
      const r = box.getBoundingClientRect();
      const fx = ((e.clientX - r.left) / r.width) * W;
      const ply = Math.round(((fx - 4) * Math.max(1, this.viewer.last)) / (W - 8));
      this.viewer.stop();
      this.viewer.go(ply);
    });
    // the scale as text of the page (an SVG label grew with the chart, to 32 px, and stayed
    // black in the dark theme)
    const scale = el("p", { class: "loss-scale muted", text: `Points lost, added up move by move (top of the chart: ${top.toFixed(1)})` });
    graph.replaceChildren(scale, box);
  }

  /** The move list's markers (the list is the viewer's; each move item has data-ply). */
  markMoves() {
    const list = this.dom.moves;
    if (!list) return;
    for (const item of list.querySelectorAll("[data-ply]")) {
      const d = this.plies.get(Number(item.dataset.ply));
      item.querySelector(".move-mark")?.remove();
      if (!d || !MARKED.includes(d.judgement)) continue;
      const button = item.querySelector("button");
      button.classList.add(`move-${d.judgement}`);
      button.append(el("span", { class: `move-mark loss-${d.judgement}`, "aria-hidden": "true", text: ` ${MARKS[d.judgement]}` }),
        el("span", { class: "visually-hidden move-mark", text: ` (${d.judgement})` }));
    }
  }

  updateJumps() {
    const marked = markedPlies(this.decisions, this.whoseSeat());
    const ply = this.viewer.ply;
    this.dom.prev.disabled = nextMarked(marked, ply, -1) == null;
    this.dom.next.disabled = nextMarked(marked, ply, 1) == null;
    const seat = this.whoseSeat();
    const who = seat == null ? "everyone's" : `${this.viewer.names[seat]}'s`;
    this.dom.count.textContent = `${marked.length} marked ${marked.length === 1 ? "move" : "moves"} (${who})`;
  }

  jump(dir) {
    const target = nextMarked(markedPlies(this.decisions, this.whoseSeat()), this.viewer.ply, dir);
    if (target == null) return;
    this.viewer.stop();
    this.viewer.go(target);
  }

  bindJumps() {
    this.dom.prev?.addEventListener("click", () => this.jump(-1));
    this.dom.next?.addEventListener("click", () => this.jump(1));
    this.dom.whose?.addEventListener("change", () => this.updateJumps());
    document.addEventListener("keydown", (e) => {
      if (!this.data || e.altKey || e.ctrlKey || e.metaKey) return;
      const t = e.target;
      if (t instanceof HTMLElement && t.matches("input:not([type=range]), textarea, select, [contenteditable]")) return;
      const key = e.key.toLowerCase();
      if (key !== "n" && key !== "p") return;
      e.preventDefault();
      this.jump(key === "n" ? 1 : -1);
    });
  }

  /** The viewer moved to `ply`: the judgement of that move, the graph's cursor, the jumps. */
  show(ply) {
    if (!this.data) return;
    const d = this.plies.get(ply);
    this.dom.ply.textContent = ply === 0 ? "The deal: no decision yet." : (judgementText(d, this.viewer.names) || "No decision judged at this move.");
    this.dom.ply.className = `analysis-ply${d && MARKED.includes(d.judgement) ? ` loss-${d.judgement}` : ""}`;
    if (this.cursor && this.graphX) {
      const x = this.graphX(ply).toFixed(1);
      this.cursor.setAttribute("x1", x);
      this.cursor.setAttribute("x2", x);
    }
    this.updateJumps();
  }
}
