import { test } from "node:test";
import assert from "node:assert/strict";

// A stand-in for the browser's WebSocket, document and window.
class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = {};
    FakeSocket.all.push(this);
  }
  addEventListener(type, fn) {
    (this.listeners[type] ||= []).push(fn);
  }
  emit(type, ev = {}) {
    for (const fn of this.listeners[type] || []) fn(ev);
  }
  open() {
    this.readyState = 1;
    this.emit("open");
  }
  receive(obj) {
    this.emit("message", { data: JSON.stringify(obj) });
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close(code = 1006) {
    this.readyState = 3;
    this.emit("close", { code });
  }
}
globalThis.WebSocket = FakeSocket;
globalThis.document = { addEventListener() {}, visibilityState: "visible" };
globalThis.window = {
  listeners: {},
  addEventListener(type, fn) {
    (this.listeners[type] ||= []).push(fn);
  },
};

const { TableSocket, socketUrl } = await import("../socket.js");

function setup() {
  FakeSocket.all = [];
  const seen = { frames: [], errors: [], statuses: [], acks: [] };
  const s = new TableSocket("ws://x/ws/table/1/", {
    frame: (f, info) => seen.frames.push([f.version, info.gap]),
    error: (f, p) => seen.errors.push([f.code, p && p.id]),
    ack: (f, p) => seen.acks.push(p && p.id),
    status: (st) => seen.statuses.push(st),
  });
  return { s, seen };
}

test("socket URL from the page", () => {
  assert.equal(socketUrl({ protocol: "https:", host: "gin.example" }, "/ws/table/4/", ""), "wss://gin.example/ws/table/4/");
  assert.equal(socketUrl({ protocol: "http:", host: "h:8000" }, "/ws/table/4/", "a b"), "ws://h:8000/ws/table/4/?invite=a%20b");
});

test("frames in order, stale ignored, gaps flagged; moves carry version and id", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const { s, seen } = setup();
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 3 });
  ws.receive({ type: "state", version: 4 });
  ws.receive({ type: "state", version: 4 });
  ws.receive({ type: "state", version: 7 });
  assert.deepEqual(seen.frames, [[3, false], [4, false], [7, true]]);
  assert.deepEqual(ws.sent.at(-1), { type: "snapshot" }, "a gap asks for a snapshot");
  const id = s.act("draw:stock");
  assert.ok(id);
  assert.deepEqual(ws.sent.at(-1), { type: "action", action: "draw:stock", version: 7, id });
  assert.equal(s.act("pass"), null, "one move at a time");
  ws.receive({ type: "ack", id, version: 8 });
  assert.deepEqual(seen.acks, [id]);
  const id2 = s.act("discard:QS");
  ws.receive({ type: "error", code: "illegal_action", message: "no", id: id2, version: 7 });
  assert.deepEqual(seen.errors, [["illegal_action", id2]]);
  assert.ok(!s.pending.busy);
  // the error says the table is at another version than shown: ask for the truth
  ws.receive({ type: "error", code: "not_your_turn", id: "zzz", version: 9 });
  assert.deepEqual(ws.sent.at(-1), { type: "snapshot" });
  s.stop();
});

test("a move with no answer is forgotten and a snapshot requested", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const { s } = setup();
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 1 });
  s.act("pass");
  t.mock.timers.tick(10001);
  assert.ok(!s.pending.busy);
  assert.deepEqual(ws.sent.at(-1), { type: "snapshot" });
  s.stop();
});

test("reconnects with backoff and resumes from the snapshot; refusals stop it", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const { s, seen } = setup();
  s.backoff.random = () => 0.5;
  s.start();
  FakeSocket.all[0].open();
  FakeSocket.all[0].receive({ type: "snapshot", version: 5 });
  s.act("pass");
  FakeSocket.all[0].close(1006);
  assert.equal(seen.statuses.at(-1), "offline");
  t.mock.timers.tick(499);
  assert.equal(FakeSocket.all.length, 1);
  t.mock.timers.tick(1);
  assert.equal(FakeSocket.all.length, 2);
  FakeSocket.all[1].close(1006); // still down: the next wait is longer
  t.mock.timers.tick(999);
  assert.equal(FakeSocket.all.length, 2);
  t.mock.timers.tick(1);
  assert.equal(FakeSocket.all.length, 3);
  const ws = FakeSocket.all[2];
  ws.open();
  assert.equal(seen.statuses.at(-1), "open");
  ws.receive({ type: "snapshot", version: 6 });
  assert.deepEqual(seen.frames.at(-1), [6, false]);
  assert.ok(!s.pending.busy, "the snapshot settles the move sent before the drop");
  ws.close(4403);
  assert.equal(seen.statuses.at(-1), "refused");
  t.mock.timers.tick(60000);
  assert.equal(FakeSocket.all.length, 3);
});

