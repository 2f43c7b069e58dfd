import { test } from "node:test";
import assert from "node:assert/strict";
import { deadwoodLine, deadwoodParts, handLayout, initialSort, savedSelection, saveSelection, shownOrder } from "../handview.js";

const deadwoodText = (args) => deadwoodLine(deadwoodParts(args));

test("the hand fits one row on a wide screen, overlapping when it must", () => {
  assert.deepEqual(handLayout(10, 1000, 86, 40), { rows: 1, w: 86, overlap: 6 });
  const tight = handLayout(11, 700, 86, 40);
  assert.equal(tight.rows, 1);
  assert.equal(tight.w, 86);
  assert.ok(tight.overlap < 0);
  assert.equal(tight.overlap, (700 - 86) / 10 - 86);
});

test("a phone gets two rows of smaller cards", () => {
  const l = handLayout(11, 340, 86, 40);
  assert.equal(l.rows, 2);
  assert.equal(l.w, Math.min(64, Math.floor((340 - 5 * 6) / 6)));
  assert.equal(l.overlap, 6);
  // the stylesheet's cap wins on a short screen
  assert.equal(handLayout(5, 1000, 60, 40).w, 60);
});

test("the deadwood pill while discarding", () => {
  const hand = ["AC", "2C", "3C", "7D", "7H", "7S", "9S", "TS", "JS", "KS", "5D"];
  assert.equal(deadwoodText({ hand, selected: [], discarding: false, deadwood: 24 }), "Deadwood 24");
  assert.equal(deadwoodText({ hand, selected: ["KS"], discarding: true, deadwood: 24 }), "Discarding K\u2660 leaves 5 deadwood");
  assert.equal(deadwoodText({ hand, selected: [], discarding: true, deadwood: 24 }), "Best discard leaves 5 deadwood");
  // the part a narrow line may shorten, and the count it always shows
  assert.deepEqual(deadwoodParts({ hand, selected: ["TS"], discarding: true, deadwood: 24 }), { lead: "Discarding 10\u2660 leaves", count: "34 deadwood" });
  assert.deepEqual(deadwoodParts({ hand, selected: [], discarding: false, deadwood: 24 }), { lead: "Deadwood", count: "24" });
  // the card just taken, selected: it cannot be discarded, so the best discard of the others
  const best = deadwoodParts({ hand, selected: [], discarding: true, deadwood: 24, taken: "TS" });
  assert.equal(best.lead, "Best discard leaves");
  assert.deepEqual(deadwoodParts({ hand, selected: ["TS"], discarding: true, deadwood: 24, taken: "TS" }), best);
  // Rummy: every card held counts against you when someone goes out, melds included
  assert.equal(deadwoodText({ hand: ["AC", "2C", "3C", "KS"], selected: [], discarding: false, deadwood: 10, rummy: true }), "In hand 16 points");
  assert.equal(deadwoodText({ hand: ["AC"], selected: [], discarding: false, deadwood: 1, rummy: true }), "In hand 1 point");
});

test("while a card of the hand is dragged, the cards keep the places the drag gave them", () => {
  const order = ["AC", "2C", "3C", "KS"];
  assert.deepEqual(shownOrder(order, ["2C", "AC", "KS", "3C"], false), order);
  // dragging: the screen's order wins; a card that left goes, a new card joins at its place
  // in the player's order (the end here)
  assert.deepEqual(shownOrder(["AC", "2C", "KS", "9H"], ["2C", "AC", "KS", "3C"], true), ["2C", "AC", "KS", "9H"]);
});

test("a table opens with the last sort chosen, or its own dragged order", () => {
  // a drag at one table made every later table open in the deal's order, no sort pressed
  assert.equal(initialSort(7, "custom"), "melds");
  assert.equal(initialSort(7, "rank"), "rank");
  assert.equal(initialSort(7, null), "melds");
  assert.equal(initialSort(7, "nonsense"), "melds");
  const saved = { "gin.order.7": JSON.stringify(["AC", "2C"]) };
  globalThis.window = { sessionStorage: { getItem: (k) => saved[k] ?? null } };
  try {
    assert.equal(initialSort(7, "suit"), "custom");
    assert.equal(initialSort(8, "suit"), "suit");
  } finally {
    delete globalThis.window;
  }
});

test("the selection is kept for the tab: a reload takes it up", () => {
  const saved = {};
  globalThis.window = { sessionStorage: {
    getItem: (k) => saved[k] ?? null,
    setItem: (k, v) => { saved[k] = v; },
    removeItem: (k) => { delete saved[k]; },
  } };
  try {
    assert.deepEqual(savedSelection(9), []);
    saveSelection(9, ["7H", "8H"]);
    assert.deepEqual(savedSelection(9), ["7H", "8H"]);
    assert.deepEqual(savedSelection(10), []); // another table's
    saveSelection(9, []);
    assert.equal(saved["gin.selected.9"], undefined);
    saved["gin.selected.9"] = "{not json";
    assert.deepEqual(savedSelection(9), []);
    saved["gin.selected.9"] = JSON.stringify([1, "KS", null]);
    assert.deepEqual(savedSelection(9), ["KS"]);
  } finally {
    delete globalThis.window;
  }
});
