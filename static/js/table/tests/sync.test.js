import { test } from "node:test";
import assert from "node:assert/strict";
import { legalOf } from "../actions.js";
import { ActionIds, Backoff, PendingMove, VersionTracker } from "../sync.js";
import { describeEvent, describeHandResult, rebuiltLog, turnPrompt } from "../announce.js";

test("versions: in order, stale, gaps, snapshots", () => {
  const t = new VersionTracker();
  assert.deepEqual(t.consider({ type: "snapshot", version: 5 }), { render: true, gap: false });
  assert.deepEqual(t.consider({ type: "state", version: 6 }), { render: true, gap: false });
  assert.deepEqual(t.consider({ type: "state", version: 6 }), { render: false, gap: false });
  assert.deepEqual(t.consider({ type: "state", version: 4 }), { render: false, gap: false });
  assert.deepEqual(t.consider({ type: "state", version: 9 }), { render: true, gap: true });
  assert.equal(t.version, 9);
  // a snapshot of the same version (reconnect) is rendered again, an older one is not
  assert.deepEqual(t.consider({ type: "snapshot", version: 9 }), { render: true, gap: false });
  assert.deepEqual(t.consider({ type: "snapshot", version: 8 }), { render: false, gap: false });
  assert.deepEqual(t.consider({ type: "state" }), { render: false, gap: false });
  assert.deepEqual(t.consider({ type: "state", version: "10" }), { render: false, gap: false });
  t.reset();
  assert.deepEqual(t.consider({ type: "state", version: 3 }), { render: true, gap: true });
});

test("action ids are unique and short", () => {
  const ids = new ActionIds("x".repeat(60));
  const a = ids.next();
  const b = ids.next();
  assert.notEqual(a, b);
  assert.ok(a.length <= 40);
});

test("backoff grows, caps and resets", () => {
  const b = new Backoff({ base: 500, max: 4000, random: () => 0.5 });
  assert.deepEqual([b.next(), b.next(), b.next(), b.next(), b.next()], [500, 1000, 2000, 4000, 4000]);
  b.reset();
  assert.equal(b.next(), 500);
  const j = new Backoff({ base: 1000, random: () => 0 });
  assert.equal(j.next(), 800);
});

test("pending move settles by id or by a newer version", () => {
  const p = new PendingMove();
  p.start("m-1", "draw:stock", 7);
  assert.ok(p.busy);
  assert.equal(p.settleById("m-2"), null);
  assert.equal(p.settleByVersion(7), null);
  assert.equal(p.settleByVersion(8).id, "m-1");
  assert.ok(!p.busy);
  p.start("m-3", "discard:QS", 8);
  assert.equal(p.settleById("m-3").action, "discard:QS");
});

test("legal moves: the view's legal_actions, nothing else", () => {
  assert.deepEqual(legalOf({ legal_actions: ["pass"] }), ["pass"]);
  assert.deepEqual(legalOf({ legal_actions: [] }), []);
  assert.deepEqual(legalOf({ to_act: 1 }), []);
  assert.deepEqual(legalOf(null), []);
});

test("announcements name the player and the card", () => {
  const ctx = { mySeat: 0, names: ["Bob", "Anna"] };
  assert.equal(describeEvent({ kind: "draw", data: { seat: 1, source: "stock" } }, ctx), "Anna drew from the stock.");
  assert.equal(describeEvent({ kind: "discard", data: { seat: 1, card: "7H" } }, ctx), "Anna discarded 7\u2665.");
  assert.equal(describeEvent({ kind: "draw", data: { seat: 0, source: "discard", card: "TS" } }, ctx), "You took 10\u2660 from the discard pile.");
  assert.equal(describeEvent({ kind: "drew", data: { seat: 0, card: "2C" } }, ctx), "You drew 2\u2663 from the stock.");
  assert.equal(describeEvent({ kind: "drew", data: { seat: 1, card: "2C" } }, ctx), null);
  assert.equal(describeEvent({ kind: "mystery", data: {} }, ctx), null);
  assert.equal(describeHandResult({ outcome: "gin", winner: 1, points: 37 }, ctx), "Anna went gin: 37 points.");
  assert.equal(describeHandResult({ outcome: "drawn", winner: null, points: 0 }, ctx), "The hand is a draw: nobody scores.");
  assert.equal(describeEvent({ kind: "game_over", data: { winner: 1 } }, ctx), "The game is over. Anna wins.");
  // the computer playing on for a person who left ends ahead: it wins nothing
  const standIn = { mySeat: 0, names: ["Bob", "Computer (for Anna)", "Cy"], standIns: [1] };
  assert.equal(describeEvent({ kind: "game_over", data: { winner: 1 } }, standIn),
    "The game is over. Computer (for Anna) finished ahead, but a seat played for someone who left wins nothing: the first place goes to those who stayed.");
});

test("turn prompts follow the phase and the legal moves", () => {
  const view = { phase: "draw", discard_pile: ["7H"] };
  assert.equal(turnPrompt(view, ["draw:stock"]), "Draw from the stock.");
  assert.match(turnPrompt({ phase: "offer", discard_pile: ["7H"] }, ["take_upcard", "pass"]), /7\u2665/);
  assert.match(turnPrompt({ phase: "discard" }, ["discard:7H", "knock:7H"]), /knock/);
  assert.equal(turnPrompt(view, []), "");
});

test("a log rebuilt mid-hand marks the moves played on a timeout", () => {
  const ctx = { mySeat: 0, names: ["Alice", "Anna"], maxTimeouts: 3 };
  const view = {
    hand_number: 2,
    score_sheet: { hands: [{ hand: 1, outcome: "knock", winner: 1, points: 12 }] },
    history: [
      { kind: "deal", data: { hand: 2, dealer: 1, upcard: "5D" } },
      { kind: "pass", data: { seat: 0 } },
      { kind: "pass", data: { seat: 1 } },
      { kind: "draw", data: { seat: 0, source: "stock", card: "KC" } },
      { kind: "discard", data: { seat: 0, card: "KC" } },
      { kind: "draw", data: { seat: 1, source: "stock" } },
      { kind: "discard", data: { seat: 1, card: "2H" } },
    ],
  };
  const log = rebuiltLog(view, ctx, [[3, 5]]);
  assert.equal(log.earlier.length, 1);
  assert.match(log.earlier[0], /^Hand 1: /);
  assert.deepEqual(log.moves.slice(3), [
    "Your time ran out: a safe move was played for you.",
    "You drew K\u2663 from the stock.",
    "You discarded K\u2663.",
    "Anna drew from the stock.",
    "Anna discarded 2\u2665.",
  ]);
  // the opponent's timeout names them; without marks nothing is added
  assert.ok(rebuiltLog(view, ctx, [[5, 7]]).moves.includes("Anna's time ran out: a safe move was played for them."));
  assert.equal(rebuiltLog(view, ctx).moves.length, 7);
  // only the last events are logged: a mark ending before them is left out, one ending
  // among them is kept; bad marks are ignored
  assert.deepEqual(rebuiltLog(view, ctx, [[3, 5]], 2).moves, ["Anna drew from the stock.", "Anna discarded 2\u2665."]);
  assert.equal(rebuiltLog(view, ctx, [[3, 5]], 3).moves[0], "Your time ran out: a safe move was played for you.");
  assert.equal(rebuiltLog(view, ctx, [[3, 99], "x", null, [1.5, 2]]).moves.length, 7);
});
