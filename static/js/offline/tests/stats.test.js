import { test } from "node:test";
import assert from "node:assert/strict";
import { mine, offlineStats, outcome } from "../stats.js";

const game = (mode, level, places, winner, scores, status = "finished") => ({
  mode, level, status, summary: { places, winner_seat: winner, scores },
});

test("outcome reads the person's place", () => {
  assert.equal(outcome(game("classic", 1, [1, 2], 0, [120, 40])), "win");
  assert.equal(outcome(game("classic", 1, [2, 1], 1, [40, 120])), "loss");
  assert.equal(outcome(game("rummy", 2, [1, 1, 3], null, [100, 100, 20])), "tie");
});

test("statistics per mode and level, games in progress left out", () => {
  const rows = offlineStats([
    game("rummy", 2, [1, 2, 3], 0, [150, 90, 30]),
    game("classic", 1, [1, 2], 0, [120, 40]),
    game("classic", 1, [2, 1], 1, [40, 120]),
    game("classic", 3, [1, 2], 0, [110, 100]),
    game("classic", 1, [1, 2], 0, [0, 0], "playing"),
  ]);
  assert.deepEqual(rows.map((r) => [r.mode, r.level, r.played, r.won, r.lost, r.tied]), [
    ["classic", 1, 2, 1, 1, 0], ["classic", 3, 1, 1, 0, 0], ["rummy", 2, 1, 1, 0, 0],
  ]);
  assert.equal(rows[0].best, 80);
  assert.equal(rows[2].best, 60);
  assert.equal(rows[0].points, 160);
});

test("a shared device shows, resumes and uploads only the signed-in account's games", () => {
  const docs = [{ id: "a", owner: "7" }, { id: "b", owner: "9" }, { id: "c", owner: null }, { id: "d" }];
  // the account's own and those played signed out (the archive of whoever signs in)
  assert.deepEqual(mine(docs, "7").map((d) => d.id), ["a", "c", "d"]);
  assert.deepEqual(mine(docs, "9").map((d) => d.id), ["b", "c", "d"]);
  assert.deepEqual(mine(docs, "").map((d) => d.id), ["c", "d"]);
});
