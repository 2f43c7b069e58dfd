import { test } from "node:test";
import assert from "node:assert/strict";
import { placeInOrder, updateChildren } from "../dom.js";

/** Just enough of an element for placeInOrder: children, insertBefore, removeChild. */
function fakeParent(names) {
  const el = {
    children: [],
    moves: 0,
    get childNodes() {
      return this.children;
    },
    get lastChild() {
      return this.children[this.children.length - 1] || null;
    },
    insertBefore(node, ref) {
      const at = this.children.indexOf(node);
      if (at >= 0) this.children.splice(at, 1);
      const i = ref ? this.children.indexOf(ref) : this.children.length;
      this.children.splice(i, 0, node);
      this.moves += 1;
      return node;
    },
    removeChild(node) {
      this.children.splice(this.children.indexOf(node), 1);
      return node;
    },
  };
  el.children = names.map((name) => ({ name }));
  return el;
}

const names = (el) => el.children.map((c) => c.name);

test("elements already in place are neither moved nor replaced", () => {
  const ul = fakeParent(["a", "b", "c"]);
  const [a, b, c] = ul.children;
  placeInOrder(ul, [a, b, c]);
  assert.equal(ul.moves, 0);
  assert.deepEqual(ul.children, [a, b, c]);
});

test("new elements join, gone ones leave, and the kept ones are the same objects", () => {
  const ul = fakeParent(["a", "b", "c", "d"]);
  const [a, b, c] = ul.children;
  const e = { name: "e" };
  placeInOrder(ul, [b, a, e, c]);
  assert.deepEqual(names(ul), ["b", "a", "e", "c"]);
  assert.ok(ul.children[0] === b && ul.children[1] === a && ul.children[3] === c);
  placeInOrder(ul, []);
  assert.deepEqual(names(ul), []);
});

test("a new child equal to the old one at its place leaves the old one there", () => {
  const node = (name) => ({ name, isEqualNode: (other) => other.name === name });
  const ul = fakeParent([]);
  ul.children = [node("prompt"), node("continue"), node("sheet")];
  const [prompt, cont] = ul.children;
  const fresh = [node("prompt"), node("continue"), node("rating")];
  updateChildren(ul, fresh, null, false);
  assert.deepEqual(names(ul), ["prompt", "continue", "rating"]);
  assert.ok(ul.children[0] === prompt && ul.children[1] === cont, "the equal ones are the old ones");
  assert.ok(ul.children[2] === fresh[2], "the changed one is the new one");
});
