import { test } from "node:test";
import assert from "node:assert/strict";

import { DEAD_MS, Liveness } from "../liveness.js";

test("a ping unanswered for DEAD_MS is a dead socket; any frame revives it", () => {
  const l = new Liveness();
  assert.ok(!l.dead(1e9), "no ping out: nothing to wait for");
  l.pinged(1000);
  l.pinged(5000); // a later ping does not restart the wait
  assert.ok(!l.dead(1000 + DEAD_MS - 1));
  assert.ok(l.dead(1000 + DEAD_MS));
  l.heard();
  assert.ok(!l.dead(1e9));
});
