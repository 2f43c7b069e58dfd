import assert from "node:assert/strict";
import { test } from "node:test";

import { RatingBook, formatChange } from "../ratings.js";

test("labels come from snapshot seats and ratings frames, by username", () => {
  const book = new RatingBook();
  book.fromFrame({ type: "snapshot", ratings: { ann: "1500?" }, seats: [{ index: 0, kind: "user", username: "ann" }, { index: 1, kind: "bot", username: null }] });
  assert.equal(book.labelOf({ kind: "user", username: "ann" }), "1500?");
  assert.equal(book.labelOf({ kind: "bot", username: null }), "");
  book.fromRatings({ game_id: null, players: [{ seat: 1, username: "bob", label: "1623", change: null }] });
  assert.equal(book.labelOf({ kind: "user", username: "bob" }), "1623");
  assert.deepEqual(book.changeList(), []);
});

test("the changes of a rated game, from the frame or the finish block", () => {
  const book = new RatingBook();
  book.fromRatings({ game_id: 7, players: [{ seat: 1, username: "bob", label: "1488?", change: -12 }, { seat: 0, username: "ann", label: "1512?", change: 12 }] });
  assert.deepEqual(book.changeList(), [[0, "+12"], [1, "\u221212"]]);
  assert.equal(book.labelOf({ kind: "user", username: "ann" }), "1512?");
  // a later game replaces the changes
  book.fromFrame({ seats: [], table: { finish: { game_id: 9, rating_changes: { 0: 0 } } } });
  assert.deepEqual(book.changeList(), [[0, "±0"]]);
});

test("formatChange", () => {
  assert.equal(formatChange(5), "+5");
  assert.equal(formatChange(-9), "\u22129");
  assert.equal(formatChange(0), "±0");
});
