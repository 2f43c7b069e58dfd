import { test } from "node:test";
import assert from "node:assert/strict";
import { hasFinalScore, idleHandsNote, nameParts, outcomeShort, sheetLabels, sheetNote, sheetRows } from "../sheet.js";

// Hollywood-like: hand 1 scored in game 1, hand 2 drawn, hand 3 (a second win) in games 1 and 2
const hands = [
  { hand: 1, outcome: "gin", winner: 0, points: 30, columns: [0], running: [[30, 0], [0, 0]] },
  { hand: 2, outcome: "drawn", winner: null, points: 0, columns: [], running: [[30, 0], [0, 0]] },
  { hand: 3, outcome: "knock", winner: 1, points: 12, columns: [0], running: [[30, 12], [0, 0]] },
  { hand: 4, outcome: "undercut", winner: 0, points: 27, columns: [0, 1], running: [[57, 12], [27, 0]] },
];

test("a column lists its scored hands and the drawn ones, with the server's running totals", () => {
  const rows = sheetRows(hands, 0, 2);
  assert.deepEqual(rows.map((r) => r.hand), [1, 2, 3, 4]);
  assert.deepEqual(rows[0].cells, [{ scored: true, text: "30", title: "+30", gain: "" }, { scored: false, text: "" }]);
  assert.deepEqual(rows[1].cells.map((c) => c.text), ["", ""]);
  assert.equal(rows[1].outcome, "Drawn");
  assert.deepEqual(rows[3].cells.map((c) => c.text), ["57", ""]);
  // a later score shows what the hand added under the running total
  assert.deepEqual(rows[3].cells.map((c) => c.gain), ["+27", undefined]);
  const second = sheetRows(hands, 1, 2);
  assert.deepEqual(second.map((r) => r.hand), [2, 4]);
  assert.deepEqual(second[1].cells, [{ scored: true, text: "27", title: "+27", gain: "" }, { scored: false, text: "" }]);
});

test("a drawn hand after the hand that ended a game is not listed under that game", () => {
  // Hollywood: hand 2 ended game 1 (ann reached the target); hand 3 was drawn in games 2 and 3
  const played = [
    { hand: 1, outcome: "gin", winner: 1, points: 60, columns: [0], running: [[60, 0], [0, 0]] },
    { hand: 2, outcome: "gin", winner: 1, points: 70, columns: [0, 1], running: [[130, 0], [70, 0]] },
    { hand: 3, outcome: "drawn", winner: null, points: 0, columns: [], running: [[130, 0], [70, 0]] },
  ];
  assert.deepEqual(sheetRows(played, 0, 2, true).map((r) => r.hand), [1, 2]);
  assert.deepEqual(sheetRows(played, 1, 2, false).map((r) => r.hand), [2, 3]);
  // a drawn hand before the end stays
  assert.deepEqual(sheetRows(hands, 0, 2, true).map((r) => r.hand), [1, 2, 3, 4]);
});

test("the note under the sheet takes the bonuses from the mode's settings", () => {
  const view = { mode: "classic", target: 150, hands_won: [2, 1], settings: { game_bonus: 100, line_bonus: 20 } };
  assert.equal(sheetNote(view, ["You", "ann"]), "Hands won: You 2 · ann 1. Target 150; at the end: game bonus 100, line bonus 20 per hand won.");
  const rummy = { mode: "rummy", target: 100, hands_won: [], settings: {} };
  assert.equal(sheetNote(rummy, ["You", "ann"]), "Hands won: You 0 · ann 0. Target 100.");
  // over by the rules: the bonuses are in, in the final score that follows the sheet (it
  // said "at the end" under hand points of 57 – 43 when the game had ended 207 – 93)
  const over = { ...view, is_over: true, result: { columns: [{ column: 0, totals: [207, 93] }] } };
  assert.equal(sheetNote(over, ["You", "ann"]), "Hands won: You 2 · ann 1. Target 150; the game bonus and line bonuses are added in the final score below.");
  assert.ok(hasFinalScore(over) && !hasFinalScore(view) && !hasFinalScore({ ...view, is_over: true, result: null }));
});

test("outcome abbreviations and where a long name may wrap", () => {
  assert.equal(outcomeShort("big_gin"), "Big gin");
  assert.equal(outcomeShort("something_new"), "something_new");
  assert.deepEqual(nameParts("jean_luc.picard"), ["jean_", "luc.", "picard"]);
  assert.deepEqual(nameParts("ann"), ["ann"]);
  // a sheet too narrow for the whole names uses the labels of narrow seat boxes ("Easy 2");
  // your own column says "You"; a short label two seats share is not used
  const seats = [{ short_name: "ann" }, { short_name: "Easy" }, { short_name: "Easy 2" }];
  assert.deepEqual(sheetLabels(seats, ["You", "Computer (Easy)", "Computer 2 (Easy)"], 0), [
    { full: "You", label: "You" }, { full: "Computer (Easy)", label: "Easy" },
    { full: "Computer 2 (Easy)", label: "Easy 2" }]);
  const twins = [{ short_name: "Easy" }, { short_name: "Easy" }];
  assert.deepEqual(sheetLabels(twins, ["Computer (Easy) #1", "Computer (Easy) #2"], null).map((x) => x.label),
    ["Computer (Easy) #1", "Computer (Easy) #2"]);
});

test("a Hollywood win that counts in no game is named under the sheet", () => {
  const hands = [
    { hand: 3, winner: 0, points: 20, columns: [0] },
    { hand: 4, winner: 0, points: 18, columns: [] },
    { hand: 5, winner: null, points: 0, columns: [] },
  ];
  assert.equal(idleHandsNote(hands, ["You", "ann"]), "Hand 4 (You +18) counts in no game: the games it would score in were over.");
  assert.equal(idleHandsNote(hands.slice(0, 1), ["You", "ann"]), "");
  assert.equal(idleHandsNote([{ hand: 2, winner: 1, points: 9 }], ["You", "ann"]), "", "no columns given: not said");
});
