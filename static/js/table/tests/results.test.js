import { test } from "node:test";
import assert from "node:assert/strict";
import { endingText, gameMargin, gameOverTitle, gameWinner, meldWithLaidOff, panelKey, placesText, ratingText, newRematchOffers, rematchDeclined, rematchLink, rematchOffers, rematchPanel, resultAfter, resultArrives, scoreText, shownResult } from "../results.js";

const ctx = { mySeat: 0, names: ["me", "ann"] };
const settings = { gin_bonus: 20, big_gin_bonus: 50, undercut_bonus: 10 };
const view = { settings, score_sheet: { columns: [{ points: [0, 0] }] } };

test("the score is explained with the mode's bonuses", () => {
  assert.equal(scoreText({ winner: 0, points: 27, outcome: "gin", multiplier: 1 }, ctx, view), "You score 27 (20 gin bonus + deadwood).");
  assert.equal(scoreText({ winner: 1, points: 60, outcome: "big_gin", multiplier: 1 }, ctx, view), "ann scores 60 (50 big gin bonus + deadwood).");
  assert.equal(scoreText({ winner: 1, points: 14, outcome: "undercut", multiplier: 1 }, ctx, view), "ann scores 14 (10 undercut bonus + the difference).");
  assert.equal(scoreText({ winner: 0, points: 8, outcome: "knock", multiplier: 2 }, ctx, view), "You score 8, doubled: the upcard was a spade.");
});

test("Hollywood says which games a hand was scored in", () => {
  const three = { settings, score_sheet: { columns: [{}, {}, {}] } };
  assert.equal(scoreText({ winner: 0, points: 5, outcome: "knock", multiplier: 1, columns: [0, 1] }, ctx, three), "You score 5. Scored in games 1, 2.");
  assert.equal(scoreText({ winner: 0, points: 5, outcome: "knock", multiplier: 1, columns: [2] }, ctx, three), "You score 5. Scored in game 3.");
  // every game this win would count in is over: said, not left as points gone nowhere
  assert.equal(scoreText({ winner: 1, points: 59, outcome: "knock", multiplier: 1, columns: [] }, ctx, three), "ann scores 59, but this win counts in no game: the games it would score in are over.");
  assert.equal(scoreText({ winner: 0, points: 5, outcome: "knock", multiplier: 1, columns: [0] }, ctx, view), "You score 5.");
});

test("which panel shows", () => {
  const playing = { table: { status: "playing" } };
  const v = { is_over: false, last_hand: { hand_number: 3 } };
  assert.equal(panelKey(playing, v, { resultHand: 3, gameOverClosed: false }), "hand-3");
  assert.equal(panelKey(playing, v, { resultHand: null, gameOverClosed: false }), null);
  assert.equal(panelKey(playing, { ...v, is_over: true }, { resultHand: 3, gameOverClosed: false }), "game-over");
  assert.equal(panelKey({ table: { status: "abandoned" } }, v, { resultHand: null, gameOverClosed: false }), "game-over");
  // closed before its game began: nothing is over, the felt says the table closed
  assert.equal(panelKey({ table: { status: "abandoned" } }, null, { resultHand: null, gameOverClosed: false }), null);
  assert.equal(panelKey({ table: { status: "finished" } }, v, { resultHand: 3, gameOverClosed: true }), "hand-3");
  // a game ended by its last hand: the felt shows that hand once the game's panel is closed
  assert.equal(panelKey({ table: { status: "finished" } }, { ...v, is_over: true }, { resultHand: 3, gameOverClosed: true }), null);
});

