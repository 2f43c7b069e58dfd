import { test } from "node:test";
import assert from "node:assert/strict";
import { clockOf, clockUnknown, timerView, timerWords } from "../clock.js";

test("a frame's clock counts down on the page's own time", () => {
  assert.equal(clockOf(null, 100), null);
  const c = clockOf({ seat: 1, remaining_ms: 20000, seconds_per_turn: 30 }, 1000);
  assert.deepEqual(c, { seat: 1, end: 21000, total: 30000 });
  assert.deepEqual(clockOf({ seat: 0 }, 5), { seat: 0, end: 5, total: 30000 });
});

test("only the seat to act shows a timer; under ten seconds it is low", () => {
  const c = { seat: 1, end: 21000, total: 30000 };
  assert.equal(timerView(c, 0, 1000), null);
  assert.equal(timerView(null, 1, 1000), null);
  assert.deepEqual(timerView(c, 1, 6000), { left: 15000, pct: 50, secs: 15, low: false });
  const low = timerView(c, 1, 11500);
  assert.deepEqual([low.secs, low.low], [10, true]);
  assert.deepEqual(timerView(c, 1, 99999), { left: 0, pct: 0, secs: 0, low: true });
});

test("the timer never shows more than the turn: extra time is a wait before it starts", () => {
  // The first turn of a 60 s game has 10 s extra: the frame says 70 s are left.
  const c = clockOf({ seat: 0, remaining_ms: 70000, seconds_per_turn: 60 }, 0);
  assert.deepEqual(timerView(c, 0, 0), { left: 60000, pct: 100, secs: 60, low: false });
  assert.equal(timerView(c, 0, 8000).secs, 60); // still waiting: 62 s to the deadline
  assert.equal(timerView(c, 0, 10000).secs, 60);
  assert.equal(timerView(c, 0, 10001).secs, 60); // 59.999 s rounds up to the turn, not past it
  assert.equal(timerView(c, 0, 11000).secs, 59);
  for (let t = 0; t <= 70000; t += 250) {
    const v = timerView(c, 0, t);
    assert.ok(v.secs <= 60 && v.left <= 60000 && v.pct <= 100, `at ${t} ms: ${JSON.stringify(v)}`);
  }
  assert.equal(timerView(c, 0, 70000).secs, 0);
});

test("while the socket is down the timer says the time is not known", () => {
  // (it had gone on down to "0 s" under a banner saying that no clock might be running)
  assert.equal(clockUnknown("offline"), true);
  assert.equal(clockUnknown("reconnecting"), true);
  assert.equal(clockUnknown("open"), false);
  assert.equal(clockUnknown(undefined), false);
  const t = timerView(clockOf({ seat: 0, remaining_ms: 12000, seconds_per_turn: 30 }, 0), 0, 0);
  assert.deepEqual(timerWords(t, false), { text: "12 s", label: "12 seconds left" });
  assert.deepEqual(timerWords(t, true), { text: "?", label: "Not connected: the time left is not known" });
});
