import { test } from "node:test";
import assert from "node:assert/strict";

// The least of a document that el() needs: elements with text, attributes and children (and
// no replay on the page, which the module looks for as it loads).
globalThis.document = {
  querySelector: () => null,
  getElementById: () => null,
  createElement(tag) {
    return {
      tag, className: "", textContent: "", attrs: {}, children: [],
      setAttribute(k, v) { this.attrs[k] = v; },
      append(...kids) { this.children.push(...kids); },
    };
  },
};
const { sheetHead } = await import("../viewer.js");

const cells = (row) => row.children.map((c) => `${c.textContent}${c.attrs.colspan ? `/${c.attrs.colspan}` : ""}`);

test("one game: a column per seat", () => {
  const head = sheetHead(["ann", "bob"], 1);
  assert.equal(head.children.length, 1);
  assert.deepEqual(cells(head.children[0]), ["Hand", "Result", "ann", "bob"]);
});

test("Hollywood: each game's seats under its own heading (the totals were added together)", () => {
  const head = sheetHead(["ann", "bob"], 3);
  assert.deepEqual(cells(head.children[0]), ["Hand", "Result", "Game 1/2", "Game 2/2", "Game 3/2"]);
  assert.deepEqual(cells(head.children[1]), ["ann", "bob", "ann", "bob", "ann", "bob"]);
  assert.equal(head.children[0].children[2].attrs.scope, "colgroup");
});
