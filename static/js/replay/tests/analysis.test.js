import { test } from "node:test";
import assert from "node:assert/strict";
import {
  actionLabel, byPly, cumulativeLoss, graphPoints, judgementText, markedPlies, minus,
  nextMarked, progressText, sameSubject, summaryCounts,
} from "../analysis.js";

const d = (index, seat, judgement, loss, played = "discard:7H", best = "discard:7S") => ({
  index, seat, hand: 1, kind: "discard", played, best, options: [], loss, judgement,
});

const DECISIONS = [
  d(0, 0, "forced", 0, "draw:stock", "draw:stock"),
  d(1, 0, "best", 0, "discard:KS", "discard:KS"),
  d(2, 1, "mistake", 4.2),
  d(4, 1, "good", 0.3, "discard:9C", "discard:9D"),
  d(5, 0, "blunder", 11.04, "discard:2C", "knock:3C"),
  d(7, 1, "inaccuracy", 1.5),
];

test("points read with a real minus sign and one decimal", () => {
  assert.equal(minus(4.2), "−4.2");
  assert.equal(minus(0.04), "0.0");
  assert.equal(minus("x"), "0.0");
});

test("actions read as short labels", () => {
  assert.equal(actionLabel("discard:7S"), "7♠");
  assert.equal(actionLabel("discard:TD"), "10♦");
  assert.equal(actionLabel("draw:stock"), "drawing from the stock");
  assert.equal(actionLabel("draw:discard"), "taking the discard");
  assert.equal(actionLabel("take_upcard"), "taking the upcard");
  assert.equal(actionLabel("knock:3C"), "knocking with 3♣");
  assert.equal(actionLabel("layoff:4H>0"), "laying off 4♥ on meld 1");
  assert.equal(actionLabel("something:else"), "something:else");
});

test("the judgement of a move says what was best and what it cost", () => {
  const names = ["ann", "bob"];
  assert.equal(judgementText(DECISIONS[2], names), "bob: mistake; best was 7♠ (−4.2 points).");
  assert.equal(judgementText(DECISIONS[1], names), "ann: best move.");
  // judged best, though another move scored a little more: not "best; best was …"
  assert.equal(judgementText(d(9, 0, "best", 0.4, "draw:stock", "draw:discard"), names),
    "ann: best move, within 0.4 points of taking the discard.");
  assert.equal(judgementText(DECISIONS[0], names), "ann had only this move.");
  assert.equal(judgementText({ ...DECISIONS[2], judgement: "timeout", loss: 0 }, names),
    "bob: time ran out, the site played this move (not judged).");
  // the computer's move in the seat of a player who had left a game of three or four
  assert.equal(judgementText({ ...DECISIONS[2], judgement: "played_on", loss: 0 }, names),
    "bob had left the game: the computer played this move (not judged).");
  assert.equal(judgementText(DECISIONS[4], names), "ann: blunder; best was knocking with 3♣ (−11.0 points).");
  assert.equal(judgementText(undefined, names), "");
});

test("move i is shown at ply i + 1", () => {
  const map = byPly(DECISIONS);
  assert.equal(map.get(3).judgement, "mistake");
  assert.equal(map.get(1).judgement, "forced");
  assert.equal(map.get(4), undefined);
});

test("cumulative loss per seat, ply by ply", () => {
  const [a, b] = cumulativeLoss(DECISIONS, 2, 9);
  assert.equal(a.length, 10);
  assert.deepEqual(a.map((v) => Math.round(v * 100) / 100), [0, 0, 0, 0, 0, 0, 11.04, 11.04, 11.04, 11.04]);
  assert.deepEqual(b.map((v) => Math.round(v * 10) / 10), [0, 0, 0, 4.2, 4.2, 4.5, 4.5, 4.5, 6, 6]);
  // never decreasing, decisions past the end ignored
  const [c] = cumulativeLoss([d(20, 0, "blunder", 9)], 1, 5);
  assert.deepEqual(c, [0, 0, 0, 0, 0, 0]);
});

test("marked moves: inaccuracies, mistakes and blunders, of one seat or everyone", () => {
  assert.deepEqual(markedPlies(DECISIONS), [3, 6, 8]);
  assert.deepEqual(markedPlies(DECISIONS, 1), [3, 8]);
  assert.deepEqual(markedPlies(DECISIONS, 0), [6]);
  assert.deepEqual(markedPlies([]), []);
});

test("the jumps go to the next and previous marked move, or nowhere", () => {
  const plies = [3, 6, 8];
  assert.equal(nextMarked(plies, 0, 1), 3);
  assert.equal(nextMarked(plies, 3, 1), 6);
  assert.equal(nextMarked(plies, 8, 1), null);
  assert.equal(nextMarked(plies, 7, -1), 6);
  assert.equal(nextMarked(plies, 3, -1), null);
  assert.equal(nextMarked([], 3, -1), null);
});

test("the graph's lines fit their box, the highest total at the top", () => {
  const series = cumulativeLoss(DECISIONS, 2, 9);
  const { top, lines, x } = graphPoints(series, 320, 120);
  assert.equal(Math.round(top * 100) / 100, 11.04);
  assert.equal(lines.length, 2);
  const pts = lines[0].split(" ").map((p) => p.split(",").map(Number));
  assert.equal(pts.length, 10);
  for (const [px, py] of pts) {
    assert.ok(px >= 4 && px <= 316 && py >= 4 && py <= 116, `${px},${py}`);
  }
  assert.equal(pts[9][1], 4); // seat 0 ends highest: at the top
  assert.equal(pts[0][1], 116);
  assert.equal(x(0), 4);
  assert.equal(x(9), 316);
});

test("progress in words", () => {
  assert.match(progressText({ status: "queued" }), /Queued/);
  assert.equal(progressText({ status: "running", done: 12, total: 80 }), "Judging decision 12 of 80…");
  assert.equal(progressText({ status: "failed", error: "No." }), "No.");
  assert.equal(progressText({ status: "none" }), "");
});

test("a player's counts in one line", () => {
  assert.equal(summaryCounts({ counts: { inaccuracy: 1, mistake: 2, best: 7, good: 3 }, total_loss: 9.04 }),
    "1 inaccuracy · 2 mistakes · 0 blunders · 7 best · 3 good · 9.0 points lost");
});

test("a frame is matched to the page's game or imported record, never across them", () => {
  const game = { game: 41 };
  const imported = { game: null, record: 7 };
  assert.equal(sameSubject({ game: 41, status: "running" }, game), true);
  assert.equal(sameSubject({ game: 42 }, game), false);
  assert.equal(sameSubject({ game: null, record: 7 }, imported), true);
  assert.equal(sameSubject({ game: null, record: 8 }, imported), false);
  assert.equal(sameSubject({ game: 7 }, imported), false);
  assert.equal(sameSubject({ game: null, record: 41 }, game), false);
});
