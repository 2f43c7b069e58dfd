import { test } from "node:test";
import assert from "node:assert/strict";
import { awayNote, claimText, ctxAtHand, colourIndex, connectionText, displayNames, fitNames, initials, leaversNews, leftNote, nameLabels, outageNote, seatOrder, seatScore, seatStatus, shortNames, titleChips } from "../seats.js";

test("initials and avatar colours", () => {
  assert.equal(initials("ada lovelace"), "AL");
  assert.equal(initials("bob"), "B");
  assert.equal(initials(""), "?");
  const c = colourIndex("alice");
  assert.ok(c >= 0 && c < 8);
  assert.equal(colourIndex("alice"), c);
});

test("the other seats in playing order after mine; a spectator sees them all", () => {
  const seats = [0, 1, 2, 3].map((index) => ({ index }));
  assert.deepEqual(seatOrder(seats, 2).map((s) => s.index), [3, 0, 1]);
  assert.deepEqual(seatOrder(seats, null).map((s) => s.index), [0, 1, 2, 3]);
});

test("a seat's score: one number, or one per Hollywood game", () => {
  assert.equal(seatScore(null, 0), null);
  assert.equal(seatScore({ scores: [12, 30] }, 1), "30");
  assert.equal(seatScore({ scores: [] }, 1), "0");
  const v = { scores: [0, 0], score_sheet: { columns: [{ points: [5, 7] }, { points: [0, 7] }] } };
  assert.equal(seatScore(v, 1), "7 / 7");
});

test("seat status, title chips and the connection line", () => {
  assert.equal(seatStatus({ kind: "user", connected: true }), "online");
  assert.equal(seatStatus({ kind: "user", gone: true }), "left");
  // at a finished table nobody "left" it: they went home
  assert.equal(seatStatus({ kind: "user", gone: true }, false), "offline");
  const two = [{ index: 0, kind: "user", connected: true, name: "carol" }, { index: 1, kind: "user", connected: false, name: "dave" }];
  assert.equal(awayNote(two, 0, 1), "dave is not at the table: waiting for them…");
  // on carol's own turn nobody waits for dave (an audit's banner said so while the piles
  // glowed for carol's draw)
  assert.equal(awayNote(two, 0, 0), "dave is not at the table.");
  assert.equal(awayNote(two, 0), "dave is not at the table.");
  assert.equal(awayNote([{ index: 0, kind: "user", connected: true, name: "carol" }], 0), "");
  assert.equal(seatStatus({ kind: "user" }), "offline");
  assert.equal(seatStatus({ kind: "bot" }), "computer");
  assert.equal(seatStatus({ kind: "empty" }), "empty");
  assert.deepEqual(titleChips({ mode: "oklahoma", knock_limit: 0, multiplier: 2 }), [{ text: "Gin only" }, { text: "Spades ×2", hot: true }]);
  assert.deepEqual(titleChips({ mode: "oklahoma", knock_limit: 7, multiplier: 1 }), [{ text: "Knock ≤ 7" }]);
  assert.deepEqual(titleChips({ mode: "straight" }), [{ text: "Gin only" }]);
  assert.deepEqual(titleChips({ mode: "classic" }), []);
  assert.equal(connectionText("open"), "Live");
  assert.equal(connectionText("offline", 2400), "Connection lost: retrying in 2 s");
  assert.equal(connectionText("offline", null), "No network: reconnecting when it is back");
  assert.equal(connectionText("offline", 0), "Connection lost: retrying in 1 s");
  assert.equal(connectionText("refused", "Table is full"), "Table is full");
});

test("narrow seat boxes show a computer's level and number; shared labels keep the name", () => {
  const seats = [
    { index: 0, kind: "user", name: "Ann", short_name: "Ann" },
    { index: 1, kind: "bot", name: "Computer (Easy)", short_name: "Easy" },
    { index: 2, kind: "bot", name: "Computer 2 (Easy)", short_name: "Easy 2" },
    { index: 3, kind: "user", name: "Easy", short_name: "Easy" },
  ];
  const names = displayNames(seats);
  assert.deepEqual(shortNames(seats, names), ["Ann", "Computer (Easy)", "Easy 2", "Easy"]);
  assert.deepEqual(shortNames(seats.slice(0, 3), names), ["Ann", "Easy", "Easy 2"]);
  // a frame without short names (an older server) shows the names
  assert.deepEqual(shortNames([{ index: 0, kind: "bot", name: "X" }], ["X"]), ["X"]);
});

test("one name cut off puts every seat in its short form", () => {
  // a box is as wide as 10 characters here; a name's width is its length
  const name = (full, short) => ({ dataset: { full, short }, textContent: full, clientWidth: 10,
    get scrollWidth() { return this.textContent.length; } });
  const seats = [name("Computer (Medium)", "Medium"), name("Computer 2 (Medium)", "Medium 2")];
  seats[0].clientWidth = 30; // the first fits whole, the second does not
  const over = (el) => el.scrollWidth > el.clientWidth; // (the page measures the text: cut)
  fitNames({ querySelectorAll: () => seats }, over);
  assert.deepEqual(seats.map((s) => s.textContent), ["Medium", "Medium 2"]);
  for (const s of seats) s.clientWidth = 30; // room again: both whole
  fitNames({ querySelectorAll: () => seats }, over);
  assert.deepEqual(seats.map((s) => s.textContent), ["Computer (Medium)", "Computer 2 (Medium)"]);
});