test("the game-over title and how the game ended", () => {
  assert.equal(gameOverTitle(0, true, ctx), "You win the game!");
  assert.equal(gameOverTitle(1, true, ctx), "ann wins the game");
  assert.equal(gameOverTitle(null, true, ctx), "The game is a tie");
  assert.equal(gameOverTitle(null, false, ctx), "Game over");
  assert.equal(endingText({ ending: "normal" }, ctx), "");
  assert.equal(endingText({ ending: "resignation", loser_seat: 0 }, ctx), "You resigned.");
  assert.equal(endingText({ ending: "resignation", loser_seat: 1 }, ctx), "ann resigned.");
  assert.equal(endingText({ ending: "abandonment", loser_seat: 1 }, ctx), "ann left the game and loses it by abandonment.");
  assert.equal(endingText({ ending: "abandonment", loser_seat: 0 }, ctx), "You left the game and lose it by abandonment.");
  // a tournament's no-show is not a departure: they never came (the sweep's forfeit)
  assert.equal(endingText({ ending: "no_show", loser_seat: 1 }, ctx), "ann did not come to the table and loses the game.");
  assert.equal(endingText({ ending: "no_show", loser_seat: 0 }, ctx), "You did not come to the table and lose the game.");
  assert.equal(endingText({ ending: "no_show", loser_seat: null }, ctx), "Ended by a no-show.");
  // neither came: both are named, "You" first, and the one who lost for it
  assert.equal(endingText({ ending: "no_show", loser_seat: 1, absent_seats: [0, 1] }, ctx), "You and ann did not come to the table: ann loses the game.");
  assert.equal(endingText({ ending: "no_show", loser_seat: 0, absent_seats: [0, 1] }, ctx), "You and ann did not come to the table: you lose the game.");
  assert.equal(endingText({ ending: "no_show", loser_seat: 1, absent_seats: [1] }, ctx), "ann did not come to the table and loses the game.");
  assert.equal(endingText({ ending: "resignation", loser_seat: null }, ctx), "Ended by resignation.");
  const timed = { ...ctx, maxTimeouts: 3 };
  assert.equal(endingText({ ending: "timeout", loser_seat: null }, timed), "Ended on time: a clock ran out 3 turns in a row.");
  assert.equal(endingText({ ending: "timeout", loser_seat: 0 }, timed), "Ended on time: your clock ran out 3 turns in a row.");
  assert.equal(endingText({ ending: "timeout", loser_seat: 1 }, { ...ctx, maxTimeouts: 5 }), "Ended on time: ann's clock ran out 5 turns in a row.");
});

test("the rating line: the changes, or why a rated game is not rated", () => {
  assert.equal(ratingText({ unrated: "ended before both players moved" }, [], ctx), "Not rated: ended before both players moved.");
  assert.equal(ratingText({}, [[0, "+12"], [1, "\u221212"]], ctx), "Rating: You +12 · ann \u221212");
  assert.equal(ratingText({}, [], ctx), "");
  assert.equal(ratingText(null, [], ctx), "");
});

test("a table of three or four says its places, the one who left last", () => {
  const three = { mySeat: 0, names: ["me", "ann", "bob"] };
  assert.equal(placesText({ places: [3, 1, 2] }, three), "Places: 1st ann · 2nd bob · 3rd you");
  assert.equal(placesText({ places: [3, 1, 1] }, three), "Places: 1st ann · 1st bob · 3rd you");
  // a place taken by a person who left is theirs, not the computer's that played on for them
  const seats = [{ left: { username: "cy", name: "Cy" } }, {}, {}];
  assert.equal(placesText({ places: [3, 1, 2] }, three, seats), "Places: 1st ann · 2nd bob · 3rd Cy (left)");
  assert.equal(placesText({ places: [3, 1, 2] }, three, seats, "cy"), "Places: 1st ann · 2nd bob · 3rd you (left)");
  assert.equal(placesText({ places: [1, 2] }, ctx), "");
  assert.equal(placesText({}, ctx), "");
});

test("the computer playing on for a person who left wins nothing: those who stayed do", () => {
  // a game of three: alice (seat 0) resigned, her stand-in went rummy and ended the game
  const seats = [{ index: 0, left: { username: "alice", name: "alice" } }, { index: 1 }, { index: 2 }];
  const res = { winner: 0, totals: [172, 0, 0] };
  // bob and cleo share the first place (the server's winner_seat is null)
  const shared = { winner_seat: null, places: [3, 1, 1] };
  assert.equal(gameWinner(res, shared, seats), null);
  const bob = { mySeat: 1, names: ["Computer (for alice)", "bob", "cleo"] };
  assert.equal(gameOverTitle(gameWinner(res, shared, seats), true, bob, shared.places), "You and cleo share first place");
  assert.equal(gameOverTitle(null, true, { mySeat: null, names: ["x", "bob", "cleo"] }, shared.places), "bob and cleo share first place");
  // one of them first alone
  const alone = { winner_seat: 2, places: [3, 2, 1] };
  assert.equal(gameOverTitle(gameWinner(res, alone, seats), true, bob, alone.places), "cleo wins the game");
  // the rules' winner stands when it is a person, or a computer that was never anyone's
  assert.equal(gameWinner({ winner: 1 }, { winner_seat: 1 }, seats), 1);
  assert.equal(gameWinner({ winner: 0 }, { winner_seat: 0 }, [{ index: 0 }, { index: 1 }]), 0);
  // no result (a resignation): the server's
  assert.equal(gameWinner(null, { winner_seat: 2 }, seats), 2);
  // a tie of two stays a tie; a two-seat table names nobody
  assert.equal(gameOverTitle(null, true, ctx, [1, 1]), "The game is a tie");
});

