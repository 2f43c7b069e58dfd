import { test } from "node:test";
import assert from "node:assert/strict";
import { clampPly, handStarts, knockerHeading, knockText, namesAt, seatPoints, splitCards } from "../viewer.js";

test("a frame's cards come as one string of two-letter codes", () => {
  assert.deepEqual(splitCards("4H5HTS"), ["4H", "5H", "TS"]);
  assert.deepEqual(splitCards(""), []);
  assert.deepEqual(splitCards(null), []);
  assert.deepEqual(splitCards("4H5"), ["4H"]);
});

test("?ply=N is clamped to the game", () => {
  assert.equal(clampPly("7", 20), 7);
  assert.equal(clampPly("70", 20), 20);
  assert.equal(clampPly("-3", 20), 0);
  assert.equal(clampPly("x", 20), 0);
  assert.equal(clampPly(null, 20), 0);
  assert.equal(clampPly(7, 20), 7);
  assert.equal(clampPly(21, 20), 20);
  assert.equal(clampPly(-1, 20), 0);
  assert.equal(clampPly(1.5, 20), 0);
  assert.equal(clampPly("1e3", 20), 0);
  assert.equal(clampPly("7x", 20), 0);
  assert.equal(clampPly("1.5", 20), 0);
  assert.equal(clampPly("0", 20), 0);
  assert.equal(clampPly("99999999999999999999", 20), 20);
});

test("each hand starts on the frame after a showdown", () => {
  const frames = [{}, {}, { showdown: [{}] }, {}, {}, { showdown: [{}] }];
  assert.deepEqual(handStarts(frames), [0, 3]);
  assert.deepEqual(handStarts([{}]), [0]);
});

test("the knock limit reads as the table says it: gin only at zero, the spade multiplier", () => {
  assert.equal(knockText({ knock_limit: 0, multiplier: 1 }), "Gin only");
  assert.equal(knockText({ knock_limit: 10, multiplier: 1 }), "Knock limit 10");
  assert.equal(knockText({ knock_limit: 0, multiplier: 2 }), "Gin only · scores ×2");
});

test("the knocker's heading says what they did, whatever brackets their name holds", () => {
  const names = ["ann", "Computer (Easy)"];
  assert.equal(knockerHeading({ knocker: 0, outcome: "knock", knocker_deadwood: 7 }, names), "ann knocked: deadwood 7");
  assert.equal(knockerHeading({ knocker: 0, outcome: "undercut", knocker_deadwood: 9 }, names), "ann knocked: deadwood 9");
  assert.equal(knockerHeading({ knocker: 1, outcome: "gin", knocker_deadwood: 0 }, names), "Computer (Easy) went gin: deadwood 0");
  assert.equal(knockerHeading({ knocker: 1, outcome: "big_gin", knocker_deadwood: 0 }, names), "Computer (Easy) went big gin: deadwood 0");
});

test("a person who left is the computer that played their seat on, from the move they left", () => {
  const players = ["alice", "bob", "cleo"];
  const standIns = [{ seat: 0, from_ply: 6, name: "Computer (for alice)" }];
  assert.deepEqual(namesAt(players, standIns, 5), ["alice", "bob", "cleo"]);
  assert.deepEqual(namesAt(players, standIns, 6), ["Computer (for alice)", "bob", "cleo"]);
  assert.deepEqual(namesAt(players, undefined, 9), players);
  assert.deepEqual(players, ["alice", "bob", "cleo"]); // (not changed)
});

test("a Hollywood seat's points are each game's, not their sum", () => {
  // (the seat read "359 points": 118 + 103 + 138, a figure no other page shows)
  const holly = { scores: [359, 40], game_scores: [[118, 103, 138], [40, 0, 0]] };
  assert.equal(seatPoints(holly, 0), "118 / 103 / 138 points");
  assert.equal(seatPoints(holly, 1), "40 / 0 / 0 points");
  assert.equal(seatPoints({ scores: [57, 12], game_scores: null }, 1), "12 points");
  assert.equal(seatPoints({ scores: [57, 12] }, 0), "57 points");  // (records read before)
});
