import { test } from "node:test";
import assert from "node:assert/strict";
import { arrange, mergeOrder, moveCard, sortCards, meldMembership } from "../hand.js";

const hand = ["KD", "2S", "7H", "7C", "7S", "3S", "4S", "AH", "QC", "TD"];

test("sort by rank, suits alternating colours within a rank", () => {
  assert.deepEqual(sortCards(hand, "rank"), ["AH", "2S", "3S", "4S", "7S", "7H", "7C", "TD", "QC", "KD"]);
});

test("sort by suit groups suits and orders ranks", () => {
  assert.deepEqual(sortCards(hand, "suit"), ["2S", "3S", "4S", "7S", "AH", "7H", "7C", "QC", "TD", "KD"]);
});

test("arrange into melds: melds first, deadwood after by rank", () => {
  const out = sortCards(hand, "melds");
  assert.equal(out.length, hand.length);
  assert.deepEqual(new Set(out), new Set(hand));
  // the run 2S-3S-4S comes first, then the sevens, then deadwood
  assert.deepEqual(out.slice(0, 3), ["2S", "3S", "4S"]);
  assert.deepEqual(new Set(out.slice(3, 6)), new Set(["7C", "7H", "7S"]));
  assert.deepEqual(out.slice(6), ["AH", "TD", "QC", "KD"]);
});

test("custom order survives updates; new cards go to the right", () => {
  const mine = ["QC", "KD", "AH"];
  assert.deepEqual(mergeOrder(mine, ["AH", "KD", "5C", "QC"]), ["QC", "KD", "AH", "5C"]);
  assert.deepEqual(mergeOrder(mine, ["AH", "QC"]), ["QC", "AH"]);
  assert.deepEqual(arrange(mine, ["AH", "QC", "KD"], "custom"), ["QC", "KD", "AH"]);
  assert.deepEqual(arrange(mine, ["AH", "QC", "KD"], "rank"), ["AH", "QC", "KD"]);
});

test("move a card", () => {
  const o = ["A", "B", "C", "D"];
  assert.deepEqual(moveCard(o, 0, 2), ["B", "C", "A", "D"]);
  assert.deepEqual(moveCard(o, 3, 0), ["D", "A", "B", "C"]);
  assert.deepEqual(moveCard(o, 1, 99), ["A", "C", "D", "B"]);
  assert.deepEqual(moveCard(o, 9, 0), o);
});

test("meld membership", () => {
  const m = meldMembership([["2S", "3S", "4S"], ["7C", "7H", "7S"]]);
  assert.equal(m.get("3S"), 0);
  assert.equal(m.get("7H"), 1);
  assert.equal(m.get("KD"), undefined);
});
