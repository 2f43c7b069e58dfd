// The score sheet: the dialog with every hand's running totals (one small table per game,
// Hollywood has three) and the final tables of the game-over panel. The running totals come
// from the server (``score_sheet.hands[].running``); the bonuses from the mode's settings.

import { plural, seatName } from "./announce.js";
import { clear, h, openDialog, setChildren } from "./dom.js";
import { shortNames } from "./seats.js";

const OUTCOME_SHORT = {
  knock: "Knock",
  gin: "Gin",
  big_gin: "Big gin",
  undercut: "Undercut",
  drawn: "Drawn",
  out: "Out",
  stalemate: "Stalemate",
};

export function outcomeShort(outcome) {
  return OUTCOME_SHORT[outcome] || outcome;
}

/**
 * The rows of column ``ci`` (the hands scored in it, and the drawn ones while it was still
 * being played: a drawn hand after the hand that ended a game, ``over``, is not that game's;
 * Hollywood's games over before it had read "(shutout!)" beside it): per seat a cell,
 * {scored, text, title, gain}: the seat's running total where it scored the hand, blank
 * elsewhere; ``gain`` the hand's points under it where they are not the whole total (the
 * cell read "10" right after the panel said "You score 2", the 2 in a tooltip a phone
 * cannot show).
 */
export function sheetRows(hands, ci, seatCount, over = false) {
  const inColumn = (r) => (r.columns || []).includes(ci);
  const drawn = (r) => r.winner === null || r.winner === undefined;
  const end = over ? Math.max(...hands.filter(inColumn).map((r) => r.hand)) : Infinity;
  const rows = hands.filter((r) => inColumn(r) || (drawn(r) && r.hand < end));
  return rows.map((row) => ({
    hand: row.hand,
    outcome: outcomeShort(row.outcome),
    cells: Array.from({ length: seatCount }, (_, i) => {
      const scored = row.winner === i && (row.columns || []).includes(ci);
      if (!scored) return { scored, text: "" };
      const total = row.running[ci][i];
      return { scored, text: String(total), title: `+${row.points}`, gain: total === row.points ? "" : `+${row.points}` };
    }),
  }));
}

/** The line under the sheet: hands won, the target and (gin) the end-of-game bonuses, which
 * a game over by the rules has added (its final score follows the sheet: it read "at the
 * end: game bonus 100" under totals of 57 – 43 when the game had ended 207 – 93). */
export function sheetNote(view, names) {
  const s = view.settings || {};
  const wins = names.map((n, i) => `${n} ${(view.hands_won || [])[i] || 0}`).join(" · ");
  const done = hasFinalScore(view);
  const bonuses = view.mode === "rummy" ? ""
    : done ? `; the game bonus and line bonuses are added in the final score below`
      : `; at the end: game bonus ${s.game_bonus}, line bonus ${s.line_bonus} per hand won`;
  return `Hands won: ${wins}. Target ${view.target}${bonuses}.`;
}

/** Hollywood's wins that count in no game (``columns`` empty: every game they would score in
 * was over), which no table of the sheet shows: "Hand 4 (You +18) counts in no game: …",
 * or "" (the sheet had left them out, under "Hands won: You 3"). */
export function idleHandsNote(hands, names) {
  const idle = (hands || []).filter((r) => r.winner !== null && r.winner !== undefined && Array.isArray(r.columns) && !r.columns.length);
  if (!idle.length) return "";
  const list = idle.map((r) => `${r.hand} (${names[r.winner]} +${r.points})`).join(", ");
  return `Hand${idle.length > 1 ? "s" : ""} ${list} count${idle.length > 1 ? "" : "s"} in no game: the games ${idle.length > 1 ? "they" : "it"} would score in were over.`;
}

/** Whether the view's game is over by the rules, with its final score (bonuses, totals). */
export function hasFinalScore(view) {
  return Boolean(view && view.is_over && view.result && (view.result.columns || []).length);
}

/** A score-sheet column header: the name may wrap at spaces and after _ . - (never mid-word). */
export function nameParts(name) {
  return String(name).split(/(?<=[_.\-])(?=.)/);
}

/** The columns' names: each seat's whole name, and the short label of a narrow seat box
 * ("Easy 2" for "Computer 2 (Easy)", a person's own name) for a sheet too narrow for them
 * (``fitSheetNames``). Your own column says "You". */
export function sheetLabels(seats, names, mySeat) {
  const shorts = shortNames(seats, names);
  return names.map((full, i) => ({ full, label: i === mySeat ? full : shorts[i] || full }));
}

function fillName(th, text, abbreviated) {
  clear(th);
  const into = abbreviated ? th.appendChild(h("abbr", { attrs: { title: th.dataset.full } })) : th;
  nameParts(text).forEach((part, i) => {
    if (i) into.append(document.createElement("wbr"));
    into.append(part);
  });
}

function sheetName({ full, label }) {
  const th = h("th", { class: "sheet-name", attrs: { scope: "col" } });
  if (label !== full) Object.assign(th.dataset, { full, short: label });
  fillName(th, full, false);
  return th;
}

/**
 * Each sheet under ``root`` whose whole names do not fit its box (three games side by side,
 * four players on a phone: a name never breaks mid-word, so the table grew wider than its
 * box) shows the short labels instead, the whole name as each one's title. Measured: call it
 * once the sheets are on screen.
 */
