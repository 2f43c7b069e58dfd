import { test } from "node:test";
import assert from "node:assert/strict";
import { bestMelds, bestLayoffs, canAttach, meldKind, placeLayoffs } from "../melds.js";
import { parseCard, cardLabel, cardName, cardsValue } from "../cards.js";

test("cards parse like the engine spells them", () => {
  assert.equal(parseCard("TD").rank, 10);
  assert.equal(parseCard("10d").text, "TD");
  assert.equal(parseCard("as").value, 1);
  assert.equal(parseCard("KH").value, 10);
  assert.equal(parseCard("1X"), null);
  assert.equal(parseCard("ZZ"), null);
  assert.equal(parseCard(7), null);
  assert.equal(cardLabel("TS"), "10\u2660");
  assert.equal(cardName("QD"), "queen of diamonds");
  assert.equal(cardsValue(["AC", "KD", "7H"]), 18);
});

test("meld kinds: sets, runs, never wrapping", () => {
  assert.equal(meldKind(["7C", "7D", "7H"]), "set");
  assert.equal(meldKind(["7C", "7D", "7H", "7S"]), "set");
  assert.equal(meldKind(["5H", "6H", "7H", "8H"]), "run");
  assert.equal(meldKind(["QS", "KS", "AS"]), null);
  assert.equal(meldKind(["5H", "6H"]), null);
  assert.equal(meldKind(["5H", "6H", "8H"]), null);
  assert.equal(meldKind(["5H", "6D", "7H"]), null);
});

test("gin hand has no deadwood", () => {
  const r = bestMelds(["AC", "2C", "3C", "7D", "7H", "7S", "9S", "TS", "JS", "QS"]);
  assert.equal(r.deadwood, 0);
  assert.equal(r.deadwoodCards.length, 0);
  assert.equal(r.melds.length, 3);
});

test("overlapping set and run: picks the arrangement with the least deadwood", () => {
  // 7H belongs either to the run 5H-6H-7H or to the set of sevens.
  const hand = ["5H", "6H", "7H", "7C", "7D", "KS", "QS", "2D", "9C", "4S"];
  const r = bestMelds(hand);
  // run 5-6-7H + deadwood 7C 7D (14) vs set 777 + deadwood 5H 6H (11): the set wins
  assert.equal(r.deadwood, 10 + 10 + 2 + 9 + 4 + 5 + 6);
  assert.ok(r.melds.some((m) => m.length === 3 && m.every((c) => c[0] === "7")));
});

test("a four-card set can give up a card to a run", () => {
  const hand = ["8C", "8D", "8H", "8S", "6S", "7S", "9S", "TS"];
  const r = bestMelds(hand);
  assert.equal(r.deadwood, 0); // 8C 8D 8H + 6S-TS... no: 6S 7S 8S 9S TS and 8C 8D 8H
  assert.equal(r.melds.length, 2);
});

test("matches a brute-force reference on random hands", () => {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const deck = [];
  for (const s of "CDHS") for (const r of "A23456789TJQK") deck.push(r + s);
  for (let round = 0; round < 300; round++) {
    const d = deck.slice();
    for (let i = d.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [d[i], d[j]] = [d[j], d[i]];
    }
    const hand = d.slice(0, round % 2 ? 10 : 11);
    assert.equal(bestMelds(hand).deadwood, referenceDeadwood(hand), hand.join(" "));
  }
});

// Independent, slow reference: try every subset partition by recursion over all melds.
function referenceDeadwood(hand) {
  const all = [];
  const n = hand.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const cs = hand.filter((_, i) => mask & (1 << i));
    if (cs.length >= 3 && meldKind(cs)) all.push(mask);
  }
  const value = (mask) =>
    hand.reduce((s, t, i) => (mask & (1 << i) ? s + parseCard(t).value : s), 0);
  let best = value((1 << n) - 1);
  const rec = (start, used) => {
    best = Math.min(best, value(((1 << n) - 1) & ~used));
    for (let k = start; k < all.length; k++) if (!(all[k] & used)) rec(k + 1, used | all[k]);
  };
  rec(0, 0);
  return best;
}

test("lay-off targets: ends of runs, fourth card of a set", () => {
  assert.ok(canAttach(["4H", "5H", "6H"], "3H"));
  assert.ok(canAttach(["4H", "5H", "6H"], "7H"));
  assert.ok(!canAttach(["4H", "5H", "6H"], "8H"));
  assert.ok(!canAttach(["4H", "5H", "6H"], "7D"));
  assert.ok(canAttach(["9C", "9D", "9S"], "9H"));
  assert.ok(!canAttach(["9C", "9D", "9S", "9H"], "9H"));
  assert.ok(!canAttach(["JS", "QS", "KS"], "AS"));
});

test("chained lay-offs: a card laid off makes room for the next", () => {
  assert.deepEqual(placeLayoffs(["5C", "4C"], [["AC", "2C", "3C"]]), [
    ["4C", 0],
    ["5C", 0],
  ]);
  assert.equal(placeLayoffs(["6C"], [["AC", "2C", "3C"]]), null);
});

test("best lay-offs minimise the defender's deadwood", () => {
  const knocker = [["AC", "2C", "3C"], ["9D", "9H", "9S"]];
  const defender = ["4C", "5C", "9C", "KD", "KH", "KS", "7D", "2H", "QS", "JD"];
  const r = bestLayoffs(defender, knocker);
  const laid = r.layoffs.map(([c]) => c).sort();
  assert.deepEqual(laid, ["4C", "5C", "9C"]);
  assert.equal(r.deadwood, 7 + 2 + 10 + 10);
});

test("a card is kept in the defender's own meld when that is better", () => {
  // 4H could be laid off on 5H-6H-7H, but 4C 4D 4H is a meld of its own either way
  const r = bestLayoffs(["4C", "4D", "4H", "KD"], [["5H", "6H", "7H"]]);
  assert.equal(r.deadwood, 10);
  assert.equal(r.layoffs.length, 0);
});
