import { test } from "node:test";
import assert from "node:assert/strict";
import { canDropOn, discardRefusal, dropAction, enterAction, pileClickAction, shortcutOf } from "../input.js";

test("a click on a pile discards the selected card there, else takes from it", () => {
  assert.equal(pileClickAction("draw:discard", ["discard:KS", "discard:5D"], ["KS"]), "discard:KS");
  assert.equal(pileClickAction("draw:discard", ["draw:stock", "draw:discard"], []), "draw:discard");
  assert.equal(pileClickAction("take_upcard", ["pass"], []), null);
});

test("Enter on a card: discard, go out, or its only lay-off", () => {
  assert.equal(enterAction(["discard:KS"], "KS"), "discard:KS");
  assert.equal(enterAction(["go_out:KS"], "KS"), "go_out:KS");
  assert.equal(enterAction(["layoff:KS>1", "layoff:5D>0"], "KS"), "layoff:KS>1");
  assert.equal(enterAction(["layoff:KS>1", "layoff:KS>2"], "KS"), null);
  assert.equal(enterAction(["discard:5D"], "KS"), null);
});

test("where a drag may drop", () => {
  const legal = ["discard:KS", "layoff:5D>1", "draw:stock"];
  const act = { legal, canAct: true };
  assert.equal(canDropOn("hand", "hand", { card: "KS", legal, canAct: false }), true);
  assert.equal(canDropOn("hand", "discard", { card: "KS", ...act }), true);
  assert.equal(canDropOn("hand", "discard", { card: "KS", legal, canAct: false }), false);
  assert.equal(canDropOn("hand", "discard", { card: "5D", ...act }), false);
  assert.equal(canDropOn("hand", "meld", { card: "5D", meld: "1", ...act }), true);
  assert.equal(canDropOn("hand", "meld", { card: "5D", meld: "0", ...act }), false);
  assert.equal(canDropOn("stock", "hand", act), true);
  assert.equal(canDropOn("stock", "discard", act), false);
  assert.equal(canDropOn("discard", "hand", act), false);
  assert.equal(canDropOn("discard", "hand", { legal: ["take_upcard"], canAct: true }), true);
});

test("the move a drop makes", () => {
  const legal = ["go_out:KS", "take_upcard"];
  assert.equal(dropAction("hand", "discard", { card: "KS", legal }), "go_out:KS");
  assert.equal(dropAction("hand", "discard", { card: "5D", legal }), null);
  assert.equal(dropAction("hand", "meld", { card: "5D", meld: "2", legal }), "layoff:5D>2");
  assert.equal(dropAction("hand", "hand", { card: "5D", legal }), null);
  assert.equal(dropAction("stock", "hand", { legal }), "draw:stock");
  assert.equal(dropAction("discard", "hand", { legal }), "take_upcard");
  assert.equal(dropAction("discard", "hand", { legal: ["draw:discard"] }), "draw:discard");
});

test("A and H jump, but not while typing or with a modifier", () => {
  const key = (k, extra = {}) => ({ key: k, target: { tagName: "BODY" }, ...extra });
  assert.equal(shortcutOf(key("A")), "a");
  assert.equal(shortcutOf(key("h")), "h");
  assert.equal(shortcutOf(key("x")), null);
  assert.equal(shortcutOf(key("a", { ctrlKey: true })), null);
  assert.equal(shortcutOf(key("a", { defaultPrevented: true })), null);
  assert.equal(shortcutOf(key("a", { target: { tagName: "INPUT" } })), null);
  assert.equal(shortcutOf(key("a", { target: { tagName: "DIV", isContentEditable: true } })), null);
});

test("a tap on the discard pile that cannot discard says why", () => {
  // the card just taken from the pile (the tap did nothing, and said nothing)
  assert.equal(discardRefusal({ taken_card: "KC" }, ["discard:2H", "knock:2H"], "KC"),
    "You cannot discard the card you just took from the pile: choose another.");
  assert.equal(discardRefusal({ taken_card: null }, ["draw:stock"], "2H"), "Draw from the stock first.");
  assert.equal(discardRefusal({ taken_card: null }, ["layoff:2H>0"], "9S"), "That card cannot be discarded now.");
});
