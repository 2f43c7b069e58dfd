import { test } from "node:test";
import assert from "node:assert/strict";
import { claimConfirmText, promptName, resignText, waitingText } from "../prompt.js";

const ctx = { mySeat: 0, names: ["me", "ann"] };

test("whom the table waits for, for a player and for a spectator", () => {
  assert.equal(waitingText({ to_act: 1, phase: "draw" }, 0, ctx), "Waiting for ann to draw…");
  // a very long name is cut short (the seat shows it whole)
  const long = "L".repeat(150);
  assert.equal(waitingText({ to_act: 1, phase: "offer" }, 0, { mySeat: 0, names: ["me", long] }), `Waiting for ${"L".repeat(23)}… to take or pass the upcard…`);
  assert.equal(promptName("x".repeat(24)), "x".repeat(24));
  assert.equal(promptName("\u{1F600}".repeat(30)).length, 23 * 2 + 1);
  assert.equal(waitingText({ to_act: 1, phase: "offer" }, null, { mySeat: null, names: ["me", "ann"] }), "ann to take or pass the upcard.");
  assert.equal(waitingText({ to_act: 1, phase: "strange" }, 0, ctx), "Waiting for ann to play…");
  assert.equal(waitingText({ to_act: null, phase: "draw" }, 0, ctx), "");
});

test("the knocker watches the defender lay off", () => {
  const v = { to_act: 1, phase: "layoff", showdown: { knocker: 0 } };
  assert.equal(waitingText(v, 0, ctx), "You knocked. ann is laying off onto your melds…");
  assert.equal(waitingText({ ...v, showdown: { knocker: 1 } }, 0, ctx), "Waiting for ann to lay off…");
});

test("the resign confirmation says whether the game goes on without you, as the server says", () => {
  const ends = "Resigning ends the game at once and counts as a loss.";
  assert.equal(resignText({ you: { resign_goes_on: false } }), ends);
  assert.equal(resignText({}), ends);
  assert.equal(resignText(null), ends);
  const on = resignText({ you: { resign_goes_on: true } });
  assert.match(on, /a computer plays your seat/);
  assert.match(on, /last place still free/);
});

test("claiming asks first, as resigning does, in the words of what follows", () => {
  // (one tap on "Claim the win" ended the game)
  const two = claimConfirmText({ you: { can_claim: true } });
  assert.equal(two.title, "Claim the win?");
  assert.match(two.body, /counts as your win/);
  const more = claimConfirmText({ you: { can_claim: true, claim_goes_on: true } });
  assert.equal(more.button, "Let the computer play on");
  assert.match(more.body, /a computer plays their seat/);
});