test("every seat's name is measured, a person's too (its short form is itself)", () => {
  // (an audit's "alic…" and "car…" kept their "1500?" ratings beside them on a phone: a
  // person's name, with no short form, was never looked at)
  assert.deepEqual(nameLabels("alicea", undefined), { full: "alicea", short: "alicea" });
  assert.deepEqual(nameLabels("alicea", "alicea"), { full: "alicea", short: "alicea" });
  assert.deepEqual(nameLabels("Computer (Medium)", "Medium"), { full: "Computer (Medium)", short: "Medium" });
});

test("names still cut with their short forms push the ratings out, not the other way", () => {
  const classes = new Set();
  const root = (els) => ({ querySelectorAll: () => els, classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c) } });
  const el = { dataset: { full: "alice", short: "alice" }, textContent: "alice", scrollWidth: 40, clientWidth: 8 };
  const over = (e) => e.scrollWidth > e.clientWidth;
  fitNames(root([el]), over);
  assert.ok(classes.has("names-tight"));
  el.clientWidth = 60; // room again (the page's own measure follows the ratings' going)
  fitNames(root([el]), over);
  assert.ok(!classes.has("names-tight"));
});

test("a seated player at a timed game is told what a lost connection means for the clock", () => {
  const timed = { table: { status: "playing", seconds_per_turn: 15 } };
  assert.match(outageNote("offline", timed, 0), /if the site is down, no clock runs and you get the time back/);
  assert.match(outageNote("reconnecting", timed, 1), /your clock keeps running/);
  assert.equal(outageNote("open", timed, 0), "");
  assert.equal(outageNote("offline", timed, null), ""); // a spectator has no clock
  assert.equal(outageNote("offline", { table: { status: "playing", seconds_per_turn: 0 } }, 0), "");
  assert.equal(outageNote("offline", { table: { status: "finished", seconds_per_turn: 15 } }, 0), "");
});

test("a person who left a game that goes on is told they lost, and the others who left", () => {
  const left = { username: "alice", name: "Alice", reason: "resignation", place: 4 };
  assert.equal(leftNote(left, 4), "You resigned: you lose this game, placed 4th of 4. A computer plays your seat and the game goes on without you.");
  assert.match(leftNote({ ...left, reason: "timeout", place: 3 }, 4), /^Your time ran out too many turns in a row: you lose this game, placed 3rd of 4\./);
  assert.equal(leftNote(null, 4), "");
  const seat = (index, l = null) => ({ index, left: l });
  const prev = { seats: [seat(0), seat(1), seat(2)], you: { left: null } };
  const now = { seats: [seat(0, left), seat(1), seat(2)], you: { left: null } };
  assert.deepEqual(leaversNews(prev, now), ["Alice resigned: a computer plays their seat and the game goes on."]);
  assert.deepEqual(leaversNews(now, now), []);
  assert.deepEqual(leaversNews(null, now), []);
  // the leaver's own page has its own words for it
  assert.deepEqual(leaversNews(prev, { ...now, you: { left } }), []);
});

test("a claim says whether it wins the game or lets the computer play on, as the server says", () => {
  const user = (index, extra = {}) => ({ index, kind: "user", name: `p${index}`, left: null, gone: false, ...extra });
  // two players: the claim wins
  assert.deepEqual(claimText({ seats: [user(0), user(1, { gone: true })], you: { claim_goes_on: false } }, 0),
    { note: "p1 left the table more than a minute ago.", button: "Claim the win" });
  // four people, one gone: the computer plays the seat and the game goes on
  const four = claimText({ seats: [user(0), user(1, { gone: true }), user(2), user(3)], you: { claim_goes_on: true } }, 0);
  assert.equal(four.button, "Let the computer play on");
  assert.match(four.note, /^p1 left the table more than a minute ago: a computer can play the seat and the game goes on\.$/);
  // two gone: both named, their seats
  const two = claimText({ seats: [user(0), user(1, { gone: true }), user(2, { gone: true }), user(3)], you: { claim_goes_on: true } }, 0);
  assert.match(two.note, /^p1, p2 left .*: a computer can play their seats/);
  // a frame without the flag (an older server) claims the win
  assert.equal(claimText({ seats: [user(0), user(1, { gone: true }), user(2)] }, 0).button, "Claim the win");
});

test("a hand finished before a person left is named as theirs", () => {
  const seats = [{ index: 0 }, { index: 1, left: { name: "dan", after_hands: 1 } }, { index: 2 }];
  const ctx = { mySeat: 0, names: ["You", "Computer (for dan)", "ann"], standIns: [1] };
  assert.deepEqual(ctxAtHand(ctx, seats, 1), { mySeat: 0, names: ["You", "dan", "ann"], standIns: [] });
  assert.deepEqual(ctxAtHand(ctx, seats, 2), ctx, "the hands after it are the computer's");
  const old = [{ index: 0 }, { index: 1, left: { name: "dan" } }, { index: 2 }];
  assert.deepEqual(ctxAtHand(ctx, old, 1), ctx, "no after_hands (an older frame): as it was");
});
