// The table's chat (the box in the side panel) and the side panel's drawer on narrow
// screens. The server checks and stores every line; this keeps the last hundred on screen.

import { h, clear } from "./dom.js";

export const CHAT_MAX = 300;
const CHAT_KEEP = 100;

/** Characters as the server counts them (code points): an emoji is one, not two UTF-16
 * units (150 emoji had filled the box and its count read 300/300). */
export function chatLength(text) {
  return [...text].length;
}

/** The box's text cut back to ``CHAT_MAX`` characters by taking off what was typed or
 * pasted last, just before the caret (``caret``: a UTF-16 offset), as a browser's maxlength
 * does; the box's own maxlength counts UTF-16 units, so that emoji count one each, and let
 * 350 letters be typed under a count of 350/300. Returns {value, caret}. */
export function chatClamp(value, caret = value.length) {
  const over = chatLength(value) - CHAT_MAX;
  if (over <= 0) return { value, caret };
  const before = [...value.slice(0, caret)];
  const after = value.slice(caret);
  if (before.length < over) {
    const kept = [...value].slice(0, CHAT_MAX).join("");
    return { value: kept, caret: kept.length };
  }
  const head = before.slice(0, before.length - over).join("");
  return { value: head + after, caret: head.length };
}

/** A line to send, or {error} when it cannot be sent; null for nothing to send. */
export function chatDraft(value) {
  const text = value.trim();
  if (!text) return null;
  if (chatLength(text) > CHAT_MAX) return { error: `Chat messages are at most ${CHAT_MAX} characters.` };
  return { text };
}

export class Chat {
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.lines = [];
    this.lastSent = null;
  }

  /** The chat of a snapshot: replaces what is shown. */
  set(lines) {
    this.lines = [];
    clear(this.ctrl.el.chatList);
    for (const m of lines) this.add(m, false);
  }

  /** One line; a live one (``scroll``) is read out and flags the closed drawer. */
  add(m, scroll = true) {
    const ctrl = this.ctrl;
    const E = ctrl.el;
    if (!m || this.lines.some((x) => x.id === m.id)) return;
    this.lines.push(m);
    const li = h("li", { class: "chat-line" }, h("span", { class: `chat-name${m.seat === null || m.seat === undefined ? " is-spectator" : ""}`, text: m.name || m.username }), h("span", { class: "chat-text", text: m.text, attrs: { dir: "auto" } }));
    E.chatList.append(li);
    while (E.chatList.children.length > CHAT_KEEP) E.chatList.firstChild.remove();
    if (!scroll) return;
    E.chatList.scrollTop = E.chatList.scrollHeight;
    if (!ctrl.root.classList.contains("is-side-open")) E.sideBtn.classList.add("has-news");
    // read out, not written in the moves' log (the chat shows it: on a phone's drawer it was there twice)
    if (ctrl.frame && m.username !== (ctrl.frame.you && ctrl.frame.you.username)) ctrl.notices.say(`${m.name || m.username} says: ${m.text}`);
  }

  renderCount(composing = false) {
    const E = this.ctrl.el;
    const input = E.chatInput;
    if (!composing && chatLength(input.value) > CHAT_MAX) {
      const { value, caret } = chatClamp(input.value, input.selectionStart ?? input.value.length);
      input.value = value;
      input.setSelectionRange(caret, caret);
    }
    const n = chatLength(input.value);
    E.chatCount.textContent = `${n}/${CHAT_MAX}`;
    E.chatCount.classList.toggle("is-full", n >= CHAT_MAX);
  }

  submit(e) {
    e.preventDefault();
    const ctrl = this.ctrl;
    const draft = chatDraft(ctrl.el.chatInput.value);
    if (!draft) return;
    if (draft.error) {
      ctrl.notices.toast(draft.error, "error");
      return;
    }
    if (ctrl.sendChat(draft.text)) {
      this.lastSent = draft.text;
      ctrl.el.chatInput.value = "";
      this.renderCount();
    }
  }

  /** The server refused the last line: give it back to edit, unless a new one is typed. */
  restore() {
    const input = this.ctrl.el.chatInput;
    if (this.lastSent && !input.value) {
      input.value = this.lastSent;
      this.renderCount();
    }
  }

  /** Whether logging in is needed to chat: the form or the note shows. */
  renderAccess(canChat) {
    const E = this.ctrl.el;
    E.chatForm.hidden = !canChat;
    E.chatNote.hidden = canChat;
    // (only a visitor who is not signed in may not: a link back here through the log-in)
    if (canChat) E.chatNote.textContent = "";
    else if (!E.chatNote.firstChild) {
      const back = encodeURIComponent(window.location.pathname + window.location.search);
      E.chatNote.append(h("a", { text: "Log in", attrs: { href: `/accounts/login/?next=${back}` } }), " to chat at this table.");
    }
  }
}
