import { test } from "node:test";
import assert from "node:assert/strict";
import { waitingText } from "../prompt.js";

const ctx = { mySeat: 0, names: ["me", "ann"] };

test("whom the table waits for, for a player and for a spectator", () => {
  assert.equal(waitingText({ to_act: 1, phase: "draw" }, 0, ctx), "Waiting for ann to draw…");
  assert.equal(waitingText({ to_act: 1, phase: "offer" }, null, { mySeat: null, names: ["me", "ann"] }), "ann to take or pass the upcard.");
  assert.equal(waitingText({ to_act: 1, phase: "strange" }, 0, ctx), "Waiting for ann to play…");
  assert.equal(waitingText({ to_act: null, phase: "draw" }, 0, ctx), "");
});

test("the knocker watches the defender lay off", () => {
  const v = { to_act: 1, phase: "layoff", showdown: { knocker: 0 } };
  assert.equal(waitingText(v, 0, ctx), "You knocked. ann is laying off onto your melds…");
  assert.equal(waitingText({ ...v, showdown: { knocker: 1 } }, 0, ctx), "Waiting for ann to lay off…");
});
