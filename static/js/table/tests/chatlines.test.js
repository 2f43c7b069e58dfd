import { test } from "node:test";
import assert from "node:assert/strict";

// The least of a document that h() needs.
globalThis.document = {
  createElement(tag) {
    return { tag, className: "", textContent: "", attrs: {}, dataset: {}, kids: [], setAttribute(k, v) { this.attrs[k] = v; }, appendChild(c) { this.kids.push(c); }, append(...c) { this.kids.push(...c); }, addEventListener() {} };
  },
  createTextNode(text) { return { text }; },
};
globalThis.window = { location: { pathname: "/tables/7/", search: "" } };
const { Chat } = await import("../chat.js");

function chatOf() {
  const said = [];
  const logged = [];
  const list = { children: [], scrollTop: 0, scrollHeight: 0, append(li) { this.children.push(li); } };
  const note = { kids: [], hidden: false, textContent: "", get firstChild() { return this.kids[0] || null; }, append(...c) { this.kids.push(...c); } };
  const ctrl = {
    el: { chatList: list, sideBtn: { classList: { add() {} } }, chatForm: {}, chatNote: note },
    root: { classList: { contains: () => false } },
    frame: { you: { username: "me" } },
    notices: { say: (t) => said.push(t), announce: (t) => logged.push(t) },
  };
  return { chat: new Chat(ctrl), said, logged, note };
}

test("another's chat line is read out, not written in the moves' log", () => {
  const { chat, said, logged } = chatOf();
  chat.add({ id: 1, username: "ann", name: "ann", seat: 1, text: "gg" });
  assert.deepEqual(said, ["ann says: gg"]);
  assert.deepEqual(logged, []);
});

test("a visitor who is not signed in gets a link to log in and come back", () => {
  const { chat, note } = chatOf();
  chat.renderAccess(false);
  const link = note.kids[0];
  assert.equal(link.tag, "a");
  assert.equal(link.attrs.href, "/accounts/login/?next=%2Ftables%2F7%2F");
  chat.renderAccess(false); // drawn once
  assert.equal(note.kids.length, 2);
});