test("the margin is between the first place and the next, not a leaver's lead", () => {
  // bob and cleo tie for first; alice, who left, scored most and is placed third
  assert.equal(gameMargin({ totals: [160, 105, 105], margin: 55 }, { places: [3, 1, 1] }), null);
  // cleo first alone: her lead over bob, not alice's over cleo
  assert.equal(gameMargin({ totals: [160, 95, 105], margin: 55 }, { places: [3, 2, 1] }), 10);
  // a second place shared by two: the lead over them
  assert.equal(gameMargin({ totals: [120, 95, 95, 30], margin: 25 }, { places: [1, 2, 2, 4] }), 25);
  // two players, by the rules
  assert.equal(gameMargin({ totals: [130, 40], margin: 90 }, { places: [1, 2] }), 90);
  assert.equal(gameMargin({ totals: [100, 100], margin: 0 }, { places: [1, 1] }), null);
  // no places (older frames): the rules' margin
  assert.equal(gameMargin({ totals: [130, 40], margin: 90 }, {}), 90);
  assert.equal(gameMargin(null, { places: [1, 2] }), null);
});

test("an offer whose player left the table has lapsed; one still there stands", () => {
  const seats = [
    { index: 0, kind: "user", username: "me", connected: true },
    { index: 1, kind: "user", username: "ann", connected: false },
    { index: 2, kind: "user", username: "bo", connected: true },
    { index: 3, kind: "bot", connected: true },
  ];
  assert.deepEqual(rematchOffers([0, 1, 2], seats, 0, "me"), { standing: [2], lapsed: [1] });
  assert.deepEqual(rematchOffers([], seats, 0, "me"), { standing: [], lapsed: [] });
});

test("the offerer is told when the other player declines, not when a rematch starts", () => {
  const seats = [{ index: 0, kind: "user", name: "me" }, { index: 1, kind: "user", name: "ann" }];
  const offered = { table: { rematch: { offers: [0] } }, seats };
  const cleared = { table: { rematch: { offers: [] } }, seats };
  assert.equal(rematchDeclined(offered, cleared, 0), "ann declined the rematch.");
  assert.equal(rematchDeclined(offered, { table: { rematch: { offers: [0, 1], url: "/tables/9/" } }, seats }, 0), "");
  assert.equal(rematchDeclined(offered, cleared, null), ""); // a spectator
  assert.equal(rematchDeclined({ table: { rematch: { offers: [1] } }, seats }, cleared, 0), ""); // not ours
});

test("another player's new rematch offer is read out once", () => {
  const before = { table: { rematch: { offers: [] } } };
  const offered = { table: { rematch: { offers: [1] } } };
  assert.deepEqual(newRematchOffers(before, offered, 0), [1]);
  assert.deepEqual(newRematchOffers(offered, offered, 0), []); // told already
  assert.deepEqual(newRematchOffers(before, { table: { rematch: { offers: [0] } } }, 0), []); // ours
  assert.deepEqual(newRematchOffers(null, offered, 0), []); // a page opened: the panel shows it
});

