import { test } from "node:test";
import assert from "node:assert/strict";
import { copyText } from "../../clipboard.js";

function withClipboard(writeText, fn) {
  const had = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { value: { clipboard: { writeText } }, configurable: true });
  const warn = console.warn;
  console.warn = () => {};
  return fn().finally(() => {
    console.warn = warn;
    if (had) Object.defineProperty(globalThis, "navigator", had);
    else delete globalThis.navigator;
  });
}

test("a clipboard write that never answers gives way to the fallback", async () => {
  // (a CI run's "Copy the token" waited 30 s for a write that neither resolved nor failed)
  await withClipboard(() => new Promise(() => {}), async () => {
    const started = Date.now();
    assert.equal(await copyText("gin_x", null, 50), false);
    assert.ok(Date.now() - started < 1000);
  });
});

test("a write that answers copies; one refused tries the fallback", async () => {
  await withClipboard(async () => {}, async () => assert.equal(await copyText("gin_x", null, 50), true));
  await withClipboard(async () => { throw new Error("denied"); }, async () => assert.equal(await copyText("gin_x", null, 50), false));
});
