import assert from "node:assert/strict";
import { test } from "node:test";

import { RatingBook, formatChange } from "../ratings.js";

test("labels come from the frame's ratings, by seat", () => {
  const book = new RatingBook();
  book.fromFrame({ type: "snapshot", ratings: [{ seat: 0, rating: 1500, provisional: true, label: "1500?", change: null }], seats: [{ index: 0, kind: "user", username: "ann" }, { index: 1, kind: "bot", username: null }] });
  assert.equal(book.labelOf({ index: 0, kind: "user", username: "ann" }), "1500?");
  assert.equal(book.labelOf({ index: 1, kind: "bot", username: null }), "");
  assert.deepEqual(book.changeList(), []);
  // someone sat down: the next version's state frame lists both
  book.fromFrame({ type: "state", ratings: [{ seat: 0, label: "1500?", change: null }, { seat: 1, label: "1623", change: null }] });
  assert.equal(book.labelOf({ index: 1, kind: "user", username: "bob" }), "1623");
  // a frame without ratings (presence, an error) leaves the book as it is
  book.fromFrame({ type: "presence", seats: [] });
  assert.equal(book.labelOf({ index: 1, kind: "user", username: "bob" }), "1623");
});

test("the changes of a rated game arrive in the same list, and a later frame replaces them", () => {
  const book = new RatingBook();
  book.fromFrame({ type: "state", ratings: [{ seat: 1, label: "1488?", change: -12 }, { seat: 0, label: "1512?", change: 12 }] });
  assert.deepEqual(book.changeList(), [[0, "+12"], [1, "\u221212"]]);
  assert.equal(book.labelOf({ index: 0, kind: "user", username: "ann" }), "1512?");
  book.fromFrame({ type: "state", ratings: [{ seat: 0, label: "1512?", change: 0 }] });
  assert.deepEqual(book.changeList(), [[0, "±0"]]);
  book.fromFrame({ type: "snapshot", ratings: [] });
  assert.deepEqual(book.changeList(), []);
});

test("formatChange", () => {
  assert.equal(formatChange(5), "+5");
  assert.equal(formatChange(-9), "\u22129");
  assert.equal(formatChange(0), "±0");
});