export function fitSheetNames(root) {
  // the tables side by side (Hollywood's three games) name their columns alike: games 1 and 2
  // read "Easy" above game 3's "Computer (Easy)" when only theirs were too wide
  const groups = new Map();
  for (const tbl of root.querySelectorAll(".sheet")) {
    const group = tbl.closest(".sheet-cols") || tbl;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(tbl);
  }
  for (const tables of groups.values()) {
    const heads = tables.flatMap((tbl) => [...tbl.querySelectorAll("th.sheet-name[data-short]")]);
    if (!heads.length) continue;
    for (const th of heads) fillName(th, th.dataset.full, false);
    if (tables.some((tbl) => tbl.offsetWidth > tbl.parentElement.clientWidth + 1)) {
      for (const th of heads) fillName(th, th.dataset.short, true);
    }
  }
}

export function openSheet(ctrl) {
  const v = ctrl.view;
  if (!v) return;
  const d = ctrl.el.sheetDialog;
  const ctx = ctrl.ctx();
  const seats = ctrl.frame.seats || [];
  const names = seats.map((s, i) => seatName(i, ctx));
  const labels = sheetLabels(seats, names, ctx.mySeat);
  const sheet = v.score_sheet || { columns: [], hands: [] };
  const cols = sheet.columns || [];
  const hands = sheet.hands || [];
  // one small table per game (Hollywood: three), so a phone can read it without scrolling
  const tables = cols.map((col, ci) => {
    const tbl = h("table", { class: "sheet" });
    if (cols.length > 1) tbl.append(h("caption", { text: `Game ${ci + 1}${col.over ? " (over)" : ""}` }));
    tbl.append(h("thead", {}, h("tr", {}, h("th", { text: "Hand", attrs: { scope: "col" } }), h("th", { text: "Result", attrs: { scope: "col" } }), labels.map(sheetName))));
    const body = h("tbody");
    const rows = sheetRows(hands, ci, seats.length, Boolean(col.over));
    for (const row of rows) {
      const tr = h("tr", {}, h("th", { text: String(row.hand), attrs: { scope: "row" } }), h("td", { class: "sheet-outcome", text: row.outcome }));
      for (const c of row.cells) {
        const td = h("td", { class: c.scored ? "sheet-scored" : "", text: c.text, attrs: c.scored ? { title: c.title } : {} });
        if (c.gain) td.append(h("span", { class: "sheet-note sheet-gain", text: c.gain }));
        tr.append(td);
      }
      body.append(tr);
    }
    if (!rows.length) body.append(h("tr", {}, h("td", { class: "sheet-empty", text: "No hands scored yet.", attrs: { colspan: 2 + seats.length } })));
    tbl.append(body);
    // a game over: these are the hand points, the final score (with bonuses) follows
    const label = hasFinalScore(v) ? "Hand points" : "Total";
    tbl.append(h("tfoot", {}, h("tr", { class: "sheet-total" }, h("th", { text: label, attrs: { scope: "row", colspan: 2 } }), seats.map((s, i) => h("td", { text: String(col.points[i]) })))));
    return scrollBox(tbl, cols.length > 1 ? `Score sheet, game ${ci + 1}` : "Score sheet");
  });
  const modeName = ctrl.frame && ctrl.frame.table ? ctrl.frame.table.mode_name : "";
  setChildren(
    d,
    // (the game's name: a phone in play hides the page's header, which says it)
    h("h2", { text: modeName ? `Score sheet · ${modeName}` : "Score sheet", attrs: { id: "tbl-sheet-title" } }),
    h("div", { class: `sheet-cols sheet-cols-${tables.length}` }, tables),
    h("p", { class: "muted", text: sheetNote(v, names) }),
    cols.length > 1 && idleHandsNote(hands, names) ? h("p", { class: "muted", text: idleHandsNote(hands, names) }) : null,
    hasFinalScore(v) ? h("div", { class: `sheet-cols sheet-cols-${v.result.columns.length}` }, finalTables(v.result, labels)) : null,
    ctrl.data && ctrl.data.rules_url ? h("p", {}, h("a", { text: `How ${modeName || "the game"} is played and scored (opens the rules)`, attrs: { href: ctrl.data.rules_url, target: "_blank", rel: "noopener" } })) : null,
    h("form", { attrs: { method: "dialog" }, class: "tbl-actions" }, h("button", { class: "button", text: "Close", attrs: { type: "submit" } })),
  );
  openDialog(d);
  fitSheetNames(d);
  window.ginScrollCues?.(d);
}

/** The final tables of a finished game: hand points, bonuses and totals, one per game
 * (``labels``: ``sheetLabels``). */
export function finalTables(result, labels) {
  return result.columns.map((col) => {
    const tbl = h("table", { class: "sheet sheet-final" });
    const cap = result.columns.length > 1 ? `Game ${col.column + 1}` : "Final score";
    tbl.append(h("caption", { text: cap + (col.shutout ? " (shutout!)" : "") }));
    tbl.append(h("thead", {}, h("tr", {}, h("td", { class: "sheet-corner" }), labels.map(sheetName))));
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
    return scrollBox(tbl, result.columns.length > 1 ? `Final score, game ${col.column + 1}` : "Final score");
  });
}

/** A sheet's box: a sheet too wide for a phone scrolls in it, with a shadow on the side with
 * more (site.js marks it once it is on the page: window.ginScrollCues), and a keyboard
 * reaches it to scroll it. */
function scrollBox(tbl, label) {
  return h("div", { class: "sheet-wrap table-scroll", attrs: { tabindex: "0", role: "region", "aria-label": label } }, tbl);
}
