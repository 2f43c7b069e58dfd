import { test } from "node:test";
import assert from "node:assert/strict";

// The least of a document that h() needs: elements with a class, text and attributes.
globalThis.document = {
  createElement(tag) {
    return { tag, className: "", textContent: "", attrs: {}, dataset: {}, setAttribute(k, v) { this.attrs[k] = v; }, appendChild() {} };
  },
};
const { botBadge } = await import("../seats.js");

test("a bot account's seat carries a BOT badge; people, computers and empty seats none", () => {
  const badge = botBadge({ kind: "user", name: "robo", is_bot: true });
  assert.equal(badge.textContent, "BOT");
  assert.equal(badge.className, "badge badge-bot");
  assert.match(badge.attrs.title, /bot account/);
  assert.equal(botBadge({ kind: "user", name: "ann", is_bot: false }), null);
  assert.equal(botBadge({ kind: "user", name: "ann" }), null); // an older frame
  assert.equal(botBadge({ kind: "bot", name: "Computer (Easy)", bot_level: 1, is_bot: false }), null);
  assert.equal(botBadge({ kind: "empty", name: "" }), null);
});
