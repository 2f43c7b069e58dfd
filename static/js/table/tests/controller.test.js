import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { TableApp, resultEnds } from "../app.js";

const DIR = new URL("../", import.meta.url);

// The transport (the server's socket or the offline game's local one) is the controller's:
// the view modules call the controller, so both transports get every button.
test("no view module talks to the transport directly", () => {
  const views = readdirSync(DIR).filter((n) => n.endsWith(".js") && n !== "app.js" && n !== "socket.js");
  assert.ok(views.length > 10);
  for (const name of views) {
    const src = readFileSync(new URL(name, DIR), "utf8");
    assert.doesNotMatch(src, /\bsocket\s*\.\s*(send|act|reconnectNow)\b/, name);
  }
});

function fakeController(connected = true) {
  const sent = [];
  const toasts = [];
  const ctrl = Object.create(TableApp.prototype);
  ctrl.socket = { send: (m) => (connected ? (sent.push(m), true) : false), reconnectNow: () => sent.push("reconnect") };
  ctrl.notices = { toast: (text, kind) => toasts.push([text, kind]) };
  return { ctrl, sent, toasts };
}

test("the controller's requests are the protocol's messages", () => {
  const { ctrl, sent, toasts } = fakeController();
  assert.equal(ctrl.sit(), true);
  ctrl.addBot(1, 3);
  ctrl.leave();
  ctrl.resign();
  ctrl.rematch(true);
  ctrl.rematch(false);
  ctrl.claim();
  assert.equal(ctrl.sendChat("gg"), true);
  ctrl.reconnect();
  assert.deepEqual(sent, [
    { type: "sit" }, { type: "add_bot", seat: 1, level: 3 }, { type: "leave" }, { type: "resign" },
    { type: "rematch", accept: true }, { type: "rematch", accept: false }, { type: "claim" },
    { type: "chat", text: "gg" }, "reconnect",
  ]);
  assert.deepEqual(toasts, []);
});

test("a request that cannot leave says so", () => {
  const { ctrl, toasts } = fakeController(false);
  assert.equal(ctrl.resign(), false);
  assert.equal(ctrl.sendChat("hi"), false);
  assert.deepEqual(toasts, [["Not connected: reconnecting…", "error"], ["Not connected: your message was not sent.", "error"]]);
});

test("a move tried while the bar says offline flashes the bar instead of a toast", () => {
  const { ctrl, toasts } = fakeController(false);
  const said = [];
  const classes = new Set();
  const bar = { dataset: { state: "offline" }, offsetWidth: 0, classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c) } };
  ctrl.el = { conn: bar };
  ctrl.notices.announce = (t) => said.push(t);
  assert.equal(ctrl.resign(), false);
  clearTimeout(ctrl.nudgeTimer);
  assert.ok(classes.has("is-nudged"));
  assert.deepEqual(said, ["Not connected: reconnecting…"]);
  assert.deepEqual(toasts, []);
  // the chat's own failure still says the message was not sent, in a toast
  assert.equal(ctrl.sendChat("hi"), false);
  assert.deepEqual(toasts, [["Not connected: your message was not sent.", "error"]]);
  // a bar that says nothing of it (live, or not drawn yet): a toast
  bar.dataset.state = "open";
  ctrl.resign();
  assert.deepEqual(toasts.at(-1), ["Not connected: reconnecting…", "error"]);
});

function announcer() {
  const said = [];
  const toasts = [];
  const ctrl = Object.create(TableApp.prototype);
  Object.assign(ctrl, {
    frame: { you: { seat: 0 } }, view: { history: [] }, data: { max_timeouts: 3 }, newCard: null,
    notices: { announce: (t) => said.push(t), logLine: (t) => said.push(t), toast: (t, kind, key) => toasts.push([t, kind, key]) },
  });
  ctrl.ctx = () => ({ mySeat: 0, names: ["me", "ann"], maxTimeouts: 3 });
  return { ctrl, said, toasts };
}

