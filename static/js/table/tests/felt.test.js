import { test } from "node:test";
import assert from "node:assert/strict";
import { pileState, showdownTitle } from "../felt.js";

test("the piles offer only this seat's legal moves on its turn", () => {
  const view = { discard_pile: ["2C", "7H"] };
  const offer = pileState(view, ["take_upcard", "pass"], true);
  assert.equal(offer.top, "7H");
  assert.equal(offer.canDiscardPile, true);
  assert.equal(offer.canStock, false);
  assert.equal(offer.pileAction, "take_upcard");
  const draw = pileState(view, ["draw:stock", "draw:discard"], true);
  assert.deepEqual([draw.canStock, draw.canDiscardPile, draw.pileAction], [true, true, "draw:discard"]);
  const waiting = pileState(view, ["draw:stock"], false);
  assert.deepEqual([waiting.canStock, waiting.canDiscardPile, waiting.discarding], [false, false, false]);
  const discard = pileState({ discard_pile: [] }, ["discard:KS"], true);
  assert.deepEqual([discard.top, discard.discarding], [null, true]);
});

test("the showdown heading", () => {
  const sd = { kind: "knock", knocker_deadwood_cards: ["3C"], knocker_deadwood: 3 };
  assert.equal(showdownTitle(sd, "You"), "You knocked: your melds and 3 deadwood");
  assert.equal(showdownTitle({ ...sd, kind: "gin", knocker_deadwood_cards: [] }, "ann"), "ann went gin: their melds");
  assert.equal(showdownTitle({ ...sd, kind: "big_gin", knocker_deadwood_cards: [] }, "ann"), "ann went big gin: their melds");
});