test("a pong ahead of the shown version asks for a snapshot", () => {
  const { s } = setup();
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 5 });
  ws.receive({ type: "pong", t: 1, version: 5 });
  assert.notDeepEqual(ws.sent.at(-1), { type: "snapshot" }, "up to date: nothing to ask");
  ws.receive({ type: "pong", t: 2, version: 6 });
  assert.deepEqual(ws.sent.at(-1), { type: "snapshot" }, "a lost frame is fetched");
  s.stop();
});

test("pings every 10 s, and after 4 s of silence while waiting for another seat", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const { s } = setup();
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 1 });
  const pings = () => ws.sent.filter((m) => m.type === "ping").length;
  t.mock.timers.tick(9000);
  assert.equal(pings(), 0);
  t.mock.timers.tick(1000);
  assert.equal(pings(), 1);
  s.waiting = true;
  t.mock.timers.tick(4000);
  assert.equal(pings(), 2, "silence while waiting: ping sooner");
  ws.receive({ type: "state", version: 2 });
  t.mock.timers.tick(3000);
  assert.equal(pings(), 2, "a frame came: no need yet");
  s.stop();
});

test("a socket that stops answering pings is dropped, says offline and reconnects", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const { s, seen } = setup();
  let settled = 0;
  s.h.settled = () => settled++;
  s.backoff.random = () => 0.5;
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 1 });
  t.mock.timers.tick(10000); // the ping goes out; the network is gone: no pong, no close
  assert.equal(ws.sent.filter((m) => m.type === "ping").length, 1);
  s.act("pass");
  assert.ok(s.pending.busy);
  t.mock.timers.tick(9000);
  assert.equal(seen.statuses.at(-1), "open", "not yet: a pong may be slow");
  t.mock.timers.tick(1000);
  assert.equal(seen.statuses.at(-1), "offline", "10 s without a pong: shown offline");
  assert.ok(!s.pending.busy && settled === 1, "the move it carried is given up, not 'Sending...'");
  t.mock.timers.tick(500);
  assert.equal(FakeSocket.all.length, 2, "and it reconnects");
  FakeSocket.all[1].open();
  FakeSocket.all[1].receive({ type: "snapshot", version: 2 });
  t.mock.timers.tick(15000);
  FakeSocket.all[1].receive({ type: "pong", t: 1, version: 2 });
  t.mock.timers.tick(15000);
  assert.equal(FakeSocket.all.length, 2, "answered pings keep the socket");
  s.stop();
});

test("the browser going offline drops the socket at once; online reconnects", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const { s, seen } = setup();
  s.backoff.random = () => 0.5;
  s.start();
  FakeSocket.all[0].open();
  window.listeners.offline.at(-1)();
  assert.equal(seen.statuses.at(-1), "offline");
  window.listeners.online.at(-1)();
  assert.equal(FakeSocket.all.length, 2);
  s.stop();
});

test("with no network nothing is tried until the browser is online again", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const { s, seen } = setup();
  const details = [];
  s.h.status = (st, detail) => { seen.statuses.push(st); details.push(detail); };
  s.start();
  FakeSocket.all[0].open();
  globalThis.navigator = { onLine: false };
  try {
    window.listeners.offline.at(-1)();
    assert.equal(seen.statuses.at(-1), "offline");
    assert.equal(details.at(-1), null, "no countdown: it waits for the network");
    t.mock.timers.tick(120000);
    assert.equal(FakeSocket.all.length, 1, "no attempt while offline");
    navigator.onLine = true;
    window.listeners.online.at(-1)();
    assert.equal(FakeSocket.all.length, 2);
  } finally {
    delete globalThis.navigator;
    s.stop();
  }
});

test("a move refused as unavailable is sent again with the same id", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"] });
  const { s, seen } = setup();
  s.start();
  const ws = FakeSocket.all[0];
  ws.open();
  ws.receive({ type: "snapshot", version: 3 });
  const id = s.act("draw:stock");
  ws.receive({ type: "error", code: "unavailable", id });
  assert.deepEqual(seen.errors, [], "not shown: it is tried again");
  assert.ok(s.pending.busy);
  t.mock.timers.tick(1000);
  assert.deepEqual(ws.sent.at(-1), { type: "action", action: "draw:stock", version: 3, id });
  ws.receive({ type: "error", code: "duplicate", id, version: 4 });
  assert.deepEqual(seen.errors, [["duplicate", id]]);
  assert.ok(!s.pending.busy);
  // after the last retry the refusal is shown
  const id2 = s.act("pass");
  for (const wait of [1000, 2000, 4000]) {
    ws.receive({ type: "error", code: "unavailable", id: id2 });
    t.mock.timers.tick(wait);
  }
  ws.receive({ type: "error", code: "unavailable", id: id2 });
  assert.deepEqual(seen.errors.at(-1), ["unavailable", id2]);
  s.stop();
});
