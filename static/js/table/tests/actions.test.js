import { test } from "node:test";
import assert from "node:assert/strict";
import { actionButtons, bestKnockCard, hintOf, keptSelection, layoffTargets, meldActionFor, selectionNote } from "../actions.js";

const actions = (btns) => btns.map((b) => b.action);

test("offer and draw phases", () => {
  const view = { phase: "offer", discard_pile: ["7H"] };
  const b = actionButtons(view, ["take_upcard", "pass"], [], []);
  assert.deepEqual(actions(b), ["take_upcard", "pass"]);
  assert.equal(b[0].label, "Take 7\u2665");
  const d = actionButtons({ phase: "draw", discard_pile: ["7H"] }, ["draw:stock"], [], []);
  assert.deepEqual(actions(d), ["draw:stock"]);
  // a hint to pass makes Pass the highlighted button; a hint no button makes changes nothing
  const hinted = actionButtons(view, ["take_upcard", "pass"], [], [], "pass");
  assert.deepEqual(hinted.map((x) => x.primary), [false, true]);
  assert.deepEqual(actionButtons(view, ["take_upcard", "pass"], [], [], "discard:KS").map((x) => x.primary), [true, false]);
});

test("discard phase: buttons only for legal moves of the selected card", () => {
  const view = { phase: "discard", discard_pile: ["2C"] };
  const legal = ["discard:KS", "discard:5D", "knock:KS"];
  assert.deepEqual(actions(actionButtons(view, legal, ["KS"], [])), ["knock:KS", "discard:KS"]);
  assert.deepEqual(actions(actionButtons(view, legal, ["5D"], [])), ["discard:5D"]);
  // nothing selected: offer the knock with the best card
  const hand = ["AC", "2C", "3C", "7D", "7H", "7S", "9S", "TS", "JS", "KS", "5D"];
  const legal2 = ["discard:KS", "discard:5D", "knock:KS", "knock:5D"];
  const b = actionButtons(view, legal2, [], hand);
  assert.deepEqual(actions(b), ["knock:KS"]);
  assert.equal(bestKnockCard(hand, legal2).dw, 5);
});

test("gin and big gin are offered only when legal", () => {
  const view = { phase: "discard", discard_pile: ["2C"] };
  assert.deepEqual(actions(actionButtons(view, ["discard:KS", "gin:KS", "gin:4C", "big_gin"], [], [])), ["big_gin", "gin:KS"]);
  assert.deepEqual(actions(actionButtons(view, ["discard:KS"], [], [])), []);
});

test("lay-off phase and rummy play", () => {
  const view = { phase: "layoff", table: [["AC", "2C", "3C"]], discard_pile: [] };
  const legal = ["layoff:4C>0", "accept_layoffs", "done"];
  const b = actionButtons(view, legal, ["4C"], ["4C", "KD"]);
  assert.deepEqual(actions(b), ["layoff:4C>0", "accept_layoffs", "done"]);
  assert.match(b[1].label, /4\u2663/);
  assert.deepEqual(layoffTargets(["layoff:4C>0", "layoff:4C>2", "layoff:5C>1"], "4C"), [0, 2]);
  // nothing fits: a single "Done" instead of two buttons that do the same
  const none = actionButtons(view, ["accept_layoffs", "done"], [], ["KD", "QH"]);
  assert.deepEqual(actions(none), ["done"]);
  assert.equal(none[0].primary, true);
  assert.match(none[0].label, /nothing to lay off/);
  const legalPlay = ["meld:5H,6H,7H", "discard:5H", "discard:KD", "layoff:KD>0"];
  assert.equal(meldActionFor(legalPlay, ["7H", "5H", "6H"]), "meld:5H,6H,7H");
  assert.equal(meldActionFor(legalPlay, ["7H", "5H"]), null);
  const p = actionButtons({ phase: "play", table: [], discard_pile: [] }, legalPlay, ["6H", "7H", "5H"], []);
  assert.deepEqual(actions(p), ["meld:5H,6H,7H"]);
  const q = actionButtons({ phase: "play", table: [], discard_pile: [] }, legalPlay, ["KD"], []);
  assert.deepEqual(actions(q), ["layoff:KD>0", "discard:KD"]);
});

test("nothing to offer when it is not your turn", () => {
  assert.deepEqual(actionButtons({ phase: "draw" }, [], [], []), []);
  assert.deepEqual(actionButtons(null, ["pass"], [], []), []);
});

