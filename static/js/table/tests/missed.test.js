import test from "node:test";
import assert from "node:assert/strict";
import { missedLines } from "../announce.js";

const ctx = { mySeat: 0, names: ["You", "Anna"] };
const pass = { kind: "pass", data: { seat: 0 } };
const draw = { kind: "draw", data: { seat: 1, source: "stock" } };
const discard = { kind: "discard", data: { seat: 1, card: "QS" } };

test("back after a lost connection: the moves made meanwhile are said", () => {
  // (an audit's log went from "You passed on the upcard." to "Your turn", Anna's draw and
  // discard never said)
  const before = { hand_number: 2, history: [pass] };
  const after = { hand_number: 2, history: [pass, draw, discard] };
  assert.deepEqual(missedLines(before, after, ctx), ["Anna drew from the stock.", "Anna discarded Q\u2660."]);
  // nothing new (a snapshot of what the page showed): nothing said
  assert.deepEqual(missedLines(after, after, ctx), []);
  assert.deepEqual(missedLines(null, after, ctx), []);
});

test("a hand that ended meanwhile: its result, then the new hand's moves", () => {
  const before = { hand_number: 2, history: [pass] };
  const after = {
    hand_number: 3,
    history: [{ kind: "pass", data: { seat: 1 } }],
    score_sheet: { hands: [
      { hand: 1, outcome: "gin", winner: 1, points: 30 },
      { hand: 2, outcome: "knock", winner: 0, points: 12 },
    ] },
  };
  assert.deepEqual(missedLines(before, after, ctx), [
    "Hand 2: You knocked and won: 12 points.",
    "Anna passed on the upcard.",
  ]);
});

test("at most the last lines", () => {
  const before = { hand_number: 1, history: [] };
  const after = { hand_number: 1, history: [draw, discard, draw, discard] };
  assert.deepEqual(missedLines(before, after, ctx, 2), ["Anna drew from the stock.", "Anna discarded Q\u2660."]);
});
