import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { TableApp } from "../app.js";

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