test("your own draw from the stock is one line, with its card", () => {
  const { ctrl, said } = announcer();
  const frame = { type: "state", seats: [{}, {}], last: { seat: 0, source: "player" }, events: [
    { kind: "draw", data: { seat: 0, source: "stock" } }, { kind: "drew", data: { seat: 0, card: "AC" } }] };
  ctrl.announceFrame(frame, { view: {} }, false);
  assert.deepEqual(said, ["You drew A\u2663 from the stock."]);
  assert.equal(ctrl.newCard, "AC");
  // another seat's draw stays public
  const { ctrl: other, said: heard } = announcer();
  other.announceFrame({ type: "state", seats: [{}, {}], last: { seat: 1 }, events: [{ kind: "draw", data: { seat: 1, source: "stock" } }] }, { view: {} }, false);
  assert.deepEqual(heard, ["ann drew from the stock."]);
});

test("after a reload the log has a line for each earlier hand before this hand's moves", () => {
  const { ctrl, said } = announcer();
  // (a reload kept this hand's moves alone: 26 lines became 5 in a game of several hands)
  ctrl.view = { hand_number: 3, score_sheet: { hands: [
    { hand: 1, outcome: "knock", winner: 1, points: 13 },
    { hand: 2, outcome: "gin", winner: 0, points: 31 },
  ] }, history: [{ kind: "deal", data: { hand: 3, dealer: 1, upcard: "5D" } },
    { kind: "draw", data: { seat: 0, source: "stock", card: "KH" } }] };
  ctrl.announceFrame({ type: "snapshot", seats: [{}, {}], events: [] }, null, false);
  assert.deepEqual(said, [
    "Hand 1: ann knocked and won: 13 points.", "Hand 2: You went gin: 31 points.",
    "Hand 3: ann deals. The upcard is 5\u2666.", "You drew K\u2665 from the stock.",
  ]);
  // and the card just drawn is marked as it was before the reload
  assert.equal(ctrl.newCard, "KH");
  // at the game's end the last hand's own moves say its result: it is not logged twice
  const { ctrl: over, said: heard } = announcer();
  over.view = { hand_number: 2, score_sheet: { hands: [
    { hand: 1, outcome: "stalemate", winner: null, points: 0 },
    { hand: 2, outcome: "knock", winner: 0, points: 100 },
  ] }, history: [{ kind: "hand_over", data: { outcome: "knock", winner: 0, points: 100 } }] };
  over.announceFrame({ type: "snapshot", seats: [{}, {}], events: [] }, null, false);
  assert.deepEqual(heard, ["Hand 1: Stalemate: nobody scores this hand.", "You knocked and won: 100 points."]);
  // Rummy: the sheet's row says a rummy, as the live log did
  const { ctrl: rummy, said: read } = announcer();
  rummy.view = { hand_number: 2, score_sheet: { hands: [
    { hand: 1, outcome: "out", winner: 1, points: 40, going_rummy: true }] }, history: [] };
  rummy.announceFrame({ type: "snapshot", seats: [{}, {}], events: [] }, null, false);
  assert.deepEqual(read, ["Hand 1: ann went rummy: 40 points."]);
});

test("after a reload the log still names the cards you drew from the stock", () => {
  const { ctrl, said } = announcer();
  // a fresh page: the seat's own history names its stock draws (engine history_seen_by)
  ctrl.view = { history: [
    { kind: "deal", data: { hand: 1, dealer: 1, upcard: "5D" } },
    { kind: "draw", data: { seat: 0, source: "stock", stock: 30, card: "KH" } },
    { kind: "discard", data: { seat: 0, card: "2S" } },
    { kind: "draw", data: { seat: 1, source: "stock", stock: 29 } },
  ] };
  ctrl.announceFrame({ type: "snapshot", seats: [{}, {}], events: [] }, null, false);
  assert.deepEqual(said, [
    "Hand 1: ann deals. The upcard is 5\u2666.", "You drew K\u2665 from the stock.",
    "You discarded 2\u2660.", "ann drew from the stock.",
  ]);
});

test("back after a gap, your turns that ran out meanwhile are told", () => {
  const { ctrl, said, toasts } = announcer();
  const prev = { view: {}, seats: [{ timeouts: 0 }, {}] };
  // the snapshot after a reconnect: no "last", the count went up while away
  ctrl.announceFrame({ type: "snapshot", table: { status: "playing" }, seats: [{ timeouts: 1 }, {}], events: [] }, prev, true);
  const notice = "Your time ran out (1 of 3 in a row): a safe move was played for you.";
  assert.ok(said[0].startsWith(notice), said);
  assert.deepEqual(toasts.map((t) => t[2]), ["timeout"]);
  // a move of your own reset it: nothing to tell
  const quiet = announcer();
  quiet.ctrl.announceFrame({ type: "snapshot", table: { status: "playing" }, seats: [{ timeouts: 0 }, {}], events: [] }, { view: {}, seats: [{ timeouts: 2 }, {}] }, true);
  // nor a game already over (its result says it ended on time)
  quiet.ctrl.announceFrame({ type: "snapshot", table: { status: "finished" }, seats: [{ timeouts: 3 }, {}], events: [] }, prev, true);
  assert.deepEqual(quiet.said, []);
});

