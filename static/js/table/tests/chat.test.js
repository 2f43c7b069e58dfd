import { test } from "node:test";
import assert from "node:assert/strict";
import { CHAT_MAX, chatClamp, chatDraft, chatLength } from "../chat.js";
import { trimTo } from "../notices.js";
import { plural, timeoutNotice } from "../announce.js";

test("a chat line is trimmed and at most CHAT_MAX characters", () => {
  assert.equal(chatDraft("   "), null);
  assert.deepEqual(chatDraft("  hi  "), { text: "hi" });
  assert.deepEqual(chatDraft("x".repeat(CHAT_MAX)), { text: "x".repeat(CHAT_MAX) });
  assert.deepEqual(chatDraft("x".repeat(CHAT_MAX + 1)), { error: `Chat messages are at most ${CHAT_MAX} characters.` });
});

test("the box is cut back to CHAT_MAX characters, taking off what was typed or pasted last", () => {
  const full = "x".repeat(CHAT_MAX);
  assert.deepEqual(chatClamp(full), { value: full, caret: CHAT_MAX });
  // 50 letters past the limit at the end: the 50 go (the box had let 350 be typed)
  assert.deepEqual(chatClamp(full + "y".repeat(50)), { value: full, caret: CHAT_MAX });
  // pasted in the middle: the end of the paste goes, the text after the caret stays
  const pasted = "a".repeat(100) + "PASTE" + "b".repeat(CHAT_MAX - 100);
  assert.deepEqual(chatClamp(pasted, 105), { value: "a".repeat(100) + "b".repeat(CHAT_MAX - 100), caret: 100 });
  // an emoji is one character: 300 of them stay whole, the 301st goes whole
  const emoji = "🂡".repeat(CHAT_MAX + 1);
  const cut = chatClamp(emoji);
  assert.equal(chatLength(cut.value), CHAT_MAX);
  assert.equal(cut.value, "🂡".repeat(CHAT_MAX));
  assert.equal(cut.caret, cut.value.length);
});

test("the live region, the log and the toasts keep only their newest lines", () => {
  const kids = [1, 2, 3, 4, 5, 6, 7];
  const el = {
    get children() { return kids; },
    get firstChild() { return { remove: () => kids.shift() }; },
  };
  trimTo(el, 5);
  assert.deepEqual(kids, [3, 4, 5, 6, 7]);
});

test("plain-language helpers", () => {
  assert.equal(plural(1, "card"), "1 card");
  assert.equal(plural(0, "card"), "0 cards");
  assert.equal(timeoutNotice("You"), "Your time ran out: a safe move was played for you.");
  assert.equal(timeoutNotice("ann"), "ann's time ran out: a safe move was played for them.");
  // the count in a row, and a warning before the one that loses the game
  assert.equal(timeoutNotice("You", 1, 3), "Your time ran out (1 of 3 in a row): a safe move was played for you.");
  assert.equal(timeoutNotice("You", 2, 3), "Your time ran out (2 of 3 in a row): a safe move was played for you. One more and you lose the game: make a move to reset the count.");
  assert.equal(timeoutNotice("ann", 2, 3), "ann's time ran out (2 of 3 in a row): a safe move was played for them. One more and ann loses the game.");
});

test("a line is measured in characters, as the server counts them: an emoji is one", () => {
  const emoji = "\u{1F600}";
  assert.equal(chatLength(emoji.repeat(3)), 3);
  assert.deepEqual(chatDraft(emoji.repeat(CHAT_MAX)), { text: emoji.repeat(CHAT_MAX) });
  assert.ok(chatDraft(emoji.repeat(CHAT_MAX + 1)).error);
});