test("a card laid off on a run stands in its place; on a set, after", () => {
  const shown = (meld, laid) => meldWithLaidOff(meld, laid).map(({ c, laid: l }) => (l ? `[${c}]` : c)).join(" ");
  assert.equal(shown(["3H", "4H", "5H"], ["2H"]), "[2H] 3H 4H 5H");
  assert.equal(shown(["3H", "4H", "5H"], ["6H", "2H"]), "[2H] 3H 4H 5H [6H]");
  assert.equal(shown(["TS", "JS", "QS"], ["KS"]), "TS JS QS [KS]");
  assert.equal(shown(["7C", "7D", "7H"], ["7S"]), "7C 7D 7H [7S]");
  assert.equal(shown(["AC", "2C", "3C"], []), "AC 2C 3C");
});

test("once the rematch is made, the old table offers only the way to it", () => {
  const seats = [{ kind: "user", username: "me", connected: true }, { kind: "user", username: "bob", connected: false }];
  const names = (list) => list.join(", ");
  // bob went to the new table: his offer is not "lapsed", and ours is not "waiting"
  const made = rematchPanel({ offers: [0, 1], url: "/tables/9/" }, seats, 0, "me", names);
  assert.deepEqual(made, { notes: ["The rematch is ready."], buttons: ["go"] });
  const waiting = rematchPanel({ offers: [0] }, seats, 0, "me", names);
  assert.deepEqual(waiting.buttons, ["withdraw"]);
  assert.deepEqual(rematchPanel({ offers: [1] }, seats, 0, "me", names),
    { notes: ["1 left the table: the offer has lapsed."], buttons: ["offer"] });
  seats[1].connected = true;
  assert.deepEqual(rematchPanel({ offers: [1] }, seats, 0, "me", names),
    { notes: ["1 would like a rematch."], buttons: ["accept", "decline"] });
});

test("the way to a rematch: for spectators too, but not to a private one", () => {
  const rematch = { offers: [], table_id: 9, url: "/tables/9/" };
  assert.equal(rematchLink({ private: false, rematch }, 0), "/tables/9/");
  assert.equal(rematchLink({ private: false, rematch }, null), "/tables/9/");
  assert.equal(rematchLink({ private: true, rematch }, 1), "/tables/9/");
  // one who left a private game watches its table still; its rematch is not theirs
  assert.equal(rematchLink({ private: true, rematch }, null), null);
  assert.equal(rematchLink({ private: false, rematch: { offers: [], url: null } }, 0), null);
  assert.equal(rematchLink({ private: false }, 0), null);
});

test("a result still being read stays up when the next hand ends before this player's turn", () => {
  // (a computer went out on its first turn of hand 2: its result replaced hand 1's at once)
  const h1 = { hand_number: 1, winner: 0 };
  const h2 = { hand_number: 2, winner: 1 };
  const h3 = { hand_number: 3, winner: 1 };
  const held = resultArrives({ hand: 1, held: null }, h1, h2);
  assert.deepEqual(held, { hand: 1, held: h1, opened: false });
  const playing = { table: { status: "playing" } };
  assert.equal(panelKey(playing, { last_hand: h2 }, { resultHand: 1, resultHeld: h1, gameOverClosed: false }), "hand-1");
  assert.equal(shownResult({ last_hand: h2 }, { resultHand: 1, resultHeld: h1 }), h1);
  assert.equal(shownResult({ last_hand: h2 }, { resultHand: 2, resultHeld: null }), h2);
  assert.equal(shownResult({ last_hand: h2 }, { resultHand: null, resultHeld: null }), null);
  // a third result while the first is still up: the first stays, the newest follows it
  assert.deepEqual(resultArrives({ hand: 1, held: h1 }, h2, h3), { hand: 1, held: h1, opened: false });
  // closed: the newest follows, unless it was closed already
  assert.equal(resultAfter(1, h1, h2, 1), 2);
  assert.equal(resultAfter(1, h1, h2, 2), null);
  assert.equal(resultAfter(2, null, h2, 2), null); // nothing held: nothing follows
  // nothing up, or the panel up was the previous result's own: the new one opens at once
  assert.deepEqual(resultArrives({ hand: null, held: null }, h1, h2), { hand: 2, held: null, opened: true });
  assert.deepEqual(resultArrives({ hand: 2, held: null }, h2, h2), { hand: 2, held: null, opened: true });
  // the game over still comes first
  assert.equal(panelKey(playing, { last_hand: h2, is_over: true }, { resultHand: 1, resultHeld: h1, gameOverClosed: false }), "game-over");
});
