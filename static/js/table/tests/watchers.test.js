import { test } from "node:test";
import assert from "node:assert/strict";

// The least of a document that h() needs.
globalThis.document = {
  createElement(tag) {
    return { tag, className: "", textContent: "", attrs: {}, dataset: {}, kids: [], setAttribute(k, v) { this.attrs[k] = v; }, appendChild(c) { this.kids.push(c); }, addEventListener() {} };
  },
  createTextNode(text) { return { text }; },
};
const { watchersChip } = await import("../seats.js");

test("the watchers' chip says how many watch, in words a screen reader reads too", () => {
  const chip = watchersChip(3);
  assert.equal(chip.className, "chip chip-watchers");
  assert.equal(chip.attrs.title, "3 watching this game");
  assert.equal(chip.attrs["aria-label"], undefined); // (not allowed on a span without a role)
  assert.deepEqual(chip.kids.map((k) => k.textContent ?? k.text), ["3", " ", "watching"]);
});
