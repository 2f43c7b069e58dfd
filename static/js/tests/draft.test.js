import test from "node:test";
import assert from "node:assert/strict";

import { unsentRest } from "../draft.js";

test("a box unchanged since the send is emptied", () => {
  assert.equal(unsentRest("hello", "hello"), "");
});

test("what was typed while the send was on its way stays", () => {
  // (an audit's "my next message, being typed" was cut to "ssage, being typed")
  assert.equal(unsentRest("first", "first\nmy next message, being typed"),
    "my next message, being typed");
  assert.equal(unsentRest("first", "first and more"), "and more");
});

test("a box edited meanwhile is left as it is", () => {
  assert.equal(unsentRest("first", "fir"), "fir");
  assert.equal(unsentRest("first", "another text"), "another text");
  assert.equal(unsentRest("first", ""), "");
});