test("seat names are made unique for the screen", async () => {
  const { displayNames } = await import("../seats.js");
  const seats = [
    { index: 0, kind: "user", name: "Anna" },
    { index: 1, kind: "bot", name: "Computer (Easy)" },
    { index: 2, kind: "bot", name: "Computer (Easy)" },
    { index: 3, kind: "empty", name: "" },
  ];
  assert.deepEqual(displayNames(seats), ["Anna", "Computer (Easy) #2", "Computer (Easy) #3", "Empty seat"]);
});

test("a hint in words, with the hand cards to select", () => {
  assert.deepEqual(hintOf("draw:stock"), { text: "Hint: draw from the stock.", cards: [] });
  assert.deepEqual(hintOf("draw:discard"), { text: "Hint: take the top of the discard pile.", cards: [] });
  assert.deepEqual(hintOf("pass"), { text: "Hint: pass on the upcard.", cards: [] });
  assert.equal(hintOf("knock:KS").text, "Hint: knock, discarding K\u2660.");
  assert.deepEqual(hintOf("knock:KS").cards, ["KS"]);
  assert.deepEqual(hintOf("layoff:5H>1"), { text: "Hint: lay off 5\u2665 on meld 2.", cards: ["5H"] });
  assert.deepEqual(hintOf("meld:5H,6H,7H").cards, ["5H", "6H", "7H"]);
  assert.equal(hintOf("accept_layoffs").text, "Hint: accept the lay-offs.");
});

test("a selection lasts the seat's turn and its hand, no longer", () => {
  const hand = ["AS", "JD", "2C", "9H"];
  const mine = { phase: "play", to_act: 0, hand_number: 18 };
  // melding and laying off within the turn keep what is still in the hand
  assert.deepEqual(keptSelection(["AS", "5S"], { hand, view: mine, prevView: mine, mySeat: 0 }), ["AS"]);
  // A♠ picked, J♦ discarded another way: the turn is over and A♠ is no longer selected (it had
  // stayed, and with J♦ picked next turn Basic Rummy offered no button at all)
  const theirs = { phase: "draw", to_act: 1, hand_number: 18 };
  assert.deepEqual(keptSelection(["AS"], { hand, view: theirs, prevView: mine, mySeat: 0 }), []);
  // picked while the others play: kept for one's own turn
  const later = { phase: "draw", to_act: 0, hand_number: 18 };
  assert.deepEqual(keptSelection(["2C"], { hand, view: later, prevView: theirs, mySeat: 0 }), ["2C"]);
  // a new hand: nothing carried over, even a card dealt again
  const next = { phase: "draw", to_act: 1, hand_number: 19 };
  assert.deepEqual(keptSelection(["2C"], { hand, view: next, prevView: theirs, mySeat: 0 }), []);
  // a spectator's page, or a page opened again: outside the play phase, the last card only
  assert.deepEqual(keptSelection(["AS", "2C"], { hand, view: later, prevView: null, mySeat: null }), ["2C"]);
  assert.deepEqual(keptSelection(["AS"], { hand, view: null, prevView: mine, mySeat: 0 }), []);
});

test("a selection no button takes says what it can do", () => {
  const view = { phase: "play" };
  const legal = ["meld:7S,7H,7D", "discard:AS", "discard:JD", "discard:7S"];
  assert.equal(actionButtons(view, legal, ["AS", "JD"], ["AS", "JD", "7S", "7H", "7D"]).length, 0);
  assert.match(selectionNote(view, legal, ["AS", "JD"]), /^Two cards selected: pick a third to meld, or just one/);
  assert.match(selectionNote(view, legal, ["AS", "JD", "7S"]), /^A\u2660 J\u2666 7\u2660 are no meld you can lay down now/);
  assert.equal(selectionNote(view, legal, ["7S", "7H", "7D"]), "");
  assert.equal(selectionNote(view, legal, ["AS"]), "");
  assert.equal(selectionNote({ phase: "discard" }, ["discard:AS"], ["AS"]), "");
});

test("the card just taken, selected, says why it cannot be discarded", () => {
  const gin = { phase: "discard", taken_card: "QS" };
  assert.equal(selectionNote(gin, ["discard:AS", "knock:AS"], ["QS"]), "You cannot discard Q\u2660, the card you just took from the pile: choose another.");
  assert.equal(selectionNote(gin, ["discard:AS"], ["AS"]), "");
  const rummy = { phase: "play", taken_card: "QS" };
  assert.match(selectionNote(rummy, ["discard:AS", "meld:QS,QH,QD"], ["QS"]), /the card you just took from the pile: meld it or lay it off, or choose another card\.$/);
  // a card taken from the stock may go straight back
  assert.equal(selectionNote({ phase: "discard", taken_card: null }, ["discard:QS"], ["QS"]), "");
});