test("a page opened again tells of the turns that ran out while it was closed, once", () => {
  const saved = new Map();
  globalThis.window = { localStorage: { getItem: (k) => saved.get(k) ?? null, setItem: (k, v) => saved.set(k, v) } };
  try {
    const frame = { type: "snapshot", table: { status: "playing" }, seats: [{ timeouts: 1 }, {}], events: [] };
    const first = announcer();
    first.ctrl.data.table_id = 7;
    first.ctrl.announceFrame(frame, null, false); // a fresh page: no frame before it
    assert.ok(first.said.some((t) => t.startsWith("Your time ran out (1 of 3 in a row)")), first.said);
    const again = announcer(); // reloaded: told already
    again.ctrl.data.table_id = 7;
    again.ctrl.announceFrame(frame, null, false);
    assert.deepEqual(again.toasts, []);
  } finally {
    delete globalThis.window;
  }
});

test("a timeout says how many in a row, and warns before the one that loses", () => {
  const { ctrl, said, toasts } = announcer();
  const frame = { type: "state", seats: [{ timeouts: 2 }, {}], last: { seat: 0, source: "timeout" }, events: [] };
  ctrl.announceFrame(frame, { view: {} }, false);
  const warning = "Your time ran out (2 of 3 in a row): a safe move was played for you. One more and you lose the game: make a move to reset the count.";
  assert.deepEqual(said, [warning]);
  assert.deepEqual(toasts, [[warning, "error", "timeout"]]);
});

test("an opponent's timeout is a toast for the players too, not for spectators", () => {
  const { ctrl, toasts } = announcer();
  const frame = { type: "state", seats: [{}, { timeouts: 2 }], last: { seat: 1, source: "timeout" }, events: [] };
  ctrl.announceFrame(frame, { view: {} }, false);
  const line = "ann's time ran out (2 of 3 in a row): a safe move was played for them. One more and ann loses the game.";
  assert.deepEqual(toasts, [[line, "info", "timeout"]]);
  const watching = announcer();
  watching.ctrl.frame = { you: {} };
  watching.ctrl.announceFrame(frame, { view: {} }, false);
  assert.deepEqual(watching.toasts, []);
  assert.deepEqual(watching.said, [line]);
});

test("a game ended by a resignation is read out (no game_over event says so)", () => {
  const { ctrl, said } = announcer();
  const playing = { view: {}, table: { status: "playing" }, seats: [{}, {}] };
  ctrl.announceFrame({ type: "state", table: { status: "finished", finish: { ending: "resignation", loser_seat: 0, winner_seat: 1 } }, seats: [{}, {}], events: [] }, playing, false);
  assert.deepEqual(said, ["ann wins the game. You resigned."]);
  // a game over by its last hand says so once, by its event
  const normal = announcer();
  normal.ctrl.announceFrame({ type: "state", table: { status: "finished", finish: { ending: "normal", winner_seat: 0 } }, seats: [{}, {}], events: [{ kind: "game_over", data: { winner: 0 } }] }, playing, false);
  assert.deepEqual(normal.said, ["The game is over. You win."]);
});

test("a hand's result goes at the player's turn, or for a spectator at the next move", () => {
  const state = { type: "state", last: { seat: 1 } };
  assert.equal(resultEnds({ to_act: 1 }, state, 0, false), false); // ann moved: not yet ours
  assert.equal(resultEnds({ to_act: 1 }, state, 0, true), true); // our turn begins
  assert.equal(resultEnds({ to_act: 1 }, { type: "state", last: { seat: 0 } }, 0, false), true);
  assert.equal(resultEnds({ to_act: 1 }, state, null, false), true); // watching
  assert.equal(resultEnds({ to_act: 1 }, { type: "presence" }, null, false), false);
});
