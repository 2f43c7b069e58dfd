import { test } from "node:test";
import assert from "node:assert/strict";
import { Attention, alertTitle, plan, readPreferences } from "../../attention.js";

function fakeBrowser({ hidden = false, permission = "granted", tapped = true } = {}) {
  const calls = { vibrate: [], notes: 0, notifications: [] };
  const listeners = {};
  const doc = {
    title: "Table 3 · Gin Rummy",
    visibilityState: hidden ? "hidden" : "visible",
    addEventListener: (t, f) => { listeners[t] = f; },
    getElementById: () => null,
  };
  class Notification {
    static permission = permission;
    constructor(title, opts) { calls.notifications.push({ title, ...opts }); }
    close() {}
  }
  class AudioContext {
    constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
    createOscillator() {
      return { frequency: { setValueAtTime() {} }, connect() {}, start: () => { calls.notes += 1; }, stop() {} };
    }
    createGain() {
      return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect() {} };
    }
  }
  const win = {
    Notification, AudioContext, addEventListener: (t, f) => { listeners[t] = f; },
    navigator: {
      vibrate: (p) => { calls.vibrate.push(p); return true; },
      userActivation: { hasBeenActive: tapped },
    },
    focus() {}, location: { assign() {} },
  };
  return { win, doc, calls, listeners };
}

test("the plan: sound and notifications only out of sight; a buzz when away; each can be off", () => {
  const all = { sound: true, vibrate: true, notifications: true, title: true };
  assert.deepEqual(plan("turn", all, { hidden: false, idle: false, permission: "granted" }),
    { title: true, vibrate: false, sound: false, notification: false });
  assert.deepEqual(plan("message", all, { hidden: true, idle: false, permission: "granted" }),
    { title: true, vibrate: true, sound: true, notification: true });
  assert.equal(plan("message", all, { hidden: false, idle: false, permission: "granted" }).title, false);
  assert.equal(plan("turn", all, { hidden: false, idle: true, permission: "granted" }).vibrate, true);
  assert.equal(plan("turn", all, { hidden: true, idle: false, permission: "default" }).notification, false);
  const none = { sound: false, vibrate: false, notifications: false, title: false };
  assert.deepEqual(plan("turn", none, { hidden: true, idle: true, permission: "granted" }),
    { title: false, vibrate: false, sound: false, notification: false });
});

test("your turn in a hidden tab: title, buzz, two notes, one notification", () => {
  const b = fakeBrowser({ hidden: true });
  const a = new Attention({ win: b.win, doc: b.doc });
  const ways = a.alert("turn", { title: "Your turn", body: "Draw a card.", tag: "turn-3" });
  assert.deepEqual(ways, { title: true, vibrate: true, sound: true, notification: true });
  assert.equal(b.doc.title, "Your turn - Gin Rummy");
  assert.equal(b.calls.vibrate.length, 1);
  assert.equal(b.calls.notes, 2);
  assert.deepEqual(b.calls.notifications.map((n) => [n.title, n.body, n.tag]), [["Your turn", "Draw a card.", "turn-3"]]);
  a.turn(false); // the turn is over: the page's own title comes back
  assert.equal(b.doc.title, "Table 3 · Gin Rummy");
});

test("a player looking at the page gets only the title; preferences turn each way off", () => {
  let t = 0;
  const b = fakeBrowser({ hidden: false });
  const a = new Attention({ win: b.win, doc: b.doc, now: () => t });
  a.alert("turn");
  assert.deepEqual([b.calls.vibrate.length, b.calls.notes, b.calls.notifications.length], [0, 0, 0]);
  assert.equal(b.doc.title, alertTitle("turn"));
  t = 20000; // untouched for 20 s: a buzz (a phone on the table)
  a.alert("turn");
  assert.equal(b.calls.vibrate.length, 1);

  const off = fakeBrowser({ hidden: true });
  const quiet = new Attention({ win: off.win, doc: off.doc, prefs: { sound: false, vibrate: false, notifications: false, title: false } });
  quiet.alert("message", { title: "New message from Bob" });
  assert.deepEqual([off.calls.vibrate.length, off.calls.notes, off.calls.notifications.length], [0, 0, 0]);
  assert.equal(off.doc.title, "Table 3 · Gin Rummy");
});

test("a message in a hidden tab shows in the title until the tab is shown again", () => {
  const b = fakeBrowser({ hidden: true, permission: "default" });
  const a = new Attention({ win: b.win, doc: b.doc });
  const ways = a.alert("message", { title: "New message from Bob", body: "hi" });
  assert.equal(ways.notification, false); // never asked: no notification, and no prompt either
  assert.equal(b.doc.title, "New message from Bob - Gin Rummy");
  b.doc.visibilityState = "visible";
  b.listeners.visibilitychange();
  assert.equal(b.doc.title, "Table 3 · Gin Rummy");
});

test("preferences come from the page's JSON, with defaults for what is missing", () => {
  const doc = { getElementById: () => ({ textContent: '{"sound": false, "title": true, "x": 1}' }) };
  assert.deepEqual(readPreferences(doc), { sound: false, vibrate: true, notifications: true, title: true });
  assert.deepEqual(readPreferences({ getElementById: () => ({ textContent: "{" }) }).sound, true);
});

test("a page nobody has tapped yet does not buzz (the browser would refuse and log it)", () => {
  const b = fakeBrowser({ hidden: true, tapped: false });
  const ways = new Attention({ win: b.win, doc: b.doc }).alert("match", { title: "Your match is ready" });
  assert.equal(ways.vibrate, false);
  assert.equal(b.calls.vibrate.length, 0);
  assert.equal(ways.sound, true); // the other ways are still tried
});
